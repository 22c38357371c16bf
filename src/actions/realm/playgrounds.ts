// Adding and removing an organization's code playgrounds. Every change sends
// the whole new list to everyone in a `realm_playgrounds` event after it
// commits.
import type { User } from '../../../generated/prisma/sqlite/client';
import { refuseDuplicate, type Db } from '../../db/client';
import { ApiError } from '../../errors';
import { requireAdministrator } from '../../lib/realm/admin';
import {
  checkPlayground,
  checkRequestedLanguage,
  listPlaygrounds,
} from '../../lib/realm/playgrounds';
import type { Services } from '../../services';
import { EveryoneIn } from '../../events/bus';

const clashMessage = 'Realm playground with this Realm, Pygments language and Name already exists.';

// Two requests racing to store the same name for a language: the loser is refused like a plain clash.
const clashOnRace = refuseDuplicate(
  () => new ApiError(clashMessage, 'BAD_REQUEST', 400, { errors: { __all__: [clashMessage] } }),
);

// Sends the organization's new list of playgrounds to everyone, once committed.
async function announce(
  services: Services,
  tx: Db,
  realmId: number,
  onCommit: (callback: () => void) => void,
): Promise<void> {
  const playgrounds = await listPlaygrounds(tx, realmId);
  const everyone = new EveryoneIn(realmId);
  onCommit(() =>
    services.bus.publish({ type: 'realm_playgrounds', realm_playgrounds: playgrounds }, everyone),
  );
}

/** An administrator adds a code playground; returns its ID. */
export async function doAddPlayground(
  services: Services,
  actor: User,
  input: { name: string; pygmentsLanguage: string; urlTemplate: string },
): Promise<number> {
  requireAdministrator(actor);
  checkRequestedLanguage(input.pygmentsLanguage);
  const fields = {
    name: input.name.trim(),
    pygmentsLanguage: input.pygmentsLanguage.trim(),
    urlTemplate: input.urlTemplate.trim(),
  };
  return services.db
    .write(async (tx, onCommit) => {
      await checkPlayground(fields, async () =>
        Boolean(
          await tx.realmPlayground.findFirst({
            where: {
              realmId: actor.realmId,
              name: fields.name,
              pygmentsLanguage: fields.pygmentsLanguage,
            },
          }),
        ),
      );
      const playground = await tx.realmPlayground.create({
        data: { realmId: actor.realmId, ...fields },
      });
      await announce(services, tx, actor.realmId, onCommit);
      return playground.id;
    })
    .catch(clashOnRace);
}

/** An administrator removes a code playground. */
export async function doRemovePlayground(
  services: Services,
  actor: User,
  id: number,
): Promise<void> {
  requireAdministrator(actor);
  await services.db.write(async (tx, onCommit) => {
    const playground = await tx.realmPlayground.findFirst({
      where: { id, realmId: actor.realmId },
    });
    if (!playground) throw new ApiError('Invalid playground');
    await tx.realmPlayground.delete({ where: { id } });
    await announce(services, tx, actor.realmId, onCommit);
  });
}
