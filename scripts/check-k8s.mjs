#!/usr/bin/env node
// `pnpm check:k8s`: renders every kustomize target in deploy/k8s and checks the result offline.
//  1. schema: kubernetes-validate --strict (PyPI, Apache-2.0; ships the Kubernetes OpenAPI schemas,
//     so nothing is fetched at check time; unknown fields are errors), against the oldest and the
//     newest Kubernetes version we claim;
//  2. wiring and operational rules the schema cannot see (deploy/k8s/manifest-rules.mjs);
//  3. each Deployment's environment is loaded through its service's own config schema (built dist),
//     so a setting the service would refuse, or would silently ignore (unknown name), fails here; the
//     committed placeholder ADMIN_TOKEN (and VISITOR_ID_KEY) must be refused in production (then a real one stands in);
//  4. NATS: every nats image (manifests, docker-compose.yml) is the release in
//     deploy/nats/nats-server.version, the pinned nats-server accepts both configurations, and
//     JetStream's max_file_store leaves 1 GiB (the owner registry) beside the two streams' byte limits;
//  5. the Grafana dashboards in deploy/grafana and the alert rules in deploy/prometheus parse, and
//     every metric they query is one the code registers (or a prom-client default metric), so a
//     renamed metric cannot leave a blank panel or a silent alert.
// Installs what is missing: kustomize from the Go module proxy, the validator into .cache/.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { checkManifests, containerEnv } from '../deploy/k8s/manifest-rules.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = path.join(ROOT, '.cache', 'k8s');
const KUSTOMIZE = { module: 'sigs.k8s.io/kustomize/kustomize/v5', version: 'v5.7.1' };
const VALIDATOR = { pkg: 'kubernetes-validate', version: '1.37.0' };
const KUBE_VERSIONS = ['1.31.0', '1.37.0'];

/** What each target must say beyond the shared rules. */
const TARGETS = [
  { dir: 'deploy/k8s/base', expect: {} },
  {
    dir: 'deploy/k8s/overlays/production',
    expect: { all: { NODE_ENV: 'production' }, events: { EVENTS_STREAM_REPLICAS: '3' } },
  },
];

/** Which service's config loader reads a Deployment's environment, by the pod's app name. */
const SERVICES = {
  management: { dir: 'services/management', load: 'loadManagementConfig' },
  events: { dir: 'services/events', load: 'loadEventsConfig' },
};

const run = (cmd, args, opts = {}) => execFileSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...opts });
const works = (cmd, args) => spawnSync(cmd, args, { encoding: 'utf8' });

function ensureKustomize() {
  const goBin = works('go', ['env', 'GOPATH']).stdout?.trim();
  const candidates = ['kustomize', ...(goBin ? [path.join(goBin, 'bin', 'kustomize')] : [])];
  for (const bin of candidates) {
    const v = works(bin, ['version']);
    if (v.status === 0 && v.stdout.trim().startsWith('v5.')) return { bin, version: v.stdout.trim() };
  }
  if (!goBin) throw new Error('kustomize v5 not found and Go is not installed to build it');
  console.log(`installing kustomize ${KUSTOMIZE.version} (go install)`);
  run('go', ['install', `${KUSTOMIZE.module}@${KUSTOMIZE.version}`], {
    env: { ...process.env, GOFLAGS: '-mod=mod' },
    stdio: 'inherit',
  });
  return ensureKustomize();
}

function ensureValidator() {
  const venv = path.join(ROOT, '.cache', 'k8s-validate');
  const bin = path.join(venv, 'bin', 'kubernetes-validate');
  if (works(bin, ['--version']).stdout?.trim() === VALIDATOR.version) return bin;
  console.log(`installing ${VALIDATOR.pkg} ${VALIDATOR.version} into .cache/k8s-validate`);
  run('python3', ['-m', 'venv', venv], { stdio: 'inherit' });
  run(
    path.join(venv, 'bin', 'pip'),
    ['install', '--quiet', '--disable-pip-version-check', `${VALIDATOR.pkg}==${VALIDATOR.version}`],
    { stdio: 'inherit' },
  );
  return bin;
}

