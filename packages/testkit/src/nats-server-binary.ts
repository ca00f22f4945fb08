import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { onPath } from './binaries';
import { repoRoot } from './repo-root';

/**
 * The nats-server release tests, `pnpm start`, compose and the Kubernetes manifests use: one
 * version in deploy/nats/nats-server.version (check:k8s holds the image tags to it).
 */
export function natsServerVersion(): string {
  return readFileSync(path.join(repoRoot(), 'deploy', 'nats', 'nats-server.version'), 'utf8').trim();
}

function versionOf(bin: string): string | undefined {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? /v?(\d+\.\d+\.\d+)/.exec(r.stdout)?.[1] : undefined;
}

/** Where the pinned release is built: .cache/nats-server/v<version>/nats-server. */
function natsServerCachePath(version = natsServerVersion()): string {
  return path.join(repoRoot(), '.cache', 'nats-server', `v${version}`, 'nats-server');
}

/** Builds the pinned release with `go install` (20-40 s once) into a temporary GOBIN, then moves it into place. */
function goInstall(version: string, log: (msg: string) => void): string {
  const target = natsServerCachePath(version);
  mkdirSync(path.dirname(target), { recursive: true });
  // a private GOBIN, renamed into place: two processes building at once never see a half-written binary
  const tmp = mkdtempSync(path.join(path.dirname(target), '.build-'));
  try {
    log(
      `building nats-server v${version} with go install (once, 20-40 s) into ${path.relative(repoRoot(), target)} ...`,
    );
    execFileSync('go', ['install', '-ldflags=-s -w', `github.com/nats-io/nats-server/v2@v${version}`], {
      env: { ...process.env, GOBIN: tmp, GOFLAGS: '-mod=mod' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    renameSync(path.join(tmp, 'nats-server'), target);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return target;
}

/**
 * The nats-server binary to run: NATS_SERVER_BIN when set; else the pinned release from
 * .cache/ (built with `go install` when missing); only without Go, a nats-server on PATH (the
 * Debian package, installed when we are root), with a warning that it is not the tested release.
 */
export function ensureNatsServer(log: (msg: string) => void = console.log): string {
  if (process.env.NATS_SERVER_BIN) return process.env.NATS_SERVER_BIN;
  const version = natsServerVersion();
  const cached = natsServerCachePath(version);
  if (existsSync(cached)) return cached;
  if (onPath('go')) return goInstall(version, log);
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!onPath('nats-server') && isRoot && onPath('apt-get')) {
    log('go not found: installing the Debian package nats-server instead ...');
    execFileSync(
      'sh',
      ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nats-server'],
      { stdio: 'inherit' },
    );
  }
  if (onPath('nats-server')) {
    log(
      `warning: go is not installed, so nats-server v${version} (the tested release) cannot be built; using nats-server v${versionOf('nats-server') ?? '?'} from PATH`,
    );
    return 'nats-server';
  }
  throw new Error(
    `nats-server v${version} is needed: install Go (it is built with go install) or nats-server, or set NATS_URL to a running server`,
  );
}
