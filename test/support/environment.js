// Jest's Node environment, with one global context for all the test files
// that one worker runs, so that the packages runtime.js shares between those
// files meet the same built-ins (Array, Error, Promise, ...) in each of them.
//
// Each file still gets its own mocks and fake timers. When a file ends, the
// context is put back as it was before the first file: a global or a
// property of `process` that the file replaced is restored (FormData, which
// zulip-js's form-data package replaces; process.exit, which Jest wraps), and
// Jest's own per-file globals (test, expect, its state under symbols) are
// removed, so that nothing of one file is kept alive by the next. Globals
// that a shared package adds when it loads (Prisma's, zod's) stay, as the
// package expects.
const NodeEnvironment = require('jest-environment-node').default;
const { ModuleMocker } = require('jest-mock');
const { LegacyFakeTimers, ModernFakeTimers } = require('@jest/fake-timers');

/** Globals Jest's test framework installs for each file. */
const JEST_GLOBALS = new Set([
  'test',
  'it',
  'fit',
  'xit',
  'xtest',
  'describe',
  'fdescribe',
  'xdescribe',
  'beforeAll',
  'beforeEach',
  'afterAll',
  'afterEach',
  'expect',
]);
/** The descriptions of the symbols under which Jest keeps a file's state on the global. */
const JEST_SYMBOLS = /JEST|EVENT_HANDLERS|jest-matchers|RETRY_TIMES/;

/**
 * This worker's context: the environment that made it, and the global's and
 * `process`'s own properties as they were before any test file ran.
 * @type {{ environment: NodeEnvironment, global: PropertyDescriptorMap, process: PropertyDescriptorMap } | undefined}
 */
let shared;

/** Puts `object`'s own properties back as `pristine` holds them; `added(key)` says whether to remove one it lacks. */
function restore(object, pristine, added) {
  for (const key of Reflect.ownKeys(object)) {
    const now = Object.getOwnPropertyDescriptor(object, key);
    const before = pristine[key];
    if (!before) {
      if (added(key)) delete object[key];
    } else if (replaced(key, before, now)) {
      Object.defineProperty(object, key, before);
    }
  }
}

/** Whether a property differs from what it was. */
function replaced(key, before, now) {
  // Node's globals are installed as getters that, once read, become the
  // value they read from the worker's own global: that is not a change.
  if ('get' in before && before.get && 'value' in now)
    return !Object.is(now.value, globalThis[key]);
  return !Object.is(now.value, before.value) || now.get !== before.get || now.set !== before.set;
}

class SharedContextEnvironment {
  constructor(config, context) {
    if (!shared) {
      const environment = new NodeEnvironment(config, context);
      shared = {
        environment,
        global: Object.getOwnPropertyDescriptors(environment.global),
        process: Object.getOwnPropertyDescriptors(environment.global.process),
      };
    }
    const { projectConfig } = config;
    this.global = shared.environment.global;
    this.moduleMocker = new ModuleMocker(this.global);
    this.fakeTimers = new LegacyFakeTimers({
      config: projectConfig,
      global: this.global,
      moduleMocker: this.moduleMocker,
      timerConfig: {
        idToRef: (id) => ({
          id,
          ref() {
            return this;
          },
          unref() {
            return this;
          },
        }),
        refToId: (timer) => timer?.id,
      },
    });
    this.fakeTimersModern = new ModernFakeTimers({ config: projectConfig, global: this.global });
  }

  async setup() {}

  async teardown() {
    this.fakeTimers?.dispose();
    this.fakeTimersModern?.dispose();
    this.fakeTimers = null;
    this.fakeTimersModern = null;
    restore(this.global, shared.global, (key) =>
      typeof key === 'symbol' ? JEST_SYMBOLS.test(key.description ?? '') : JEST_GLOBALS.has(key),
    );
    restore(this.global.process, shared.process, () => true);
    // Jest's record of what was set on the global, kept to clean up after a
    // file that had a context of its own: here it would only grow.
    const proxy = shared.environment._globalProxy;
    proxy?.propertyToValue?.clear();
    if (proxy?.leftovers) proxy.leftovers.length = 0;
  }

  exportConditions() {
    return shared.environment.exportConditions();
  }

  getVmContext() {
    return shared.environment.getVmContext();
  }
}

module.exports = SharedContextEnvironment;
