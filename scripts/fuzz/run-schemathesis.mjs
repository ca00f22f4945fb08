#!/usr/bin/env node
// `pnpm fuzz`: Schemathesis (PyPI, pinned in scripts/fuzz/requirements.txt, installed into
// .cache/fuzz-venv) against both services' OpenAPI documents, on a fresh system on free ports:
// local NATS + the MongoDB stand-in (or NATS_URL / MONGO_URL), the built services, an account
// owner and a sub-user bootstrapped through the operator endpoint, and an Events API key scoped
// to their owner ids. Checks: no 5xx, no undocumented status, documented content types, every
// response body matching its schema. Exits 1 on any finding, naming the service log lines of
// 5xx answers. Settings: FUZZ_MAX_EXAMPLES_MANAGEMENT (60) and FUZZ_MAX_EXAMPLES_EVENTS (100)
// test cases per operation (about 1,000 per service), FUZZ_SEED (fixed: reproducible runs).
// The log gets one line per service; Schemathesis' transcript (printed whole on a finding) is in
// .cache/fuzz/<service>-schemathesis.txt.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const here = path.join(root, 'scripts', 'fuzz');
const require = createRequire(import.meta.url);
const testkit = require(path.join(root, 'packages/testkit/dist'));
const CHECKS = 'not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance';
const SEED = process.env.FUZZ_SEED ?? '20261123';
const out = path.join(root, '.cache', 'fuzz');
const say = (msg) => console.log(`[fuzz] ${msg}`);

/** The pinned Schemathesis in its own virtualenv (re)installed when the pin changes. */
function ensureSchemathesis() {
  const venv = path.join(root, '.cache', 'fuzz-venv');
  const bin = path.join(venv, 'bin', 'schemathesis');
  const pinned = /schemathesis==([\w.]+)/.exec(readFileSync(path.join(here, 'requirements.txt'), 'utf8'))[1];
  if (spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout?.includes(pinned)) return bin;
  say(`installing schemathesis ${pinned} into .cache/fuzz-venv`);
  execFileSync('python3', ['-m', 'venv', venv], { stdio: 'inherit' });
  execFileSync(
    path.join(venv, 'bin', 'pip'),
    ['install', '--quiet', '--disable-pip-version-check', '-r', path.join(here, 'requirements.txt')],
    { stdio: 'inherit' },
  );
  return bin;
}

