// Linkifiers: GET /realm/linkifiers, POST /realm/filters, PATCH and DELETE
// /realm/filters/{filter_id}, and PATCH /realm/linkifiers (the order).
import {
  doAddLinkifier,
  doRemoveLinkifier,
  doReorderLinkifiers,
  doUpdateLinkifier,
} from '../actions/realm/linkifiers';
import { listLinkifiers } from '../lib/realm/linkifiers';
import type { Handler, HandlerMap } from './types';

/** Lists the organization's linkifiers, in the order they apply. */
export const getLinkifiers: Handler<'get-linkifiers'> = async ({ services, realm }) => ({
  linkifiers: await services.db.read((db) => listLinkifiers(db, realm.id)),
});

/** An administrator adds a linkifier. */
export const addLinkifier: Handler<'add-linkifier'> = async ({ params, services, user }) => ({
  id: await doAddLinkifier(services, user, {
    pattern: params.pattern,
    urlTemplate: params.url_template,
  }),
});

/** An administrator changes a linkifier. */
export const updateLinkifier: Handler<'update-linkifier'> = async ({ params, services, user }) => {
  await doUpdateLinkifier(services, user, params.filter_id, {
    pattern: params.pattern,
    urlTemplate: params.url_template,
  });
  return {};
};

/** An administrator removes a linkifier. */
export const removeLinkifier: Handler<'remove-linkifier'> = async ({ params, services, user }) => {
  await doRemoveLinkifier(services, user, params.filter_id);
  return {};
};

/** An administrator sets the order linkifiers apply in. */
export const reorderLinkifiers: Handler<'reorder-linkifiers'> = async ({
  params,
  services,
  user,
}) => {
  await doReorderLinkifiers(services, user, params.ordered_linkifier_ids);
  return {};
};

/** The operations of this area, by operationId. */
export const linkifierHandlers = {
  'get-linkifiers': getLinkifiers,
  'add-linkifier': addLinkifier,
  'update-linkifier': updateLinkifier,
  'remove-linkifier': removeLinkifier,
  'reorder-linkifiers': reorderLinkifiers,
} satisfies Partial<HandlerMap>;
