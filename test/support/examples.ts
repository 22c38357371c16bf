// The examples of openapi.yaml as replayable cases. A request example and the
// answer it gets are paired by name: the example named `channel-message` of a
// request body (or of a parameter) is answered by the response example named
// `channel-message`, under the status it documents. Response examples of the
// shared responses (components/responses) belong to every operation and are
// replayed on their own. A response example's `x-as` names the user who sends
// the request (by email; King Hamlet when absent), and its `x-host` the Host
// the request is sent to, for the organizations at a subdomain.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { specPath } from '../../src/http/spec';

/** The user who sends an example request unless the answer's `x-as` names another. */
export const DEFAULT_EXAMPLE_USER = 'hamlet@example.com';

/** The extension of a response example naming who sends its request. */
export const AS_EXTENSION = 'x-as';

/** The extension of a response example naming the Host its request is sent to. */
export const HOST_EXTENSION = 'x-host';

/**
 * The extension of a response example this server never gives, with the
 * reason: shown for clients, checked against its schema, not replayed.
 */
export const NOT_REPLAYED_EXTENSION = 'x-not-replayed';

type Json = any;

/** openapi.yaml as written, with its `$ref`s unresolved. */
export const document: Json = parse(readFileSync(specPath, 'utf8'));

/**
 * The names of the examples of the shared responses (components/responses):
 * wherever they appear, they are replayed on their own, not as an
 * operation's.
 */
export const sharedExampleNames = new Set(
  Object.values<Json>(document.components?.responses ?? {}).flatMap((response) =>
    Object.keys(response?.content?.['application/json']?.examples ?? {}),
  ),
);

/** Follows a local `$ref` (and the ones it leads to); other values are returned as they are. */
export function deref(node: Json): Json {
  const seen = new Set<string>();
  while (node && typeof node === 'object' && typeof node.$ref === 'string') {
    const ref: string = node.$ref;
    if (seen.has(ref) || !ref.startsWith('#/')) throw new Error(`cannot follow $ref ${ref}`);
    seen.add(ref);
    node = ref
      .slice(2)
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((at: Json, part) => at?.[part], document);
    if (node === undefined) throw new Error(`$ref ${ref} names nothing`);
  }
  return node;
}

/** One response example of an operation. */
export interface ResponseExample {
  name: string;
  status: number;
  /** The example object (summary, description, value, x-as). */
  example: Json;
  /** Whether it comes from a shared response of components/responses. */
  shared: boolean;
}

/** One parameter of an operation. */
export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  examples: Record<string, Json>;
}

/** One operation of the contract, with its examples. */
export interface Operation {
  id: string;
  method: string;
  path: string;
  description: string;
  /** Whether it needs no credentials (`security: []`). */
  public: boolean;
  parameters: Parameter[];
  /** The request body's media types, each with its resolved examples. */
  bodies: { type: string; examples: Record<string, Json> }[];
  responses: { status: number; description: string; shared: boolean }[];
  answers: ResponseExample[];
  codeSamples: { lang: string; label?: string; source: string }[];
}

function examplesOf(holder: Json): Record<string, Json> {
  return Object.fromEntries(
    Object.entries(holder?.examples ?? {}).map(([name, example]) => [name, deref(example)]),
  );
}

const methods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** Every operation of openapi.yaml, in the order it is written. */
export function operations(): Operation[] {
  const out: Operation[] = [];
  for (const [path, rawItem] of Object.entries<Json>(document.paths)) {
    const item = deref(rawItem);
    for (const method of methods) {
      const op = item[method];
      if (!op?.operationId) continue;
      const parameters: Parameter[] = [...(item.parameters ?? []), ...(op.parameters ?? [])]
        .map(deref)
        .map((p: Json) => ({
          name: p.name,
          in: p.in,
          required: p.required === true,
          examples: examplesOf(p),
        }));
      const body = op.requestBody ? deref(op.requestBody) : undefined;
      const bodies = Object.entries<Json>(body?.content ?? {}).map(([type, media]) => ({
        type,
        examples: examplesOf(media),
      }));
      const responses: Operation['responses'] = [];
      const answers: ResponseExample[] = [];
      for (const [status, rawResponse] of Object.entries<Json>(op.responses ?? {})) {
        const shared = typeof rawResponse?.$ref === 'string';
        const response = deref(rawResponse);
        responses.push({ status: Number(status), description: response.description ?? '', shared });
        // Every media type's: a stream of server-sent events shows its text.
        const examples = Object.values<Json>(response.content ?? {}).map(examplesOf);
        for (const [name, example] of examples.flatMap((e) => Object.entries(e)))
          answers.push({
            name,
            status: Number(status),
            example,
            shared: shared || sharedExampleNames.has(name),
          });
      }
      out.push({
        id: op.operationId,
        method: method.toUpperCase(),
        path,
        description: op.description ?? '',
        public: Array.isArray(op.security) && op.security.length === 0,
        parameters,
        bodies,
        responses,
        answers,
        codeSamples: op['x-codeSamples'] ?? [],
      });
    }
  }
  return out;
}

