// Starts the real server on a fresh database for a test file, and talks to it
// over HTTP. Every response is checked against openapi.yaml here, so a test
// fails when the server and the contract disagree, whatever it asserts; every
// event a test reads from GET /events is checked against its own schema.
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { doCreateRealm } from '../../src/actions/realm/realms';
import { doCreateUser } from '../../src/actions/users/users';
import { loadConfig, type Config } from '../../src/config';
import {
  loadOperations,
  openContract,
  readContract,
  specPath,
  type ContractBackend,
} from '../../src/http/spec';
import { Role } from '../../src/lib/constants';
import { hashPassword } from '../../src/lib/users/secrets';
import { createLogger } from '../../src/log';
import { startServer, type RunningServer } from '../../src/server';
import type { Services } from '../../src/services';
import type { Realm, User } from '../../generated/prisma/sqlite/client';
import { createTestDatabase, type TestDatabase } from './database';
import { responseErrors } from './compiled-cache';
import { checkEvents } from './events';
import { OWNER_PASSWORD, USER_PASSWORD } from './passwords';
import { dropRedisKeys, redisEnv } from './redis';

/** How to send parameters: urlencoded form, multipart form, JSON body, or the query string. */
export type Encoding = 'form' | 'multipart' | 'json' | 'query';

/** One request. */
export interface CallOptions {
  /** A user to authenticate as, or explicit basic credentials, or a raw header. */
  as?: User | { email: string; apiKey: string } | { authorization: string };
  params?: Record<string, unknown>;
  encoding?: Encoding;
  headers?: Record<string, string>;
  /** Files for a multipart request: field name -> file. */
  files?: Record<string, { name: string; content: string | Buffer; type?: string }>;
  /** A raw body, sent as it is (with the Content-Type of `headers`, if any) in place of `params`. */
  body?: string | Buffer;
}

/** A response: status, headers and parsed JSON body. */
export interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

interface Contract {
  routes: {
    method: string;
    pattern: RegExp;
    operationId: string;
    responses: Record<string, unknown>;
  }[];
}

let contract: Contract | undefined;
/** openapi-backend over the contract, opened when a response validator is not in the cache. */
let backend: ContractBackend | undefined;
const openBackend = () => (backend ??= openContract(specPath));

/** The object `node` is, or the one its `$ref` (a plain pointer into `document`) names. */
function resolved(document: unknown, node: unknown): unknown {
  const ref = (node as { $ref?: unknown } | undefined)?.$ref;
  if (typeof ref !== 'string') return node;
  let target = document;
  for (const key of ref.slice(2).split('/')) target = (target as Record<string, unknown>)?.[key];
  return resolved(document, target);
}

/** Reads openapi.yaml's operations and a matcher for their paths (parameters that may hold "/" match across segments). */
function loadContract(): Contract {
  if (contract) return contract;
  const document = readContract(specPath) as unknown as {
    paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
  };
  const routes = loadOperations(specPath)
    .map((op) => {
      const source = op.path
        .split(/(\{\w+\})/)
        .map((part) => {
          const name = /^\{(\w+)\}$/.exec(part)?.[1];
          if (!name) return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
          const param = op.params.get(name);
          return param?.matchesSlashes ? '(.+)' : param?.integer ? '(\\d+)' : '([^/]+)';
        })
        .join('');
      const listed = document.paths[op.path]?.[op.method.toLowerCase()]?.responses ?? {};
      const responses = Object.fromEntries(
        Object.entries(listed).map(([status, response]) => [status, resolved(document, response)]),
      );
      return {
        method: op.method,
        pattern: new RegExp(`^${source}$`),
        operationId: op.operationId,
        literal: op.path.replace(/\{\w+\}/g, '').length,
        responses,
      };
    })
    // Longer literal text first: /users/me before /users/{user_id}.
    .sort((a, b) => b.literal - a.literal);
  contract = { routes };
  return contract;
}

