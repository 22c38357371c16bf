// The role checks of organization administration, with Zulip's refusals.
import type { User } from '../../../generated/prisma/sqlite/client';
import { ApiError } from '../../errors';
import { Role } from '../constants';

/** Refuses anyone below an organization administrator. */
export function requireAdministrator(user: Pick<User, 'role'>): void {
  if (user.role > Role.ADMINISTRATOR)
    throw new ApiError('Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
}

/** Refuses anyone but an organization owner. */
export function requireOwner(user: Pick<User, 'role'>): void {
  if (user.role !== Role.OWNER)
    throw new ApiError('Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL');
}
