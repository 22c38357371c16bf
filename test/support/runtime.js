// Jest's module runtime, with V8's code cache kept between the test files
// that one worker runs. Each test file gets a module registry of its own, so
// every module it loads (about 700: the server, Koa, Prisma's client with its
// 4 MB query compiler, ...) is compiled again for each file: about a quarter
// of a second of parsing and compiling per file. Here the first file that
// loads a module compiles it from source; the next takes V8's cached data of
// that compilation, which by then holds the functions the first file ran
// too, and V8 skips their parse. The cache is this worker's memory only, kept
// by file name and used only for the very same source, so an edited module is
// compiled anew; data V8 refuses is ignored, and the source compiled as usual.
const vm = require('node:vm');
const Runtime = require('jest-runtime').default;

const compileFunction = vm.compileFunction;

/**
 * What this worker compiled, by file name: the source, and the script of its
 * first compilation until a second one asks for its cached data.
 * @type {Map<string, { code: string, script?: vm.Script, data?: Buffer }>}
 */
const compiled = new Map();

/** The cached data for `code` from `filename`, when this worker compiled the same code before. */
function cachedData(filename, code) {
  const known = compiled.get(filename);
  if (!known || known.code !== code) return undefined;
  if (known.script) {
    known.data = known.script.createCachedData();
    known.script = undefined;
  }
  return known.data;
}

// Jest's runtime compiles each module with vm.compileFunction into the test
// file's context. The same function, made by a script that wraps the module's
// code as Node's own loader once did, can keep and take cached data.
vm.compileFunction = function compileWithCache(code, params = [], options = {}) {
  const { filename, parsingContext, contextExtensions, importModuleDynamically } = options;
  if (!filename || !parsingContext || contextExtensions?.length)
    return compileFunction(code, params, options);
  const data = cachedData(filename, code);
  const script = new vm.Script(`(function (${params.join(', ')}) {${code}\n})`, {
    filename,
    cachedData: data,
    importModuleDynamically,
  });
  if (!compiled.has(filename) || compiled.get(filename).code !== code)
    compiled.set(filename, { code, script });
  return script.runInContext(parsingContext);
};

module.exports = Runtime;
