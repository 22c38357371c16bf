// Lets a plain `node` process (a server started as a child of a test) load
// the TypeScript sources directly: each .ts file is transpiled on require,
// without type checking, as the tests themselves are (transform.js). The output
// is cached by content in the system's temporary folder. Several processes
// fill the cache at once, so each writes its own file and renames it into
// place: a reader sees a whole file or none.
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const transform = require('./transform');

const cacheDir = join(tmpdir(), 'chat-ts-register');
mkdirSync(cacheDir, { recursive: true });

require.extensions['.ts'] = (module, filename) => {
  const source = readFileSync(filename, 'utf8');
  const cached = join(cacheDir, `${transform.getCacheKey(source, filename)}.js`);
  let output;
  try {
    output = readFileSync(cached, 'utf8');
  } catch {
    output = transform.process(source, filename).code;
    const partial = `${cached}.${process.pid}.tmp`;
    writeFileSync(partial, output);
    renameSync(partial, cached);
  }
  module._compile(output, filename);
};
