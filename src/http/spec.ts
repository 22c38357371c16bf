// Loads openapi.yaml once and describes each operation the way the HTTP layer
// needs it: its route, whether it needs credentials (and whether an API key
// may come in the query string), the body types it accepts, whether its body
// is one payload, and where and how each of its parameters is read.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type Ajv from 'ajv';
import type OpenAPIBackend from 'openapi-backend';
import type { OpenAPIV3 } from 'openapi-types';
import type * as Yaml from 'yaml';
import { projectRoot } from '../paths';
import { JSON_TYPE, MULTIPART_TYPE, URLENCODED_TYPE } from './body';

/** Where a parameter is declared: path, query string, or request body. */
export type ParamLocation = 'path' | 'query' | 'body';

/** How one text value (a form field, a query parameter) is read. */
export interface TextReading {
  /** Whether the text is JSON (lists, objects, numbers, booleans, null). */
  json: boolean;
  /** Whether plain text is also acceptable when the value is not JSON. */
  textAllowed: boolean;
}

/** One parameter of an operation. */
export interface ParamSpec extends TextReading {
  name: string;
  in: ParamLocation;
  /** Whether the value may be a list, so that a name repeated in a form is that list. */
  list: boolean;
  /** Whether the value is always a list, so that a lone value that is not JSON text is a list of one. */
  listOnly: boolean;
  /** How each value of a repeated name is read: as an item of the list. */
  item: TextReading;
  /** For path parameters: whether the value may contain `/`. */
  matchesSlashes: boolean;
  /** For path parameters: whether the value is an integer. */
  integer: boolean;
}

/** One operation of the contract. */
export interface OperationSpec {
  operationId: string;
  method: string;
  /** The path template as written in openapi.yaml, e.g. /users/{user_id}. */
  path: string;
  authenticated: boolean;
  params: Map<string, ParamSpec>;
  /** The body types the operation reads (others are answered 415). */
  bodyTypes: string[];
  /** Whether the operation takes uploaded files (its body is multipart alone), under any field name. */
  uploads: boolean;
  /**
   * Whether the whole JSON body is the operation's payload, handed to its
   * handler as it is rather than read as parameters (`x-payload-body`).
   */
  payloadBody: boolean;
  /** The query parameter that may carry the API key in place of HTTP basic credentials, if any. */
  apiKeyParam?: string;
  /** Whether incoming webhook bots may call the operation (`x-incoming-webhook-bots`). */
  incomingWebhookBots: boolean;
}

/** The location of openapi.yaml. */
export const specPath = resolve(projectRoot, 'openapi.yaml');

/** Where parsed copies of the contract are kept between starts (beside other tools' caches). */
const PARSED_CACHE_DIR = join(projectRoot, 'node_modules', '.cache', 'chat-contract');

/**
 * The contract at `path`, parsed. Parsing its megabyte of YAML takes a second
 * or more of CPU, at every start of a server (and of every test file), so the
 * parsed document is kept as JSON, named by the hash of the YAML text (and of this module), and
 * later starts read that back in milliseconds. A cache that cannot be written
 * only costs the next start the parse.
 */
export function readContract(path = specPath): OpenAPIV3.Document {
  const text = readFileSync(path, 'utf8');
  return cachedJson(`${contractHash(text)}.json`, () => {
    // Loaded only to parse: a start that finds the parse cached does without.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { parse } = require('yaml') as typeof Yaml;
    return plainReferences(parse(text) as OpenAPIV3.Document);
  });
}

/**
 * A name for what this module makes of the contract text `text`: its hash,
 * and that of this module's code, which shapes what is made of it.
 */
function contractHash(text: string): string {
  return createHash('sha256')
    .update(text)
    .update(readFileSync(__filename))
    .digest('hex')
    .slice(0, 32);
}

/**
 * The value kept as JSON in the file `name` of the cache, or, when it is not
 * there yet (or cannot be read), `make()`'s, written there for the next start.
 * A cache that cannot be written only costs the next start the work.
 */
