import { spawn } from 'node:child_process';

/**
 * `node watchdog.js <command> [args...]`: runs the command and makes sure it does not outlive
 * whoever started the watchdog. The parent holds the other end of the watchdog's stdin: when
 * that pipe closes (the parent exited, even by kill -9), the command is stopped. SIGTERM is
 * passed on; SIGINT is ignored, so that a terminal's Ctrl-C does not stop a data store before
 * the services that use it (`pnpm start` stops them in order). A command that does not exit
 * within WATCHDOG_GRACE_MS (10 s) of being told is killed. The watchdog exits with its code.
 */
export const WATCHDOG_GRACE_MS = 10_000;

function main(argv: string[]): void {
  const [cmd, ...args] = argv;
  if (!cmd) {
    console.error('usage: watchdog <command> [args...]');
    process.exit(2);
  }
  const grace = Number(process.env.WATCHDOG_GRACE_MS ?? WATCHDOG_GRACE_MS);
  const child = spawn(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  let stopping = false;
  const stop = (why: string) => {
    if (stopping || child.exitCode !== null || child.signalCode !== null) return;
    stopping = true;
    if (why === 'parent gone') console.error(`watchdog: parent gone, stopping ${cmd}`);
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), grace).unref();
  };
  child.on('error', (err) => {
    console.error(`watchdog: cannot run ${cmd}: ${err.message}`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.stdin.on('end', () => stop('parent gone'));
  process.stdin.on('close', () => stop('parent gone'));
  process.stdin.on('error', () => stop('parent gone'));
  process.stdin.resume();
}

if (require.main === module) main(process.argv.slice(2));
