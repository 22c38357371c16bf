// Initial state of the organization: its settings and the server's limits
// (`realm`), its email domains, linkifiers and code playgrounds, and the
// organization-wide lists of features this server does not have yet, empty as
// in a new Zulip organization (integration bots, billing, GIPHY).
import type { StateProvider, StateProviders } from '../state';
import { realmDomainsState } from './domains';
import { realmLinkifiersState } from './linkifiers';
import { realmPlaygroundsState } from './playgrounds';
import { presentRealmState } from './realm';

/** `realm`: the organization's settings and the server's limits. */
export const realmState: StateProvider = async ({ db, realm, config }) =>
  presentRealmState(db, realm, config);

/** The realm area's register state. */
export const realmStateProviders = {
  realm: realmState,
  // Email domains whose owners may join without an invitation.
  realm_domains: realmDomainsState,
  // Linkifiers; the legacy `realm_filters` is always empty, as in Zulip.
  realm_linkifiers: realmLinkifiersState,
  realm_filters: async () => ({ realm_filters: [] }),
  realm_playgrounds: realmPlaygroundsState,
  // Kinds of embedded and incoming-webhook bots the server can run: none.
  realm_embedded_bots: async () => ({ realm_embedded_bots: [] }),
  realm_incoming_webhook_bots: async () => ({ realm_incoming_webhook_bots: [] }),
  realm_billing: async () => ({ realm_billing: { has_pending_sponsorship_request: false } }),
  // No GIPHY API key is configured: clients hide the GIF picker.
  giphy: async () => ({ giphy_api_key: '' }),
} satisfies StateProviders;
