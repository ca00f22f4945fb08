export interface ErrorDetail {
  field: string;
  message: string;
}

/** A service answered with an error status; code, message and details come from its error shape. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toJSON(): unknown {
    const error: Record<string, unknown> = { code: this.code, message: this.message };
    if (this.details.length > 0) error.details = this.details;
    return { status: this.status, error };
  }
}

/** No answer: refused, unresolvable, reset or timed out. */
export class NetworkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NetworkError';
  }

  toJSON(): unknown {
    return { error: { code: 'network_error', message: this.message } };
  }
}

/** Human form of an API or network error for stderr: the message, then one line per field. */
export function formatError(err: ApiError | NetworkError): string {
  if (err instanceof NetworkError) return `error: ${err.message}`;
  const lines = [`error: ${err.status} ${err.code}: ${err.message}`];
  for (const d of err.details) lines.push(`  ${d.field}: ${d.message}`);
  if (err.status === 401)
    lines.push('hint: the operator token must equal the ADMIN_TOKEN the service was started with');
  return lines.join('\n');
}
