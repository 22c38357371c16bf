// Creating, editing and deleting a user's saved snippets; each change goes
// to the user's own clients as a saved_snippets event after it commits.
import type { User } from '../../../generated/prisma/sqlite/client';
import { notFound } from '../../errors';
import { cleanSnippetField, presentSavedSnippet } from '../../lib/messages/saved-snippets';
import type { Services } from '../../services';

const missing = () => notFound('Saved snippet does not exist.');

/** Saves a new snippet for `user`; returns its ID. */
export async function doCreateSavedSnippet(
  services: Services,
  user: User,
  input: { title: string; content: string },
): Promise<number> {
  const title = cleanSnippetField('title', input.title);
  const content = cleanSnippetField('content', input.content);
  return services.db.write(async (tx, onCommit) => {
    const snippet = await tx.savedSnippet.create({
      data: { realmId: user.realmId, userId: user.id, title, content },
    });
    onCommit(() =>
      services.bus.publish(
        { type: 'saved_snippets', op: 'add', saved_snippet: presentSavedSnippet(snippet) },
        [user.id],
      ),
    );
    return snippet.id;
  });
}

/** Changes the title or content of one of `user`'s snippets; nothing asked, nothing done. */
export async function doEditSavedSnippet(
  services: Services,
  user: User,
  id: number,
  change: { title?: string; content?: string },
): Promise<void> {
  const title = cleanSnippetField('title', change.title);
  const content = cleanSnippetField('content', change.content);
  // As in Zulip, a request without changes succeeds without looking the snippet up.
  if (title === undefined && content === undefined) return;
  await services.db.write(async (tx, onCommit) => {
    const snippet = await tx.savedSnippet.findFirst({ where: { id, userId: user.id } });
    if (!snippet) throw missing();
    const updated = await tx.savedSnippet.update({
      where: { id },
      data: { title: title ?? snippet.title, content: content ?? snippet.content },
    });
    onCommit(() =>
      services.bus.publish(
        { type: 'saved_snippets', op: 'update', saved_snippet: presentSavedSnippet(updated) },
        [user.id],
      ),
    );
  });
}

/** Deletes one of `user`'s snippets. */
export async function doDeleteSavedSnippet(
  services: Services,
  user: User,
  id: number,
): Promise<void> {
  await services.db.write(async (tx, onCommit) => {
    const snippet = await tx.savedSnippet.findFirst({ where: { id, userId: user.id } });
    if (!snippet) throw missing();
    await tx.savedSnippet.delete({ where: { id } });
    onCommit(() =>
      services.bus.publish({ type: 'saved_snippets', op: 'remove', saved_snippet_id: id }, [
        user.id,
      ]),
    );
  });
}
