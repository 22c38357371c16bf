// A Jest reporter that keeps each test file's wall time, by project, and
// writes them (slowest first) to the JSON file named by JEST_TIMES_FILE when
// the run ends: .ci/run prints the slowest from it.
const { writeFileSync } = require('node:fs');

class TimingReporter {
  constructor() {
    this.files = [];
  }

  onTestResult(test, result) {
    const project = test.context.config.displayName?.name ?? 'default';
    const { start, end } = result.perfStats;
    this.files.push({
      project,
      file: test.path.slice(test.context.config.rootDir.length + 1),
      seconds: Math.round((end - start) / 100) / 10,
      tests: result.numPassingTests + result.numFailingTests,
    });
    // Written after each file, so that a run cut short still tells.
    this.write();
  }

  onRunComplete() {
    this.write();
  }

  write() {
    const out = process.env.JEST_TIMES_FILE;
    if (!out) return;
    const sorted = [...this.files].sort((a, b) => b.seconds - a.seconds);
    writeFileSync(out, JSON.stringify(sorted, null, 1));
  }
}

module.exports = TimingReporter;
