import { AdminApi } from './admin-api';
import { ApiError, CommandFailure, NetworkError, formatError } from './api-error';
import type { CliIo } from './cli-io';
import type { Command } from './command';
import { parseCommandLine } from './command-line';
import { ALL_COMMANDS } from './commands/all-commands';
import { PROGRAM } from './global-options';
import { resolveSettings } from './settings';
import { UsageError } from './usage-error';

const EXIT_OK = 0;
const EXIT_API_ERROR = 1;
const EXIT_USAGE = 2;

/** Long enough for a retention run over many buckets; an operator can always Ctrl-C. */
const REQUEST_TIMEOUT_MS = 60_000;

/**
 * The whole CLI as a function: parses `argv`, calls the service, prints to the injected streams
 * and returns the exit code (0 ok, 1 API or network error, 2 usage error).
 */
export async function runCli(argv: string[], io: CliIo, commands: Command[] = ALL_COMMANDS): Promise<number> {
  const json = argv.includes('--json');
  try {
    const line = parseCommandLine(argv, commands);
    if (line.kind === 'help') {
      io.stdout.write(line.text);
      return EXIT_OK;
    }
    const settings = await resolveSettings(line.values, io.env, io.readFile, line.command.operatorToken !== false);
    const api = new AdminApi({
      urls: settings.urls,
      adminToken: settings.adminToken,
      fetch: io.fetch,
      timeoutMs: REQUEST_TIMEOUT_MS,
    });
    const output = await line.command
      .run({ values: line.values, positionals: line.positionals, api, urls: settings.urls, io })
      .catch((err: unknown) => {
        if (!(err instanceof UsageError)) throw err;
        throw new UsageError(
          `${err.message}\nRun '${PROGRAM} ${line.command.group} ${line.command.verb} --help' for usage.`,
        );
      });
    io.stdout.write(settings.json ? `${JSON.stringify(output.json, null, 2)}\n` : `${output.text}\n`);
    if (output.notice) io.stderr.write(`${output.notice}\n`);
    return EXIT_OK;
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`${PROGRAM}: ${err.message}\n${err.help ? `\n${err.help}` : ''}`);
      return EXIT_USAGE;
    }
    if (err instanceof ApiError || err instanceof NetworkError || err instanceof CommandFailure) {
      io.stderr.write(json ? `${JSON.stringify(err)}\n` : `${PROGRAM}: ${formatError(err)}\n`);
      return EXIT_API_ERROR;
    }
    // a bug here, not the operator's fault: say so without a stack trace
    io.stderr.write(`${PROGRAM}: unexpected failure: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT_API_ERROR;
  }
}