function cachedJson<T>(name: string, make: () => T): T {
  const cached = join(PARSED_CACHE_DIR, name);
  try {
    return JSON.parse(readFileSync(cached, 'utf8')) as T;
  } catch {
    // not cached yet, or unreadable: make it
  }
  const value = make();
  try {
    mkdirSync(PARSED_CACHE_DIR, { recursive: true });
    // Several processes may start at once: each writes its own file and renames it into place.
    const partial = `${cached}.${randomBytes(6).toString('hex')}.tmp`;
    writeFileSync(partial, JSON.stringify(value));
    renameSync(partial, cached);
  } catch {
    // a read-only tree: make it again next time
  }
  return value;
}

/**
 * Makes every `$ref` of `document` point straight at what it stands for, by
 * a pointer without escapes: a chain of references becomes a reference to
 * its end, and a reference whose pointer needs an escape (`~1` for the `/` of
 * `application/json`) becomes a copy of its target. openapi-backend's quick
 * dereferencer follows pointers segment by segment, without unescaping them
 * or following a reference it lands on; with this it finds what a full
 * JSON Pointer resolver would.
 */
function plainReferences(document: OpenAPIV3.Document): OpenAPIV3.Document {
  const at = (ref: string): unknown => {
    let node: unknown = document;
    for (const segment of ref.slice(2).split('/')) {
      const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
      node = (node as Record<string, unknown> | undefined)?.[key];
    }
    if (node === undefined) throw new Error(`openapi.yaml: $ref ${ref} names nothing`);
    return node;
  };
  const isRef = (node: unknown): node is { $ref: string } =>
    typeof (node as { $ref?: unknown } | null)?.$ref === 'string';
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (node === null || typeof node !== 'object') return node;
    if (isRef(node)) {
      let ref = node.$ref;
      let target = at(ref);
      for (let hops = 0; isRef(target); hops++) {
        if (hops > 20) throw new Error(`openapi.yaml: $ref ${node.$ref} goes round in circles`);
        ref = target.$ref;
        target = at(ref);
      }
      return ref.includes('~') ? visit(structuredClone(target)) : { $ref: ref };
    }
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) out[key] = visit(value);
    return out;
  };
  return visit(document) as OpenAPIV3.Document;
}

/** This module's file: how the server reads the contract is part of what its validators are compiled from. */
export const specModule = __filename;

/**
 * The extension of a `type: string` query parameter whose text is JSON: its
 * value is the schema of the decoded value, which the server validates.
 */
export const JSON_SCHEMA_EXTENSION = 'x-json-schema';

type Schema = OpenAPIV3.SchemaObject;

const httpMethods = [
  'get',
  'put',
  'post',
  'delete',
  'options',
  'head',
  'patch',
  'trace',
] as OpenAPIV3.HttpMethods[];

function branches(schema: Schema): Schema[] {
  return [...(schema.oneOf ?? []), ...(schema.anyOf ?? []), ...(schema.allOf ?? [])] as Schema[];
}

/** The fields of a body schema: its own properties and those of each `allOf` part. */
function bodyProperties(schema: Schema | undefined): Record<string, Schema> {
  if (!schema) return {};
  const parts = (schema.allOf ?? []) as Schema[];
  return Object.assign(
    {},
    ...parts.map(bodyProperties),
    schema.properties as Record<string, Schema> | undefined,
  ) as Record<string, Schema>;
}

function typesOf(schema: Schema | undefined): Set<string> {
  const out = new Set<string>();
  if (!schema) return out;
  if (schema.type) out.add(schema.type);
  for (const sub of branches(schema)) for (const t of typesOf(sub)) out.add(t);
  return out;
}

/** The item schemas of every list form `schema` allows. */
function itemsOf(schema: Schema | undefined): Schema[] {
  if (!schema) return [];
  const own =
    schema.type === 'array' ? [(schema as OpenAPIV3.ArraySchemaObject).items as Schema] : [];
  return [...own, ...branches(schema).flatMap(itemsOf)];
}

function reading(types: Set<string>): TextReading {
  return {
    json: [...types].some((t) => t !== 'string'),
    textAllowed: types.size === 0 || types.has('string'),
  };
}