function schemaProblems(validator, file) {
  return KUBE_VERSIONS.flatMap((v) => {
    const r = works(validator, ['--strict', '--quiet', '--no-warn', '-k', v, file]);
    if (r.status === 0) return [];
    const lines = `${r.stdout}${r.stderr}`.split('\n').filter((l) => l.trim());
    return lines.length > 0 ? lines : [`kubernetes-validate exited ${r.status} for ${v}`];
  });
}

function configLoaders() {
  // the services' config loaders, and the testkit for the pinned nats-server (natsProblems)
  const projects = [...Object.values(SERVICES).map((s) => s.dir), 'packages/testkit'];
  run(path.join(ROOT, 'node_modules', '.bin', 'tsc'), ['-b', ...projects], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  return Object.fromEntries(
    Object.entries(SERVICES).map(([name, s]) => {
      const require = createRequire(path.join(ROOT, s.dir, 'package.json'));
      return [name, require('./dist/config.js')[s.load]];
    }),
  );
}

/** Stand in for the operator's real secrets (the committed Secrets only hold placeholders). */
const SUPPLIED_SECRETS = {
  ADMIN_TOKEN: randomBytes(32).toString('hex'),
  VISITOR_ID_KEY: randomBytes(32).toString('hex'),
};

/** Does production refuse the committed value of `name` (every other placeholder secret replaced by a real one)? */
function refusesInProduction(load, env, name) {
  const others = Object.fromEntries(
    Object.entries(SUPPLIED_SECRETS).filter(([other]) => other !== name && env[other] !== undefined),
  );
  try {
    load({ ...env, ...others, NODE_ENV: 'production' });
    return false;
  } catch (err) {
    return new RegExp(name).test(String(err.message));
  }
}

/** Loads every container's environment through the service's config; unknown names are typos. */
function configProblems(objects, loaders, expect) {
  const problems = [];
  for (const d of objects.filter((o) => o.kind === 'Deployment')) {
    const app = d.spec.template.metadata?.labels?.['app.kubernetes.io/name'];
    const load = loaders[app];
    if (!load) {
      problems.push(`Deployment/${d.metadata.name}: no config loader for app ${app}`);
      continue;
    }
    for (const c of d.spec.template.spec.containers) {
      const where = `Deployment/${d.metadata.name} container ${c.name}`;
      const { env } = containerEnv(c, objects);
      // the committed Secrets hold placeholders: production must refuse them, so they can never go live;
      // the rest of the check runs with the secrets a real deployment would supply
      const supplied = Object.keys(SUPPLIED_SECRETS).filter((name) => env[name] !== undefined);
      for (const name of supplied)
        if (!refusesInProduction(load, env, name))
          problems.push(`${where}: the committed ${name} would be accepted in production; it must be a placeholder`);
      for (const name of supplied) env[name] = SUPPLIED_SECRETS[name];
      try {
        const known = new Set([...Object.keys(load(env)), ...Object.keys(SUPPLIED_SECRETS)]);
        for (const name of Object.keys(env))
          if (!known.has(name)) problems.push(`${where}: ${name} is not a setting of ${app}`);
      } catch (err) {
        problems.push(`${where}: the service would refuse to start: ${String(err.message).replace(/\s*\n\s*/g, '; ')}`);
      }
      for (const [name, value] of Object.entries({ ...expect.all, ...(expect[app] ?? {}) })) {
        if (env[name] !== value) problems.push(`${where}: ${name} must be ${value}, is ${env[name]}`);
      }
    }
  }
  return problems;
}

/** Metric names registered in the TypeScript sources (`name: '...'` of prom-client metrics) and the defaults. */
function exportedMetrics() {
  const names = new Set();
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name === 'node_modules' || e.name === 'dist' || e.name.startsWith('.')) continue;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) {
        for (const m of readFileSync(p, 'utf8').matchAll(/name: '([a-z][a-z0-9_]*)'/g)) names.add(m[1]);
      }
    }
  };
  for (const top of ['services', 'packages']) walk(path.join(ROOT, top));
  const prom = createRequire(path.join(ROOT, 'packages', 'platform', 'package.json'))('prom-client');
  const registry = new prom.Registry();
  prom.collectDefaultMetrics({ register: registry });
  for (const m of registry.getMetricsAsArray()) names.add(m.name);
  return names;
}

