/** Columns left-aligned and padded to their widest cell, separated by two spaces; no trailing blanks. */
export function formatTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

/** `label  value` lines with the values aligned, indented by `indent`. */
export function formatFields(pairs: Array<[string, string]>, indent = ''): string {
  const width = Math.max(0, ...pairs.map(([label]) => label.length));
  return pairs.map(([label, value]) => `${indent}${label.padEnd(width)}  ${value}`.trimEnd()).join('\n');
}
