// HTML the renderer vouches for (KaTeX's output) skips the sanitizer: the
// renderer writes an opaque marker in its place, the sanitizer sees plain
// text, and the HTML is put back afterwards. Markers carry a random nonce per
// rendering, so message text can never forge one.
import { randomBytes } from 'node:crypto';
import type { TrustedFragments, ZulipEnv } from './types';

/** A fresh, empty set of fragments. */
export function newTrustedFragments(): TrustedFragments {
  return { nonce: randomBytes(9).toString('hex'), html: [] };
}

/** Stores `html` and returns the marker that stands for it until restoreTrusted(). */
export function trustedHtml(env: ZulipEnv, html: string): string {
  env.trusted.html.push(html);
  return `zulip-trusted-${env.trusted.nonce}-${env.trusted.html.length - 1}-end`;
}

/** `sanitized` with every marker replaced by the HTML it stands for. */
export function restoreTrusted(sanitized: string, trusted: TrustedFragments): string {
  if (trusted.html.length === 0) return sanitized;
  const marker = new RegExp(`zulip-trusted-${trusted.nonce}-(\\d+)-end`, 'g');
  return sanitized.replace(marker, (_, index: string) => trusted.html[Number(index)] ?? '');
}
