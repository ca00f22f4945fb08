import type { Command, OptionSpec } from './command';
import { EXIT_CODES_NOTE, GLOBAL_OPTIONS, PROGRAM, TOKEN_NOTE } from './global-options';
import { formatFields } from './format/table';

function optionLabel(name: string, spec: OptionSpec): string {
  const long = `--${name}${spec.type === 'string' ? ` ${spec.value ?? 'VALUE'}` : ''}`;
  return spec.short ? `-${spec.short}, ${long}` : long;
}

function tags(spec: OptionSpec): string {
  const t = [spec.required ? 'required' : '', spec.multiple ? 'repeatable' : ''].filter(Boolean);
  return t.length > 0 ? ` (${t.join('; ')})` : '';
}

function optionLines(options: Record<string, OptionSpec>): string {
  return formatFields(
    Object.entries(options).map(([name, spec]) => [optionLabel(name, spec), `${spec.description}${tags(spec)}`]),
    '  ',
  );
}

export function commandUsage(c: Command): string {
  const positionals = c.positionals.map((p) => ` ${p.name}`).join('');
  const required = Object.entries(c.options)
    .filter(([, s]) => s.required)
    .map(([name, s]) => ` --${name} ${s.value ?? 'VALUE'}`)
    .join('');
  return `${PROGRAM} ${c.group} ${c.verb}${positionals}${required} [options]`;
}

function commandList(commands: Command[]): string {
  return formatFields(
    commands.map((c) => [`${c.group} ${c.verb}${c.positionals.map((p) => ` ${p.name}`).join('')}`, c.summary]),
    '  ',
  );
}

export function topHelp(commands: Command[]): string {
  const groups = [...new Set(commands.map((c) => c.group))];
  return [
    `${PROGRAM}: operator commands for the campaign management and events services`,
    '',
    'Usage:',
    `  ${PROGRAM} <command> [options]`,
    `  ${PROGRAM} <group> --help | <command> --help`,
    '',
    'Commands:',
    commandList(commands),
    '',
    'Global options (before or after the command):',
    optionLines(GLOBAL_OPTIONS),
    '',
    TOKEN_NOTE,
    '',
    EXIT_CODES_NOTE,
    '',
    'Examples:',
    '  read -rs ADMIN_TOKEN && export ADMIN_TOKEN   # typed, not echoed, not in history',
    ...commands.slice(0, 6).map((c) => `  ${c.examples[0]}`),
    '',
    `Groups: ${groups.join(', ')}. Run '${PROGRAM} <command> --help' for a command's options.`,
    '',
  ].join('\n');
}

export function groupHelp(group: string, commands: Command[]): string {
  const members = commands.filter((c) => c.group === group);
  return [
    `Usage: ${PROGRAM} ${group} <command> [options]`,
    '',
    'Commands:',
    commandList(members),
    '',
    'Examples:',
    ...members.map((c) => `  ${c.examples[0]}`),
    '',
    `Run '${PROGRAM} ${group} <command> --help' for its options, '${PROGRAM} --help' for the global ones.`,
    '',
  ].join('\n');
}

export function commandHelp(c: Command): string {
  const lines = [`Usage: ${commandUsage(c)}`, '', c.summary + '.', '', c.description, ''];
  if (c.positionals.length > 0) {
    lines.push(
      'Arguments:',
      formatFields(
        c.positionals.map((p) => [p.name, p.description]),
        '  ',
      ),
      '',
    );
  }
  if (Object.keys(c.options).length > 0) lines.push('Options:', optionLines(c.options), '');
  lines.push(
    'Global options:',
    optionLines(GLOBAL_OPTIONS),
    '',
    TOKEN_NOTE,
    '',
    EXIT_CODES_NOTE,
    '',
    'Examples:',
    ...c.examples.map((e) => `  ${e}`),
    '',
  );
  return lines.join('\n');
}
