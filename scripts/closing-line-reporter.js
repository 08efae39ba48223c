/**
 * A Jest reporter that ends the run with one plain, runner-neutral summary line:
 *   tests: 2014 passed, 0 failed, 1 skipped
 * Jest's own summary ("Tests: 1 skipped, 2014 passed, 2015 total") is worded for people; CI
 * tooling that counts executed tests reads this line instead. Jest calls its summary reporter after
 * the custom ones, so the line is written when the process exits: it is then the run's last line.
 * It goes to standard output, apart from Jest's own output on standard error. (The fuzz step that
 * runs before Jest in CI rewrites schemathesis's pytest-style closing banner, which a counter of
 * executed tests would otherwise read as a pytest run of no test: see bench/fuzz-output.ts.)
 */
class ClosingLineReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped\n`;
    process.once('exit', () => process.stdout.write(line));
  }
}

module.exports = ClosingLineReporter;
