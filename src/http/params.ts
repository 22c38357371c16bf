// Reads an operation's parameters from a request: the body first (a form or a
// JSON object), then the query string, whatever the method; decodes the values
// of forms and query strings (JSON text where the contract says the value is
// not text, a repeated name as a list); and checks them against the
// operation's schemas with openapi-backend's compiled validators. Parameters
// the operation does not define are reported back so the success envelope can
// list them in `ignored_parameters_unsupported`.
import type { ErrorObject, ValidateFunction } from 'ajv';
import { ApiError, badRequest, missingArgument } from '../errors';
import type { RequestBody } from './body';
import type { FormFields } from './form';
import type { OperationSpec, ParamSpec, TextReading } from './spec';

/** What a request carried, before decoding. */
export interface RawRequest {
  pathParams: Record<string, string>;
  query: FormFields;
  body: RequestBody | undefined;
  /** The field names of the uploaded files of a multipart body. */
  fileFields: string[];
}

/** The decoded, validated parameters and the names the operation ignored. */
export interface ParsedParams {
  params: Record<string, unknown>;
  ignored: string[];
}

/**
 * Whether `text` cannot be JSON, told from its first character without the
 * cost of a thrown SyntaxError (`anchor=newest` arrives with most fetches).
 */
function plainlyNotJson(text: string): boolean {
  const c = text.charCodeAt(0);
  const mayStartJson =
    c <= 0x20 || c === 0x22 || c === 0x2d || c === 0x5b || c === 0x7b || (c >= 0x30 && c <= 0x39);
  return !mayStartJson && text !== 'true' && text !== 'false' && text !== 'null';
}

function decode(name: string, text: string, how: TextReading): unknown {
  if (!how.json || (how.textAllowed && plainlyNotJson(text))) return text;
  try {
    return JSON.parse(text);
  } catch {
    if (how.textAllowed) return text;
    throw badRequest(`${name} is not valid JSON`);
  }
}

/**
 * The value of a form field or query parameter: JSON text decoded as the
 * contract says; a repeated name is a list of its values, each read as an
 * item (and refused for a parameter that takes one value); a lone value of a
 * list parameter that is not a JSON list or object is a list of that one item.
 */
function fromText(spec: ParamSpec, text: string | string[]): unknown {
  if (Array.isArray(text)) {
    if (!spec.list) throw badRequest(`${spec.name} was sent more than once`);
    return text.map((item) => decode(spec.name, item, spec.item));
  }
  if (spec.listOnly && !/^\s*[[{]/.test(text)) return [decode(spec.name, text, spec.item)];
  return decode(spec.name, text, spec);
}

/** `drafts/0/type` -> `drafts[0]["type"]`, the way error messages name nested values. */
function varName(pointer: string): string {
  const [head, ...rest] = pointer
    .split('/')
    .filter(Boolean)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  return (
    (head ?? '') + rest.map((part) => (/^\d+$/.test(part) ? `[${part}]` : `["${part}"]`)).join('')
  );
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
  const union = errors
    .filter((e) => e.keyword === 'oneOf' || e.keyword === 'anyOf')
    .sort((a, b) => a.instancePath.length - b.instancePath.length)[0];
  const error = union ?? errors[0];
  const pointer = error.instancePath.replace(/^\/(query|path|requestBody)/, '');
  const name = varName(pointer);
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return pointer === ''
        ? missingArgument(String(p.missingProperty))
        : badRequest(`${name}["${p.missingProperty}"] field is missing`);
    case 'type':
      return badRequest(
        `${name} is not ${typeNames[String(p.type).split(',')[0]] ?? `of type ${p.type}`}`,
      );
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
      return badRequest(`${name} is too large`);
    case 'maxItems':
      return badRequest(`${name} has too many items (limit: ${p.limit})`);
    case 'pattern':
      return badRequest(`${name} has invalid format`);
    case 'additionalProperties':
      return badRequest(`Argument "${p.additionalProperty}" at ${name} is unexpected`);
    default:
      return badRequest(`Invalid ${name}`);
  }
}

// Texts whose NUL characters their own rules refuse, with Zulip's messages
// for them (message content, topics, default channel group names).
const nulCheckedLater = new Set(['content', 'topic', 'group_name']);

/**
 * The name of the first text within `value` (a string, or one in a list or
 * object) holding a NUL character; an object whose key holds one is named
 * itself, keys being stored too (bot storage).
 */
function nulPath(value: unknown, name: string): string | undefined {
  if (typeof value === 'string') return value.includes('\0') ? name : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  const list = Array.isArray(value);
  for (const [key, item] of Object.entries(value)) {
    if (!list && key.includes('\0')) return name;
    if (!list && nulCheckedLater.has(key)) continue;
    const found = nulPath(item, list ? `${name}[${key}]` : `${name}["${key}"]`);
    if (found) return found;
  }
  return undefined;
}

/** Refuses a NUL character anywhere in the parameters: no text the API stores may hold one. */
function refuseNul(params: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(params)) {
    if (nulCheckedLater.has(name)) continue;
    const found = nulPath(value, name);
    if (found) throw badRequest(`${found} contains NULL (0x00) characters.`);
  }
}

