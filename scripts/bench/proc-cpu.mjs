// CPU seconds of processes from /proc (Linux; elsewhere NaN): on a machine where the service,
// the broker and the database share the cores, CPU per event is what decides throughput.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS = 100;

/** User + system CPU seconds a process has used so far. */
export function cpuOf(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').pop().split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return NaN;
  }
}

/** The data stores started by this benchmark (children of this process): { mongo, nats } pids. */
export function storePids() {
  const pids = {};
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.split(') ').pop().split(' ')[1]);
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (ppid === process.pid && /java|nats/.test(comm))
        pids[comm.includes('java') ? 'mongo' : 'nats'] = Number(entry);
    } catch {
      /* gone */
    }
  }
  return pids;
}

/** CPU seconds of each named pid: { name: pid } -> { name: seconds }. */
export function cpuSnapshot(pids) {
  return Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuOf(pid)]));
}

/** CPU microseconds per unit of work of each process between two snapshots. */
export function cpuPer(before, after, units) {
  return Object.fromEntries(Object.keys(after).map((name) => [name, ((after[name] - before[name]) * 1e6) / units]));
}

/** BENCH_CPU_PROF=<dir>: node flags for a V8 CPU profile of a process, written when it exits. */
export function cpuProfileArgs() {
  return process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
}
