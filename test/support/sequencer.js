// The order test files start in: Jest's own (files that failed last time,
// then the slowest by the last run's times, else the largest), except that
// the files driving Chromium (the web client on each database, the docs) start
// a dozen files apart. Each runs Chromium beside a server; two at once on a
// two-core machine each took more than twice as long as one alone.
const { default: Sequencer } = require('@jest/test-sequencer');

/** Files that drive a browser, which run one at a time where the order allows. */
const BROWSER = /[\\/](web|docs)-browser\.test\.ts$/;
/** How many files go between two browser files (each runs for about a minute). */
const SPACING = 12;

class SuiteSequencer extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const browser = sorted.filter((test) => BROWSER.test(test.path));
    const others = sorted.filter((test) => !BROWSER.test(test.path));
    const ordered = [];
    let next = 0;
    for (const [i, test] of others.entries()) {
      if (next < browser.length && i === next * SPACING) ordered.push(browser[next++]);
      ordered.push(test);
    }
    return [...ordered, ...browser.slice(next)];
  }
}

module.exports = SuiteSequencer;
