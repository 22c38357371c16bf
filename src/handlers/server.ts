// GET /server_settings: what a client needs to know before logging in.
import { ZULIP_FEATURE_LEVEL, ZULIP_VERSION } from '../lib/constants';
import { realmForHost, realmUrl } from '../lib/realm/realms';
import type { PublicHandler, PublicHandlerMap } from './types';

/** Describes the server and the organization at the requested address. */
export const getServerSettings: PublicHandler<'get-server-settings'> = async ({
  services,
  host,
}) => {
  const realm = await services.db.read((db) => realmForHost(db, host, services.config.externalUrl));
  // The organization's own address: its subdomain in front of EXTERNAL_URL's host.
  const url = realmUrl(realm, services.config.externalUrl);
  return {
    zulip_version: ZULIP_VERSION,
    zulip_feature_level: ZULIP_FEATURE_LEVEL,
    zulip_merge_base: ZULIP_VERSION,
    push_notifications_enabled: false,
    authentication_methods: {
      password: true,
      dev: false,
      email: true,
      ldap: false,
      remoteuser: false,
      github: false,
      azuread: false,
      gitlab: false,
      apple: false,
      google: false,
      saml: false,
      'openid connect': false,
    },
    external_authentication_methods: [],
    email_auth_enabled: true,
    require_email_format_usernames: true,
    realm_uri: url,
    realm_url: url,
    realm_name: realm.name,
    realm_icon: `${url}/static/images/logo/zulip-icon-128x128.png`,
    realm_description: realm.description,
    realm_web_public_access_enabled: false,
  };
};

/** The operations of this area that need no credentials, by operationId. */
export const serverHandlers = {
  'get-server-settings': getServerSettings,
} satisfies Partial<PublicHandlerMap>;
