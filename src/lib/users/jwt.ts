// JSON Web Tokens for POST /jwt/fetch_api_key: a compact JWS (RFC 7515) whose
// signature is checked with the key the organization's JWT_AUTH_KEYS entry
// gives, by one of the algorithms that entry allows. HMAC (HS256, HS384,
// HS512) takes the shared secret; RSA (RS256, RS384, RS512) takes a PEM
// public key. The `exp` and `nbf` claims are honoured when present.
import { createHmac, timingSafeEqual, verify } from 'node:crypto';

/** The algorithms a key may allow, and the hash each signs with. */
const hashes = {
  HS256: 'sha256',
  HS384: 'sha384',
  HS512: 'sha512',
  RS256: 'sha256',
  RS384: 'sha384',
  RS512: 'sha512',
} as const;

export type JwtAlgorithm = keyof typeof hashes;

/** Whether `name` is an algorithm this server can check. */
export function isJwtAlgorithm(name: string): name is JwtAlgorithm {
  return Object.hasOwn(hashes, name);
}

/** One organization's key: the secret (HMAC) or PEM public key (RSA), and the algorithms it allows. */
export interface JwtKey {
  key: string;
  algorithms: JwtAlgorithm[];
}

/** A token that is malformed, signed otherwise, or outside its validity. */
export class BadJwt extends Error {}

function jsonPart(part: string): unknown {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    throw new BadJwt('malformed part');
  }
}

function signatureMatches(alg: JwtAlgorithm, key: string, signed: string, signature: Buffer) {
  const hash = hashes[alg];
  if (alg.startsWith('HS')) {
    const expected = createHmac(hash, key).update(signed).digest();
    return expected.length === signature.length && timingSafeEqual(expected, signature);
  }
  try {
    return verify(hash, Buffer.from(signed), key, signature);
  } catch {
    return false;
  }
}

/**
 * The claims of `token` once its signature is checked with `key`, at `now`
 * (seconds since the epoch); throws BadJwt otherwise.
 */
export function verifiedClaims(token: string, key: JwtKey, now: number): Record<string, unknown> {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]*$/.test(p)))
    throw new BadJwt('not a compact JWS');
  const header = jsonPart(parts[0]) as { alg?: unknown } | null;
  const alg = header?.alg;
  if (typeof alg !== 'string' || !isJwtAlgorithm(alg) || !key.algorithms.includes(alg))
    throw new BadJwt('algorithm not allowed');
  if (!signatureMatches(alg, key.key, `${parts[0]}.${parts[1]}`, Buffer.from(parts[2], 'base64url')))
    throw new BadJwt('bad signature');
  const claims = jsonPart(parts[1]);
  if (!claims || typeof claims !== 'object' || Array.isArray(claims))
    throw new BadJwt('claims are not an object');
  const { exp, nbf } = claims as { exp?: unknown; nbf?: unknown };
  if (exp !== undefined && (typeof exp !== 'number' || now >= exp)) throw new BadJwt('expired');
  if (nbf !== undefined && (typeof nbf !== 'number' || now < nbf)) throw new BadJwt('not yet valid');
  return claims as Record<string, unknown>;
}
