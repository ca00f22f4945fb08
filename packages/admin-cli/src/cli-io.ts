/** Everything the CLI touches outside itself, injected so tests run it in-process. */
export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: Record<string, string | undefined>;
  /** All of standard input (for --password-stdin). */
  readStdin(): Promise<string>;
  readFile(path: string): Promise<string>;
  fetch: typeof fetch;
}
