/** Waits `ms`, or rejects with the signal's reason as soon as the caller aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * One attempt's signal: aborts on the caller's signal or when the timer fires. Hand-linked
 * rather than AbortSignal.any, which older runtimes in the supported range lack.
 */
export function attemptSignal(timeoutMs: number, caller: AbortSignal | undefined) {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onAbort = () => controller.abort(caller?.reason);
  caller?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    dispose() {
      clearTimeout(timer);
      caller?.removeEventListener('abort', onAbort);
    },
  };
}