/**
 * Whether each operation's validators (by their list) accept a request
 * carrying no parameters while leaving it empty (adding no defaults): worked
 * out on the first such request, since validators depend only on their input.
 */
const emptyAccepted = new WeakMap<ValidateFunction[], boolean>();

/** Whether `raw` carries nothing at all: no path parameters, query, body or files. */
function isEmpty(raw: RawRequest): boolean {
  if (raw.body !== undefined || raw.fileFields.length > 0) return false;
  for (const _ in raw.query) return false;
  for (const _ in raw.pathParams) return false;
  return true;
}

/**
 * Collects, decodes and validates the parameters of `op` from `raw`.
 * Throws an ApiError naming the first parameter that is missing or malformed.
 * A parameter in the body wins over the same one in the query string.
 */
export function parseParams(
  op: OperationSpec,
  validators: ValidateFunction[],
  raw: RawRequest,
): ParsedParams {
  // An operation without parameters asked with none (GET /users/me): the
  // answer of the first such request stands for every later one.
  if (op.params.size === 0 && isEmpty(raw)) {
    const accepted = emptyAccepted.get(validators);
    if (accepted) return { params: {}, ignored: [] };
    if (accepted === undefined) {
      const input = { path: {}, query: {}, header: {}, cookie: {}, requestBody: {} };
      const passes = validators.every((validate) => validate(input));
      const untouched = [input.path, input.query, input.requestBody].every(
        (part) => Object.keys(part).length === 0,
      );
      emptyAccepted.set(validators, passes && untouched);
    }
  }
  const path: Record<string, unknown> = {};
  const query: Record<string, unknown> = {};
  const body: Record<string, unknown> = {};
  const ignored = new Set<string>();
  const seen = new Set<string>();

  const take = (name: string, value: unknown, native: boolean) => {
    if (seen.has(name)) return;
    seen.add(name);
    const spec = op.params.get(name);
    if (!spec || spec.in === 'path') {
      ignored.add(name);
      return;
    }
    (spec.in === 'query' ? query : body)[name] = native
      ? value
      : fromText(spec, value as string | string[]);
  };
  const sent = raw.body;
  // A payload body (a webhook's) is handed over whole, not read as parameters.
  if (sent && 'value' in sent && !op.payloadBody)
    for (const [name, value] of Object.entries(sent.value)) take(name, value, true);
  if (sent && 'fields' in sent)
    for (const [name, value] of Object.entries(sent.fields)) take(name, value, false);
  for (const [name, value] of Object.entries(raw.query)) take(name, value, false);
  // Files are handed to the handlers of operations that take them; elsewhere they are not read.
  if (!op.uploads) for (const name of raw.fileFields) ignored.add(name);

  for (const [name, value] of Object.entries(raw.pathParams)) {
    const spec = op.params.get(name);
    if (value.includes('\0')) throw badRequest(`${name} contains NULL (0x00) characters.`);
    // An id in a path is decimal digits: `0x10`, `1e0` or ` 1` would otherwise
    // be coerced to a number by the validator.
    if (spec?.integer && !/^-?\d+$/.test(value)) throw badRequest(`${name} is not an integer`);
    path[name] = spec?.integer ? Number(value) : value;
  }

  refuseNul(query);
  refuseNul(body);
  const input = { path, query, header: {}, cookie: {}, requestBody: body };
  for (const validate of validators) {
    if (!validate(input)) throw validationError(validate.errors ?? []);
  }
  return { params: { ...body, ...query, ...path }, ignored: [...ignored].sort() };
}