async function call(base, method, p, token, body) {
  const res = await fetch(`${base}${p}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

function runSchemathesis(bin, service, base, env, maxExamples) {
  const args = [
    '--config-file',
    path.join(here, `${service}.toml`),
    'run',
    path.join(root, 'services', service, 'openapi.yaml'),
    '--url',
    base,
    '--checks',
    CHECKS,
    '--max-examples',
    String(maxExamples),
    '--seed',
    SEED,
    '--workers',
    '2',
    '--request-timeout',
    '15',
    '--report',
    'junit,ndjson',
    '--report-junit-path',
    path.join(out, `${service}-junit.xml`),
    '--report-ndjson-path',
    path.join(out, `${service}.ndjson`),
  ];
  say(`schemathesis ${service}: up to ${maxExamples} cases per operation`);
  const transcript = path.join(out, `${service}-schemathesis.txt`);
  return new Promise((resolve) => {
    const child = spawn(bin, args, {
      env: { ...process.env, ...env, PYTHONPATH: here, SCHEMATHESIS_HOOKS: 'hooks', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: out,
    });
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    child.on('close', (code) => {
      const text = Buffer.concat(chunks).toString('utf8');
      writeFileSync(transcript, text);
      // Schemathesis closes with pytest-style banners ("=== 2 warnings in 44s ===") that a CI
      // reading test-runner summaries takes for a pytest run of no test: the log gets a digest,
      // and the whole transcript only when there is a finding to read.
      if (code !== 0) process.stdout.write(text);
      say(
        `schemathesis ${service}: ${digest(text)}; exit ${code}; transcript in .cache/fuzz/${service}-schemathesis.txt`,
      );
      resolve(code ?? 1);
    });
  });
}

/** One line from a Schemathesis transcript: cases run, and the warnings' titles. */
function digest(text) {
  const cases = /^\s*(\d+) generated, (.+)$/m.exec(text);
  const warnings = [...text.matchAll(/^\s*⚠️\s*(.+)$/gm)].map((m) => m[1].trim());
  const parts = [
    cases ? `${cases[1]} cases generated (${cases[2].replace(/(\d+) (\w+)/g, '$2 $1')})` : 'no case summary',
  ];
  if (warnings.length > 0) parts.push(`warnings: ${warnings.join('; ')}`);
  return parts.join('; ');
}

/** Statuses per operation from Schemathesis' NDJSON event stream: shows how deep the cases reached. */
function statusesByOperation(file) {
  const table = new Map();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.startsWith('{"ScenarioFinished"')) continue;
    const { recorder } = JSON.parse(line).ScenarioFinished;
    for (const interaction of Object.values(recorder.interactions ?? {})) {
      // the operation, or the method Schemathesis tried on its path (unsupported-method probes)
      const [method, template] = recorder.label.split(' ');
      const label =
        interaction.request.method === method ? recorder.label : `${interaction.request.method} ${template}`;
      const status = interaction.response?.status_code ?? 'none';
      const row = table.get(label) ?? {};
      row[status] = (row[status] ?? 0) + 1;
      table.set(label, row);
    }
  }
  return [...table]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(
      ([label, row]) =>
        `  ${label}: ${Object.entries(row)
          .map(([s, n]) => `${s} x${n}`)
          .join(', ')}`,
    );
}

async function main() {
  mkdirSync(out, { recursive: true });
  const bin = ensureSchemathesis();
  const started = Date.now();
  const servers = await testkit.startTestServers();
  const procs = [];
  try {
    const adminToken = randomBytes(32).toString('hex');
    const [mPort, ePort] = [await testkit.freePort(), await testkit.freePort()];
    const common = {
      NODE_ENV: 'test',
      MONGO_URL: servers.mongoUrl,
      NATS_URL: servers.natsUrl,
      ADMIN_TOKEN: adminToken,
      LOG_LEVEL: 'warn',
      OWNER_REGISTRY_BUCKET: `fuzz_owners_${randomBytes(3).toString('hex')}`,
    };
    // one client address, one token and a few owners send everything: the rate limits would turn
    // most cases into 429s and hide the paths behind them
    const unlimited = '1000000';
    const management = testkit.spawnService('management', {
      ...common,
      MANAGEMENT_PORT: String(mPort),
      MONGO_DB: `fuzz_mgmt_${randomBytes(3).toString('hex')}`,
      API_RATE_LIMIT_PER_MINUTE: unlimited,
      API_EXPENSIVE_RATE_LIMIT_PER_MINUTE: unlimited,
      AUTH_FAILURE_RATE_LIMIT_PER_MINUTE: unlimited,
    });
    const events = testkit.spawnService('events', {
      ...common,
      EVENTS_PORT: String(ePort),
      MONGO_DB: `fuzz_events_${randomBytes(3).toString('hex')}`,
      REPORT_RATE_LIMIT_PER_MINUTE: unlimited,
      PIXEL_RATE_PER_IP: '0',
      PIXEL_RATE_PER_OWNER: '0',
    });
    procs.push(['management', management], ['events', events]);
    const mBase = `http://127.0.0.1:${mPort}`;
    const eBase = `http://127.0.0.1:${ePort}`;
    await Promise.all([testkit.waitUntilReady(mBase, 60_000), testkit.waitUntilReady(eBase, 60_000)]);

    const owner = await call(mBase, 'POST', '/admin/v1/accounts', adminToken, {
      email: `fuzz-owner-${Date.now()}@example.com`,
      password: 'fuzzing password 1',
    });
    const sub = await call(mBase, 'POST', '/api/v3/user/', owner.api_token, {
      email: `fuzz-sub-${Date.now()}@example.com`,
      password: 'fuzzing password 2',
    });
    const owners = [owner.unique_id, sub.unique_id];
    // the examples and coverage phases send the document's example owner ids (no hooks there): scope the key to them too
    const exampleOwners = [
      ...new Set(
        [
          ...readFileSync(path.join(root, 'services/events/openapi.yaml'), 'utf8').matchAll(
            /owner_id['"]?:\s*['"]?(\d{1,32})\b/g,
          ),
        ].map((m) => m[1]),
      ),
    ];
    const key = await call(eBase, 'POST', '/admin/v1/api-keys', adminToken, {
      owner_ids: [...owners, ...exampleOwners],
    });
    say(`bootstrapped owners ${owners.join(', ')} and a report key scoped to them`);

    const env = {
      FUZZ_ADMIN_TOKEN: adminToken,
      FUZZ_API_TOKEN: owner.api_token,
      FUZZ_API_KEY: key.api_key,
      FUZZ_OWNER_IDS: owners.join(','),
      FUZZ_PROTECTED_IDS: [key.id, ...owners].join(','),
    };
    const results = {
      management: await runSchemathesis(
        bin,
        'management',
        mBase,
        env,
        Number(process.env.FUZZ_MAX_EXAMPLES_MANAGEMENT ?? 60),
      ),
      events: await runSchemathesis(bin, 'events', eBase, env, Number(process.env.FUZZ_MAX_EXAMPLES_EVENTS ?? 100)),
    };
    for (const service of Object.keys(results))
      say(
        `${service}, statuses per operation (examples and coverage phases; the fuzzing phase records only failures):\n${statusesByOperation(path.join(out, `${service}.ndjson`)).join('\n')}`,
      );
    for (const [name, proc] of procs) {
      const log = proc.output();
      writeFileSync(path.join(out, `${name}.log`), log);
      const errors = log.split('\n').filter((l) => l.includes('"level":"error"'));
      if (errors.length > 0)
        say(`${name} logged ${errors.length} errors (first: ${errors[0]}); full log in .cache/fuzz/${name}.log`);
    }
    const failed = Object.entries(results)
      .filter(([, code]) => code !== 0)
      .map(([name]) => name);
    say(
      `done in ${Math.round((Date.now() - started) / 1000)} s; ${failed.length === 0 ? 'no findings' : `findings in ${failed.join(', ')} (JUnit reports in .cache/fuzz/)`}`,
    );
    return failed.length === 0 ? 0 : 1;
  } finally {
    await Promise.all(procs.map(([, p]) => p.stop('SIGTERM')));
    await servers.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
