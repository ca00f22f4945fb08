import type { CliIo } from './cli-io';
import type { OptionValues } from './command';
import { stringOption } from './option-values';
import { UsageError } from './usage-error';

/** Where one of a user's secrets may come from; like the operator token, never from a flag holding it. */
export interface SecretSource {
  /** e.g. "the management api_token" (for errors; the secret itself is never echoed). */
  what: string;
  /** An option naming a file that holds it, e.g. `api-token-file`. */
  fileOption: string;
  /** An environment variable holding it, e.g. `MANAGEMENT_API_TOKEN`. */
  envName: string;
}

/** The file flag wins over the environment; one trailing newline (and surrounding blanks) is dropped. */
export async function readUserSecret(
  values: OptionValues,
  io: Pick<CliIo, 'env' | 'readFile'>,
  source: SecretSource,
): Promise<string> {
  const path = stringOption(values, source.fileOption);
  let raw: string;
  let from: string;
  if (path !== undefined) {
    from = `--${source.fileOption} ${path}`;
    try {
      raw = await io.readFile(path);
    } catch (err) {
      throw new UsageError(
        `cannot read ${source.what} from ${from}: ${(err as { code?: string }).code ?? (err as Error).message}`,
      );
    }
  } else {
    raw = io.env[source.envName] ?? '';
    from = source.envName;
    if (raw.trim() === '')
      throw new UsageError(
        `no ${source.what}: set ${source.envName} in the environment or pass --${source.fileOption} PATH`,
      );
  }
  const secret = raw.trim();
  if (secret === '') throw new UsageError(`${source.what} from ${from} is empty`);
  if (!/^[\x21-\x7e]+$/.test(secret))
    throw new UsageError(`${source.what} from ${from} contains spaces or non-ASCII characters`);
  return secret;
}
