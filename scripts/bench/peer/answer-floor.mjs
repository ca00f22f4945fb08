// The floor of our side of bench:peer, per scenario: the same answer's bytes served by a bare
// node:http server on loopback and parsed by the same client as our reports are. No report path,
// however fast its reads and merges, answers over HTTP in less time than this; set beside
// ClickHouse's in-process time it says which ratios a faster read side could still reach.
import http from 'node:http';
import { once } from 'node:events';
import { postJsonTimed } from '../reporting-app.mjs';

/** A server answering `/<i>` with `bodies[i]` as JSON; `{ask(i, body), close()}`, `ask` timed as postJsonTimed. */
export async function startAnswerFloor(bodies) {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const body = bodies[Number(req.url.slice(1))] ?? '[]';
      res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
      });
      res.end(body);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${server.address().port}`;
  return {
    // a POST with a body like a report's, timed as ours are: received, then parsed
    ask: (i, body) => postJsonTimed(`${base}/${i}`, body),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
