// The route table, built from openapi.yaml: one @koa/router route per path
// template and method, bound by operationId to its handler. Only the matched
// operation's request is validated (openapi-backend's own router is not used).
import Router from '@koa/router';
import type { IncomingMessage } from 'node:http';
import type Koa from 'koa';
import type { HandlerMap, PublicHandlerMap } from '../handlers/types';
import type { UploadedFile } from '../lib/uploads/uploads';
import { ApiError, badRequest, missingArgument, unauthorized } from '../errors';
import { textOfJson } from '../events/queues';
import { subdomainOf } from '../lib/realm/realms';
import { BotType } from '../lib/users/bots';
import { Authenticator, type AuthUser } from '../lib/users/credentials';
import type { Services } from '../services';
import { requestBody, unsupportedMediaType, type RequestBody } from './body';
import { parseUrlencoded, type FormFields } from './form';
import { parseParams } from './params';
import { requestSession, type RequestSession } from './session';
import type { OperationSpec } from './spec';
import type { RequestValidators } from './validators';
import { clientName } from './user-agent';

/** What the middleware of a request leaves in `ctx.state` for its log line and metrics. */
export interface RequestState {
  /** The operationId, or the name of an endpoint outside the API (health, openapi, ...). */
  operation?: string;
  /** The authenticated user, once known. */
  userId?: number;
}

/**
 * A request as an operation's route reads it, whichever front end took it
 * (Koa, or the lean path of lean.ts): everything but the answer's body.
 */
export interface RouteInput {
  /** The path parameters under the operation's own names. */
  pathParams: Record<string, string>;
  query: FormFields;
  body: RequestBody | undefined;
  /** The uploaded files by field name (read after authentication: a refusal of them comes second). */
  files: () => Record<string, UploadedFile>;
  /** The Authorization header, if sent. */
  authorization: string | undefined;
  /** The client's address and the request's host, as Koa works them out (proxy headers when trusted). */
  ip: () => string;
  host: () => string;
  userAgent: string | undefined;
  /** The request, watched for the client going away. */
  req: IncomingMessage;
  setHeader(name: string, value: string): void;
  state: RequestState;
  /** The browser session (session.ts), where the front end offers one. */
  session?: RequestSession;
}

/** Answers an operation's request: the JSON success body (a refusal is thrown as an ApiError). */
export type Route = (op: OperationSpec, input: RouteInput) => Promise<Buffer>;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the table holds every operation's handler; each is called with its own operation's request
type AnyHandler = (req: any) => Promise<Record<string, unknown>>;

/** The names of a path template's parameters, in order. */
function parameterNames(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
}

/** Turns `/users/{user_id}` into `/users/:user_id` (and a slash-spanning parameter into a wildcard). */
export function koaPath(op: OperationSpec): string {
  return op.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    op.params.get(name)?.matchesSlashes ? `*${name}` : `:${name}`,
  );
}

/** The template with parameter names erased, so /users/{user_id} and /users/{email} compare equal. */
function shape(path: string): string {
  return path.replace(/\{\w+\}/g, '{}');
}

/** Literal segments sort before parameters, so /users/me wins over /users/{user_id}. */
function specificity(a: string, b: string): number {
  const x = a.split('/');
  const y = b.split('/');
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const px = x[i].startsWith('{');
    const py = y[i].startsWith('{');
    if (px !== py) return px ? 1 : -1;
  }
  return y.length - x.length;
}

/** The uploaded files by field name; a field holding several files is refused, not cut to one. */
function uploadedFiles(ctx: Koa.Context): Record<string, UploadedFile> {
  const out: Record<string, UploadedFile> = {};
  for (const [field, value] of Object.entries(ctx.request.files ?? {})) {
    if (Array.isArray(value) && value.length > 1)
      throw badRequest(`${field} was sent more than once`);
    const file = Array.isArray(value) ? value[0] : value;
    if (file)
      out[field] = {
        path: file.filepath,
        name: file.originalFilename ?? 'file',
        size: file.size,
        type: file.mimetype ?? 'application/octet-stream',
      };
  }
  return out;
}

/** The JSON payload of an operation whose whole body is one (a webhook's), or a 400. */
function payloadOf(body: RequestBody | undefined): Record<string, unknown> {
  if (body && 'value' in body) return body.value;
  throw badRequest('Malformed JSON in the request body');
}

/**
 * The user the request's credentials name, for an operation that needs them:
 * HTTP basic credentials, or, for an operation that takes one (webhooks), an
 * API key in the query string. Failed checks of credentials not seen lately
 * count against the address: once it has spent its budget
 * (RATE_LIMIT_IP_REQUESTS a window), its new credentials are refused with
 * RATE_LIMIT_HIT before they are checked. A user of another organization than
 * the one at the request's host is refused, and so is an incoming webhook bot
 * calling an operation other than those that send messages.
 */
