#!/usr/bin/env node
// Bundles src/pixel.ts with esbuild into dist/pixel.mjs (ES module, readable: the publisher's
// bundler minifies it and drops what the page does not import), dist/pixel.min.js (minified IIFE
// for a <script> tag, from src/script-tag.ts, which sets the one global CampaignEventsPixel) and
// dist/pixel-engagement.min.js (the opt-in attention measurement for <script> pages, from
// src/engagement-tag.ts, which adds trackEngagement to that global). The declarations come from
// `tsc -b` (dist/pixel.d.ts).
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const distDir = path.join(packageDir, 'dist');

// ES2017: every browser with sendBeacon-era APIs that is still in use (see README, browser support)
const common = {
  bundle: true,
  platform: 'browser',
  target: 'es2017',
  legalComments: 'none',
  logLevel: 'warning',
};

export async function buildPixel() {
  await Promise.all([
    esbuild.build({
      ...common,
      entryPoints: [path.join(packageDir, 'src', 'pixel.ts')],
      format: 'esm',
      outfile: path.join(distDir, 'pixel.mjs'),
    }),
    esbuild.build({
      ...common,
      entryPoints: [path.join(packageDir, 'src', 'script-tag.ts')],
      format: 'iife',
      minify: true,
      outfile: path.join(distDir, 'pixel.min.js'),
    }),
    esbuild.build({
      ...common,
      entryPoints: [path.join(packageDir, 'src', 'engagement-tag.ts')],
      format: 'iife',
      minify: true,
      outfile: path.join(distDir, 'pixel-engagement.min.js'),
    }),
  ]);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await buildPixel();
