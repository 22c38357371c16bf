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

/** Whether `password` matches `passwordHash`; false for a missing or unreadable hash. */
export async function checkPassword(
  passwordHash: string | null,
  password: string,
): Promise<boolean> {
  if (!passwordHash) return false;
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}
