// Variants timed side by side in one process: each run times every variant once, the order
// reversed every other run, so a drift of the machine's load (or a garbage collection left by the
// previous variant) falls on all of them alike.

/** p50 ms of each variant over `runs` runs, after two warm-up runs; `before` runs untimed before each call. */
export async function p50Alternating(variants, runs, { before } = {}) {
  const times = variants.map(() => []);
  for (let r = 0; r < runs + 2; r++) {
    const order = variants.map((_, i) => i);
    if (r % 2 === 1) order.reverse();
    for (const i of order) {
      if (before) await before();
      const t0 = process.hrtime.bigint();
      await variants[i]();
      if (r >= 2) times[i].push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }
  return times.map((xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]);
}
