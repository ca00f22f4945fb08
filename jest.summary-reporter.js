/**
 * Prints one plain closing line ("tests: N passed, N failed, N skipped") that any CI can read.
 * It is written when the process exits, so it stays the last line of the log: after Jest's own
 * summary (which the default reporter writes later than this reporter's onRunComplete) and after
 * anything the global teardown prints. Writes to a pipe or a file are synchronous there.
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const { numPassedTests, numFailedTests, numPendingTests, numTodoTests } = results;
    const line = `tests: ${numPassedTests} passed, ${numFailedTests} failed, ${numPendingTests + numTodoTests} skipped`;
    process.once('exit', () => process.stdout.write(`\n${line}\n`));
  }
}
module.exports = SummaryReporter;
