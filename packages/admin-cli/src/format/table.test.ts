import { formatFields, formatTable } from './table';

describe('tables', () => {
  test('when rows differ in width, then columns are padded to the widest cell and lines have no trailing blanks', () => {
    expect(
      formatTable(
        ['ID', 'CREATED', 'OWNERS'],
        [
          ['a', '2026-01-01 00:00:00', '1,2'],
          ['longer-id', '2026-01-02 00:00:00', ''],
        ],
      ),
    ).toBe(
      [
        'ID         CREATED              OWNERS',
        'a          2026-01-01 00:00:00  1,2',
        'longer-id  2026-01-02 00:00:00',
      ].join('\n'),
    );
  });

  test('when label/value pairs are formatted, then values line up after the longest label', () => {
    expect(
      formatFields(
        [
          ['id', '1'],
          ['api_key', 'ek_x'],
        ],
        '  ',
      ),
    ).toBe('  id       1\n  api_key  ek_x');
  });
});
