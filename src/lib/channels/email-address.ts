// A channel's incoming email address (GET /streams/{id}/email_address), in
// Zulip's form: `<channel-slug>.<token>.show-sender` put into the server's
// EMAIL_GATEWAY_PATTERN. The token names the channel, the user who asked for
// the address and the sender the gateway would post as; it is derived from a
// server secret, so the same question always gets the same address and no
// one can make up another's.
import { createHmac } from 'node:crypto';

/** Who posts the messages mailed to an address: the gateway itself (null) or a user's ID. */
export type GatewaySender = number | null;

/** The channel's name as it appears in addresses, or "" when it has letters ASCII cannot show. */
export function channelSlug(name: string): string {
  const dashed = name.replace(/[^\p{L}\p{N}_]+/gu, '-');
  const ascii = dashed.normalize('NFKD').replace(/[^\p{ASCII}]/gu, '');
  const slug = ascii
    .toLowerCase()
    .replace(/[^\w\s-]/g, '')
    .replace(/[-\s]+/g, '-')
    .replace(/^[-_]+|[-_]+$/g, '');
  // Characters were lost on the way: leave the name out rather than mangle it.
  return slug.length === dashed.length ? slug : '';
}

/** The 32-hexadecimal-digit token of an address. */
export function channelEmailToken(
  secret: Buffer,
  streamId: number,
  creatorId: number,
  sender: GatewaySender,
): string {
  return createHmac('sha256', secret)
    .update(`channel-email:${streamId}:${creatorId}:${sender ?? 'gateway'}`)
    .digest('hex')
    .slice(0, 32);
}

/** The address itself; "" when the server has no email gateway (an empty pattern). */
export function channelEmailAddress(pattern: string, channelName: string, token: string): string {
  if (pattern === '') return '';
  const slug = channelSlug(channelName);
  const local = `${slug === '' ? '' : `${slug}.`}${token}.show-sender`;
  return pattern.replace('%s', local);
}
