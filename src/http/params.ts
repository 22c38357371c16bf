// Reads an operation's parameters from a request: the form body first, then the
// query string, whatever the method; decodes the JSON-valued ones; and checks
// them against the operation's schemas with openapi-backend's compiled
// validators. Parameters the operation does not define are reported back so the
// success envelope can list them in `ignored_parameters_unsupported`.
import type { ErrorObject, ValidateFunction } from 'ajv';
import { ApiError, badRequest, missingArgument } from '../errors';
import type { OperationSpec } from './spec';

/** What a request carried, before decoding. */
export interface RawRequest {
  pathParams: Record<string, string>;
  query: Record<string, string | string[] | undefined>;
  body: Record<string, unknown> | undefined;
}

/** The decoded, validated parameters and the names the operation ignored. */
export interface ParsedParams {
  params: Record<string, unknown>;
  ignored: string[];
}

function first(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Whether `text` cannot be JSON, told from its first character without the
 * cost of a thrown SyntaxError (`anchor=newest` arrives with most fetches).
 */
function plainlyNotJson(text: string): boolean {
  const c = text.charCodeAt(0);
  const mayStartJson = c <= 0x20 || c === 0x22 || c === 0x2d || c === 0x5b || c === 0x7b || (c >= 0x30 && c <= 0x39);
  return !mayStartJson && text !== 'true' && text !== 'false' && text !== 'null';
}

function decode(name: string, text: string, json: boolean, textAllowed: boolean): unknown {
  if (!json || (textAllowed && plainlyNotJson(text))) return text;
  try {
    return JSON.parse(text);
  } catch {
    if (textAllowed) return text;
    throw badRequest(`${name} is not valid JSON`);
  }
}

/** `drafts/0/type` -> `drafts[0]["type"]`, the way error messages name nested values. */
function varName(pointer: string): string {
  const [head, ...rest] = pointer.split('/').filter(Boolean).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  return (head ?? '') + rest.map((part) => (/^\d+$/.test(part) ? `[${part}]` : `["${part}"]`)).join('');
}

const typeNames: Record<string, string> = {
  integer: 'an integer',
  number: 'a float',
  boolean: 'a boolean',
  string: 'a string',
  array: 'a list',
  object: 'a dict',
};

/** Turns the first schema violation into the message Zulip gives for it. */
export function validationError(errors: ErrorObject[]): ApiError {
  // Prefer the failure of a whole union over the failures of its branches.
  const union = errors.filter((e) => e.keyword === 'oneOf' || e.keyword === 'anyOf').sort((a, b) => a.instancePath.length - b.instancePath.length)[0];
  const error = union ?? errors[0];
  const pointer = error.instancePath.replace(/^\/(query|path|requestBody)/, '');
  const name = varName(pointer);
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return pointer === '' ? missingArgument(String(p.missingProperty)) : badRequest(`${name}["${p.missingProperty}"] field is missing`);
    case 'type':
      return badRequest(`${name} is not ${typeNames[String(p.type).split(',')[0]] ?? `of type ${p.type}`}`);
    case 'maxLength':
      return badRequest(`${name} is too long (limit: ${p.limit} characters)`);
    case 'minLength':
      return badRequest(`${name} is too short.`);
    case 'minimum':
    case 'exclusiveMinimum':
    case 'minItems':
      return badRequest(`${name} is too small`);
    case 'maximum':
    case 'exclusiveMaximum':
    case 'maxItems':
      return badRequest(`${name} is too large`);
    case 'pattern':
      return badRequest(`${name} has invalid format`);
    case 'additionalProperties':
      return badRequest(`Argument "${p.additionalProperty}" at ${name} is unexpected`);
    default:
      return badRequest(`Invalid ${name}`);
  }
}

/**
 * Collects, decodes and validates the parameters of `op` from `raw`.
 * Throws an ApiError naming the first parameter that is missing or malformed.
 */
export function parseParams(op: OperationSpec, validators: ValidateFunction[], raw: RawRequest): ParsedParams {
  const path: Record<string, unknown> = {};
  const query: Record<string, unknown> = {};
  const body: Record<string, unknown> = {};
  const ignored = new Set<string>();
  const seen = new Set<string>();

  const take = (name: string, value: unknown) => {
    if (seen.has(name)) return;
    seen.add(name);
    const spec = op.params.get(name);
    if (!spec || spec.in === 'path') {
      ignored.add(name);
      return;
    }
    const text = first(value);
    if (typeof text !== 'string') return; // an uploaded file; handlers read those from the request
    (spec.in === 'query' ? query : body)[name] = decode(name, text, spec.json, spec.textAllowed);
  };
  for (const [name, value] of Object.entries(raw.body ?? {})) take(name, value);
  for (const [name, value] of Object.entries(raw.query)) take(name, value);

  for (const [name, value] of Object.entries(raw.pathParams)) {
    const spec = op.params.get(name);
    path[name] = spec?.integer && /^-?\d+$/.test(value) ? Number(value) : value;
  }

  const input = { path, query, header: {}, cookie: {}, requestBody: body };
  for (const validate of validators) {
    if (!validate(input)) throw validationError(validate.errors ?? []);
  }
  return { params: { ...body, ...query, ...path }, ignored: [...ignored].sort() };
}
