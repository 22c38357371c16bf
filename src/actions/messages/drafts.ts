// Creating, replacing and deleting a user's drafts; each change goes to the
// user's own clients as a drafts event after it commits.
import type { Draft, Realm, User } from '../../../generated/prisma/sqlite/client';
import { notFound } from '../../errors';
import {
  checkDraft,
  checkDraftsEnabled,
  presentDraft,
  type DraftInput,
  type DraftRow,
} from '../../lib/messages/drafts';
import type { Services } from '../../services';

const missing = () => notFound('Draft does not exist');

/** Stores new drafts for `user`, all or none; returns their IDs in the order given. */
export async function doCreateDrafts(
  services: Services,
  realm: Realm,
  user: User,
  drafts: DraftInput[],
): Promise<number[]> {
  checkDraftsEnabled(user);
  const now = new Date();
  return services.db.write(async (tx, onCommit) => {
    const rows: DraftRow[] = [];
    for (const draft of drafts) rows.push(await checkDraft(tx, realm, user, draft, now));
    const created: Draft[] = [];
    for (const row of rows)
      created.push(await tx.draft.create({ data: { userId: user.id, ...row } }));
    if (created.length > 0)
      onCommit(() =>
        services.bus.publish({ type: 'drafts', op: 'add', drafts: created.map(presentDraft) }, [
          user.id,
        ]),
      );
    return created.map((d) => d.id);
  });
}

/** Replaces every field of one of `user`'s drafts. */
export async function doEditDraft(
  services: Services,
  realm: Realm,
  user: User,
  draftId: number,
  draft: DraftInput,
): Promise<void> {
  checkDraftsEnabled(user);
  await services.db.write(async (tx, onCommit) => {
    const existing = await tx.draft.findFirst({ where: { id: draftId, userId: user.id } });
    if (!existing) throw missing();
    const row = await checkDraft(tx, realm, user, draft, new Date());
    const updated = await tx.draft.update({ where: { id: existing.id }, data: row });
    onCommit(() =>
      services.bus.publish({ type: 'drafts', op: 'update', draft: presentDraft(updated) }, [
        user.id,
      ]),
    );
  });
}

/** Deletes one of `user`'s drafts. */
export async function doDeleteDraft(
  services: Services,
  user: User,
  draftId: number,
): Promise<void> {
  checkDraftsEnabled(user);
  await services.db.write(async (tx, onCommit) => {
    const existing = await tx.draft.findFirst({ where: { id: draftId, userId: user.id } });
    if (!existing) throw missing();
    await tx.draft.delete({ where: { id: existing.id } });
    onCommit(() =>
      services.bus.publish({ type: 'drafts', op: 'remove', draft_id: existing.id }, [user.id]),
    );
  });
}
