// Validators the suite's contract checks compile, kept on disk between test
// files. Each test file runs in a module registry of its own, so a validator
// compiled in one file was compiled again in the next: the response
// validators of an operation (openapi-backend compiles all of its statuses
// on first use, and the register answer and the events are large) and the
// event schemas cost seconds of CPU per file. They are written once as Ajv's
// standalone code, beside the server's request validators and under the same
// hash of openapi.yaml, the server's reading of it, Ajv and openapi-backend,
// so that a change of any of them compiles afresh.
import type Ajv from 'ajv';
import type { ValidateFunction } from 'ajv';
import standaloneCode from 'ajv/dist/standalone';
import type OpenAPIBackend from 'openapi-backend';
import { join } from 'node:path';
import { specModule, specPath } from '../../src/http/spec';
import {
  readCompiled,
  validatorCacheFile,
  wrapModule,
  writeCompiled,
} from '../../src/http/validators';

let directory: string | undefined;

/** The folder of this contract's cached test validators. */
function cacheDirectory(): string {
  directory ??= validatorCacheFile(specPath, specModule).replace(/\.js$/, '-test');
  return directory;
}

/**
 * Gives openapi-backend the response validators of `operationId` (one per
 * listed status), from the cache when it has them; otherwise lets it compile
 * them and writes their code for the next file. `takeCompilers` answers the
 * Ajv instances openapi-backend made since it was last called.
 */
export function prepareResponseValidators(
  api: OpenAPIBackend,
  takeCompilers: () => Ajv[],
  operationId: string,
): void {
  const { validator } = api;
  if (validator.statusBasedResponseValidators[operationId] !== undefined) return;
  const file = join(cacheDirectory(), `responses-${operationId}.js`);
  const cached = readCompiled<Record<string, ValidateFunction>>(file);
  if (cached) {
    validator.statusBasedResponseValidators[operationId] = cached;
    return;
  }
  const operation = api.getOperation(operationId);
  if (!operation) return;
  takeCompilers();
  const compiled = validator.buildStatusBasedResponseValidatorForOperation(operation);
  const compilers = takeCompilers();
  validator.statusBasedResponseValidators[operationId] = compiled;
  // One Ajv instance compiles every status of an operation; anything else cannot be paired.
  if (!compiled || compilers.length !== 1) return;
  const entries = Object.entries(compiled).map(
    ([status, validate]) =>
      `${JSON.stringify(status)}: ${wrapModule(standaloneCode(compilers[0], validate))},`,
  );
  writeCompiled(file, `'use strict';\nmodule.exports = {\n${entries.join('\n')}\n};\n`);
}

/**
 * Validators of several schemas of one Ajv instance, by name, from the cache
 * file `name` when it has them, otherwise compiled by `compile` (which
 * answers the instance, made with `code: { source: true }`, and each name's
 * schema reference in it) and written for the next file.
 */
export function cachedSchemas(
  name: string,
  compile: () => { ajv: Ajv; refs: Record<string, string> },
): Record<string, ValidateFunction> {
  const file = join(cacheDirectory(), `${name}.js`);
  const cached = readCompiled<Record<string, ValidateFunction>>(file);
  if (cached) return cached;
  const { ajv, refs } = compile();
  writeCompiled(file, standaloneCode(ajv, refs));
  const validators: Record<string, ValidateFunction> = {};
  for (const [key, ref] of Object.entries(refs)) validators[key] = ajv.getSchema(ref)!;
  return validators;
}
