import type { DeviceType } from '@cm/contracts';
import { copyCellValue, mergeCellValue, type CellValue } from './aggregates/cell-aggregates';

/** The order of the per-device arrays of every cell aggregate. */
export const DEVICE_ORDER: readonly DeviceType[] = ['desktop', 'tablet', 'mobile'];

/** A fine cell: one owner, name, content_id and url within one unit. */
export interface FineCell extends CellValue {
  owner: string;
  name: string;
  contentId: string;
  url: string;
}

export function deviceIndex(device: string): number {
  const i = DEVICE_ORDER.indexOf(device as DeviceType);
  return i < 0 ? 0 : i;
}

/**
 * Cells of one unit being built, merged in memory through the cell aggregates (counts add, the
 * later event wins).
 * Keys are JSON so no separator inside a url or name can make two cells collide.
 */
export class CellTable {
  private readonly cells = new Map<string, FineCell>();

  add(cell: FineCell): void {
    const key = JSON.stringify([cell.owner, cell.name, cell.contentId, cell.url]);
    const seen = this.cells.get(key);
    if (!seen) {
      this.cells.set(key, { ...cell, ...copyCellValue(cell) });
      return;
    }
    mergeCellValue(seen, cell);
  }

  /** Adds one raw `$group` row (one owner/name/content_id/url/device, its states under that device). */
  addDeviceRow(row: { owner: string; name: string; contentId: string; url: string; value: CellValue }): void {
    this.add({ owner: row.owner, name: row.name, contentId: row.contentId, url: row.url, ...row.value });
  }

  get size(): number {
    return this.cells.size;
  }

  /** The cells grouped by owner (owners in code-unit order, cells by name, content_id, url). */
  byOwner(): Map<string, FineCell[]> {
    const out = new Map<string, FineCell[]>();
    const sorted = [...this.cells.values()].sort(
      (a, b) => cmp(a.owner, b.owner) || cmp(a.name, b.name) || cmp(a.contentId, b.contentId) || cmp(a.url, b.url),
    );
    for (const cell of sorted) {
      const list = out.get(cell.owner);
      if (list) list.push(cell);
      else out.set(cell.owner, [cell]);
    }
    return out;
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