/** Checks `reply` against the contract's response schema for the operation and status. */
export async function checkAgainstContract(
  method: string,
  path: string,
  reply: Reply,
): Promise<void> {
  const { routes } = loadContract();
  const relative = path.replace(/^\/api\/v1/, '').split('?')[0];
  const route = routes.find((r) => r.method === method && r.pattern.test(relative));
  // Failures of no operation (unknown paths, 405s) share the error envelope of every operation.
  const operationId = route?.operationId ?? 'get-own-user';
  const status = route ? reply.status : 400;
  // No answer may be a server failure, whatever the test expects of it; only
  // the documented 503 of a dependency that cannot be reached is an answer.
  const unavailable = reply.status === 503 && reply.body?.code === 'SERVICE_UNAVAILABLE';
  if (reply.status >= 500 && !unavailable) {
    throw new Error(
      `${method} ${path} answered ${reply.status}, a server failure: ${JSON.stringify(reply.body).slice(0, 1500)}`,
    );
  }
  if (route && !route.responses[String(reply.status)]) {
    throw new Error(
      `${method} ${path} answered ${reply.status}, which openapi.yaml does not list for ${operationId}: ${JSON.stringify(reply.body)}`,
    );
  }
  // Each event against its own schema first: a clearer failure than the oneOf of them all.
  if (operationId === 'get-events' && reply.status === 200 && Array.isArray(reply.body?.events))
    checkEvents(reply.body.events);
  const errors = responseErrors(reply.body, operationId, status, openBackend);
  if (errors) {
    throw new Error(
      `${method} ${path} (${operationId}, ${reply.status}) does not match openapi.yaml: ${JSON.stringify(errors.slice(0, 3))}\nbody: ${JSON.stringify(reply.body).slice(0, 1500)}`,
    );
  }
}

/**
 * Checks the opening of a stream of server-sent events against the contract:
 * the operation lists the status, and the answer's media type under it (the
 * events themselves are checked one by one with checkEvents).
 */
export async function checkStreamAgainstContract(
  method: string,
  path: string,
  status: number,
  contentType: string,
): Promise<void> {
  const { routes } = loadContract();
  const relative = path.replace(/^\/(api\/v1|json)/, '').split('?')[0];
  const route = routes.find((r) => r.method === method && r.pattern.test(relative));
  if (!route) throw new Error(`${method} ${path} is no operation of openapi.yaml`);
  const response = route.responses[String(status)] as { content?: Record<string, unknown> };
  const type = contentType.split(';')[0].trim();
  if (!response?.content?.[type])
    throw new Error(
      `${method} ${path} answered ${status} as ${type}, which openapi.yaml does not list for ${route.operationId}`,
    );
}

