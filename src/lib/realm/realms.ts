// Finding the organization a request addresses.
import type { Realm } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { ApiError } from '../../errors';

/** The last address `subdomainOf` parsed and its host in lower case: the server's own address. */
let lastBase = { url: '', host: '' };

/** The subdomain `host` names under the server's own host ("" for the root organization). */
export function subdomainOf(host: string, externalUrl: string): string {
  if (lastBase.url !== externalUrl || externalUrl === '')
    lastBase = { url: externalUrl, host: new URL(externalUrl).host.toLowerCase() };
  const base = lastBase.host;
  const requested = host.toLowerCase();
  return requested.endsWith(`.${base}`) ? requested.slice(0, -(base.length + 1)) : '';
}

/**
 * The address of `realm`: EXTERNAL_URL with the organization's subdomain in
 * front of its host, the same host `realmHost` and `subdomainOf` speak of,
 * even when EXTERNAL_URL's host is an IP address (which the URL class's host
 * setter would refuse to prefix, silently leaving the root's address).
 */
export function realmUrl(realm: Pick<Realm, 'stringId'>, externalUrl: string): string {
  const url = new URL(externalUrl);
  const root = url.toString().replace(/\/$/, '');
  if (!realm.stringId) return root;
  const start = `${url.protocol}//`;
  const auth = url.username ? `${url.username}${url.password ? `:${url.password}` : ''}@` : '';
  return `${start}${auth}${realm.stringId}.${root.slice(start.length + auth.length)}`;
}

/**
 * The organization at `host`: the subdomain in front of the server's own
 * host names it, and the server's own host names the root organization.
 */
export async function realmForHost(db: Db, host: string, externalUrl: string): Promise<Realm> {
  const stringId = subdomainOf(host, externalUrl);
  const realm = await db.realm.findUnique({ where: { stringId } });
  if (!realm)
    throw new ApiError('There is no Zulip organization at this address.', 'BAD_REQUEST', 404);
  return realm;
}
