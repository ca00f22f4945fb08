import { existsSync } from 'node:fs';
import path from 'node:path';

/** The workspace root: the nearest folder upwards holding pnpm-workspace.yaml. */
export function repoRoot(from: string = __dirname): string {
  let dir = path.resolve(from);
  for (;;) {
    if (existsSync(path.join(dir, 'pnpm-workspace.yaml'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no pnpm-workspace.yaml above ${from}`);
    dir = parent;
  }
}
