export interface Readiness {
  status: number;
  body: { status?: string; checks?: Record<string, string>; waiting_for?: string } & Record<string, unknown>;
}

/** A service's `/readyz` answer (status and JSON body). */
export async function readiness(baseUrl: string): Promise<Readiness> {
  const res = await fetch(`${baseUrl}/readyz`);
  return { status: res.status, body: (await res.json()) as Readiness['body'] };
}

/** Polls `/readyz` until it answers 200 (a service that does not listen yet counts as not ready). */
export async function waitUntilReady(baseUrl: string, timeoutMs: number): Promise<Readiness> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const r = await readiness(baseUrl);
      if (r.status === 200) return r;
      last = r.body;
    } catch (err) {
      last = err instanceof Error ? err.message : err;
    }
    if (Date.now() > deadline)
      throw new Error(`${baseUrl} not ready after ${timeoutMs} ms (last: ${JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
