import winston from 'winston';
import { REDACTED, isSecretName, redact } from './redact';

export { redact } from './redact';

/** The winston format that masks every field of a log entry (exported for its tests). */
export const redactFormat = winston.format((info) => {
  for (const key of Object.keys(info)) {
    if (key === 'level') continue;
    (info as Record<string, unknown>)[key] = isSecretName(key) ? REDACTED : redact(info[key]);
  }
  return info;
});

export interface LoggerOptions {
  service: string;
  level: string;
  /** Tests pass `true` to keep the output quiet. */
  silent?: boolean;
}

/** JSON lines on stdout, one object per event, secrets masked. */
export function createLogger(opts: LoggerOptions): winston.Logger {
  return winston.createLogger({
    level: opts.level,
    silent: opts.silent ?? false,
    defaultMeta: { service: opts.service },
    format: winston.format.combine(redactFormat(), winston.format.timestamp(), winston.format.json()),
    transports: [new winston.transports.Console()],
  });
}

export type { Logger } from 'winston';
