// Finding the organization a request addresses.
import type { Realm } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { ApiError } from '../../errors';

/**
 * The organization at `host`: the subdomain in front of the server's own
 * host names it, and the server's own host names the root organization.
 */
export async function realmForHost(db: Db, host: string, externalUrl: string): Promise<Realm> {
  const base = new URL(externalUrl).host.toLowerCase();
  const requested = host.toLowerCase();
  const stringId = requested.endsWith(`.${base}`) ? requested.slice(0, -(base.length + 1)) : '';
  const realm = await db.realm.findUnique({ where: { stringId } });
  if (!realm)
    throw new ApiError('There is no Zulip organization at this address.', 'BAD_REQUEST', 404);
  return realm;
}
