import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const PACKAGE_DIR = path.resolve(__dirname, '..', '..');

/** Builds dist/ with the package's own build script (the same esbuild run as CI's) and returns the minified bundle. */
export function buildMinifiedBundle(): string {
  execFileSync(process.execPath, [path.join(PACKAGE_DIR, 'scripts', 'build.mjs')], { stdio: 'inherit' });
  return readFileSync(path.join(PACKAGE_DIR, 'dist', 'pixel.min.js'), 'utf8');
}

/** The opt-in attention build next to it (dist/pixel-engagement.min.js); call after buildMinifiedBundle. */
export function readEngagementBundle(): string {
  return readFileSync(path.join(PACKAGE_DIR, 'dist', 'pixel-engagement.min.js'), 'utf8');
}
