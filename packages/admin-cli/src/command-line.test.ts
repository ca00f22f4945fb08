import { parseCommandLine } from './command-line';
import { ALL_COMMANDS } from './commands/all-commands';
import { UsageError } from './usage-error';

const parse = (...argv: string[]) => parseCommandLine(argv, ALL_COMMANDS);

function usageError(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (err) {
    if (err instanceof UsageError) return err;
    throw err;
  }
  throw new Error('expected a UsageError');
}

describe('command line', () => {
  test('when a command is given with its options, then the command, values and positionals are returned', () => {
    const line = parse('keys', 'create', '--owner', '1', '--owner=2', '--json');
    expect(line).toMatchObject({
      kind: 'run',
      command: { group: 'keys', verb: 'create' },
      values: { owner: ['1', '2'], json: true },
      positionals: [],
    });
  });

  test('when global options come before the command, then their values are not taken for command words', () => {
    const line = parse('--events-url', 'http://e:1', '--json', 'keys', 'revoke', 'abc', '--management-url=http://m:2');
    expect(line).toMatchObject({
      kind: 'run',
      command: { verb: 'revoke' },
      positionals: ['abc'],
      values: { 'events-url': 'http://e:1', 'management-url': 'http://m:2', json: true },
    });
  });

  test('when an argument after -- looks like an option, then it is a positional', () => {
    expect(parse('keys', 'revoke', '--', '--odd-id')).toMatchObject({ kind: 'run', positionals: ['--odd-id'] });
  });

  test('when --help or -h is anywhere, then help for that level is returned, even with other errors on the line', () => {
    const top = parse('--help');
    expect(top.kind).toBe('help');
    expect(top.kind === 'help' && top.text).toContain('Commands:');
    expect(parse('keys', '-h')).toEqual({ kind: 'help', text: expect.stringContaining('keys revoke ID') });
    const cmd = parse('account', 'create', '--bogus', '--help');
    expect(cmd.kind === 'help' && cmd.text).toContain('--password-stdin');
    expect(cmd.kind === 'help' && cmd.text).toMatch(/never lands in shell history/);
  });

  test.each([
    [[], /no command given/],
    [['frob'], /unknown command 'frob'/],
    [['keys'], /'keys' needs a command/],
    [['keys', 'frob'], /unknown command 'keys frob'/],
    [['keys', 'create'], /missing option --owner/],
    [['keys', 'create', '--owner'], /argument missing/],
    [['keys', 'list', '--bogus'], /Unknown option '--bogus'/],
    [['keys', 'list', '--json=yes'], /does not take an argument/],
    [['keys', 'list', 'extra'], /unexpected argument 'extra'/],
    [['keys', 'revoke'], /missing argument ID/],
    [['keys', 'revoke', 'a', 'b'], /unexpected argument 'b'/],
    [['account', 'create', '--password-stdin'], /missing option --email/],
    [['--admin-token', 'secret', 'keys', 'list'], /^there is no --admin-token option/],
    [['keys', 'list', '--admin-token=secret'], /^there is no --admin-token option/],
  ])('when the command line is %j, then it is a usage error saying %s', (argv, message) => {
    expect(usageError(() => parse(...argv)).message).toMatch(message);
  });

  test('when a command needs a subcommand or is unknown within a group, then the group help comes with the error', () => {
    expect(usageError(() => parse('keys')).help).toContain('keys list');
    expect(usageError(() => parse()).help).toContain('Global options');
    expect(usageError(() => parse('--admin-token', 'secret', 'keys', 'list')).message).not.toContain('secret');
  });
});
