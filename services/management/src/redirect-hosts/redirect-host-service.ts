import { OWNER_RECORD_LIMITS } from '@cm/contracts';
import { NotFoundError } from '@cm/platform';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { quotaExceeded } from '../quotas/quota-exceeded';
import type { UserAnnouncements } from '../users/user-service';
import type { UserStore } from '../users/user-store';

/** A new content URL's host against the owner's redirect hosts (see RedirectHostService.placeFor). */
type HostPlace = 'listed' | 'free' | 'full';

export interface HostPlacement {
  place: HostPlace;
  /** The owner's record revision, read before the hosts were; undefined for a URL without a host. */
  revision?: number;
}

/** What GET and PUT /api/v3/redirect-hosts/ answer. */
export interface RedirectHostsView {
  /** The caller's explicit list (what PUT replaces). */
  hosts: string[];
  /** The hosts of the caller's content URLs, allowed as well (read-only: they follow the content). */
  content_hosts: string[];
}

export interface RedirectHostServiceDeps {
  store: Pick<UserStore, 'findLive' | 'setRedirectHosts'>;
  /** Distinct redirect hosts of an owner's content URLs. */
  contentHosts(ownerId: string): Promise<string[]>;
  announcer: UserAnnouncements;
  /** QUOTA_REDIRECT_HOSTS_PER_USER. */
  quota: number;
  now?: () => Date;
}

export const RECORD_QUOTA = 'redirect hosts per owner, explicit and from content URLs together';

/**
 * Where the pixel may redirect a click for an owner (an open redirect otherwise): the hosts of the
 * owner's content URLs plus an explicit list the owner manages. Each user manages its own list;
 * a change is announced in the owner's registry record.
 */
export class RedirectHostService {
  private readonly now: () => Date;

  constructor(private readonly deps: RedirectHostServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async get(caller: AuthenticatedUser): Promise<RedirectHostsView> {
    const [user, contentHosts] = await Promise.all([
      this.deps.store.findLive(caller.unique_id),
      this.deps.contentHosts(caller.unique_id),
    ]);
    if (!user) throw new NotFoundError('no such user');
    return { hosts: user.redirect_hosts ?? [], content_hosts: contentHosts };
  }

  /** Replaces the caller's explicit list (already normalised, without repeats). */
  async set(caller: AuthenticatedUser, hosts: string[]): Promise<RedirectHostsView> {
    if (hosts.length > this.deps.quota)
      throw quotaExceeded('explicit redirect hosts per user', this.deps.quota, 'hosts');
    const contentHosts = await this.deps.contentHosts(caller.unique_id);
    if (new Set([...hosts, ...contentHosts]).size > OWNER_RECORD_LIMITS.redirectHosts)
      throw quotaExceeded(RECORD_QUOTA, OWNER_RECORD_LIMITS.redirectHosts, 'hosts');
    if (!(await this.deps.store.setRedirectHosts(caller.unique_id, hosts, this.now())))
      throw new NotFoundError('no such user');
    await this.deps.announcer.announce(caller.unique_id);
    return { hosts, content_hosts: contentHosts };
  }

  /**
   * Where a content URL with this host stands in the owner's record: already `listed` (its
   * redirect hosts do not change, nothing to announce), `free` to be added, or the record is
   * `full`. A URL without a host ("") contributes none: listed. The user is read before the
   * content hosts, so any change that drops the host after they were read has a higher revision
   * than the one returned (see ContentService.add).
   */
  async placeFor(ownerId: string, host: string): Promise<HostPlacement> {
    if (host === '') return { place: 'listed' };
    const user = await this.deps.store.findLive(ownerId);
    const hosts = new Set([...(user?.redirect_hosts ?? []), ...(await this.deps.contentHosts(ownerId))]);
    const revision = user?.revision;
    if (hosts.has(host)) return { place: 'listed', revision };
    return { place: hosts.size < OWNER_RECORD_LIMITS.redirectHosts ? 'free' : 'full', revision };
  }

  /** The owner's current record revision (undefined for a deleted or unknown user). */
  async revisionOf(ownerId: string): Promise<number | undefined> {
    return (await this.deps.store.findLive(ownerId))?.revision;
  }
}
