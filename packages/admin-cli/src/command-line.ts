import { parseArgs } from 'node:util';
import type { Command, OptionSpec, OptionValues } from './command';
import { GLOBAL_OPTIONS, PROGRAM } from './global-options';
import { commandHelp, commandUsage, groupHelp, topHelp } from './help-text';
import { UsageError } from './usage-error';

export type CommandLine =
  { kind: 'help'; text: string } | { kind: 'run'; command: Command; values: OptionValues; positionals: string[] };

/** Global options that take a value: their value is skipped while looking for the command words. */
const GLOBAL_VALUE_OPTIONS = new Set(
  Object.entries(GLOBAL_OPTIONS)
    .filter(([, s]) => s.type === 'string')
    .map(([name]) => `--${name}`),
);

/**
 * Finds `<group> <verb>` among the arguments (global options may come first), then parses the
 * rest strictly with node:util parseArgs against the global and the command's options.
 * Throws UsageError for anything unknown, missing or surplus.
 */
export function parseCommandLine(argv: string[], commands: Command[]): CommandLine {
  const end = argv.indexOf('--') === -1 ? argv.length : argv.indexOf('--');
  const wantsHelp = argv.slice(0, end).some((a) => a === '--help' || a === '-h');
  if (argv.slice(0, end).some((a) => a === '--admin-token' || a.startsWith('--admin-token='))) {
    // answered before anything else so that the value is never echoed back in an error
    throw new UsageError(
      'there is no --admin-token option: set ADMIN_TOKEN in the environment or pass --admin-token-file PATH (keeps the token out of shell history and ps)',
    );
  }
  const groups = new Set(commands.map((c) => c.group));
  const wordAt: number[] = [];
  for (let i = 0; i < end && wordAt.length < 2; i++) {
    const arg = argv[i]!;
    if (arg.startsWith('-') && arg !== '-') {
      if (GLOBAL_VALUE_OPTIONS.has(arg)) i++;
      continue;
    }
    if (wordAt.length === 0 && !groups.has(arg))
      throw new UsageError(`unknown command '${arg}'\nRun '${PROGRAM} --help' for the commands.`);
    wordAt.push(i);
  }

  if (wordAt.length === 0) {
    if (wantsHelp) return { kind: 'help', text: topHelp(commands) };
    throw new UsageError('no command given', topHelp(commands));
  }
  const group = argv[wordAt[0]!]!;
  if (wordAt.length === 1) {
    if (wantsHelp) return { kind: 'help', text: groupHelp(group, commands) };
    throw new UsageError(`'${group}' needs a command`, groupHelp(group, commands));
  }
  const verb = argv[wordAt[1]!]!;
  const command = commands.find((c) => c.group === group && c.verb === verb);
  if (!command) throw new UsageError(`unknown command '${group} ${verb}'`, groupHelp(group, commands));
  if (wantsHelp) return { kind: 'help', text: commandHelp(command) };

  const rest = argv.filter((_, i) => !wordAt.includes(i));
  const { values, positionals } = parseRest(rest, command);
  return { kind: 'run', command, values, positionals };
}

function parseRest(args: string[], command: Command): { values: OptionValues; positionals: string[] } {
  const options: Record<string, OptionSpec> = { ...GLOBAL_OPTIONS, ...command.options };
  const config = Object.fromEntries(
    Object.entries(options).map(([name, s]) => [
      name,
      { type: s.type, ...(s.multiple ? { multiple: true } : {}), ...(s.short ? { short: s.short } : {}) },
    ]),
  );
  const hint = `Run '${PROGRAM} ${command.group} ${command.verb} --help' for usage.`;
  let parsed: { values: OptionValues; positionals: string[] };
  try {
    parsed = parseArgs({ args, options: config, strict: true, allowPositionals: true }) as typeof parsed;
  } catch (err) {
    if (!String((err as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS')) throw err;
    // parseArgs explains itself ("Unknown option '--x'"); keep its words, drop its advice about '--'
    throw new UsageError(`${(err as Error).message.split('. ')[0]!.replace(/\.$/, '')}\n${hint}`);
  }
  const expected = command.positionals;
  if (parsed.positionals.length < expected.length) {
    throw new UsageError(
      `missing argument ${expected[parsed.positionals.length]!.name}\nUsage: ${commandUsage(command)}\n${hint}`,
    );
  }
  if (parsed.positionals.length > expected.length) {
    throw new UsageError(
      `unexpected argument '${parsed.positionals[expected.length]}'\nUsage: ${commandUsage(command)}\n${hint}`,
    );
  }
  for (const [name, spec] of Object.entries(command.options)) {
    const value = parsed.values[name];
    if (spec.required && (value === undefined || (Array.isArray(value) && value.length === 0))) {
      throw new UsageError(`missing option --${name}\nUsage: ${commandUsage(command)}\n${hint}`);
    }
  }
  return parsed;
}