function encode(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The Authorization header for `as`. */
export function authorization(as: CallOptions['as']): string | undefined {
  if (!as) return undefined;
  if ('authorization' in as) return as.authorization;
  return `Basic ${Buffer.from(`${as.email}:${as.apiKey}`).toString('base64')}`;
}

/** Talks to a server over HTTP, checking every reply against openapi.yaml. */
export class ApiClient {
  constructor(
    /** The server's base address, e.g. http://127.0.0.1:9991. */
    readonly url: string,
  ) {}

  /** Sends a request and checks the reply against openapi.yaml. */
  async call(method: string, path: string, options: CallOptions = {}): Promise<Reply> {
    const reply = await this.send(method, path, options);
    await checkAgainstContract(method, path, reply);
    return reply;
  }

  /**
   * Sends a request a test needs done before what it checks (setup), checks
   * the reply against openapi.yaml, and throws with the answer unless it is a
   * 2xx; the error's stack starts at the caller's line.
   */
  async ok(method: string, path: string, options: CallOptions = {}): Promise<Reply> {
    const site: { stack?: string } = {};
    Error.captureStackTrace(site, this.ok);
    const reply = await this.call(method, path, options);
    if (reply.status >= 200 && reply.status < 300) return reply;
    const error = new Error(
      `setup call ${method} ${path} answered ${reply.status}: ${JSON.stringify(reply.body).slice(0, 1500)}`,
    );
    error.stack = `${error.name}: ${error.message}\n${(site.stack ?? '').split('\n').slice(1).join('\n')}`;
    throw error;
  }

  /** Sends a request without checking the reply against the contract. */
  async send(method: string, path: string, options: CallOptions = {}): Promise<Reply> {
    const encoding: Encoding =
      options.encoding ?? (method === 'GET' || method === 'DELETE' ? 'query' : 'form');
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    const auth = authorization(options.as);
    if (auth) headers.authorization = auth;
    let target = `${this.url}/api/v1${path}`;
    let body: URLSearchParams | FormData | string | undefined;
    const params = Object.entries(options.params ?? {}).filter(([, v]) => v !== undefined);
    if (options.body !== undefined) {
      // Sent below as it is.
    } else if (encoding === 'json') {
      body = JSON.stringify(Object.fromEntries(params));
      headers['content-type'] ??= 'application/json';
    } else if (encoding === 'query' && params.length > 0) {
      const qs = new URLSearchParams(params.map(([k, v]): [string, string] => [k, encode(v)]));
      target += (target.includes('?') ? '&' : '?') + qs.toString();
    } else if (encoding === 'form' && params.length > 0) {
      body = new URLSearchParams(params.map(([k, v]): [string, string] => [k, encode(v)]));
    } else if (encoding === 'multipart') {
      const form = new FormData();
      for (const [k, v] of params) form.append(k, encode(v));
      for (const [field, file] of Object.entries(options.files ?? {})) {
        form.append(
          field,
          new Blob([file.content], { type: file.type ?? 'application/octet-stream' }),
          file.name,
        );
      }
      body = form;
    }
    // node:http rather than fetch, so that tests may set the Host header.
    let payload: Buffer | undefined =
      typeof options.body === 'string' ? Buffer.from(options.body) : options.body;
    if (payload) {
      headers['content-length'] ??= String(payload.length);
    } else if (body !== undefined) {
      const encoded = new Request('http://encoder.invalid', { method: 'POST', body });
      payload = Buffer.from(await encoded.arrayBuffer());
      headers['content-type'] ??= encoded.headers.get('content-type')!;
      headers['content-length'] = String(payload.length);
    }
    const res = await new Promise<{ status: number; headers: Headers; text: string }>(
      (resolve, reject) => {
        const req = httpRequest(target, { method, headers }, (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            const out = new Headers();
            for (const [name, value] of Object.entries(response.headers))
              if (value !== undefined) out.set(name, String(value));
            resolve({
              status: response.statusCode ?? 0,
              headers: out,
              text: Buffer.concat(chunks).toString('utf8'),
            });
          });
          response.on('error', reject);
        });
        req.on('error', reject);
        req.end(payload);
      },
    );
    const text = res.text;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(
        `${method} ${path} answered ${res.status} with a body that is not JSON: ${text.slice(0, 300)}`,
      );
    }
    return { status: res.status, headers: res.headers, body: parsed };
  }
}

/**
 * The Argon2id hash of each password the test users are given, made once: a
 * hash takes tens of milliseconds of CPU, and a file creates users by the
 * dozen, most with the same password. The usual ones were hashed for the
 * whole run (test/support/global-setup.js); any other is hashed once per
 * file. Each is a real hash of the password, so signing in checks it as ever.
 */
const passwordHashes = new Map<string, Promise<string>>(
  Object.entries(
    JSON.parse(process.env.TEST_PASSWORD_HASHES ?? '{}') as Record<string, string>,
  ).map(([password, hash]) => [password, Promise.resolve(hash)]),
);

function hashOnce(password: string): Promise<string> {
  let hashed = passwordHashes.get(password);
  if (!hashed) passwordHashes.set(password, (hashed = hashPassword(password)));
  return hashed;
}

/** A running server on its own database, with a small fixed cast of users. */
export class TestServer extends ApiClient {
  private constructor(
    private readonly running: RunningServer,
    private readonly database: TestDatabase,
    /** Whether stopping this server removes its database and Redis keys (other servers may share them). */
    private readonly ownsStorage = true,
  ) {
    super(running.url);
  }

