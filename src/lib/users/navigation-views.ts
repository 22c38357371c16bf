// Navigation views: the views of a user's left sidebar, built-in or custom,
// and whether each is pinned.
import type { NavigationView } from '../../../generated/prisma/sqlite/client';
import type { StateProvider } from '../state';

/** The fragments of the built-in views, which take no custom name. */
export const builtInFragments = new Set([
  'inbox',
  'recent',
  'feed',
  'drafts',
  'narrow/has/reaction/sender/me',
  'narrow/is/mentioned',
  'narrow/is/starred',
]);

/** A navigation view as the API shows it. */
export function presentNavigationView(view: NavigationView) {
  return { fragment: view.fragment, is_pinned: view.isPinned, name: view.name };
}

/** `navigation_views`: the user's stored views. */
export const navigationViewsState: StateProvider = async ({ db, user }) => {
  const views = await db.navigationView.findMany({
    where: { userId: user.id },
    orderBy: { id: 'asc' },
  });
  return { navigation_views: views.map(presentNavigationView) };
};