const PROMQL_KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'bool',
  'offset',
]);

/** Metric names in a PromQL expression: identifiers left once matchers, ranges, groupings and calls are set aside. */
function metricNames(expr) {
  const bare = expr
    .replace(/"[^"]*"/g, '')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  return [...bare.matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\b(?!\s*\()/g)]
    .map((m) => m[1])
    .filter((n) => !PROMQL_KEYWORDS.has(n));
}

function dashboardProblems() {
  const dir = path.join(ROOT, 'deploy', 'grafana');
  const known = exportedMetrics();
  const problems = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    let dashboard;
    try {
      dashboard = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
    } catch (err) {
      problems.push(`${file}: not JSON: ${err.message}`);
      continue;
    }
    const exprs = (dashboard.panels ?? []).flatMap((p) => (p.targets ?? []).map((t) => t.expr));
    for (const name of exprs.flatMap(metricNames)) {
      const base = name.replace(/_(bucket|sum|count)$/, '');
      if (!known.has(name) && !known.has(base)) problems.push(`${file}: queries ${name}, which no code registers`);
    }
    if (exprs.length === 0) problems.push(`${file}: no queries`);
  }
  return [...new Set(problems)];
}

/** A size of nats-server's config (`16GB`: JetStream reads the suffixes as powers of 1024). */
function natsBytes(size) {
  const m = /^(\d+)\s*([KMGT]?)B?$/i.exec(size.trim());
  if (!m) throw new Error(`not a size: ${size}`);
  return Number(m[1]) * 1024 ** ' KMGT'.indexOf(m[2].toUpperCase() || ' ');
}

/** What the events and dead-letter streams, both full, must leave to the owner registry bucket. */
const JETSTREAM_HEADROOM = 1024 ** 3;

/**
 * NATS as compose and Kubernetes run it: the release everything pins (image tags = the version
 * the tests run), configurations the pinned nats-server accepts, and JetStream storage that
 * keeps room for the registry when the events stream is full.
 */
function natsProblems(renderedTargets, loaders) {
  const testkit = createRequire(path.join(ROOT, 'packages', 'testkit', 'package.json'))('./dist');
  const version = testkit.natsServerVersion();
  const problems = [];
  const images = [
    ...renderedTargets.flatMap(({ dir, objects }) =>
      objects.flatMap((o) =>
        (o.spec?.template?.spec?.containers ?? []).map((c) => [`${dir} ${o.kind}/${o.metadata.name}`, c.image]),
      ),
    ),
    ...[...readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8').matchAll(/image:\s*(\S+)/g)].map((m) => [
      'docker-compose.yml',
      m[1],
    ]),
  ].filter(([, image]) => /(^|\/)nats:/.test(image));
  if (images.length === 0) problems.push('no nats image found in the manifests or docker-compose.yml');
  for (const [where, image] of images)
    if (!image.endsWith(`:${version}`))
      problems.push(`${where}: ${image} is not nats:${version} (deploy/nats/nats-server.version)`);
  const bin = testkit.ensureNatsServer((m) => console.log(m));
  const defaults = loaders.events({});
  // both streams reserve their byte limit; the bucket lives in what is left
  const reserved = defaults.EVENTS_STREAM_MAX_BYTES + defaults.EVENTS_DLQ_MAX_BYTES;
  for (const conf of ['deploy/nats/nats.conf', 'deploy/k8s/nats/nats.conf']) {
    // the StatefulSet gives each server its pod name as server_name
    const r = spawnSync(bin, ['-c', path.join(ROOT, conf), '-t'], {
      encoding: 'utf8',
      env: { ...process.env, POD_NAME: 'nats-0' },
    });
    if (r.status !== 0) problems.push(`${conf}: nats-server ${version} refuses it: ${`${r.stdout}${r.stderr}`.trim()}`);
    const max = /max_file_store:\s*(\S+)/.exec(readFileSync(path.join(ROOT, conf), 'utf8'))?.[1];
    if (!max) problems.push(`${conf}: no jetstream max_file_store (a full events stream could starve the registry)`);
    else if (natsBytes(max) - reserved < JETSTREAM_HEADROOM)
      problems.push(
        `${conf}: max_file_store ${max} leaves less than 1 GiB beside EVENTS_STREAM_MAX_BYTES + EVENTS_DLQ_MAX_BYTES (${reserved} bytes)`,
      );
  }
  return problems;
}

