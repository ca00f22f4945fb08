import { validate } from '@cm/platform';
import { PageCursors } from './page-cursors';
import { afterPosition, pageQuerySchema, toPage } from './page-query';

const cursors = new PageCursors(Buffer.alloc(32, 4));
const position = { created_at: new Date('2026-03-01T10:00:00.123Z'), id: 'abc_DEF-123' };

describe('PageCursors', () => {
  test('when a position is encoded, then it decodes back for the same list and is opaque URL-safe text', () => {
    const cursor = cursors.encode('campaigns', position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(cursors.decode('campaigns', cursor)).toEqual(position);
  });

  test('when a cursor is used for another list or with another key, then it is refused', () => {
    const cursor = cursors.encode('campaigns', position);
    expect(() => cursors.decode('users', cursor)).toThrow(
      expect.objectContaining({ status: 400, details: [expect.objectContaining({ field: 'cursor' })] }),
    );
    expect(() => new PageCursors(Buffer.alloc(32, 5)).decode('campaigns', cursor)).toThrow(
      expect.objectContaining({ status: 400 }),
    );
  });

  const forged = (value: unknown) => {
    const payload = Buffer.from(JSON.stringify(value)).toString('base64url');
    return `${payload}.${cursors.encode('campaigns', position).split('.')[1]}`;
  };

  test.each([
    ['garbage', 'nonsense'],
    ['an empty string', ''],
    ['too many parts', 'a.b.c'],
    ['a changed payload', forged([0, 'x'])],
    ['an operator in the payload', forged([{ $gt: 0 }, { $ne: null }])],
    ['a short MAC', `${cursors.encode('campaigns', position).split('.')[0]}.AAAA`],
  ])('when the cursor is %s, then it is a 400 naming cursor', (_name, cursor) => {
    expect(() => cursors.decode('campaigns', cursor)).toThrow(
      expect.objectContaining({ status: 400, details: [expect.objectContaining({ field: 'cursor' })] }),
    );
  });
});

describe('pageQuerySchema', () => {
  test('when limit is given as query text, then it is a number; without it there is no page', () => {
    expect(validate(pageQuerySchema, { limit: '50' })).toEqual({ limit: 50 });
    expect(validate(pageQuerySchema, {})).toEqual({});
    expect(validate(pageQuerySchema, { _: '123' })).toEqual({ _: '123' });
  });

  test.each([
    ['limit 0', { limit: '0' }],
    ['limit over the maximum', { limit: '201' }],
    ['a non-numeric limit', { limit: 'ten' }],
    ['a repeated limit', { limit: ['1', '2'] }],
    ['a cursor without limit', { cursor: 'a.b' }],
    ['an oversized cursor', { limit: '1', cursor: 'x'.repeat(600) }],
    ['a cursor object', { limit: '1', cursor: { $gt: '' } }],
  ])('when the query has %s, then 400', (_name, query) => {
    expect(() => validate(pageQuerySchema, query, 'query')).toThrow(expect.objectContaining({ status: 400 }));
  });
});

describe('afterPosition and toPage', () => {
  test('when there is no position, then the filter adds nothing; else it continues after (created_at, _id)', () => {
    expect(afterPosition(undefined)).toEqual({});
    expect(afterPosition(position)).toEqual({
      $or: [
        { created_at: { $gt: position.created_at } },
        { created_at: position.created_at, _id: { $gt: position.id } },
      ],
    });
  });

  const docs = [1, 2, 3].map((n) => ({ _id: `id${n}`, created_at: new Date(n * 1000) }));
  test('when one more document than the limit came back, then the page has a cursor at its last item', () => {
    expect(
      toPage(
        docs,
        2,
        (d) => d._id,
        (p) => `${p.id}@${p.created_at.getTime()}`,
      ),
    ).toEqual({ items: ['id1', 'id2'], next_cursor: 'id2@2000' });
  });

  test('when no more than the limit came back, then it is the last page', () => {
    expect(
      toPage(
        docs,
        3,
        (d) => d._id,
        () => 'x',
      ),
    ).toEqual({ items: ['id1', 'id2', 'id3'], next_cursor: null });
    expect(
      toPage(
        [],
        3,
        (d: (typeof docs)[number]) => d._id,
        () => 'x',
      ),
    ).toEqual({ items: [], next_cursor: null });
  });
});
