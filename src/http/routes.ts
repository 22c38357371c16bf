// The route table, built from openapi.yaml: one @koa/router route per path
// template and method, bound by operationId to its handler. Only the matched
// operation's request is validated (openapi-backend's own router is not used).
import Router from '@koa/router';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type Koa from 'koa';
import type { HandlerMap, OperationId, PublicHandlerMap, PublicRequest } from '../handlers/types';
import type { UploadedFile } from '../lib/uploads/uploads';
import { ApiError, badRequest, missingArgument, unauthorized } from '../errors';
import { answerOf, ParkedAnswer } from '../events/parked';
import { textOfJson } from '../events/queues';
import { EventStream } from '../events/stream';
import { subdomainOf } from '../lib/realm/realms';
import { BotType } from '../lib/users/bots';
import { Authenticator, type AuthUser } from '../lib/users/credentials';
import type { Services } from '../services';
import { requestBody, unsupportedMediaType, type RequestBody } from './body';
import { writeEventStream, type StreamStats } from './event-stream';
import { parseUrlencoded, type FormFields } from './form';
import { parseParams, type ParsedParams } from './params';
import { hostOf, ipOf } from './request-origin';
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

/**
 * Answers an operation's request: the JSON success body, the event stream
 * to write, or a parked poll whose body (parkedBody) is written once it is
 * answered (a refusal is thrown as an ApiError, before any stream begins).
 */
export type Route = (
  op: OperationSpec,
  input: RouteInput,
) => Promise<Buffer | EventStream | ParkedAnswer>;

/**
 * What the handle step gives an operation's handler: the contract's request of
 * `PublicRequest` with the decoded parameters, and the user once authenticated.
 */
type StepRequest = Omit<PublicRequest<OperationId>, 'params'> &
  Partial<AuthUser> & { params: Record<string, unknown> };

/**
 * An entry of the handler table. Written as a method so that its parameter is
 * compared both ways: each operation's handler takes its own operation's
 * request, and the table holds them all under one type.
 */
type TableHandler = { call(req: StepRequest): Promise<object> }['call'];

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
  const known = services.auth.knows(byKey ? Authenticator.apiKeyCacheKey(queryKey) : header);
  // The address is read only for credentials not seen lately.
  const key = known ? '' : `ip:${input.ip()}`;
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
  let hasText = false;
  for (const name in answer) {
    if (textOfJson(answer[name]) !== undefined) {
      hasText = true;
      break;
    }
  }
  if (!hasText) return JSON.stringify(answer);
  const members: string[] = [];
  for (const [name, value] of Object.entries(answer)) {
    if (value === undefined) continue;
    members.push(`${JSON.stringify(name)}:${textOfJson(value) ?? JSON.stringify(value)}`);
  }
  return `{${members.join(',')}}`;
}

// The request pipeline, one named step after another: match (the Koa route,
// or the lean path's own table), read body, authenticate, limit, decode and
// validate, handle, wrap. Every front end runs the same steps through `serve`;
// what depends only on the operation is worked out once, in `prepareOperation`.

/** Read body: the request's body, refused with 415 unless the operation accepts its type. */
export function readBodyStep(op: OperationSpec, body: RequestBody | undefined) {
  if (body && !op.bodyTypes.includes(body.type))
    throw unsupportedMediaType(body.type, op.bodyTypes);
  return body;
}

/**
 * Authenticate: the request's user for an operation that needs one (null for
 * one that does not); an API key in the query string is taken out of the
 * parameters, since it is a credential.
 */
async function authenticateStep(
  op: OperationSpec,
  input: RouteInput,
  services: Services,
): Promise<AuthUser | null> {
  // Under /json the browser session is the only credential.
  const auth = !op.authenticated
    ? null
    : input.session?.mirrored
      ? await input.session.authenticate()
      : await authenticate(input, services, op, input.query);
  if (op.apiKeyParam !== undefined) delete input.query[op.apiKeyParam];
  if (auth) input.state.userId = auth.user.id;
  return auth;
}

/** Limit: counts the request against its user's budget (or its address's) and says so in headers. */
async function limitStep(
  input: RouteInput,
  services: Services,
  auth: AuthUser | null,
): Promise<void> {
  const limit = await (auth
    ? services.limits.user.hit(`user:${auth.user.id}`)
    : services.limits.ip.hit(`ip:${input.ip()}`));
  input.setHeader('X-RateLimit-Limit', String(limit.limit));
  input.setHeader('X-RateLimit-Remaining', String(limit.remaining));
  input.setHeader('X-RateLimit-Reset', String(limit.reset));
}

