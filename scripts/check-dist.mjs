#!/usr/bin/env node
// `pnpm check:dist` (after `tsc -b`): the production build holds no test code. In the dist/ of
// every workspace package except the testkit (which is the test tooling itself, used by
// `pnpm start` and the fuzzing), it fails on
// - a file whose path names a test (`*.test.*`, `*.spec.*`, a `test`, `tests`, `test-support`,
//   `__tests__` folder),
// - a compiled file that loads `@cm/testkit` or a test folder,
// - a source map whose sources lie outside the package's src/ or name a test file.
// A file left from an earlier build of a moved source counts too: delete that dist/ and rebuild.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TEST_PATH = /(^|\/)(test|tests|test-support|__tests__)(\/|$)|\.(test|spec)\.[^/]*$/;
const TESTKIT_LOAD =
  /(?:require\(|import\(|from\s*)\s*['"](?:@cm\/testkit(?:\/[^'"]*)?|[^'"]*\/(?:test|tests|test-support|__tests__)\/[^'"]*)['"]/;

function* walk(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else yield full;
  }
}

function checkMap(pkgDir, file, problems) {
  let map;
  try {
    map = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return;
  }
  const srcDir = path.join(pkgDir, 'src') + path.sep;
  for (const source of map.sources ?? []) {
    const abs = path.resolve(path.dirname(file), map.sourceRoot ?? '', source);
    const rel = path.relative(pkgDir, abs).split(path.sep).join('/');
    if (!abs.startsWith(srcDir)) problems.push(`${path.relative(root, file)}: compiled from ${rel}, outside src/`);
    else if (TEST_PATH.test(rel.slice('src/'.length)))
      problems.push(`${path.relative(root, file)}: compiled from the test file ${rel}`);
  }
}

const problems = [];
let checked = 0;
for (const group of ['packages', 'services']) {
  for (const name of fs.readdirSync(path.join(root, group))) {
    const pkgDir = path.join(root, group, name);
    const dist = path.join(pkgDir, 'dist');
    if (`${group}/${name}` === 'packages/testkit' || !fs.existsSync(dist)) continue;
    for (const file of walk(dist)) {
      checked++;
      const rel = path.relative(dist, file).split(path.sep).join('/');
      const shown = path.relative(root, file);
      if (TEST_PATH.test(rel)) problems.push(`${shown}: a test file in the production build`);
      if (/\.(c|m)?js$|\.d\.(c|m)?ts$/.test(file) && TESTKIT_LOAD.test(fs.readFileSync(file, 'utf8'))) {
        problems.push(`${shown}: loads test code (@cm/testkit or a test folder)`);
      }
      if (file.endsWith('.map')) checkMap(pkgDir, file, problems);
    }
  }
}

if (checked === 0) {
  console.error('check:dist: no dist/ found; run `tsc -b` first');
  process.exit(1);
}
if (problems.length > 0) {
  console.error(`check:dist: test code in the production build (${problems.length}):`);
  for (const p of problems) console.error(`  ${p}`);
  console.error('(a leftover of an earlier build? delete that dist/ and run `tsc -b` again)');
  process.exit(1);
}
console.log(`check:dist: ${checked} files in dist/, none from test code`);
