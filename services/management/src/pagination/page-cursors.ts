import { createHmac, timingSafeEqual } from 'node:crypto';
import { ValidationError } from '@cm/platform';
import { toPage, type Page } from './page-query';

/** Where a page ended: lists are in (created_at, _id) order. */
export interface PagePosition {
  created_at: Date;
  id: string;
}

const MAC_BYTES = 16;
const ID_SHAPE = /^[A-Za-z0-9_-]{1,64}$/;

function invalidCursor(): ValidationError {
  return new ValidationError('invalid query', [{ field: 'cursor', message: 'is not a cursor this list gave out' }]);
}

/**
 * Opaque, tamper-proof list cursors: the position as `base64url(JSON).base64url(HMAC)`, the MAC
 * covering the list's name so a cursor works only for the list that gave it out. A cursor that
 * does not verify is a 400; a verified one carries only a number and an id of a known shape, so
 * nothing from the client reaches a query but those two values.
 */
export class PageCursors {
  constructor(private readonly key: Buffer) {}

  encode(list: string, position: PagePosition): string {
    const payload = Buffer.from(JSON.stringify([position.created_at.getTime(), position.id])).toString('base64url');
    return `${payload}.${this.mac(list, payload).toString('base64url')}`;
  }

  decode(list: string, cursor: string): PagePosition {
    const [payload, mac, ...rest] = cursor.split('.');
    if (!payload || !mac || rest.length > 0) throw invalidCursor();
    const given = Buffer.from(mac, 'base64url');
    if (given.length !== MAC_BYTES || !timingSafeEqual(given, this.mac(list, payload))) throw invalidCursor();
    let value: unknown;
    try {
      value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw invalidCursor();
    }
    if (!Array.isArray(value) || value.length !== 2) throw invalidCursor();
    const [ms, id] = value as unknown[];
    if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || typeof id !== 'string' || !ID_SHAPE.test(id))
      throw invalidCursor();
    return { created_at: new Date(ms), id };
  }

  /**
   * One page of `list`: the position from `cursor` (none: from the start), `fetch` asked for one
   * item more than `limit`, and the next cursor at the page's last item when there is more.
   */
  async page<D extends { _id: string; created_at: Date }, T>(
    list: string,
    limit: number,
    cursor: string | undefined,
    fetch: (after: PagePosition | undefined, limit: number) => Promise<D[]>,
    view: (doc: D) => T,
  ): Promise<Page<T>> {
    const docs = await fetch(cursor === undefined ? undefined : this.decode(list, cursor), limit);
    return toPage(docs, limit, view, (position) => this.encode(list, position));
  }

  private mac(list: string, payload: string): Buffer {
    return createHmac('sha256', this.key).update(`${list}\n${payload}`).digest().subarray(0, MAC_BYTES);
  }
}
