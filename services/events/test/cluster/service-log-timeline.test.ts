import { serviceLogTimeline } from './service-log-timeline';

const at = (ms: number) => new Date(Date.UTC(2026, 10, 23, 12, 0, 0) + ms).toISOString();
const start = Date.UTC(2026, 10, 23, 12, 0, 0);
const line = (o: Record<string, unknown>) => JSON.stringify(o);

describe('serviceLogTimeline', () => {
  test('when the log holds warnings, errors, 503 reasons and noise, then the failures are grouped with first and last time', () => {
    const output = [
      'not json',
      line({ level: 'info', message: 'events listening', timestamp: at(0) }),
      line({ level: 'warn', message: 'nats connection status', status: 'disconnect', timestamp: at(1000) }),
      line({ level: 'debug', message: 'pixel event not stored', reason: 'timeout', timestamp: at(1200) }),
      line({ level: 'debug', message: 'pixel event not stored', reason: 'timeout', timestamp: at(3400) }),
      line({ level: 'warn', message: 'nats connection status', status: 'reconnect', timestamp: at(2000) }),
      line({ level: 'error', message: 'pixel request failed', error: 'boom', timestamp: at(-500) }),
      line({ level: 'debug', message: 'other debug', timestamp: at(10) }),
    ].join('\n');
    expect(serviceLogTimeline(output, start)).toEqual([
      { level: 'error', what: 'pixel request failed: boom', count: 1, firstMs: -500, lastMs: -500 },
      { level: 'warn', what: 'nats connection status: disconnect', count: 1, firstMs: 1000, lastMs: 1000 },
      { level: 'debug', what: 'pixel event not stored: timeout', count: 2, firstMs: 1200, lastMs: 3400 },
      { level: 'warn', what: 'nats connection status: reconnect', count: 1, firstMs: 2000, lastMs: 2000 },
    ]);
  });

  test('when the output is empty, then there is nothing', () => {
    expect(serviceLogTimeline('', start)).toEqual([]);
  });
});
