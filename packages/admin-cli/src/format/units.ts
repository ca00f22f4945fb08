const UNITS = ['KiB', 'MiB', 'GiB', 'TiB'];

/** 1536 -> "1.5 KiB"; negative (JetStream's "no limit") -> "unlimited". */
export function formatBytes(bytes: number): string {
  if (bytes < 0) return 'unlimited';
  if (bytes < 1024) return `${bytes} B`;
  let value = bytes;
  let unit = 'B';
  for (const next of UNITS) {
    if (value < 1024) break;
    value /= 1024;
    unit = next;
  }
  return `${value.toFixed(1)} ${unit}`;
}

/** 1234567 -> "1,234,567" (fixed grouping, independent of the machine's locale). */
export function formatCount(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** 259200 -> "72 h"; 300 -> "5 min"; 45 -> "45 s". */
export function formatSeconds(seconds: number): string {
  if (seconds >= 3600 && seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds >= 60 && seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}