async function authenticate(
  input: RouteInput,
  services: Services,
  op: OperationSpec,
  query: FormFields,
): Promise<AuthUser> {
  const header = input.authorization || undefined;
  const queryKey = op.apiKeyParam === undefined ? undefined : query[op.apiKeyParam];
  if (Array.isArray(queryKey)) throw badRequest(`${op.apiKeyParam} was sent more than once`);
  // Without a header, an operation that takes a key in the query string needs it there.
  if (header === undefined && op.apiKeyParam !== undefined && queryKey === undefined)
    throw missingArgument(op.apiKeyParam);
  const byKey = header === undefined && queryKey !== undefined;
  const failures = services.limits.apiKeyFailures;
  const key = `ip:${input.ip()}`;
  const known = services.auth.knows(byKey ? Authenticator.apiKeyCacheKey(queryKey) : header);
  if (!known) await failures.check(key);
  let auth: AuthUser;
  try {
    auth = byKey
      ? await services.auth.authenticateApiKey(queryKey)
      : await services.auth.authenticate(header);
    if (auth.realm.stringId !== subdomainOf(input.host(), services.config.externalUrl))
      throw unauthorized('Account is not associated with this subdomain');
  } catch (error) {
    if (!known && error instanceof ApiError && error.status === 401) await failures.hit(key);
    throw error;
  }
  if (auth.user.botType === BotType.INCOMING_WEBHOOK && !op.incomingWebhookBots)
    throw unauthorized('This API is not available to incoming webhook bots.');
  return auth;
}

/**
 * The JSON of a success answer. A top-level field a handler gave as JSON text
 * (jsonText: a poll's events, written from JSON shared by many queues) goes
 * in as it is; otherwise this is JSON.stringify.
 */
function successJson(answer: Record<string, unknown>): string {
  const entries = Object.entries(answer);
  if (!entries.some(([, value]) => textOfJson(value) !== undefined)) return JSON.stringify(answer);
  const members: string[] = [];
  for (const [name, value] of entries) {
    if (value === undefined) continue;
    members.push(`${JSON.stringify(name)}:${textOfJson(value) ?? JSON.stringify(value)}`);
  }
  return `{${members.join(',')}}`;
}

/**
 * Builds the router. Operations sharing a method and template shape (the
 * user-by-ID and user-by-email pair) share one route; an integer-looking value
 * goes to the operation whose parameter is an integer. Throws at start when an
 * operation of the contract has no handler of its kind (authenticated or not).
 * Each operation's request is checked by its validators from `validators`.
 */
