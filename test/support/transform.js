// Jest's transform of the TypeScript sources, and of the few packages that
// ship only ES modules: Sucrase removes the types and turns imports and
// exports into CommonJS, one file at a time, as tsconfig's isolatedModules
// already requires (tsc checks the types, in `npm run check`). It does this in
// a tenth of the time TypeScript's own transpiler takes, which every Jest
// worker pays on its first files when the cache is cold, as in CI.
const { createHash } = require('node:crypto');
const { readFileSync } = require('node:fs');

const version = `${require('sucrase/package.json').version}:${readFileSync(__filename, 'utf8')}`;

module.exports = {
  process(source, filename) {
    // Loaded at the first file to transform: a server started with
    // ts-register.js whose files are all cached does not load it.
    const { transform } = require('sucrase');
    const { code, sourceMap } = transform(source, {
      transforms: filename.endsWith('.ts') ? ['typescript', 'imports'] : ['imports'],
      filePath: filename,
      // Node 20 runs the rest of the syntax as written.
      disableESTransforms: true,
      sourceMapOptions: { compiledFilename: filename },
    });
    return { code, map: sourceMap };
  },

  getCacheKey(source, filename) {
    return createHash('sha256').update(version).update(filename).update(source).digest('hex');
  },
};
