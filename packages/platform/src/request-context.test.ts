import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import type { Request, Response } from 'express';
import winston from 'winston';
import { requestContext } from './request-context';

/** A logger at `level` whose lines are kept in `lines`. */
function memoryLogger(level: string): { logger: winston.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    objectMode: true,
    write(info: Record<string, unknown>, _enc, done) {
      lines.push(info);
      done();
    },
  });
  return { logger: winston.createLogger({ level, transports: [new winston.transports.Stream({ stream })] }), lines };
}

/** A request through the middleware, finished with 204; resolves with the id it was given. */
function finishedRequest(logger: winston.Logger, incomingId?: string): Promise<string> {
  const req = {
    method: 'GET',
    originalUrl: '/healthz',
    get: (name: string) => (name.toLowerCase() === 'x-request-id' ? incomingId : undefined),
  } as unknown as Request;
  const res = Object.assign(new EventEmitter(), { statusCode: 204, setHeader: () => undefined }) as unknown as Response;
  return new Promise((resolve) =>
    requestContext(logger)(req, res, () => {
      res.emit('finish');
      // the log line is written on the next turn of the stream
      setImmediate(() => resolve(req.id));
    }),
  );
}

describe('requestContext', () => {
  test('when LOG_LEVEL is http, then a finished request logs one line with its id, status and duration', async () => {
    const { logger, lines } = memoryLogger('http');
    const id = await finishedRequest(logger, 'abc-123');
    expect(id).toBe('abc-123');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      message: 'request',
      request_id: 'abc-123',
      method: 'GET',
      path: '/healthz',
      status: 204,
    });
    expect(typeof lines[0]!.duration_ms).toBe('number');
  });

  test('when LOG_LEVEL is info, then no request line is made, and the request still gets an id', async () => {
    const { logger, lines } = memoryLogger('info');
    const made = jest.spyOn(logger, 'http');
    const id = await finishedRequest(logger, 'not a valid id!');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(made).not.toHaveBeenCalled();
    expect(lines).toHaveLength(0);
  });
});