export function buildRouter(
  validators: RequestValidators,
  operations: OperationSpec[],
  services: Services,
  handlers: HandlerMap,
  publicHandlers: PublicHandlerMap,
): {
  router: Router;
  staticRoutes: Koa.Middleware;
  serve: Route;
} {
  const router = new Router({ prefix: '/api/v1' });
  const statics = new Map<
    string,
    (ctx: Koa.Context & { params: Record<string, string> }) => Promise<void>
  >();
  const groups = new Map<string, OperationSpec[]>();
  const bound = new Map<string, AnyHandler>();
  for (const op of operations) {
    const table = (op.authenticated ? handlers : publicHandlers) as Record<
      string,
      AnyHandler | undefined
    >;
    const handler = table[op.operationId];
    if (!handler)
      throw new Error(
        `openapi.yaml: ${op.operationId} has no ${op.authenticated ? 'authenticated' : 'public'} handler`,
      );
    bound.set(op.operationId, handler);
    const key = `${op.method} ${shape(op.path)}`;
    groups.set(key, [...(groups.get(key) ?? []), op]);
  }
  const ordered = [...groups.values()].sort((a, b) => specificity(a[0].path, b[0].path));
  const serve: Route = async (op, input) => {
    const { state, query } = input;
    state.operation = op.operationId;
    // Under /json the browser session is the only credential.
    const auth = !op.authenticated
      ? null
      : input.session?.mirrored
        ? await input.session.authenticate()
        : await authenticate(input, services, op, query);
    // An API key in the query string is a credential, not a parameter.
    if (op.apiKeyParam !== undefined) delete query[op.apiKeyParam];
    if (auth) state.userId = auth.user.id;
    const limit = await (auth
      ? services.limits.user.hit(`user:${auth.user.id}`)
      : services.limits.ip.hit(`ip:${input.ip()}`));
    input.setHeader('X-RateLimit-Limit', String(limit.limit));
    input.setHeader('X-RateLimit-Remaining', String(limit.remaining));
    input.setHeader('X-RateLimit-Reset', String(limit.reset));
    const files = input.files();
    const { params, ignored } = parseParams(op, validators.of(op.operationId), {
      pathParams: input.pathParams,
      query,
      body: input.body,
      fileFields: Object.keys(files),
    });
    // An operation whose body is its payload gets that JSON value as it is.
    const payload = op.payloadBody ? payloadOf(input.body) : undefined;
    const handler = bound.get(op.operationId)!;
    const aborts: (() => void)[] = [];
    const onClose = () => aborts.forEach((cancel) => cancel());
    input.req.once('close', onClose);
    try {
      const data = await handler({
        params,
        services,
        get ip() {
          return input.ip();
        },
        get host() {
          return input.host();
        },
        get client() {
          return clientName(input.userAgent);
        },
        files,
        payload,
        onAbort: (cancel: () => void) => aborts.push(cancel),
        session: input.session,
        ...(auth ?? {}),
      });
      return Buffer.from(
        successJson({
          result: 'success',
          msg: '',
          ...data,
          ...(ignored.length ? { ignored_parameters_unsupported: ignored } : {}),
        }),
      );
    } finally {
      input.req.off('close', onClose);
    }
  };

  for (const candidates of ordered) {
    const pick = (params: Record<string, string>): OperationSpec => {
      if (candidates.length === 1) return candidates[0];
      const numeric = candidates.find((op) =>
        [...op.params.values()].some((p) => p.in === 'path' && p.integer),
      );
      const other = candidates.find((op) => op !== numeric) ?? candidates[0];
      const value = Object.values(params)[0] ?? '';
      return numeric && /^\d+$/.test(value) ? numeric : other;
    };
    const first = candidates[0];
    // Path parameters arrive under the first candidate's names, and are handed
    // on positionally under the chosen operation's names.
    const routeNames = parameterNames(first.path);
    const namesOf = new Map(candidates.map((op) => [op, parameterNames(op.path)]));
    const route = async (ctx: Koa.Context & { params: Record<string, string> }) => {
      const op = pick(ctx.params);
      const names = namesOf.get(op)!;
      const pathParams: Record<string, string> = {};
      for (let i = 0; i < names.length; i++) {
        const raw = ctx.params[routeNames[i]] as unknown;
        pathParams[names[i]] = Array.isArray(raw) ? raw.join('/') : String(raw ?? '');
      }
      const body = requestBody(ctx);
      if (body && !op.bodyTypes.includes(body.type))
        throw unsupportedMediaType(body.type, op.bodyTypes);
      const answer = await serve(op, {
        pathParams,
        query: parseUrlencoded(ctx.querystring, 'query string'),
        body,
        files: () => uploadedFiles(ctx),
        authorization: ctx.get('authorization') || undefined,
        // Read when asked: Koa works both out from the headers anew on each read.
        ip: () => ctx.ip,
        host: () => ctx.host,
        userAgent: ctx.req.headers['user-agent'],
        req: ctx.req,
        setHeader: (name, value) => ctx.set(name, value),
        state: ctx.state as RequestState,
        session: requestSession(ctx, services),
      });
      // Encoded once by serve: for a string body Koa would measure the UTF-8
      // length and then encode it again to write it.
      ctx.type = 'application/json';
      ctx.body = answer;
    };
    router.register(koaPath(first), [first.method], route);
    // Paths without parameters are also found by exact lookup (see staticRoutes).
    if (!first.path.includes('{')) statics.set(`${first.method} /api/v1${first.path}`, route);
  }
  return { router, staticRoutes: staticMiddleware(statics), serve };
}

/**
 * Finds routes whose path has no parameters (/events, /messages, /users/me,
 * ...) by exact lookup before @koa/router scans its table: those are the
 * busiest paths, and the scan and per-request chain building of the router
 * measured at about half the cost of a long-poll answer. HEAD is served as GET.
 */
function staticMiddleware(
  statics: Map<string, (ctx: Koa.Context & { params: Record<string, string> }) => Promise<void>>,
): Koa.Middleware {
  return (ctx, next) => {
    const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
    const route = statics.get(`${method} ${ctx.path}`);
    if (!route) return next();
    const routed = ctx as Koa.Context & { params: Record<string, string> };
    routed.params = {};
    return route(routed);
  };
}

/** Every method some operation defines for each template shape, for 405 answers. */
export function methodsByShape(
  operations: OperationSpec[],
): { pattern: RegExp; methods: string[] }[] {
  const byShape = new Map<string, { pattern: RegExp; methods: Set<string> }>();
  for (const op of operations) {
    const s = shape(op.path);
    const regex = s.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{\\?\}/g, '[^/]+');
    const entry = byShape.get(s) ?? {
      pattern: new RegExp(`^/api/v1${regex}/?$`),
      methods: new Set<string>(),
    };
    entry.methods.add(op.method);
    byShape.set(s, entry);
  }
  return [...byShape.values()].map(({ pattern, methods }) => ({
    pattern,
    methods: [...methods].sort(),
  }));
}