/** Decode and validate: the parameters against the operation's validators, the files and the payload. */
function decodeStep(
  op: OperationSpec,
  validators: RequestValidators,
  input: RouteInput,
): ParsedParams & { files: Record<string, UploadedFile>; payload?: Record<string, unknown> } {
  const files = input.files();
  const { params, ignored } = parseParams(op, validators.of(op.operationId), {
    pathParams: input.pathParams,
    query: input.query,
    body: input.body,
    fileFields: Object.keys(files),
  });
  // An operation whose body is its payload gets that JSON value as it is.
  const payload = op.payloadBody ? payloadOf(input.body) : undefined;
  return { params, ignored, files, payload };
}

/**
 * What a handler receives, as a class: the address, host and client are
 * worked out only when a handler reads them, through getters shared on the
 * prototype. An object literal with getters makes closures over the request
 * for each request, and V8 keeps those where its minor collections cannot
 * free them: every request's objects then lived on to the next full
 * collection (GET /users/me promoted about 4 KB a request to the old
 * generation; with this class, under 1 KB).
 */
class HandlerRequest implements StepRequest {
  readonly params: Record<string, unknown>;
  readonly files: Record<string, UploadedFile>;
  readonly headers: IncomingHttpHeaders;
  readonly payload: Record<string, unknown> | undefined;
  readonly session: RequestSession | undefined;
  readonly user?: AuthUser['user'];
  readonly realm?: AuthUser['realm'];

  constructor(
    readonly services: Services,
    private readonly input: RouteInput,
    auth: AuthUser | null,
    decoded: ReturnType<typeof decodeStep>,
  ) {
    this.params = decoded.params;
    this.files = decoded.files;
    this.headers = input.req.headers;
    this.payload = decoded.payload;
    this.session = input.session;
    if (auth) {
      this.user = auth.user;
      this.realm = auth.realm;
    }
  }

  get ip(): string {
    return this.input.ip();
  }

  get host(): string {
    return this.input.host();
  }

  get client(): string {
    return clientName(this.input.userAgent);
  }
}

/** Handle: runs the handler. */
function handleStep(
  handler: TableHandler,
  services: Services,
  input: RouteInput,
  auth: AuthUser | null,
  decoded: ReturnType<typeof decodeStep>,
): Promise<object> {
  return handler(new HandlerRequest(services, input, auth, decoded));
}

/** What every success answer begins with. */
const SUCCESS_HEAD = '{"result":"success","msg":""';

/**
 * Wrap: the success envelope around the handler's answer, encoded once. The
 * answer's JSON is spliced after the envelope's members rather than spread
 * into a new object with them: a spread copies member by member.
 */
function wrapStep(data: object, ignored: string[]): Buffer {
  const json = successJson(data as Record<string, unknown>);
  const members = json.length > 2 ? `,${json.slice(1, -1)}` : '';
  const unsupported = ignored.length
    ? `,"ignored_parameters_unsupported":${JSON.stringify(ignored)}`
    : '';
  return utf8(`${SUCCESS_HEAD}${members}${unsupported}}`);
}

/**
 * `text` encoded as UTF-8. Most answers are ASCII alone (names, topics and
 * messages often are): when the UTF-8 length equals the text's, each
 * character is one byte, and copying them as Latin-1 gives the same bytes
 * many times faster than Node's UTF-8 encoder (which took a third of a
 * millisecond for a presence answer of 130 KB).
 */
function utf8(text: string): Buffer {
  return Buffer.from(text, Buffer.byteLength(text) === text.length ? 'latin1' : 'utf8');
}

/**
 * The success body of a parked poll, once answered: its handler's fields
 * in the envelope, as wrapStep writes them.
 */
export function parkedBody(parked: ParkedAnswer, answer: Parameters<ParkedAnswer['fields']>[1]) {
  return wrapStep(parked.fields(parked.poll, answer), parked.ignored);
}

/**
 * Waits for a parked poll's answer, cancelling it if the client goes away
 * first: for a front end that awaits the body (Koa).
 */
export async function awaitParked(parked: ParkedAnswer, req: IncomingMessage): Promise<Buffer> {
  const cancel = () => parked.poll.cancel();
  req.once('close', cancel);
  if (req.destroyed) cancel();
  try {
    return parkedBody(parked, await answerOf(parked.poll));
  } finally {
    req.off('close', cancel);
  }
}

/** The steps after matching, bound to one operation's handler. */
function prepareOperation(
  op: OperationSpec,
  handler: TableHandler,
  validators: RequestValidators,
  services: Services,
): (input: RouteInput) => Promise<Buffer | EventStream | ParkedAnswer> {
  return async (input) => {
    input.state.operation = op.operationId;
    const auth = await authenticateStep(op, input, services);
    await limitStep(input, services, auth);
    const decoded = decodeStep(op, validators, input);
    const data = await handleStep(handler, services, input, auth, decoded);
    // A stream is written by the front end, with no envelope.
    if (data instanceof EventStream) return data;
    if (data instanceof ParkedAnswer) {
      data.ignored = decoded.ignored;
      return data;
    }
    return wrapStep(data, decoded.ignored);
  };
}

