import { ApiError, NetworkError, type ErrorDetail } from './api-error';

export type ServiceName = 'management' | 'events';

export interface AdminApiOptions {
  urls: Record<ServiceName, string>;
  /** Undefined for commands that act with a user's credentials (they never call request()). */
  adminToken: string | undefined;
  fetch: typeof fetch;
  timeoutMs: number;
}

/**
 * Calls the `/admin/v1/` endpoints with the operator token. Never retries: creating an account
 * or a key twice is not harmless, and an operator re-runs a failed command knowingly.
 */
export class AdminApi {
  constructor(private readonly opts: AdminApiOptions) {}

  async request<T>(service: ServiceName, method: string, path: string, body?: unknown): Promise<T> {
    if (this.opts.adminToken === undefined) throw new Error('this command was started without the operator token');
    const url = this.opts.urls[service] + path;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.opts.adminToken}`,
      accept: 'application/json',
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await this.opts.fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.opts.timeoutMs),
        redirect: 'error',
      });
    } catch (err) {
      throw new NetworkError(describeFailure(err, service, this.opts.urls[service], this.opts.timeoutMs));
    }
    const text = await res.text().catch(() => '');
    const parsed = parseJson(text);
    if (!res.ok) throw errorFromResponse(res.status, res.statusText, parsed);
    if (res.status === 204 || text === '') return undefined as T;
    if (parsed === undefined)
      throw new ApiError(
        res.status,
        'unexpected_response',
        `the ${service} service answered ${res.status} with a body that is not JSON`,
      );
    return parsed as T;
  }
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The services' one error shape; anything else (a proxy's HTML page) becomes a generic http_error. */
function errorFromResponse(status: number, statusText: string, body: unknown): ApiError {
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined)?.error;
  if (error && typeof error.code === 'string' && typeof error.message === 'string') {
    const details = Array.isArray(error.details)
      ? error.details.filter((d): d is ErrorDetail => typeof d?.field === 'string' && typeof d?.message === 'string')
      : [];
    return new ApiError(status, error.code, error.message, details);
  }
  return new ApiError(status, 'http_error', `HTTP ${status}${statusText ? ` ${statusText}` : ''}`);
}

function describeFailure(err: unknown, service: ServiceName, baseUrl: string, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError')
    return `the ${service} service at ${baseUrl} did not answer within ${timeoutMs / 1000} s`;
  const reason = e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
  return `cannot reach the ${service} service at ${baseUrl} (${reason})`;
}
