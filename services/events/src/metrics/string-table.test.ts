import { ByteReader, ByteWriter, readStringTable, StoredFormatError, writeStringTable } from './byte-codec';

function roundTrip(strings: string[]): string[] {
  const sorted = [...strings].sort();
  const w = new ByteWriter();
  writeStringTable(w, sorted);
  return readStringTable(new ByteReader(w.bytes()));
}

describe('the front-coded string table', () => {
  it('when the strings are URLs as browsers send them, then they read back equal and in order', () => {
    const urls = [
      'https://news.example/spring-sale?ref=home',
      'https://news.example/spring-sale',
      'https://news.example/spring-sale/guide?page=2',
      'https://xn--bcher-kva.example/katalog?id=7',
      'https://news.example/',
      '',
    ];
    expect(roundTrip(urls)).toEqual([...urls].sort());
  });

  it('when some strings are not ASCII, then those and every one after them read back equal', () => {
    const mixed = [
      'https://a.example/caf\u00e9',
      'https://a.example/caf\u00e9/men\u00fc',
      'https://a.example/cafe',
      'https://a.example/\u{1f600}',
      'https://b.example/z',
      'https://a.example/cafes',
    ];
    expect(roundTrip(mixed)).toEqual([...mixed].sort());
  });

  it('when a shared prefix is longer than the string before it, then the table is damage', () => {
    for (const first of ['ab', '\u00e9']) {
      const w = new ByteWriter();
      w.uint(2);
      w.uint(0);
      w.blob(Buffer.from(first, 'utf8'));
      w.uint(9);
      w.blob(Buffer.from('x'));
      expect(() => readStringTable(new ByteReader(w.bytes()))).toThrow(StoredFormatError);
    }
  });
});
