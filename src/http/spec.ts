// Loads openapi.yaml once and describes each operation the way the HTTP layer
// needs it: its route, whether it needs credentials, and where and how each of
// its parameters is read.
import { resolve } from 'node:path';
import OpenAPIBackend from 'openapi-backend';
import type { OpenAPIV3 } from 'openapi-types';
import { projectRoot } from '../paths';

/** Where a parameter is declared: path, query string, or form body. */
export type ParamLocation = 'path' | 'query' | 'body';

/** One parameter of an operation. */
export interface ParamSpec {
  name: string;
  in: ParamLocation;
  /** Whether the value arrives as JSON text (lists, objects, numbers, booleans). */
  json: boolean;
  /** Whether plain text is also acceptable when the value is not JSON. */
  textAllowed: boolean;
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
}

/** The location of openapi.yaml. */
export const specPath = resolve(projectRoot, 'openapi.yaml');

type Schema = OpenAPIV3.SchemaObject;

function typesOf(schema: Schema | undefined): Set<string> {
  const out = new Set<string>();
  if (!schema) return out;
  if (schema.type) out.add(schema.type);
  for (const sub of [...(schema.oneOf ?? []), ...(schema.anyOf ?? []), ...(schema.allOf ?? [])]) {
    for (const t of typesOf(sub as Schema)) out.add(t);
  }
  return out;
}

function paramSpec(name: string, where: ParamLocation, schema: Schema | undefined, extra: Record<string, unknown> = {}): ParamSpec {
  const types = typesOf(schema);
  const nonText = [...types].some((t) => t !== 'string');
  return {
    name,
    in: where,
    json: nonText,
    textAllowed: types.size === 0 || types.has('string'),
    matchesSlashes: extra['x-matches-slashes'] === true,
    integer: types.has('integer') && !types.has('string'),
  };
}

/**
 * Loads and dereferences the contract, and lists its operations. Validators
 * are compiled when first asked for (see buildRouter), and only the request
 * validators the server uses: compiling every response validator as well took
 * three of the four seconds of a start. The document itself is linted by
 * `npm run check`, not at each start.
 */
export async function loadSpec(path = specPath): Promise<{ api: OpenAPIBackend; operations: OperationSpec[] }> {
  const api = new OpenAPIBackend({
    definition: path,
    quick: true,
    validate: true,
    ajvOpts: { strict: false, allErrors: false, validateFormats: false },
  });
  await api.init();
  const operations: OperationSpec[] = [];
  for (const op of api.getOperations()) {
    if (!op.operationId) continue;
    const params = new Map<string, ParamSpec>();
    for (const p of (op.parameters ?? []) as OpenAPIV3.ParameterObject[]) {
      const schema = (p.schema ?? p.content?.['application/json']?.schema) as Schema | undefined;
      const where: ParamLocation = p.in === 'path' ? 'path' : 'query';
      params.set(p.name, paramSpec(p.name, where, schema, p as unknown as Record<string, unknown>));
    }
    const body = op.requestBody as OpenAPIV3.RequestBodyObject | undefined;
    const form = body?.content['application/x-www-form-urlencoded'] ?? body?.content['multipart/form-data'];
    const properties = (form?.schema as Schema | undefined)?.properties ?? {};
    for (const [name, schema] of Object.entries(properties)) params.set(name, paramSpec(name, 'body', schema as Schema));
    const security = op.security ?? api.definition.security ?? [];
    operations.push({
      operationId: op.operationId,
      method: op.method.toUpperCase(),
      path: op.path,
      authenticated: security.length > 0,
      params,
    });
  }
  return { api, operations };
}
