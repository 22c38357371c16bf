// Saved snippets: texts a user keeps on the server to insert into the
// messages they write. Reading them, the rules for their fields, and the API's shape.
import type { SavedSnippet } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { badRequest } from '../../errors';
import type { StateProvider } from '../state';

/** Longest snippet title, in characters (as Zulip). */
export const MAX_SAVED_SNIPPET_TITLE_LENGTH = 60;

/** A saved snippet as the API shows it. */
export function presentSavedSnippet(snippet: SavedSnippet) {
  return {
    id: snippet.id,
    title: snippet.title,
    content: snippet.content,
    date_created: Math.floor(snippet.dateCreated.getTime() / 1000),
  };
}

/** The user's snippets, oldest first. */
export function listSavedSnippets(db: Db, userId: number): Promise<SavedSnippet[]> {
  return db.savedSnippet.findMany({ where: { userId }, orderBy: { id: 'asc' } });
}

/**
 * A title or content without its surrounding whitespace, which must leave
 * something (Zulip checks the lengths of the stripped value).
 */
export function cleanSnippetField(name: 'title' | 'content', value: string): string;
export function cleanSnippetField(
  name: 'title' | 'content',
  value: string | undefined,
): string | undefined;
export function cleanSnippetField(
  name: 'title' | 'content',
  value: string | undefined,
): string | undefined {
  if (value === undefined) return undefined;
  const stripped = value.trim();
  if (stripped === '') throw badRequest(`${name} is too short.`);
  return stripped;
}

/** `saved_snippets`: the user's snippets. */
export const savedSnippetsState: StateProvider = async ({ db, user }) => ({
  saved_snippets: (await listSavedSnippets(db, user.id)).map(presentSavedSnippet),
});