/** The Prometheus rule files in deploy/prometheus: every rule names an alert, an expression and only exported metrics. */
function alertRuleProblems() {
  const dir = path.join(ROOT, 'deploy', 'prometheus');
  const known = exportedMetrics();
  const problems = [];
  for (const file of readdirSync(dir).filter((f) => /\.ya?ml$/.test(f))) {
    const rules = (parseAllDocuments(readFileSync(path.join(dir, file), 'utf8'))[0]?.toJS()?.groups ?? []).flatMap(
      (g) => g.rules ?? [],
    );
    if (rules.length === 0) problems.push(`${file}: no rules`);
    for (const rule of rules) {
      if (!rule.alert || !rule.expr) problems.push(`${file}: a rule without alert or expr`);
      for (const name of metricNames(String(rule.expr ?? ''))) {
        if (!known.has(name) && !known.has(name.replace(/_(bucket|sum|count)$/, '')))
          problems.push(`${file}: ${rule.alert} queries ${name}, which no code registers`);
      }
    }
  }
  return problems;
}

function main() {
  const kustomize = ensureKustomize();
  const validator = ensureValidator();
  const loaders = configLoaders();
  mkdirSync(CACHE, { recursive: true });
  let failed = 0;
  const renderedTargets = [];
  for (const target of TARGETS) {
    const rendered = run(kustomize.bin, ['build', path.join(ROOT, target.dir)]);
    const file = path.join(CACHE, `${target.dir.replaceAll('/', '_')}.yaml`);
    writeFileSync(file, rendered);
    const objects = parseAllDocuments(rendered)
      .map((d) => d.toJS())
      .filter(Boolean);
    renderedTargets.push({ dir: target.dir, objects });
    const problems = [
      ...schemaProblems(validator, file),
      ...checkManifests(objects),
      ...configProblems(objects, loaders, target.expect),
    ];
    const kinds = [...new Set(objects.map((o) => o.kind))].join(', ');
    if (problems.length === 0) {
      console.log(
        `ok   ${target.dir}: ${objects.length} objects (${kinds}), schema ${KUBE_VERSIONS.join(' + ')} strict, rules, service config`,
      );
    } else {
      failed += 1;
      console.error(`FAIL ${target.dir} (rendered: ${path.relative(ROOT, file)}):\n  ${problems.join('\n  ')}`);
    }
  }
  const nats = natsProblems(renderedTargets, loaders);
  if (nats.length === 0)
    console.log(
      'ok   NATS: every nats image is the tested release, configurations parse, JetStream keeps room for the registry beside both streams',
    );
  else {
    failed += 1;
    console.error(`FAIL NATS:\n  ${nats.join('\n  ')}`);
  }
  const dashboards = [...dashboardProblems(), ...alertRuleProblems()];
  if (dashboards.length === 0)
    console.log('ok   deploy/grafana, deploy/prometheus: every queried metric is exported by the code');
  else {
    failed += 1;
    console.error(`FAIL deploy/grafana, deploy/prometheus:\n  ${dashboards.join('\n  ')}`);
  }
  console.log(`kustomize ${kustomize.version}, ${VALIDATOR.pkg} ${VALIDATOR.version}`);
  if (failed > 0) process.exit(1);
}

if (!existsSync(path.join(ROOT, 'deploy', 'k8s'))) throw new Error('run from the repository');
main();