  /**
   * Starts a server on a fresh database; `env` overrides configuration
   * variables, and log lines go to `logLines` when it is given.
   */
  static async start(env: Record<string, string> = {}, logLines?: string[]): Promise<TestServer> {
    return TestServer.startOn(
      await createTestDatabase(),
      { ...redisEnv(), ...env },
      logLines,
      true,
    );
  }

  /**
   * Starts a server as `start` does, on a database that already holds the
   * cast (a copy of the run's cast template, which global-setup.js makes with
   * createCast): the same organization and users as createCast, without
   * creating them again for each file. The environment must not change what
   * creating them would have done (Welcome Bot's messages, say).
   */
  static async startWithCast(
    env: Record<string, string> = {},
    logLines?: string[],
  ): Promise<{ server: TestServer; cast: Cast }> {
    const database = await createTestDatabase({ withCast: true });
    const server = await TestServer.startOn(database, { ...redisEnv(), ...env }, logLines, true);
    return { server, cast: await server.readCast() };
  }

  /**
   * Starts a server on an existing database (and, when `env` names one, a
   * Redis key prefix) shared with other servers; with `ownsStorage`, stopping
   * it removes both.
   */
  static async startOn(
    database: TestDatabase,
    env: Record<string, string>,
    logLines?: string[],
    ownsStorage = false,
  ): Promise<TestServer> {
    const config: Config = loadConfig({
      RATE_LIMIT_USER_REQUESTS: '100000',
      RATE_LIMIT_IP_REQUESTS: '100000',
      RATE_LIMIT_AUTH_ATTEMPTS: '1000',
      EVENT_HEARTBEAT_SECONDS: '1',
      EXTERNAL_URL: 'http://chat.test',
      LOG_LEVEL: 'silent',
      UPLOADS_DIR: join(tmpdir(), 'chat-test-uploads'),
      // New people start without Welcome Bot's message, so that each test
      // sees only the messages it sends; test/welcome-bot.test.ts turns it on.
      WELCOME_MESSAGES: '0',
      ...env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: database.url,
    });
    const running = await startServer(
      config,
      createLogger(config.logLevel, (line) => logLines?.push(line)),
      { lazy: true },
    );
    return new TestServer(running, database, ownsStorage);
  }

  /** Runs `fn` against a server of its own with `env` overrides, stopping it afterwards. */
  static async using<T>(
    env: Record<string, string>,
    fn: (server: TestServer) => Promise<T>,
    logLines?: string[],
  ): Promise<T> {
    const server = await TestServer.start(env, logLines);
    try {
      return await fn(server);
    } finally {
      await server.stop();
    }
  }

  /** The server's services (database, queues, bus, ...). */
  get services(): Services {
    return this.running.services;
  }

  /** Stops the server, and removes its database and Redis keys when it owns them. */
  async stop(): Promise<void> {
    await this.running.stop(0);
    if (!this.ownsStorage) return;
    // Dropping a PostgreSQL database waits a second or more on the server: the
    // test file goes on meanwhile, and the run's teardown drops what is left.
    if (this.database.provider === 'postgresql') void this.database.drop().catch(() => undefined);
    else await this.database.drop();
    const { redisUrl, redisKeyPrefix } = this.running.services.config;
    if (redisUrl) await dropRedisKeys(redisUrl, redisKeyPrefix);
  }

  /** The subdomains of the organizations created here, by ID ("" for the root organization). */
  private readonly subdomains = new Map<number, string>();

  /**
   * Sends a request; as a user of a subdomain organization, to that
   * organization's host (as its clients do), unless the test sets Host.
   */
  override async send(method: string, path: string, options: CallOptions = {}): Promise<Reply> {
    const as = options.as;
    const subdomain = as && 'realmId' in as ? this.subdomains.get(as.realmId) : undefined;
    if (!subdomain || options.headers?.host) return super.send(method, path, options);
    const host = `${subdomain}.${new URL(this.services.config.externalUrl).host}`;
    return super.send(method, path, { ...options, headers: { ...options.headers, host } });
  }