function paramSpec(
  name: string,
  where: ParamLocation,
  schema: Schema | undefined,
  extra: Record<string, unknown> = {},
): ParamSpec {
  const types = typesOf(schema);
  const itemTypes = new Set(itemsOf(schema).flatMap((item) => [...typesOf(item)]));
  return {
    name,
    in: where,
    ...reading(types),
    list: types.has('array'),
    listOnly: types.size === 1 && types.has('array'),
    item: reading(itemTypes),
    matchesSlashes: extra['x-matches-slashes'] === true,
    integer: types.has('integer') && !types.has('string'),
  };
}

/**
 * Turns the (dereferenced) contract into the one the server validates: a
 * query parameter declared as JSON text (`type: string` with `x-json-schema`)
 * is checked, once decoded, against the schema of its decoded value.
 */
function serverView(document: OpenAPIV3.Document): void {
  const swap = (parameter: OpenAPIV3.ParameterObject | OpenAPIV3.ReferenceObject) => {
    const schema =
      'schema' in parameter ? (parameter.schema as Record<string, unknown> | undefined) : undefined;
    const decoded = schema?.[JSON_SCHEMA_EXTENSION];
    if (decoded) (parameter as OpenAPIV3.ParameterObject).schema = decoded as Schema;
  };
  for (const parameter of Object.values(document.components?.parameters ?? {})) swap(parameter);
  for (const item of Object.values(document.paths)) {
    for (const parameter of item?.parameters ?? []) swap(parameter);
    for (const method of httpMethods)
      for (const parameter of item?.[method]?.parameters ?? []) swap(parameter);
  }
}

/**
 * The extension of an operation whose JSON body is one value, its payload
 * (an integration's webhook), and not a set of parameters.
 */
export const PAYLOAD_BODY_EXTENSION = 'x-payload-body';

/** The extension of the operations that incoming webhook bots may call. */
export const INCOMING_WEBHOOK_BOTS_EXTENSION = 'x-incoming-webhook-bots';

/** The name of the query parameter of an `apiKey` security scheme the operation accepts, if any. */
function apiKeyParamOf(
  document: OpenAPIV3.Document,
  security: OpenAPIV3.SecurityRequirementObject[],
): string | undefined {
  for (const requirement of security)
    for (const name of Object.keys(requirement)) {
      const scheme = document.components?.securitySchemes?.[name] as
        OpenAPIV3.SecuritySchemeObject | undefined;
      if (scheme?.type === 'apiKey' && scheme.in === 'query') return scheme.name;
    }
  return undefined;
}

/**
 * The types an operation's body may have: JSON alone for a payload body,
 * multipart alone for file uploads, else JSON and both forms.
 */
function bodyTypesOf(body: OpenAPIV3.RequestBodyObject | undefined, payload = false): string[] {
  if (payload) return [JSON_TYPE];
  const declared = Object.keys(body?.content ?? {});
  const uploadOnly =
    declared.includes(MULTIPART_TYPE) &&
    !declared.includes(URLENCODED_TYPE) &&
    !declared.includes(JSON_TYPE);
  return uploadOnly ? [MULTIPART_TYPE] : [JSON_TYPE, URLENCODED_TYPE, MULTIPART_TYPE];
}

/** openapi-backend over the contract, and the Ajv instances it makes as it compiles validators. */
export interface ContractBackend {
  api: OpenAPIBackend;
  /** The Ajv instances openapi-backend made since the last call, in order (see validators.ts). */
  takeCompilers: () => Ajv[];
}

/**
 * Dereferences the contract into openapi-backend, ready to compile
 * validators when asked (see RequestValidators), and only those the server
 * uses: compiling every response validator as well took three of the four
 * seconds of a start. The document itself is linted by `npm run check`, not
 * at each start. With a document object in quick mode, openapi-backend's
 * `init` has no step to wait for: it is done when it returns.
 */
