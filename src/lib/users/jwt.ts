// JSON Web Tokens for POST /jwt/fetch_api_key: a compact JWS (RFC 7515) whose
// signature is checked with the key the organization's JWT_AUTH_KEYS entry
// gives, by one of the algorithms that entry allows. HMAC (HS256, HS384,
// HS512) takes the shared secret; RSA (RS256, RS384, RS512) takes a PEM
// public key. The `exp` and `nbf` claims are honoured when present.
import { createHmac, timingSafeEqual, verify } from 'node:crypto';
import type { JwtAlgorithm, JwtKey } from '../../config';

/** The hash each algorithm signs with. */
const hashes: Record<JwtAlgorithm, string> = {
  HS256: 'sha256',
  HS384: 'sha384',
  HS512: 'sha512',
  RS256: 'sha256',
  RS384: 'sha384',
  RS512: 'sha512',
};

/** A token that is malformed, signed otherwise, or outside its validity. */
export class BadJwt extends Error {}

function jsonPart(part: string): unknown {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    throw new BadJwt('malformed part');
  }
}

/**
 * Whether `key` is a public or private key (PEM, or OpenSSH's one-line form).
 * Such a key never checks an HMAC: a public key is no secret, so an entry
 * allowing both RS and HS algorithms would otherwise accept any token signed
 * with its public key by HS256 (as PyJWT, Zulip's library, refuses too).
 */
function isAsymmetricKey(key: string): boolean {
  return (
    /-----BEGIN [A-Z0-9 ]+-----/.test(key) ||
    /^(ssh-(rsa|dss|ed25519)|ecdsa-sha2-nistp\d+) /.test(key.trim())
  );
}

function signatureMatches(alg: JwtAlgorithm, key: string, signed: string, signature: Buffer) {
  const hash = hashes[alg];
  if (alg.startsWith('HS')) {
    if (isAsymmetricKey(key)) return false;
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
  const alg = key.algorithms.find((allowed) => allowed === header?.alg);
  if (!alg) throw new BadJwt('algorithm not allowed');
  if (
    !signatureMatches(alg, key.key, `${parts[0]}.${parts[1]}`, Buffer.from(parts[2], 'base64url'))
  )
    throw new BadJwt('bad signature');
  const claims = jsonPart(parts[1]);
  if (!claims || typeof claims !== 'object' || Array.isArray(claims))
    throw new BadJwt('claims are not an object');
  const { exp, nbf } = claims as { exp?: unknown; nbf?: unknown };
  if (exp !== undefined && (typeof exp !== 'number' || now >= exp)) throw new BadJwt('expired');
  if (nbf !== undefined && (typeof nbf !== 'number' || now < nbf))
    throw new BadJwt('not yet valid');
  return claims as Record<string, unknown>;
}
