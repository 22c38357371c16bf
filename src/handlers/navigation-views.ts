// Navigation views: GET, POST, PATCH and DELETE /navigation_views.
import {
  doAddNavigationView,
  doEditNavigationView,
  doRemoveNavigationView,
} from '../actions/users/navigation-views';
import { presentNavigationView } from '../lib/users/navigation-views';
import type { Handler, HandlerMap } from './types';

/** Lists the user's navigation views. */
export const getNavigationViews: Handler<'get-navigation-views'> = async ({ services, user }) => {
  const views = await services.db.read((db) =>
    db.navigationView.findMany({ where: { userId: user.id }, orderBy: { id: 'asc' } }),
  );
  return { navigation_views: views.map(presentNavigationView) };
};

/** Stores a navigation view. */
export const addNavigationView: Handler<'add-navigation-view'> = async ({
  params,
  services,
  user,
}) => {
  await doAddNavigationView(services, user, {
    fragment: params.fragment,
    isPinned: params.is_pinned,
    name: params.name,
  });
  return {};
};

/** Pins, hides or renames a navigation view. */
export const editNavigationView: Handler<'edit-navigation-view'> = async ({
  params,
  services,
  user,
}) => {
  await doEditNavigationView(services, user, params.fragment, {
    isPinned: params.is_pinned,
    name: params.name,
  });
  return {};
};

/** Removes a navigation view. */
export const removeNavigationView: Handler<'remove-navigation-view'> = async ({
  params,
  services,
  user,
}) => {
  await doRemoveNavigationView(services, user, params.fragment);
  return {};
};

/** The operations of this area, by operationId. */
export const navigationViewHandlers = {
  'get-navigation-views': getNavigationViews,
  'add-navigation-view': addNavigationView,
  'edit-navigation-view': editNavigationView,
  'remove-navigation-view': removeNavigationView,
} satisfies Partial<HandlerMap>;
