// HTTP basic authentication with an email address and API key, with Zulip's
// messages for each way it can fail. Successful look-ups are cached briefly by
// the whole Authorization header, so that a client's next request skips the
// parsing and the checks of the credentials (a tenth of the cost of a
// long-poll request); every action that changes a user or an organization
// drops the cached entries it affects (forgetUser / forgetRealm), in this
// process at once and in the other server processes through a broadcast. The
// same changes mark the users' rows stale in the presence cache.
import { timingSafeEqual } from 'node:crypto';
import type { Realm, User } from '../../../generated/prisma/sqlite/client';
import type { Database } from '../../db/client';
import { noBroadcast, type Broadcast } from '../../events/broadcast';
import { ApiError, unauthorized } from '../../errors';
import type { PresenceCache } from '../presence-cache';

/** The authenticated user and their organization. */
export interface AuthUser {
  user: User;
  realm: Realm;
}

const apiKeyFormat = /^[A-Za-z0-9]{32}$/;

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Splits an Authorization header into email and API key, or throws the right error. */
export function parseBasicAuth(header: string | undefined): { email: string; apiKey: string } {
  if (!header) throw unauthorized('Not logged in: API authentication or user session required');
  const [scheme, token] = header.trim().split(/\s+/, 2);
  if (scheme.toLowerCase() !== 'basic')
    throw new ApiError('This endpoint requires HTTP basic authentication.');
  const decoded = Buffer.from(token ?? '', 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (!token || colon < 0) throw unauthorized('Invalid authorization header for basic auth');
  return { email: decoded.slice(0, colon), apiKey: decoded.slice(colon + 1) };
}

/** The broadcast topic of dropped credentials: `u:<user_id>` or `r:<realm_id>`. */
export const CREDENTIALS_TOPIC = 'credentials';

/** Looks users up by their credentials, remembering answers for `ttlMs`. */
export class Authenticator {
  /** Users whose credentials checked out, by the exact Authorization header that carried them. */
  private cache = new Map<string, { auth: AuthUser; expires: number }>();
  /**
   * Counts the entries dropped: an answer read from the database while one
   * was dropped may predate the change, and is used but not remembered.
   */
  private drops = 0;
  /**
   * The lookups under way, by cache key, and the count of drops when each
   * began: the requests of one client that come together (a hundred long
   * polls answered by one event, polling again as the entry expires) share
   * one read of the database, unless an entry was dropped since it began.
   */
  private readonly checking = new Map<string, { auth: Promise<AuthUser>; drops: number }>();

  constructor(
    private readonly db: Database,
    private readonly ttlMs = 10_000,
    private readonly broadcast: Broadcast = noBroadcast,
    /** Told of the same changes, to read the users' presence rows again. */
    private readonly presence: PresenceCache | null = null,
  ) {}

  /** Whether `header` named a user lately (its answer is remembered). */
  knows(header: string | undefined): boolean {
    const hit = header === undefined ? undefined : this.cache.get(header);
    return hit !== undefined && hit.expires > Date.now();
  }

  /** The user the header names, or an ApiError (401 unless the scheme is wrong). */
  async authenticate(header: string | undefined): Promise<AuthUser> {
    const now = Date.now();
    const hit = header === undefined ? undefined : this.cache.get(header);
    const auth = hit && hit.expires > now ? hit.auth : await this.shared(header, now);
    if (auth.realm.deactivated) throw unauthorized('This organization has been deactivated');
    if (!auth.user.isActive) throw unauthorized('Account is deactivated');
    return auth;
  }

  /** The cache key of an API key sent alone (in a webhook's query string), apart from every header. */
  static apiKeyCacheKey(apiKey: string): string {
    // A newline cannot occur in a header, so no Authorization header can name this entry.
    return `\napi_key ${apiKey}`;
  }

  /**
   * The user an API key sent alone names (integrations' webhook URLs carry
   * `?api_key=...`): the same checks and messages as HTTP basic credentials,
   * without an email address to match.
   */
  async authenticateApiKey(apiKey: string): Promise<AuthUser> {
    const key = Authenticator.apiKeyCacheKey(apiKey.trim());
    const now = Date.now();
    const hit = this.cache.get(key);
    const auth = hit && hit.expires > now ? hit.auth : await this.shared(key, now, apiKey.trim());
    if (auth.realm.deactivated) throw unauthorized('This organization has been deactivated');
    if (!auth.user.isActive) throw unauthorized('Account is deactivated');
    return auth;
  }

  /** The lookup of `key` under way, joined, or a new one (see `checking`). */
  private shared(key: string | undefined, now: number, bareKey?: string): Promise<AuthUser> {
    if (key === undefined) return this.check(key, now, bareKey);
    const under = this.checking.get(key);
    if (under && under.drops === this.drops) return under.auth;
    const auth = this.check(key, now, bareKey);
    const entry = { auth, drops: this.drops };
    this.checking.set(key, entry);
    const done = () => {
      if (this.checking.get(key) === entry) this.checking.delete(key);
    };
    auth.then(done, done);
    return auth;
  }

  /**
   * Checks credentials not seen lately against the database, and remembers
   * them under `key` (the header, which parseBasicAuth has found present, or
   * the cache key of an API key sent alone, given as `bareKey`).
   */
  private async check(key: string | undefined, now: number, bareKey?: string): Promise<AuthUser> {
    const { email, apiKey } =
      bareKey === undefined ? parseBasicAuth(key) : { email: undefined, apiKey: bareKey };
    if (!apiKeyFormat.test(apiKey)) throw unauthorized('Malformed API key');
    const drops = this.drops;
    const row = await this.db.read((db) =>
      db.user.findUnique({ where: { apiKey }, include: { realm: true } }),
    );
    // The key was found by an index; compare it again in constant time, with the email.
    if (
      !row ||
      !sameText(row.apiKey, apiKey) ||
      (email !== undefined && row.emailLower !== email.toLowerCase())
    ) {
      throw unauthorized('Invalid API key');
    }
    const { realm, ...user } = row;
    const auth = { user, realm };
    if (drops === this.drops) {
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(key!, { auth, expires: now + this.ttlMs });
    }
    return auth;
  }

  /** Drops the cached entries of one user (after a change to them), in every process. */
  forgetUser(userId: number): void {
    this.dropUser(userId);
    this.broadcast.send(CREDENTIALS_TOPIC, `u:${userId}`);
  }

  /** Drops the cached entries of an organization's users (after a change to it), in every process. */
  forgetRealm(realmId: number): void {
    this.dropRealm(realmId);
    this.broadcast.send(CREDENTIALS_TOPIC, `r:${realmId}`);
  }

  /** Applies a message of another process (see CREDENTIALS_TOPIC); null drops everything. */
  receive(message: string | null): void {
    const [kind, id] = message?.split(':') ?? [];
    if (kind === 'u') this.dropUser(Number(id));
    else if (kind === 'r') this.dropRealm(Number(id));
    else {
      this.drops++;
      this.cache.clear();
      this.presence?.forgetAll();
    }
  }

  private dropUser(userId: number): void {
    this.drops++;
    this.presence?.forgetUser(userId);
    for (const [key, entry] of this.cache)
      if (entry.auth.user.id === userId) this.cache.delete(key);
  }

  private dropRealm(realmId: number): void {
    this.drops++;
    this.presence?.forgetRealm(realmId);
    for (const [key, entry] of this.cache)
      if (entry.auth.realm.id === realmId) this.cache.delete(key);
  }
}
