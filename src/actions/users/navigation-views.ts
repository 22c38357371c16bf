// Adding, changing and removing a user's navigation views; each change goes
// to the user's own clients as a navigation_view event after it commits.
import type { User } from '../../../generated/prisma/sqlite/client';
import { ApiError, notFound } from '../../errors';
import { builtInFragments, presentNavigationView } from '../../lib/users/navigation-views';
import type { Services } from '../../services';

const alreadyExists = () => new ApiError('Navigation view already exists.');
const missing = () => notFound('Navigation view does not exist.', 'NOT_FOUND');

function cleanName(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  const trimmed = name.trim();
  if (!trimmed) throw new ApiError('name cannot be blank.');
  return trimmed;
}

/** Stores a new view for `user`. */
export async function doAddNavigationView(
  services: Services,
  user: User,
  input: { fragment: string; isPinned: boolean; name?: string },
): Promise<void> {
  const fragment = input.fragment.trim();
  if (!fragment) throw new ApiError('fragment cannot be blank.');
  const name = cleanName(input.name);
  if (builtInFragments.has(fragment) && name !== undefined)
    throw new ApiError('Built-in views cannot have a custom name.');
  if (!builtInFragments.has(fragment) && name === undefined)
    throw new ApiError('Custom views must have a name.');
  await services.db.write(async (tx, onCommit) => {
    const clash = await tx.navigationView.findFirst({
      where: { userId: user.id, OR: [{ fragment }, ...(name ? [{ name }] : [])] },
    });
    if (clash) throw alreadyExists();
    const view = await tx.navigationView.create({
      data: { userId: user.id, fragment, isPinned: input.isPinned, name: name ?? null },
    });
    onCommit(() =>
      services.bus.publish(
        { type: 'navigation_view', op: 'add', navigation_view: presentNavigationView(view) },
        [user.id],
      ),
    );
  });
}

/** Changes the pinned state or the name of one of `user`'s views. */
export async function doEditNavigationView(
  services: Services,
  user: User,
  fragment: string,
  change: { isPinned?: boolean; name?: string },
): Promise<void> {
  const name = cleanName(change.name);
  await services.db.write(async (tx, onCommit) => {
    const view = await tx.navigationView.findUnique({
      where: { userId_fragment: { userId: user.id, fragment } },
    });
    if (!view) throw missing();
    if (name !== undefined && builtInFragments.has(fragment))
      throw new ApiError('Built-in views cannot have a custom name.');
    if (
      name !== undefined &&
      name !== view.name &&
      (await tx.navigationView.findUnique({ where: { userId_name: { userId: user.id, name } } }))
    ) {
      throw alreadyExists();
    }
    const changed: Record<string, unknown> = {};
    if (change.isPinned !== undefined && change.isPinned !== view.isPinned)
      changed.is_pinned = change.isPinned;
    if (name !== undefined && name !== view.name) changed.name = name;
    if (Object.keys(changed).length === 0) return;
    await tx.navigationView.update({
      where: { id: view.id },
      data: { isPinned: change.isPinned ?? view.isPinned, name: name ?? view.name },
    });
    onCommit(() =>
      services.bus.publish({ type: 'navigation_view', op: 'update', fragment, data: changed }, [
        user.id,
      ]),
    );
  });
}

/** Removes one of `user`'s views. */
export async function doRemoveNavigationView(
  services: Services,
  user: User,
  fragment: string,
): Promise<void> {
  await services.db.write(async (tx, onCommit) => {
    const view = await tx.navigationView.findUnique({
      where: { userId_fragment: { userId: user.id, fragment } },
    });
    if (!view) throw missing();
    await tx.navigationView.delete({ where: { id: view.id } });
    onCommit(() =>
      services.bus.publish({ type: 'navigation_view', op: 'remove', fragment }, [user.id]),
    );
  });
}
