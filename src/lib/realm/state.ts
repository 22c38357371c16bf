// Initial state of the organization (`realm`): its settings and the server's limits.
import type { StateProvider, StateProviders } from '../state';
import { presentRealmState } from './realm';

/** `realm`: the organization's settings and the server's limits. */
export const realmState: StateProvider = async ({ db, realm, externalUrl }) => ({
  ...(await presentRealmState(db, realm, externalUrl)),
  // The default, for new users, of who may see their real email address.
  realm_email_address_visibility: realm.emailAddressVisibility,
});

/** The realm area's register state. */
export const realmStateProviders = {
  realm: realmState,
} satisfies StateProviders;
