/** The command line is wrong (exit code 2). `help` is shown after the message when given. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly help?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}
