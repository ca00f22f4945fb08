import type { BrokenFoundBy, BrokenReason } from './broken-units';
import type { BuildPass, RollupBuilderOptions } from './rollup-builder';

/** What a rollup thread is started with (plain data: it crosses to the thread by structured clone). */
export interface RollupThreadData {
  mongoUrl: string;
  mongoDb: string;
  logLevel: string;
  /** The builder's options, its shard included. */
  builder: Omit<RollupBuilderOptions, 'hooks' | 'now' | 'broken' | 'logger'>;
  /** Raw days kept (a damaged unit past them is never reset: broken-units.ts). */
  brokenRawRetentionDays: number;
}

/** The main thread asks for one builder pass, or for the thread to close its connection and end. */
export type ThreadRequest = { type: 'run' } | { type: 'close' };

/** A thread answers a pass, or its error; it reports a broken unit it found; `ready` once connected. */
export type ThreadReply =
  | { type: 'ready' }
  | { type: 'pass'; pass: BuildPass }
  | { type: 'error'; error: string }
  | { type: 'broken'; level: string; foundBy: BrokenFoundBy; reason: BrokenReason };
