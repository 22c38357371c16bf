// Adding, changing, removing and reordering an organization's linkifiers.
// Every change sends the whole new list to everyone whose client reads URL
// templates, in a `realm_linkifiers` event after it commits; messages sent
// from then on are rendered with it.
import type { User } from '../../../generated/prisma/sqlite/client';
import { refuseDuplicate, type Db } from '../../db/client';
import { ApiError } from '../../errors';
import { requireAdministrator } from '../../lib/realm/admin';
import { checkLinkifier, LINKIFIER_CAPABILITY, listLinkifiers } from '../../lib/realm/linkifiers';
import type { Services } from '../../services';
import { EveryoneIn } from '../../events/bus';

const notFound = () => new ApiError('Linkifier not found.');

const duplicateMessage = 'Realm filter with this Realm and Pattern already exists.';
// Two requests racing to store the same pattern: the loser is refused like a plain duplicate.
const duplicateOnRace = refuseDuplicate(
  () =>
    new ApiError(duplicateMessage, 'BAD_REQUEST', 400, { errors: { __all__: [duplicateMessage] } }),
);

// Sends the organization's new list of linkifiers to everyone, once committed.
async function announce(
  services: Services,
  tx: Db,
  realmId: number,
  onCommit: (callback: () => void) => void,
): Promise<void> {
  const linkifiers = await listLinkifiers(tx, realmId);
  const everyone = new EveryoneIn(realmId);
  // Clients that cannot read URL templates get no event at all.
  onCommit(() =>
    services.bus.publish({ type: 'realm_linkifiers', realm_linkifiers: linkifiers }, everyone, {
      capability: LINKIFIER_CAPABILITY,
      event: null,
    }),
  );
}

/** An administrator adds a linkifier, applied after the existing ones; returns its ID. */
export async function doAddLinkifier(
  services: Services,
  actor: User,
  input: { pattern: string; urlTemplate: string },
): Promise<number> {
  requireAdministrator(actor);
  const pattern = input.pattern.trim();
  const urlTemplate = input.urlTemplate.trim();
  return services.db
    .write(async (tx, onCommit) => {
      await checkLinkifier(pattern, urlTemplate, async () =>
        Boolean(await tx.linkifier.findFirst({ where: { realmId: actor.realmId, pattern } })),
      );
      const last = await tx.linkifier.aggregate({
        where: { realmId: actor.realmId },
        _max: { order: true },
      });
      const linkifier = await tx.linkifier.create({
        data: {
          realmId: actor.realmId,
          pattern,
          urlTemplate,
          order: last._max.order === null ? 0 : last._max.order + 1,
        },
      });
      await announce(services, tx, actor.realmId, onCommit);
      return linkifier.id;
    })
    .catch(duplicateOnRace);
}

/** An administrator changes a linkifier's pattern and URL template. */
export async function doUpdateLinkifier(
  services: Services,
  actor: User,
  id: number,
  input: { pattern: string; urlTemplate: string },
): Promise<void> {
  requireAdministrator(actor);
  const pattern = input.pattern.trim();
  const urlTemplate = input.urlTemplate.trim();
  await services.db
    .write(async (tx, onCommit) => {
      const linkifier = await tx.linkifier.findFirst({ where: { id, realmId: actor.realmId } });
      if (!linkifier) throw notFound();
      await checkLinkifier(pattern, urlTemplate, async () =>
        Boolean(
          await tx.linkifier.findFirst({
            where: { realmId: actor.realmId, pattern, id: { not: id } },
          }),
        ),
      );
      await tx.linkifier.update({ where: { id }, data: { pattern, urlTemplate } });
      await announce(services, tx, actor.realmId, onCommit);
    })
    .catch(duplicateOnRace);
}

/** An administrator removes a linkifier. */
export async function doRemoveLinkifier(
  services: Services,
  actor: User,
  id: number,
): Promise<void> {
  requireAdministrator(actor);
  await services.db.write(async (tx, onCommit) => {
    const linkifier = await tx.linkifier.findFirst({ where: { id, realmId: actor.realmId } });
    if (!linkifier) throw notFound();
    await tx.linkifier.delete({ where: { id } });
    await announce(services, tx, actor.realmId, onCommit);
  });
}

/** An administrator sets the order linkifiers apply in; `orderedIds` must list each exactly once. */
export async function doReorderLinkifiers(
  services: Services,
  actor: User,
  orderedIds: number[],
): Promise<void> {
  requireAdministrator(actor);
  const wanted = new Set(orderedIds);
  if (wanted.size < orderedIds.length)
    throw new ApiError('The ordered list must not contain duplicated linkifiers');
  await services.db.write(async (tx, onCommit) => {
    const existing = await tx.linkifier.findMany({
      where: { realmId: actor.realmId },
      select: { id: true },
    });
    if (existing.length !== wanted.size || existing.some((l) => !wanted.has(l.id)))
      throw new ApiError('The ordered list must enumerate all existing linkifiers exactly once');
    if (existing.length === 0) return;
    for (const [order, id] of orderedIds.entries())
      await tx.linkifier.update({ where: { id }, data: { order } });
    await announce(services, tx, actor.realmId, onCommit);
  });
}