/** One request example with the answer it documents. */
export interface Case {
  operation: Operation;
  name: string;
  /** Who sends it (an email of the fixture). */
  as: string;
  /** The Host header, when not the server's own. */
  host?: string;
  pathParams: Record<string, Json>;
  query: Record<string, Json>;
  /** Header parameters (an integration's event header), sent as headers. */
  headers: Record<string, string>;
  /** The body, when the example has one, and its media type. */
  body?: { type: string; value: Json };
  answer: ResponseExample;
}

/** The names of an operation's request examples, from its parameters and its body. */
export function requestExampleNames(op: Operation): Set<string> {
  const names = new Set<string>();
  for (const p of op.parameters) for (const name of Object.keys(p.examples)) names.add(name);
  for (const b of op.bodies) for (const name of Object.keys(b.examples)) names.add(name);
  return names;
}

/** The cases of an operation: each response example of its own, with its request. */
export function casesOf(op: Operation): Case[] {
  return op.answers
    .filter((answer) => !answer.shared && !answer.example[NOT_REPLAYED_EXTENSION])
    .map((answer) => {
      const pathParams: Record<string, Json> = {};
      const query: Record<string, Json> = {};
      const headers: Record<string, string> = {};
      for (const p of op.parameters) {
        const example = p.examples[answer.name];
        if (!example) continue;
        if (p.in === 'header') headers[p.name] = String(example.value);
        else (p.in === 'path' ? pathParams : query)[p.name] = example.value;
      }
      const media = op.bodies.find((b) => b.examples[answer.name]);
      return {
        operation: op,
        name: answer.name,
        as: answer.example[AS_EXTENSION] ?? DEFAULT_EXAMPLE_USER,
        host: answer.example[HOST_EXTENSION],
        pathParams,
        query,
        headers,
        body: media ? { type: media.type, value: media.examples[answer.name].value } : undefined,
        answer,
      };
    });
}

/** The path of a case's request, with its path parameters filled in and its query string. */
export function targetOf(c: Case): string {
  const path = c.operation.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (!(name in c.pathParams)) throw new Error(`${c.operation.id} ${c.name}: no ${name}`);
    return encodeURIComponent(String(c.pathParams[name]));
  });
  const query = new URLSearchParams(
    Object.entries(c.query).map(([k, v]): [string, string] => [
      k,
      typeof v === 'string' ? v : JSON.stringify(v),
    ]),
  ).toString();
  return query ? `${path}?${query}` : path;
}

/**
 * Keys whose values the server picks anew each time (times, random IDs and
 * keys, the server's version), or that depend on how long the replay takes
 * (a presence counts as a new update only after a while): compared by type
 * alone.
 */
const volatileKey =
  /^(timestamp|date_joined|date_created|last_edit_timestamp|last_moved_timestamp|active_timestamp|idle_timestamp|server_timestamp|realm_date_created|export_time|api_key|queue_id|zulip_version|zulip_merge_base|zulip_feature_level|server_generation|retry-after|invited|expiry_date|create_time|date_sent|presence_last_update_id|csrf_token)$/;

/** Parts of strings the server picks at random: replaced by a marker before comparing. */
const volatileText: [RegExp, string][] = [
  [/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>'],
  [/(^|\/)[0-9a-f]{24}\//g, '$1<random>/'],
  [/(\/user_avatars\/\d+\/emoji\/images\/)[0-9a-f]+\./g, '$1<random>.'],
  [/(\/user_avatars\/\d+\/)[0-9a-f]{40}(-medium)?\./g, '$1<random>$2.'],
  // The signed details of a BigBlueButton call, which hold a random meeting ID.
  [/(bigbluebutton=)[\w-]+\.[\w-]+/g, '$1<signed>'],
  [/\/join\/[A-Za-z0-9_-]{32}$/g, '/join/<key>'],
  [/(\/user_uploads\/temporary\/)[0-9A-Za-z_-]+\//g, '$1<token>/'],
];

function kind(value: Json): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

/** `value` with what the server picks at random replaced by markers, for comparing answers. */
export function normalize(value: Json, key = ''): Json {
  if (volatileKey.test(key)) return `<${kind(value)}>`;
  if (typeof value === 'string')
    return volatileText.reduce((text, [pattern, marker]) => text.replace(pattern, marker), value);
  if (Array.isArray(value)) return value.map((item) => normalize(item));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalize(v, k)]));
  return value;
}
