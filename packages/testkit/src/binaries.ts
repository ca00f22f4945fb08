import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './repo-root';

/** Is the command on PATH? */
export function onPath(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

function mongoStandInDir(): string {
  return path.join(repoRoot(), '.cache', 'mongo-stand-in');
}

/** Downloads the MongoDB-compatible stand-in's jars from Maven Central once (cached in .cache/). */
export function ensureMongoStandIn(log: (msg: string) => void = console.log): string {
  const dir = mongoStandInDir();
  // both backends: memory for tests, h2 for `pnpm start` (a cache from before h2 was added is refreshed)
  const jars = existsSync(dir) ? readdirSync(dir) : [];
  const ready = ['mongo-java-server-memory-backend', 'mongo-java-server-h2-backend', 'slf4j-nop'].every((name) =>
    jars.some((f) => f.startsWith(name)),
  );
  if (ready) return dir;
  if (!onPath('java') || !onPath('mvn')) {
    throw new Error('java (17+) and mvn are needed for the MongoDB stand-in (or set MONGO_URL to a running MongoDB)');
  }
  log('fetching the MongoDB-compatible stand-in from Maven Central ...');
  const pom = path.join(repoRoot(), 'deploy', 'mongo-stand-in', 'pom.xml');
  execFileSync('mvn', ['-q', '-B', '-f', pom, 'dependency:copy-dependencies', `-DoutputDirectory=${dir}`], {
    stdio: 'inherit',
  });
  return dir;
}
