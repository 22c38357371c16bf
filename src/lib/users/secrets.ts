// API keys and password hashes.
import { randomInt } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A new random API key: 32 letters and digits. */
export function generateApiKey(): string {
  let key = '';
  for (let i = 0; i < 32; i++) key += alphabet[randomInt(alphabet.length)];
  return key;
}

/** The Argon2id hash of a password. */
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

// The hash of a password nobody has, made with the same parameters as every
// stored hash: checked in place of a missing one, so that a login takes the
// same time whether or not the account exists (or has a password).
const DUMMY_HASH =
  '$argon2id$v=19$m=19456,t=2,p=1$ac5iMP4l2qff4MxoZzvUrQ$tdPyq4Aj8hl5hyI9hbPtihvb8HjPIdKvumXCJDvMqnI';

/**
 * Password checks this process has made: against an account's own hash, and
 * against the stand-in hash for a missing account or password. Served by
 * GET /metrics; a brute-force attempt shows there, and so does a login path
 * that forgets to hash for a missing account.
 */
export const passwordChecks = { account: 0, standIn: 0 };

/**
 * Whether `password` matches `passwordHash`; false for a missing or unreadable
 * hash, after the time a real check takes (see DUMMY_HASH).
 */
export async function checkPassword(
  passwordHash: string | null | undefined,
  password: string,
): Promise<boolean> {
  if (!passwordHash) {
    passwordChecks.standIn += 1;
    await verify(DUMMY_HASH, password).catch(() => false);
    return false;
  }
  passwordChecks.account += 1;
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}
