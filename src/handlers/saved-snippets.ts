// Saved snippets: GET and POST /saved_snippets, PATCH and DELETE
// /saved_snippets/{saved_snippet_id}.
import {
  doCreateSavedSnippet,
  doDeleteSavedSnippet,
  doEditSavedSnippet,
} from '../actions/messages/saved-snippets';
import { listSavedSnippets, presentSavedSnippet } from '../lib/messages/saved-snippets';
import type { Handler, HandlerMap } from './types';

/** Lists the user's snippets. */
export const getSavedSnippets: Handler<'get-saved-snippets'> = async ({ services, user }) => ({
  saved_snippets: (await services.db.read((db) => listSavedSnippets(db, user.id))).map(
    presentSavedSnippet,
  ),
});

/** Saves a snippet. */
export const createSavedSnippet: Handler<'create-saved-snippet'> = async ({
  params,
  services,
  user,
}) => ({
  saved_snippet_id: await doCreateSavedSnippet(services, user, {
    title: params.title,
    content: params.content,
  }),
});

/** Changes a snippet's title or content. */
export const editSavedSnippet: Handler<'edit-saved-snippet'> = async ({
  params,
  services,
  user,
}) => {
  await doEditSavedSnippet(services, user, params.saved_snippet_id, {
    title: params.title,
    content: params.content,
  });
  return {};
};

/** Deletes a snippet. */
export const deleteSavedSnippet: Handler<'delete-saved-snippet'> = async ({
  params,
  services,
  user,
}) => {
  await doDeleteSavedSnippet(services, user, params.saved_snippet_id);
  return {};
};

/** The operations of this area, by operationId. */
export const savedSnippetHandlers = {
  'get-saved-snippets': getSavedSnippets,
  'create-saved-snippet': createSavedSnippet,
  'edit-saved-snippet': editSavedSnippet,
  'delete-saved-snippet': deleteSavedSnippet,
} satisfies Partial<HandlerMap>;
