#!/usr/bin/env node
// The smallest pixel that does what ingest does minus device detection, validation, the registry
// and flood limits: node:http, parse the query, build the event, and publish every event that
// arrived while the previous publish was in flight as ONE JetStream message (at most 2 in flight),
// answering 200 only after the PubAck. `BENCH_EXPERIMENT=1 pnpm bench:pixel` runs it beside the
// pixel and the bare server, to show what this machine allows for the design itself.
// Usage: group-commit-experiment.mjs <port> <nats url> <subject> <owner_id to store events under>
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(path.join(root, 'services/events/package.json'));
const { connect, createInbox, headers } = require('@nats-io/transport-node');
const { v7 } = require('uuid');

const [port, natsUrl, subject, owner] = [Number(process.argv[2]), process.argv[3], process.argv[4], process.argv[5]];
const nc = await connect({ servers: natsUrl });
const gif = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');
const GIF_HEADERS = [
  'Content-Type',
  'image/gif',
  'Content-Length',
  String(gif.length),
  'Cache-Control',
  'no-store, no-cache, must-revalidate, private',
  'Access-Control-Allow-Origin',
  '*',
];
const inbox = createInbox();
const pending = new Map();
let next = 0;
let inflight = 0;
let queue = [];
let waiters = [];

nc.subscribe(`${inbox}.*`, {
  callback: (_err, msg) => {
    const token = msg.subject.slice(inbox.length + 1);
    const answered = pending.get(token) ?? [];
    pending.delete(token);
    inflight--;
    for (const res of answered) {
      res.writeHead(200, GIF_HEADERS);
      res.end(gif);
    }
    flush();
  },
});

function flush() {
  while (inflight < 2 && queue.length > 0) {
    const events = queue;
    const answered = waiters;
    queue = [];
    waiters = [];
    const id = v7();
    const token = (next++).toString(36);
    const h = headers();
    h.set('Nats-Msg-Id', id);
    pending.set(token, answered);
    inflight++;
    nc.publish(subject, `{"v":2,"id":"${id}","events":[${events.join(',')}]}`, {
      reply: `${inbox}.${token}`,
      headers: h,
    });
  }
}

http
  .createServer((req, res) => {
    const q = new URLSearchParams(req.url.slice(req.url.indexOf('?') + 1));
    const event = {
      id: v7(),
      owner_id: owner,
      name: q.get('name'),
      url: q.get('url') ?? '',
      content_id: q.get('content_id') ?? '',
      device_type: 'desktop',
      bot: false,
      metadata: { utm_source: q.get('utm_source') },
      created: new Date().toISOString(),
    };
    queue.push(JSON.stringify(event));
    waiters.push(res);
    flush();
  })
  .listen(port, '127.0.0.1');
