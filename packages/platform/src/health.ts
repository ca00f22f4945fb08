import express, { type Router } from 'express';

export type ReadinessCheck = () => Promise<void>;

/** /healthz says the process is alive; /readyz runs every dependency check and answers 503 if one fails. */
export function healthRouter(checks: Record<string, ReadinessCheck>): Router {
  const router = express.Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const results: Record<string, string> = {};
    let ready = true;
    await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        try {
          await withTimeout(check(), 2000);
          results[name] = 'ok';
        } catch {
          results[name] = 'unavailable';
          ready = false;
        }
      }),
    );
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable', checks: results });
  });
  return router;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('timeout')), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(t);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
