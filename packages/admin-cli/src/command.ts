import type { AdminApi, ServiceName } from './admin-api';
import type { CliIo } from './cli-io';

export interface OptionSpec {
  type: 'string' | 'boolean';
  multiple?: boolean;
  short?: string;
  /** Placeholder in help, e.g. EMAIL. */
  value?: string;
  required?: boolean;
  description: string;
}

export type OptionValues = Record<string, string | boolean | string[] | undefined>;

export interface CommandContext {
  values: OptionValues;
  positionals: string[];
  api: AdminApi;
  /** The service addresses, for commands that call the public APIs with a user's credentials. */
  urls: Record<ServiceName, string>;
  io: CliIo;
}

interface CommandOutput {
  /** Printed with --json (the raw response, or a small object for commands that answer nothing). */
  json: unknown;
  /** Printed otherwise. */
  text: string;
  /** Always to stderr, so stdout stays parseable (e.g. "shown only now"). */
  notice?: string;
}

/** One `<group> <verb>` command: what help shows, what it parses, and what it does. */
export interface Command {
  group: string;
  verb: string;
  summary: string;
  /** Longer help text (why and when to use it). */
  description: string;
  options: Record<string, OptionSpec>;
  /** Required positional arguments, in order. */
  positionals: { name: string; description: string }[];
  examples: string[];
  /** Which service the command talks to (for the help text). */
  service: ServiceName | 'both';
  /** False for commands that act with a user's credentials: no operator token is read. */
  operatorToken?: false;
  run(ctx: CommandContext): Promise<CommandOutput>;
}
