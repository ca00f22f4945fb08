/**
 * "The latest event wins": created first, then the time-ordered event id (UUIDv7) for events of
 * the same millisecond. The same order as the pipelines' `$max` over `{created, _id, ...}`, so a
 * group's metadata is the same whether it was read from raw events or from rollup cells.
 */
export function isLaterEvent(aCreatedMs: number, aId: string, bCreatedMs: number, bId: string): boolean {
  return aCreatedMs !== bCreatedMs ? aCreatedMs > bCreatedMs : aId > bId;
}
