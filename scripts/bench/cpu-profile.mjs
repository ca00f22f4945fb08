// CPU profile of a piece of work in this process (node:inspector), summarised by self time per
// function: where a report's milliseconds go (parsing, merging, waiting for the store = idle).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Session } from 'node:inspector/promises';

/** Runs `work` under the profiler; writes the .cpuprofile to `file` and returns the top `top` functions by self time. */
export async function profiled(work, file, top = 15) {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  let profile;
  try {
    await work();
  } finally {
    ({ profile } = await session.post('Profiler.stop'));
    session.disconnect();
  }
  // the directory named on the command line need not exist yet
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(profile));
  return summarise(profile, top);
}

function summarise(profile, top) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const deltas = profile.timeDeltas;
  let total = 0;
  profile.samples.forEach((id, i) => {
    const n = byId.get(id);
    const f = n.callFrame;
    const where = f.url ? `${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}` : '';
    const key = `${f.functionName || '(anonymous)'} ${where}`.trim();
    const dt = deltas[i] ?? 0;
    total += dt;
    self.set(key, (self.get(key) ?? 0) + dt);
  });
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([fn, us]) => `${((100 * us) / total).toFixed(1).padStart(5)} %  ${fn}`)
    .join('\n');
}