export function openContract(path = specPath): ContractBackend {
  const compilers: Ajv[] = [];
  // Loaded only when validators are compiled (see loadOperations): a start
  // whose caches hold them does without it, and the dozens of modules it loads.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { default: Backend } = require('openapi-backend') as { default: typeof OpenAPIBackend };
  const api = new Backend({
    // An object, not the path: openapi-backend then dereferences it with its
    // quick synchronous dereferencer rather than a parse and a slower one.
    definition: readContract(path),
    quick: true,
    validate: true,
    ajvOpts: {
      strict: false,
      // The contract's schemas are not checked against JSON Schema's own
      // schema at each compile (two thirds of the compile time): `npm run
      // check` lints openapi.yaml.
      validateSchema: false,
      // Infinity (JSON's 1e400) is neither an integer nor a float.
      strictNumbers: true,
      allErrors: false,
      validateFormats: false,
      // Each function keeps its code, for the cache of validators.ts.
      code: { source: true },
    },
    customizeAjv: (ajv) => {
      compilers.push(ajv);
      return ajv;
    },
  });
  api.init().catch(() => undefined);
  if (!api.initialized) throw new Error('openapi-backend did not initialize at once');
  // Validators are compiled on first use, so from the server's view.
  serverView(api.definition as OpenAPIV3.Document);
  return { api, takeCompilers: () => compilers.splice(0) };
}

/** The operations of the contract `api` holds, as the HTTP layer reads them. */
function operationsOf(api: OpenAPIBackend): OperationSpec[] {
  const operations: OperationSpec[] = [];
  for (const op of api.getOperations()) {
    if (!op.operationId) continue;
    const params = new Map<string, ParamSpec>();
    for (const p of (op.parameters ?? []) as OpenAPIV3.ParameterObject[]) {
      // Headers (an integration's event header) are read by the handler, never as parameters.
      if (p.in === 'header' || p.in === 'cookie') continue;
      const schema = (p.schema ?? p.content?.[JSON_TYPE]?.schema) as Schema | undefined;
      const where: ParamLocation = p.in === 'path' ? 'path' : 'query';
      params.set(p.name, paramSpec(p.name, where, schema, { ...p }));
    }
    const body = op.requestBody as OpenAPIV3.RequestBodyObject | undefined;
    const media =
      body?.content[JSON_TYPE] ?? body?.content[URLENCODED_TYPE] ?? body?.content[MULTIPART_TYPE];
    const extensions: Record<string, unknown> = { ...op };
    const payloadBody = extensions[PAYLOAD_BODY_EXTENSION] === true;
    // A payload's fields are its own, not parameters.
    const properties = payloadBody ? {} : bodyProperties(media?.schema as Schema | undefined);
    for (const [name, schema] of Object.entries(properties))
      params.set(name, paramSpec(name, 'body', schema as Schema));
    const security = op.security ?? api.definition.security ?? [];
    operations.push({
      operationId: op.operationId,
      method: op.method.toUpperCase(),
      path: op.path,
      authenticated: security.length > 0,
      params,
      bodyTypes: bodyTypesOf(body, payloadBody),
      uploads: !payloadBody && bodyTypesOf(body).length === 1,
      payloadBody,
      apiKeyParam: apiKeyParamOf(api.definition as OpenAPIV3.Document, security),
      incomingWebhookBots: extensions[INCOMING_WEBHOOK_BOTS_EXTENSION] === true,
    });
  }
  return operations;
}

/**
 * The operations of the contract at `path`. Dereferencing the contract to
 * list them costs half a second of CPU, so the list is kept in the cache
 * beside the parsed contract: a start whose validators are cached as well
 * (validators.ts) need not dereference the contract at all.
 */
export function loadOperations(path = specPath): OperationSpec[] {
  type Stored = Omit<OperationSpec, 'params'> & { params: ParamSpec[] };
  const stored = cachedJson<Stored[]>(
    `${contractHash(readFileSync(path, 'utf8'))}-operations.json`,
    () =>
      operationsOf(openContract(path).api).map((op) => ({
        ...op,
        params: [...op.params.values()],
      })),
  );
  return stored.map((op) => ({ ...op, params: new Map(op.params.map((p) => [p.name, p])) }));
}

/** The contract at `path` in openapi-backend, and its operations (see openContract). */
export async function loadSpec(path = specPath): Promise<
  ContractBackend & {
    operations: OperationSpec[];
  }
> {
  const backend = openContract(path);
  return { ...backend, operations: operationsOf(backend.api) };
}
