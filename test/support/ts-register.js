// Lets a plain `node` process (a server started as a child of a test) load
// the TypeScript sources directly: each .ts file is transpiled on require,
// without type checking, as ts-jest does for the tests themselves. The output
// is cached by content in the system's temporary folder. Several processes
// fill the cache at once, so each writes its own file and renames it into
// place: a reader sees a whole file or none.
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const ts = require('typescript');

const cacheDir = join(tmpdir(), 'chat-ts-register');
mkdirSync(cacheDir, { recursive: true });
const compilerOptions = {
  module: ts.ModuleKind.CommonJS,
  target: ts.ScriptTarget.ES2022,
  esModuleInterop: true,
  sourceMap: false,
};

require.extensions['.ts'] = (module, filename) => {
  const source = readFileSync(filename, 'utf8');
  const hash = createHash('sha256').update(filename).update(source).digest('hex');
  const cached = join(cacheDir, `${hash}.js`);
  let output;
  try {
    output = readFileSync(cached, 'utf8');
  } catch {
    output = ts.transpileModule(source, { compilerOptions, fileName: filename }).outputText;
    const partial = `${cached}.${process.pid}.tmp`;
    writeFileSync(partial, output);
    renameSync(partial, cached);
  }
  module._compile(output, filename);
};
