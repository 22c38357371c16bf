// The request validators of the operations: openapi-backend's compiled Ajv
// functions. Compiling all of them takes about two seconds (openapi-backend
// builds an Ajv instance for each schema), so a start that compiles them
// writes their code (Ajv's standalone output) to a cache file, and a later
// start with the same inputs loads that file instead, in a few tens of
// milliseconds. The file is named by a hash of everything the code comes
// from: openapi.yaml, the server's reading of it (spec.js), and the versions of
// Ajv and openapi-backend. A cache that cannot be read or written is only
// a slower start. Servers that compile each operation's validators on its
// first request (the suite's) keep them in one file per operation instead.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ValidateFunction } from 'ajv';
import standaloneCode from 'ajv/dist/standalone';
import type { Logger } from '../log';
import { projectRoot } from '../paths';
import type { ContractBackend } from './spec';

/** Where compiled validators are kept between starts (beside other tools' caches). */
const VALIDATOR_CACHE_DIR = join(projectRoot, 'node_modules', '.cache', 'chat-validators');

/** The cache file for validators compiled from `specPath` by the code of `specModule`. */
export function validatorCacheFile(specPath: string, specModule: string): string {
  const hash = createHash('sha256');
  for (const file of [specPath, specModule]) hash.update(readFileSync(file)).update('\0');
  for (const pkg of ['ajv', 'openapi-backend']) {
    const manifest = JSON.parse(
      readFileSync(join(projectRoot, 'node_modules', pkg, 'package.json'), 'utf8'),
    ) as { version: string };
    hash.update(`${pkg}@${manifest.version}\0`);
  }
  return join(VALIDATOR_CACHE_DIR, `${hash.digest('hex').slice(0, 32)}.js`);
}

/**
 * Each operation's request validators, compiled on first use (`of`), or all
 * at once (`prepare`), from the cache file when it holds them. Compiled on
 * first use, each operation's are kept in a file of their own in
 * `operationCache`, when given: a test run starts hundreds of servers, each
 * meeting a few operations.
 */
export class RequestValidators {
  private readonly compiled = new Map<string, ValidateFunction[]>();

  constructor(
    /** openapi-backend over the contract, made when a validator is first compiled. */
    private readonly contract: () => ContractBackend,
    private readonly log?: Logger,
    private readonly operationCache: string | null = null,
  ) {}

  /** The validators of one operation. */
  of(operationId: string): ValidateFunction[] {
    let validators = this.compiled.get(operationId);
    if (!validators) {
      const file = this.operationCache && join(this.operationCache, `${operationId}.js`);
      const cached = file ? readCompiled<ValidateFunction[]>(file) : null;
      if (Array.isArray(cached)) {
        validators = cached;
      } else {
        const { validators: made, code } = this.compile(operationId, file !== null);
        validators = made;
        if (file && code) this.save(file, `'use strict';\nmodule.exports = ${code};\n`);
      }
      this.compiled.set(operationId, validators);
    }
    return validators;
  }

  /**
   * Makes every operation's validators ready: loads them from `cacheFile`,
   * or compiles them and writes the file for the next start.
   */
  prepare(operationIds: string[], cacheFile: string | null): 'loaded' | 'compiled' {
    if (cacheFile && this.load(operationIds, cacheFile)) return 'loaded';
    const modules: string[] = [];
    for (const operationId of operationIds) {
      const { validators, code } = this.compile(operationId, cacheFile !== null);
      this.compiled.set(operationId, validators);
      if (code === null) cacheFile = null;
      else modules.push(`${JSON.stringify(operationId)}: ${code},`);
    }
    if (cacheFile)
      this.save(cacheFile, `'use strict';\nmodule.exports = {\n${modules.join('\n')}\n};\n`);
    return 'compiled';
  }

  /**
   * Compiles one operation's validators and, with `withCode`, writes their
   * code as an array expression (null when the code cannot be paired with
   * the functions, or was not asked for).
   */
  private compile(
    operationId: string,
    withCode: boolean,
  ): { validators: ValidateFunction[]; code: string | null } {
    const { api, takeCompilers } = this.contract();
    takeCompilers();
    const validators = api.validator.getRequestValidatorsForOperation(operationId) ?? [];
    const compilers = takeCompilers();
    if (!withCode || compilers.length !== validators.length) return { validators, code: null };
    const code = `[${validators
      .map((validate, i) => wrapModule(standaloneCode(compilers[i], validate)))
      .join(', ')}]`;
    return { validators, code };
  }

  private load(operationIds: string[], cacheFile: string): boolean {
    const cached = readCompiled<Record<string, ValidateFunction[]>>(cacheFile);
    if (!cached || !operationIds.every((id) => Array.isArray(cached[id]))) return false;
    for (const id of operationIds) this.compiled.set(id, cached[id]);
    return true;
  }

  private save(cacheFile: string, code: string): void {
    const failure = writeCompiled(cacheFile, code);
    if (failure)
      this.log?.warn('could not cache the compiled validators', {
        file: cacheFile,
        error: failure,
      });
  }
}

/**
 * The exports of a module of compiled validators, or null when the file
 * cannot be read or run. Read and run here rather than through require, whose
 * caches (Node's, or a test runner's) could hold an earlier answer for this path.
 */
export function readCompiled<T>(file: string): T | null {
  try {
    const code = readFileSync(file, 'utf8');
    const module = { exports: {} as T };
    new Function('module', 'exports', 'require', code)(
      module,
      module.exports,
      // Its requires are Ajv's runtime helpers, found from the project wherever the file is.
      createRequire(join(projectRoot, 'package.json')),
    );
    return module.exports;
  } catch {
    return null;
  }
}

/**
 * Writes a module of compiled validators, aside and then renamed, so that
 * another process never reads half a file; answers why it could not, or null.
 */
export function writeCompiled(file: string, code: string): string | null {
  try {
    mkdirSync(dirname(file), { recursive: true });
    const partial = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    writeFileSync(partial, code);
    renameSync(partial, file);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** One standalone Ajv module as an expression for its export, with a scope of its own. */
export function wrapModule(code: string): string {
  return `(function () { const module = { exports: {} }; const exports = module.exports; ${code}\nreturn module.exports; })()`;
}
