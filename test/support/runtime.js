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

module.exports = Runtime;
