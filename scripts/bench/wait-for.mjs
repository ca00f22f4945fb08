// Polls `check` until it is true; a check that throws counts as "not yet" (a server still starting).
export async function waitFor(what, check, ms, everyMs = 100) {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) throw new Error(`${what}: not after ${ms} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
