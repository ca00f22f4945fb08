#!/usr/bin/env node
// CPU microseconds per request of the bare node:http GIF server (the baseline of bench:pixel) at a
// fixed request rate: the floor for the ingest role's figure in bench:pipeline, which pays the
// same HTTP work per hit. Usage: node scripts/bench/bare-http-cpu.mjs [rate=6400] [seconds=10]
// (Linux: reads /proc). Loopback only.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuOf } from './proc-cpu.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const autocannon = require('autocannon');
const testkit = require(path.join(here, '..', '..', 'packages/testkit/dist'));
const [rate, seconds] = [Number(process.argv[2] ?? 6400), Number(process.argv[3] ?? 10)];

const port = await testkit.freePort();
const child = spawn(process.execPath, [path.join(here, 'pixel.mjs'), '--bare', String(port)], { stdio: 'inherit' });
await testkit.waitForPort(port, 10_000);
const url = `http://127.0.0.1:${port}/v1/v.gif?owner_id=1&name=impression&content_id=article-1&url=https%3A%2F%2Fpub.example%2Fa&utm_source=bench`;
const before = cpuOf(child.pid);
const result = await new Promise((resolve, reject) =>
  autocannon({ url, connections: 64, overallRate: rate, duration: seconds }, (err, r) =>
    err ? reject(err) : resolve(r),
  ),
);
const usPerRequest = ((cpuOf(child.pid) - before) * 1e6) / result.requests.total;
console.log(
  `bare node:http at ${rate} req/s (${result.requests.average.toFixed(0)} answered/s, 64 connections): ${usPerRequest.toFixed(1)} CPU us per request`,
);
child.kill();
