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
    /** Shown after a 401 instead of the operator-token hint (commands run with a user's credentials). */
    readonly unauthorizedHint?: string,
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

/** The call went through but the command cannot answer (exit 1), e.g. a campaign too large to count. */
export class CommandFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'CommandFailure';
  }

  toJSON(): unknown {
    return { error: { code: this.code, message: this.message } };
  }
}

/** Human form of an API or network error for stderr: the message, then one line per field. */
export function formatError(err: ApiError | NetworkError | CommandFailure): string {
  if (err instanceof NetworkError || err instanceof CommandFailure) return `error: ${err.message}`;
  const lines = [`error: ${err.status} ${err.code}: ${err.message}`];
  for (const d of err.details) lines.push(`  ${d.field}: ${d.message}`);
  if (err.status === 401)
    lines.push(
      err.unauthorizedHint ?? 'hint: the operator token must equal the ADMIN_TOKEN the service was started with',
    );
  return lines.join('\n');
}
