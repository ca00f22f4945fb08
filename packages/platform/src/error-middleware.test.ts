import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import winston from 'winston';
import { createLogger } from './logger';
import { MongoServerSelectionError } from 'mongodb';
import { errorMiddleware } from './error-middleware';
import { UnavailableError } from './errors';

async function answer(
  thrown: unknown,
): Promise<{ status: number; body: unknown; retryAfter: string | null; logged: Record<string, unknown>[] }> {
  const logged: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      logged.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const logger = createLogger({ service: 'test', level: 'info' });
  logger.clear().add(new winston.transports.Stream({ stream }));
  const app = express();
  app.get('/', (_req, _res, next) => next(thrown));
  app.use(errorMiddleware(logger));
  const server = http.createServer(app).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    return { status: res.status, body: await res.json(), retryAfter: res.headers.get('retry-after'), logged };
  } finally {
    server.close();
  }
}

describe('errorMiddleware', () => {
  test('when the database refuses a write because it is full, then 503 says so and the log keeps the database message', async () => {
    const full = Object.assign(new Error('the MongoDB stand-in store is full: raise MONGO_STAND_IN_HEAP'), {
      code: 14031,
      codeName: 'OutOfDiskSpace',
    });
    const { status, body, logged } = await answer(full);
    expect(status).toBe(503);
    expect(body).toEqual({ error: { code: 'unavailable', message: expect.stringContaining('the database is full') } });
    expect(logged).toContainEqual(
      expect.objectContaining({ level: 'error', cause: expect.stringContaining('MONGO_STAND_IN_HEAP') }),
    );
  });

  test('when an unknown error is thrown, then 500 with the generic message and nothing of it in the answer', async () => {
    const { status, body } = await answer(new Error('secret internals'));
    expect(status).toBe(500);
    expect(JSON.stringify(body)).not.toContain('secret');
  });
});

describe('errorMiddleware and an unreachable database', () => {
  test('when a handler fails with a server selection timeout, then 503 unavailable with Retry-After, not 500', async () => {
    const thrown = new MongoServerSelectionError('Server selection timed out after 500 ms', {
      type: 'Unknown',
      servers: new Map(),
    } as never);
    const { status, body, retryAfter } = await answer(thrown);
    expect(status).toBe(503);
    expect(body).toEqual({ error: { code: 'unavailable', message: expect.any(String) } });
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  });

  test('when a handler throws UnavailableError, then the 503 carries Retry-After too', async () => {
    const { status, retryAfter } = await answer(new UnavailableError('the report took longer than its deadline'));
    expect(status).toBe(503);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  });
});
