import { attemptSignal, sleep } from './abort';
import { resolveRetry, positive, type RequestOptions, type TransportConfig } from './client-options';
import { errorFromResponse } from './error-from-response';
import { CampaignEventsError, NetworkError, NotFoundError, TimeoutError } from './errors';
import { parseRetryAfter } from './retry-after';
import { decideRetry, outcomeUnknown, type AttemptFailure } from './retry-policy';

export interface CallSpec {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Already encoded, starting with "/". */
  path: string;
  /** Query parameters; never shown in errors (the report's api_key travels here). */
  query?: Record<string, string>;
  body?: unknown;
  bearer?: string;
  /** Safe to send twice: decides retries after an unknown outcome (see retry-policy). */
  idempotent: boolean;
  /** A DELETE whose earlier attempt may have landed: a 404 on the retry means it is gone, i.e. done. */
  goneIsDone?: boolean;
}

type Attempt<T> = { ok: true; value: T } | { ok: false; failure: AttemptFailure; error: CampaignEventsError };

/** Codes of connections that never opened: the service cannot have seen the request. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);

/** One JSON request with the retry policy, per-attempt timeout and cancellation. */
export class HttpTransport {
  constructor(
    private readonly config: TransportConfig,
    private readonly random: () => number = Math.random,
  ) {}

  async call<T>(spec: CallSpec, options: RequestOptions = {}): Promise<T> {
    const retry = resolveRetry(this.config.retry, options.retry);
    const timeoutMs = positive(options.timeoutMs ?? this.config.timeoutMs, 'timeoutMs');
    let delayedMs = 0;
    let mayHaveLanded = false;
    for (let attempt = 1; ; attempt++) {
      options.signal?.throwIfAborted();
      const result = await this.attempt<T>(spec, timeoutMs, options.signal);
      if (result.ok) return result.value;
      if (spec.goneIsDone && mayHaveLanded && result.error instanceof NotFoundError) return undefined as T;
      const decision = decideRetry({
        idempotent: spec.idempotent,
        attempt,
        delayedMs,
        failure: result.failure,
        options: retry,
        random: this.random,
      });
      if (!decision.retry) throw result.error;
      mayHaveLanded ||= outcomeUnknown(result.failure);
      await sleep(decision.delayMs, options.signal);
      delayedMs += decision.delayMs;
    }
  }

  private async attempt<T>(spec: CallSpec, timeoutMs: number, caller: AbortSignal | undefined): Promise<Attempt<T>> {
    const described = `${spec.method} ${spec.path}`;
    const timing = attemptSignal(timeoutMs, caller);
    try {
      const res = await this.config.fetch(this.urlOf(spec), {
        method: spec.method,
        headers: this.headersOf(spec),
        body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
        signal: timing.signal,
      });
      const text = await res.text();
      if (res.ok) return { ok: true, value: parseSuccess<T>(text, described) };
      const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'), Date.now());
      const error = errorFromResponse({
        status: res.status,
        bodyText: text,
        retryAfterMs,
        requestId: res.headers.get('x-request-id') ?? undefined,
        request: described,
      });
      return { ok: false, failure: { kind: 'status', status: res.status, retryAfterMs }, error };
    } catch (err) {
      if (caller?.aborted) throw caller.reason;
      if (err instanceof CampaignEventsError) throw err;
      if (timing.timedOut())
        return { ok: false, failure: { kind: 'timeout' }, error: new TimeoutError(described, timeoutMs) };
      const code = causeCode(err);
      return {
        ok: false,
        failure: { kind: 'network', notSent: code !== undefined && NOT_SENT_CODES.has(code) },
        error: new NetworkError(described, code ?? (err instanceof Error ? err.message : String(err)), { cause: err }),
      };
    } finally {
      timing.dispose();
    }
  }

  private urlOf(spec: CallSpec): string {
    const query = spec.query ? `?${new URLSearchParams(spec.query).toString()}` : '';
    return `${this.config.baseUrl}${spec.path}${query}`;
  }

  private headersOf(spec: CallSpec): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.config.userAgent };
    if (spec.body !== undefined) headers['content-type'] = 'application/json';
    if (spec.bearer !== undefined) headers.authorization = `Bearer ${spec.bearer}`;
    return headers;
  }
}

function parseSuccess<T>(text: string, described: string): T {
  if (text === '') return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new CampaignEventsError(`${described}: the answer is not JSON`);
  }
}

/** Node's fetch reports the socket error as `cause` (with a code); browsers give no detail. */
function causeCode(err: unknown): string | undefined {
  const cause = (err as { cause?: { code?: unknown } } | null)?.cause;
  return typeof cause?.code === 'string' ? cause.code : undefined;
}
