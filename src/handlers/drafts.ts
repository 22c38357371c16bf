// Drafts: GET and POST /drafts, PATCH and DELETE /drafts/{draft_id}.
import { doCreateDrafts, doDeleteDraft, doEditDraft } from '../actions/messages/drafts';
import {
  checkDraftsEnabled,
  listDrafts,
  presentDraft,
  type DraftInput,
} from '../lib/messages/drafts';
import type { Handler, HandlerMap } from './types';

/** Lists the user's drafts. */
export const getDrafts: Handler<'get-drafts'> = async ({ services, user }) => {
  checkDraftsEnabled(user);
  const drafts = await services.db.read((db) => listDrafts(db, user.id));
  return { count: drafts.length, drafts: drafts.map(presentDraft) };
};

/** Stores new drafts. */
export const createDrafts: Handler<'create-drafts'> = async ({ params, services, user, realm }) => {
  const ids = await doCreateDrafts(services, realm, user, (params.drafts ?? []) as DraftInput[]);
  return { ids };
};

/** Replaces a draft. */
export const editDraft: Handler<'edit-draft'> = async ({ params, services, user, realm }) => {
  await doEditDraft(services, realm, user, params.draft_id, params.draft as DraftInput);
  return {};
};

/** Deletes a draft. */
export const deleteDraft: Handler<'delete-draft'> = async ({ params, services, user }) => {
  await doDeleteDraft(services, user, params.draft_id);
  return {};
};

/** The operations of this area, by operationId. */
export const draftHandlers = {
  'get-drafts': getDrafts,
  'create-drafts': createDrafts,
  'edit-draft': editDraft,
  'delete-draft': deleteDraft,
} satisfies Partial<HandlerMap>;
