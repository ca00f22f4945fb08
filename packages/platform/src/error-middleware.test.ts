import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import winston from 'winston';
import { createLogger } from './logger';
import { errorMiddleware } from './error-middleware';

async function answer(thrown: unknown): Promise<{ status: number; body: unknown; logged: Record<string, unknown>[] }> {
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
    return { status: res.status, body: await res.json(), logged };
  } finally {
    server.close();
  }
}

describe('errorMiddleware', () => {
  test('when the database refuses a write because it is full, then 503 says so and the log keeps the database message', async () => {
    const full = Object.assign(new Error('the MongoDB stand-in store is full: raise MONGO_STAND_IN_HEAP'), { code: 14031, codeName: 'OutOfDiskSpace' });
    const { status, body, logged } = await answer(full);
    expect(status).toBe(503);
    expect(body).toEqual({ error: { code: 'unavailable', message: expect.stringContaining('the database is full') } });
    expect(logged).toContainEqual(expect.objectContaining({ level: 'error', cause: expect.stringContaining('MONGO_STAND_IN_HEAP') }));
  });

  test('when an unknown error is thrown, then 500 with the generic message and nothing of it in the answer', async () => {
    const { status, body } = await answer(new Error('secret internals'));
    expect(status).toBe(500);
    expect(JSON.stringify(body)).not.toContain('secret');
  });
});
