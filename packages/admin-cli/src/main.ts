#!/usr/bin/env node
import { readFile } from 'node:fs/promises';
import { text } from 'node:stream/consumers';
import { runCli } from './run-cli';

// output piped into `head` and closed early is not a failure of the command
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
}

// the only place that touches the process: argv, env, stdin, stdout, stderr and the exit code
runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  readStdin: () => text(process.stdin),
  readFile: (path) => readFile(path, 'utf8'),
  fetch: globalThis.fetch,
}).then((code) => {
  // exitCode, not exit(): pending writes to a pipe are flushed first
  process.exitCode = code;
});
