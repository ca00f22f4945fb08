import { resolveTransportConfig, segment, type ClientOptions, type RequestOptions } from './client-options';
import { HttpTransport, type CallSpec } from './http-transport';
import type {
  AddContentInput,
  Campaign,
  CampaignEdited,
  CampaignWithContent,
  Content,
  CreateCampaignInput,
  CreateUserInput,
  EditCampaignInput,
  EditContentInput,
  EditUserInput,
  OwnUser,
  Page,
  PageRequest,
  RedirectHosts,
  User,
} from './management-types';

export interface ManagementClientOptions extends ClientOptions {
  /** The management API's address ({base_url}), e.g. "https://campaigns.example.com". */
  baseUrl: string;
  /** The user's `api_token`, sent as `Authorization: Bearer`. */
  apiToken: string;
}

/**
 * The management API (/api/v3/) as one user sees it. Creates are sent once; reads, deletes and
 * edits (which set state, so a repeat changes nothing) are retried when that is safe.
 */
export class ManagementClient {
  private readonly transport: HttpTransport;
  private readonly apiToken: string;

  constructor(options: ManagementClientOptions) {
    if (typeof options.apiToken !== 'string' || options.apiToken === '') throw new TypeError('apiToken is required');
    this.transport = new HttpTransport(resolveTransportConfig(options.baseUrl, options, 'baseUrl'));
    this.apiToken = options.apiToken;
  }

  /** The caller itself, owner or sub-user: its unique_id (owner_id of its events) and time zone. */
  getOwnUser(options?: RequestOptions): Promise<OwnUser> {
    return this.call({ method: 'GET', path: '/api/v3/user/me/', idempotent: true }, options);
  }

  /** The sub-users of the caller's account (account owners only; sub-users get 403). */
  listUsers(options?: RequestOptions): Promise<User[]> {
    return this.call({ method: 'GET', path: '/api/v3/user/', idempotent: true }, options);
  }

  /** One page of `listUsers()` (opt-in pagination). */
  listUsersPage(page: PageRequest, options?: RequestOptions): Promise<Page<User>> {
    return this.call({ method: 'GET', path: '/api/v3/user/', query: pageQuery(page), idempotent: true }, options);
  }

  /** A sub-user of the caller's account. 409 when the e-mail is taken or the account's quota is reached. */
  createUser(input: CreateUserInput, options?: RequestOptions): Promise<User> {
    return this.call({ method: 'POST', path: '/api/v3/user/', body: input, idempotent: false }, options);
  }

  editUser(uniqueId: string, input: EditUserInput, options?: RequestOptions): Promise<User> {
    return this.call(
      { method: 'POST', path: `/api/v3/user/${segment(uniqueId, 'uniqueId')}/`, body: input, idempotent: true },
      options,
    );
  }

  /**
   * A new api_token for the user (the old one is refused at once): an account owner rotates its
   * own and its sub-users' tokens, a sub-user only its own. Sent once: a repeat would issue
   * another token. Rotating the caller's own token makes this client's token stale.
   */
  rotateToken(uniqueId: string, options?: RequestOptions): Promise<User> {
    return this.call(
      { method: 'POST', path: `/api/v3/user/${segment(uniqueId, 'uniqueId')}/token/`, idempotent: false },
      options,
    );
  }

  /** Deletes a sub-user and the campaigns it owns. */
  deleteUser(uniqueId: string, options?: RequestOptions): Promise<void> {
    return this.delete(`/api/v3/user/${segment(uniqueId, 'uniqueId')}/`, options);
  }

  /** The caller's explicit redirect hosts and the hosts of its content URLs. */
  getRedirectHosts(options?: RequestOptions): Promise<RedirectHosts> {
    return this.call({ method: 'GET', path: '/api/v3/redirect-hosts/', idempotent: true }, options);
  }

  /**
   * Replaces the caller's explicit redirect hosts (hostnames or `*.` + hostname; at most 100,
   * normalised by the service). Setting a whole list is idempotent. 409 when a quota is reached.
   */
  setRedirectHosts(hosts: string[], options?: RequestOptions): Promise<RedirectHosts> {
    return this.call({ method: 'PUT', path: '/api/v3/redirect-hosts/', body: { hosts }, idempotent: true }, options);
  }

  listCampaigns(options?: RequestOptions): Promise<Campaign[]> {
    return this.call({ method: 'GET', path: '/api/v3/campaign/', idempotent: true }, options);
  }

  /** One page of `listCampaigns()` (opt-in pagination). */
  listCampaignsPage(page: PageRequest, options?: RequestOptions): Promise<Page<Campaign>> {
    return this.call({ method: 'GET', path: '/api/v3/campaign/', query: pageQuery(page), idempotent: true }, options);
  }

  /** 409 when the user's campaign quota is reached. */
  createCampaign(input: CreateCampaignInput, options?: RequestOptions): Promise<Campaign> {
    return this.call({ method: 'POST', path: '/api/v3/campaign/', body: input, idempotent: false }, options);
  }

  /** Any subset of the create fields; the merged campaign must stay valid. */
  editCampaign(campaignToken: string, input: EditCampaignInput, options?: RequestOptions): Promise<CampaignEdited> {
    return this.call(
      { method: 'POST', path: this.campaignPath(campaignToken), body: input, idempotent: true },
      options,
    );
  }

  getCampaign(campaignToken: string, options?: RequestOptions): Promise<CampaignWithContent> {
    return this.call({ method: 'GET', path: this.campaignPath(campaignToken), idempotent: true }, options);
  }

  /** Deletes the campaign and its content. */
  deleteCampaign(campaignToken: string, options?: RequestOptions): Promise<void> {
    return this.delete(this.campaignPath(campaignToken), options);
  }

  /** 409 when the URL is already in the campaign or a quota is reached (content items per campaign, redirect hosts per owner). */
  addContent(campaignToken: string, input: AddContentInput, options?: RequestOptions): Promise<Content> {
    return this.call(
      { method: 'POST', path: `${this.campaignPath(campaignToken)}content/`, body: input, idempotent: false },
      options,
    );
  }

  /** Uses the API's documented path, POST /api/v3/<campaign_token>/<url_token>/. */
  editContent(
    campaignToken: string,
    urlToken: string,
    input: EditContentInput,
    options?: RequestOptions,
  ): Promise<Content> {
    const path = `/api/v3/${segment(campaignToken, 'campaignToken')}/${segment(urlToken, 'urlToken')}/`;
    return this.call({ method: 'POST', path, body: input, idempotent: true }, options);
  }

  deleteContent(campaignToken: string, urlToken: string, options?: RequestOptions): Promise<void> {
    return this.delete(`${this.campaignPath(campaignToken)}${segment(urlToken, 'urlToken')}/`, options);
  }

  private campaignPath(campaignToken: string): string {
    return `/api/v3/campaign/${segment(campaignToken, 'campaignToken')}/`;
  }

  private delete(path: string, options: RequestOptions | undefined): Promise<void> {
    return this.call({ method: 'DELETE', path, idempotent: true, goneIsDone: true }, options);
  }

  private call<T>(spec: Omit<CallSpec, 'bearer'>, options: RequestOptions | undefined): Promise<T> {
    return this.transport.call<T>({ ...spec, bearer: this.apiToken }, options);
  }
}

function pageQuery(page: PageRequest): Record<string, string> {
  if (!Number.isInteger(page.limit) || page.limit < 1) throw new TypeError('limit must be a positive integer');
  return page.cursor === undefined ? { limit: String(page.limit) } : { limit: String(page.limit), cursor: page.cursor };
}
