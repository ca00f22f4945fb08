import winston from 'winston';

const SECRET_KEYS = new Set(['password', 'api_token', 'apitoken', 'token', 'api_key', 'apikey', 'authorization', 'admin_token', 'secret', 'cookie']);
const SECRET_QUERY = /([?&](?:api_key|api_token|token|password)=)[^&#\s]*/gi;

/** Masks values that must never reach a log line: credentials in fields, headers and URLs. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6) return '[depth]';
  if (typeof value === 'string') return value.replace(SECRET_QUERY, '$1[redacted]');
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = SECRET_KEYS.has(k.toLowerCase()) ? '[redacted]' : redact(v, depth + 1);
    }
    return out;
  }
  return value;
}

const redactFormat = winston.format((info) => {
  for (const key of Object.keys(info)) {
    if (key === 'level') continue;
    (info as Record<string, unknown>)[key] = SECRET_KEYS.has(key.toLowerCase()) ? '[redacted]' : redact(info[key]);
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
