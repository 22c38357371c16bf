// Jest's module runtime, loading packages once per worker and keeping V8's
// code cache between the test files that one worker runs.
//
// Jest gives each test file a module registry of its own, so every module a
// file loads (about 700: the server, Koa, Prisma's client with its 4 MB query
// compiler, ...) would be evaluated again for each file, and run cold.
//
// Shared: packages (node_modules) and Prisma's generated clients
// (generated/). The first file of a worker that needs one evaluates it, and
// the next files take the same module, so that its code is compiled once and
// stays optimized from file to file. They run in the one global context that
// environment.js keeps for the worker. Not shared: Jest's own packages, and
// the packages that replace a global when they load (zulip-js's form-data),
// which must do so again in each file that loads them. A shared package that
// requires a module after the file that loaded it has ended does so through
// the runtime of the file now running.
//
// Evaluated anew for each file: the project's own modules (src/, test/), so
// that no state of the server's or the suite's modules passes from one file
// to the next. For those, the first file that loads a module compiles it from
// source; the next takes V8's cached data of that compilation, which by then
// holds the functions the first file ran too, and V8 skips their parse. The
// cache is this worker's memory only, kept by file name and used only for the
// very same source, so an edited module is compiled anew; data V8 refuses is
// ignored, and the source compiled as usual.
const asyncHooks = require('node:async_hooks');
const vm = require('node:vm');
const Runtime = require('jest-runtime').default;

const SHARED = /\/(node_modules|generated)\//;
const NOT_SHARED =
  /\/node_modules\/(@jest|jest-[^/]*|expect|pretty-format|@sinonjs|zulip-js|isomorphic-form-data)\//;
const isShared = (path) => typeof path === 'string' && SHARED.test(path) && !NOT_SHARED.test(path);

/** The shared modules this worker has loaded, by path. */
const sharedModules = new Map();

/** A file's module registry, in which the shared modules are found and kept. */
class Registry extends Map {
  get(path) {
    return super.get(path) ?? (isShared(path) ? sharedModules.get(path) : undefined);
  }

  has(path) {
    return super.has(path) || (isShared(path) && sharedModules.has(path));
  }

  set(path, module) {
    if (isShared(path)) sharedModules.set(path, module);
    return super.set(path, module);
  }

  delete(path) {
    // A module whose evaluation failed is taken out, for the next file too.
    if (isShared(path)) sharedModules.delete(path);
    return super.delete(path);
  }
}

/** The runtime of the file this worker runs now. */
const active = { runtime: undefined };

const compileFunction = vm.compileFunction;

/**
 * What this worker compiled, by file name: the source, and the script of its
 * first compilation until a second one asks for its cached data.
 * @type {Map<string, { code: string, script?: vm.Script, data?: Buffer }>}
 */
const compiled = new Map();

// Jest's runtime compiles each module with vm.compileFunction into the test
// file's context. The same function, made by a script that wraps the module's
// code as Node's own loader once did, can keep and take cached data.
vm.compileFunction = function compileWithCache(code, params = [], options = {}) {
  const { filename, parsingContext, contextExtensions, importModuleDynamically } = options;
  if (!filename || !parsingContext || contextExtensions?.length)
    return compileFunction(code, params, options);
  const known = compiled.get(filename);
  const seen = known?.code === code;
  if (seen && known.script) {
    known.data = known.script.createCachedData();
    known.script = undefined;
  }
  const script = new vm.Script(`(function (${params.join(', ')}) {${code}\n})`, {
    filename,
    cachedData: seen ? known.data : undefined,
    importModuleDynamically,
  });
  if (!seen) compiled.set(filename, { code, script });
  return script.runInContext(parsingContext);
};

class SharingRuntime extends Runtime {
  constructor(...args) {
    super(...args);
    this.registries.moduleRegistry = new Registry();
    active.runtime = this;
    /** The AsyncLocalStorage instances Jest's framework made for this file. */
    this.storages = [];
    const storages = this.storages;
    this.asyncHooks = {
      ...asyncHooks,
      AsyncLocalStorage: class FileStorage extends asyncHooks.AsyncLocalStorage {
        constructor(...options) {
          super(...options);
          storages.push(this);
        }
      },
    };
  }

  // Jest's test framework, loaded anew for each file, makes an
  // AsyncLocalStorage and never disables it. On Node 20 each enabled one is
  // called for every promise the process makes, so a worker's later files
  // paid for all its earlier ones: over the 127 files of the PostgreSQL
  // project in one process, 18 s of CPU (5%), most of it in the last files.
  // A file's are disabled when it ends.
  requireInternalModule(from, to) {
    if (to === 'node:async_hooks' || to === 'async_hooks') return this.asyncHooks;
    return super.requireInternalModule(from, to);
  }

  teardown() {
    for (const storage of this.storages.splice(0)) storage.disable();
    super.teardown();
  }

  requireModuleOrMock(from, moduleName) {
    // Only a shared module's require can reach a runtime other than the current one.
    if (active.runtime !== this) return active.runtime.requireModuleOrMock(from, moduleName);
    return super.requireModuleOrMock(from, moduleName);
  }
}

module.exports = SharingRuntime;