  /** Creates an organization with an owner. */
  async createRealm(
    name = 'Test organization',
    subdomain = '',
  ): Promise<{ realm: Realm; owner: User }> {
    const created = await doCreateRealm(this.services, {
      name,
      stringId: subdomain,
      owner: {
        email: subdomain ? `owner@${subdomain}.example.com` : ROOT_OWNER_EMAIL,
        fullName: 'Olivia Owner',
        // Set below, from the hash made once.
        password: null,
      },
    });
    this.subdomains.set(created.realm.id, subdomain);
    return { ...created, owner: await this.setPassword(created.owner, OWNER_PASSWORD) };
  }

  /** Creates a user in `realm`. */
  async createUser(
    realm: Realm,
    fields: {
      email: string;
      fullName?: string;
      role?: number;
      password?: string | null;
      isBot?: boolean;
    },
  ): Promise<User> {
    const user = await doCreateUser(this.services, realm, {
      email: fields.email,
      fullName: fields.fullName ?? fields.email.split('@')[0],
      role: fields.role ?? Role.MEMBER,
      // Set below, from the hash made once.
      password: null,
      isBot: fields.isBot,
    });
    const password = fields.password === undefined ? USER_PASSWORD : fields.password;
    return password === null ? user : this.setPassword(user, password);
  }

  /** Gives `user` the password `password` (its hash made once per file); answers the row. */
  private async setPassword(user: User, password: string): Promise<User> {
    const passwordHash = await hashOnce(password);
    return this.services.db.write((tx) =>
      tx.user.update({ where: { id: user.id }, data: { passwordHash } }),
    );
  }

  /** The fixed cast: an organization with one user of each role. */
  async createCast(): Promise<Cast> {
    const { realm, owner } = await this.createRealm();
    const cast: Partial<Cast> = { realm, owner };
    for (const [key, email, fullName, role] of CAST_USERS)
      cast[key] = await this.createUser(realm, { email, fullName, role });
    return cast as Cast;
  }

  /** The cast already in this server's database (a copy of the run's cast template). */
  async readCast(): Promise<Cast> {
    return this.services.db.read(async (db) => {
      const realm = await db.realm.findFirstOrThrow({ where: { stringId: '' } });
      this.subdomains.set(realm.id, '');
      const users = await db.user.findMany({
        where: {
          realmId: realm.id,
          emailLower: { in: [ROOT_OWNER_EMAIL, ...CAST_USERS.map(([, email]) => email)] },
        },
      });
      const user = (email: string) => {
        const found = users.find((u) => u.emailLower === email);
        if (!found) throw new Error(`the cast template has no user ${email}`);
        return found;
      };
      const cast: Partial<Cast> = { realm, owner: user(ROOT_OWNER_EMAIL) };
      for (const [key, email] of CAST_USERS) cast[key] = user(email);
      return cast as Cast;
    });
  }
}

/** The owner of the root organization (createRealm without a subdomain). */
const ROOT_OWNER_EMAIL = 'owner@root.example.com';

/** The cast's users besides the owner: their key, email address, name and role. */
const CAST_USERS = [
  ['admin', 'iago@example.com', 'Iago Admin', Role.ADMINISTRATOR],
  ['moderator', 'shiva@example.com', 'Shiva Moderator', Role.MODERATOR],
  ['member', 'hamlet@example.com', 'King Hamlet', Role.MEMBER],
  ['member2', 'cordelia@example.com', 'Cordelia Lear', Role.MEMBER],
  ['guest', 'polonius@example.com', 'Polonius Guest', Role.GUEST],
] as const;

/** One organization and one user of each role (two members). */
export interface Cast {
  realm: Realm;
  owner: User;
  admin: User;
  moderator: User;
  member: User;
  member2: User;
  guest: User;
}
