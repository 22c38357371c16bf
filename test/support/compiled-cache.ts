// Validators the suite's contract checks compile, kept on disk between test
// files. Each test file runs in a module registry of its own, so a validator
// compiled in one file was compiled again in the next: the response
// validators of an operation (openapi-backend compiles all of its statuses
// on first use, and the register answer and the events are large) and the
// event schemas cost seconds of CPU per file. They are written once as Ajv's
// standalone code, beside the server's request validators and under the same
// hash of openapi.yaml, the server's reading of it, Ajv and openapi-backend,
// so that a change of any of them compiles afresh.
//
// A file of the cache is loaded with require: it lies under node_modules, so
// the suite's runtime (test/support/runtime.js) evaluates it once for all the
// files a worker runs. Its folder's name holds that hash, and a validator's
// file the hash of its schema, so a name always holds the same code; a file
// that cannot be loaded is compiled and written anew.
import type { ErrorObject, ValidateFunction } from 'ajv';
import type Ajv from 'ajv';
import standaloneCode from 'ajv/dist/standalone';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { OpenAPIV3 } from 'openapi-types';
import { specModule, specPath, type ContractBackend } from '../../src/http/spec';
import { validatorCacheFile, writeCompiled } from '../../src/http/validators';

let directory: string | undefined;

/** The exports of the cached module `file`, or undefined when it is missing or cannot run. */
function loadCached<T>(file: string): T | undefined {
  // Jest's resolver remembers a path it did not find, for the worker's later
  // files too: a file is required only once it is there.
  if (!existsSync(file)) return undefined;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(file) as T;
  } catch {
    return undefined;
  }
}

/** The folder of this contract's cached test validators. */
function cacheDirectory(): string {
  directory ??= validatorCacheFile(specPath, specModule).replace(/\.js$/, '-test');
  return directory;
}

/** Each test file's response validators, by operation and status, once read or compiled. */
const responseValidators = new Map<string, Record<string, ValidateFunction> | undefined>();

/**
 * The response validators of `operationId` (one per listed status), from the
 * cache when it has them; otherwise compiled by openapi-backend (`contract()`
 * opens it, on the first miss of the file) and written for the next file.
 *
 * The operation's file only names, for each status, the file of its schema's
 * validator, named by a hash of the schema: the contract's thousand or so
 * answers have only some eighty schemas between them (every operation's
 * errors share a few), so each is compiled, and evaluated by a worker, once.
 */
function validatorsOf(
  operationId: string,
  contract: () => ContractBackend,
): Record<string, ValidateFunction> | undefined {
  if (responseValidators.has(operationId)) return responseValidators.get(operationId);
  const file = join(cacheDirectory(), `responses-${operationId}.js`);
  let validators = loadCached<Record<string, ValidateFunction>>(file);
  if (!validators) validators = compileResponses(operationId, contract(), file);
  responseValidators.set(operationId, validators);
  return validators;
}

/** Compiles (or reads) the validator of each answer of `operationId`, and writes them to `file`. */
function compileResponses(
  operationId: string,
  { api, takeCompilers }: ContractBackend,
  file: string,
): Record<string, ValidateFunction> | undefined {
  const operation = api.getOperation(operationId);
  if (!operation?.responses) return undefined;
  const validators: Record<string, ValidateFunction> = {};
  const entries: string[] = [];
  let complete = true;
  for (const [status, response] of Object.entries(operation.responses)) {
    // What openapi-backend validates: the JSON schema, or no content at all for a 204.
    const { content } = response as OpenAPIV3.ResponseObject;
    const schema = content?.['application/json']?.schema;
    const judged = schema ? JSON.stringify(schema) : !content && status === '204' && 'null';
    if (!judged) continue;
    const name = `schema-${createHash('sha256').update(judged).digest('hex').slice(0, 32)}.js`;
    const schemaFile = join(cacheDirectory(), name);
    let validate = loadCached<ValidateFunction>(schemaFile);
    if (!validate) {
      takeCompilers();
      // openapi-backend's own compile of one answer, as it compiles each of an operation's.
      validate = api.validator.buildStatusBasedResponseValidatorForOperation({
        ...operation,
        responses: { [status]: response },
      })?.[status];
      if (!validate) continue;
      const compilers = takeCompilers();
      complete &&=
        compilers.length === 1 &&
        !writeCompiled(schemaFile, standaloneCode(compilers[0], validate));
    }
    validators[status] = validate;
    entries.push(`${JSON.stringify(status)}: require(${JSON.stringify(`./${name}`)}),`);
  }
  // Only when every validator is in a file: otherwise the next file compiles again.
  if (complete)
    writeCompiled(file, `'use strict';\nmodule.exports = {\n${entries.join('\n')}\n};\n`);
  return validators;
}

/**
 * How `body`, answered with `status` by `operationId`, breaks the contract:
 * judged by the schema of that status, else of its class (`4XX`), else the
 * default answer, as openapi-backend's validateResponse does; null when it
 * does not (or when the contract describes no such answer).
 */
export function responseErrors(
  body: unknown,
  operationId: string,
  status: number,
  contract: () => ContractBackend,
): ErrorObject[] | null {
  const validators = validatorsOf(operationId, contract);
  if (!validators) return null;
  const validate =
    validators[String(status)] ?? validators[`${Math.floor(status / 100)}XX`] ?? validators.default;
  if (!validate || validate(body)) return null;
  return validate.errors?.length ? validate.errors : null;
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
  const cached = loadCached<Record<string, ValidateFunction>>(file);
  if (cached) return cached;
  const { ajv, refs } = compile();
  writeCompiled(file, standaloneCode(ajv, refs));
  const validators: Record<string, ValidateFunction> = {};
  for (const [key, ref] of Object.entries(refs)) validators[key] = ajv.getSchema(ref)!;
  return validators;
}