/** Match: the operation of a Koa route (one of those sharing its template) and its path parameters. */
function matcher(
  candidates: OperationSpec[],
): (params: Record<string, unknown>) => { op: OperationSpec; pathParams: Record<string, string> } {
  // An integer-looking value goes to the operation whose parameter is an integer.
  const numeric = candidates.find((op) =>
    [...op.params.values()].some((p) => p.in === 'path' && p.integer),
  );
  const other = candidates.find((op) => op !== numeric) ?? candidates[0];
  // Path parameters arrive under the first candidate's names, and are handed
  // on positionally under the chosen operation's names.
  const routeNames = parameterNames(candidates[0].path);
  const namesOf = new Map(candidates.map((op) => [op, parameterNames(op.path)]));
  const pick = (params: Record<string, unknown>): OperationSpec => {
    if (candidates.length === 1) return candidates[0];
    const value = Object.values(params)[0] ?? '';
    return numeric && /^\d+$/.test(String(value)) ? numeric : other;
  };
  return (params) => {
    const op = pick(params);
    const names = namesOf.get(op)!;
    const pathParams: Record<string, string> = {};
    for (let i = 0; i < names.length; i++) {
      const raw = params[routeNames[i]];
      pathParams[names[i]] = Array.isArray(raw) ? raw.join('/') : String(raw ?? '');
    }
    return { op, pathParams };
  };
}

/** The Koa route of operations sharing a template: match, read body, then the operation's steps. */
function koaRoute(
  match: ReturnType<typeof matcher>,
  serve: Route,
  services: Services,
  streams: StreamStats,
): (ctx: Koa.Context & { params: Record<string, string> }) => Promise<void> {
  return async (ctx) => {
    const { op, pathParams } = match(ctx.params);
    const served = await serve(op, {
      pathParams,
      query: parseUrlencoded(ctx.querystring, 'query string'),
      body: readBodyStep(op, requestBody(ctx)),
      files: () => uploadedFiles(ctx),
      authorization: ctx.req.headers.authorization || undefined,
      // Read when asked, as Koa reads them, without Koa's getters' work on each read.
      ip: () => ipOf(ctx.req, services.config.trustProxy),
      host: () => hostOf(ctx.req, services.config.trustProxy),
      userAgent: ctx.req.headers['user-agent'],
      req: ctx.req,
      // Straight to node:http: Koa's ctx.set builds arrays to allow for several headers at once.
      setHeader: (name, value) => ctx.res.setHeader(name, value),
      state: ctx.state as RequestState,
      session: requestSession(ctx, services),
    });
    const answer = served instanceof ParkedAnswer ? await awaitParked(served, ctx.req) : served;
    if (answer instanceof EventStream) {
      // Written straight to the response, for as long as the stream lasts.
      ctx.respond = false;
      await writeEventStream(
        ctx.res,
        answer,
        {},
        {
          stats: streams,
          log: services.log,
          requestId: ctx.response.get('X-Request-Id'),
        },
      );
      return;
    }
    // Encoded once by wrapStep: for a string body Koa would measure the UTF-8
    // length and then encode it again to write it. The type is the one Koa
    // gives `json`, set without its lookup.
    ctx.res.setHeader('Content-Type', 'application/json; charset=utf-8');
    ctx.body = answer;
  };
}

/**
 * Builds the router. Operations sharing a method and template shape (the
 * user-by-ID and user-by-email pair) share one route; an integer-looking value
 * goes to the operation whose parameter is an integer. Throws at start when an
 * operation of the contract has no handler of its kind (authenticated or not).
 * Each operation's request is checked by its validators from `validators`;
 * the event streams it writes are counted in `streams`.
 */
export function buildRouter(
  validators: RequestValidators,
  operations: OperationSpec[],
  services: Services,
  handlers: HandlerMap,
  publicHandlers: PublicHandlerMap,
  streams: StreamStats,
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
  const prepared = new Map<
    string,
    (input: RouteInput) => Promise<Buffer | EventStream | ParkedAnswer>
  >();
  const authenticated: Record<string, TableHandler | undefined> = handlers;
  const open: Record<string, TableHandler | undefined> = publicHandlers;
  for (const op of operations) {
    const handler = (op.authenticated ? authenticated : open)[op.operationId];
    if (!handler)
      throw new Error(
        `openapi.yaml: ${op.operationId} has no ${op.authenticated ? 'authenticated' : 'public'} handler`,
      );
    prepared.set(op.operationId, prepareOperation(op, handler, validators, services));
    const key = `${op.method} ${shape(op.path)}`;
    groups.set(key, [...(groups.get(key) ?? []), op]);
  }
  const serve: Route = (op, input) => prepared.get(op.operationId)!(input);
  const ordered = [...groups.values()].sort((a, b) => specificity(a[0].path, b[0].path));
  for (const candidates of ordered) {
    const first = candidates[0];
    const route = koaRoute(matcher(candidates), serve, services, streams);
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
