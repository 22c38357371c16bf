// Adding, changing and removing an organization's email domains. Each change
// goes to everyone as a `realm_domains` event (op add, change or remove)
// after it commits.
import { refuseDuplicate } from '../../db/client';
import type { User } from '../../../generated/prisma/sqlite/client';
import { ApiError } from '../../errors';
import type { EventBody } from '../../events/queues';
import { requireOwner } from '../../lib/realm/admin';
import { checkDomain } from '../../lib/realm/domains';
import type { Services } from '../../services';
import { EveryoneIn } from '../../events/bus';

const alreadyThere = (domain: string) =>
  new ApiError(`The domain ${domain} is already a part of your organization.`);
const notFound = (domain: string) => new ApiError(`No entry found for domain ${domain}.`);

/** An owner adds an email domain (trimmed and lower-cased); returns its ID and domain. */
export async function doAddRealmDomain(
  services: Services,
  actor: User,
  input: { domain: string; allowSubdomains: boolean },
): Promise<[number, string]> {
  requireOwner(actor);
  const domain = input.domain.trim().toLowerCase();
  checkDomain(domain);
  return (
    services.db
      .write(async (tx, onCommit) => {
        if (await tx.realmDomain.findFirst({ where: { realmId: actor.realmId, domain } }))
          throw alreadyThere(domain);
        const row = await tx.realmDomain.create({
          data: { realmId: actor.realmId, domain, allowSubdomains: input.allowSubdomains },
        });
        const everyone = new EveryoneIn(actor.realmId);
        const event: EventBody = {
          type: 'realm_domains',
          op: 'add',
          realm_domain: { domain, allow_subdomains: row.allowSubdomains },
        };
        onCommit(() => services.bus.publish(event, everyone));
        return [row.id, row.domain] as [number, string];
      })
      // Two requests racing to add the same domain: the loser is refused like a plain duplicate.
      .catch(refuseDuplicate(() => alreadyThere(domain)))
  );
}

/** An owner changes whether an email domain's subdomains count too. */
export async function doChangeRealmDomain(
  services: Services,
  actor: User,
  domain: string,
  allowSubdomains: boolean,
): Promise<void> {
  requireOwner(actor);
  await services.db.write(async (tx, onCommit) => {
    const row = await tx.realmDomain.findFirst({ where: { realmId: actor.realmId, domain } });
    if (!row) throw notFound(domain);
    await tx.realmDomain.update({ where: { id: row.id }, data: { allowSubdomains } });
    const everyone = new EveryoneIn(actor.realmId);
    const event: EventBody = {
      type: 'realm_domains',
      op: 'change',
      realm_domain: { domain, allow_subdomains: allowSubdomains },
    };
    onCommit(() => services.bus.publish(event, everyone));
  });
}

/** An owner removes an email domain. */
export async function doRemoveRealmDomain(
  services: Services,
  actor: User,
  domain: string,
): Promise<void> {
  requireOwner(actor);
  await services.db.write(async (tx, onCommit) => {
    const row = await tx.realmDomain.findFirst({ where: { realmId: actor.realmId, domain } });
    if (!row) throw notFound(domain);
    await tx.realmDomain.delete({ where: { id: row.id } });
    const everyone = new EveryoneIn(actor.realmId);
    onCommit(() => services.bus.publish({ type: 'realm_domains', op: 'remove', domain }, everyone));
  });
}
