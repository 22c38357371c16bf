// Email domains of the organization: GET and POST /realm/domains, PATCH and
// DELETE /realm/domains/{domain}.
import {
  doAddRealmDomain,
  doChangeRealmDomain,
  doRemoveRealmDomain,
} from '../actions/realm/realm-domains';
import { listRealmDomains } from '../lib/realm/domains';
import type { Handler, HandlerMap } from './types';

/** Lists the organization's email domains. */
export const getRealmDomains: Handler<'get-realm-domains'> = async ({ services, realm }) => ({
  domains: await services.db.read((db) => listRealmDomains(db, realm.id)),
});

/** An owner adds an email domain. */
export const createRealmDomain: Handler<'add-realm-domain'> = async ({
  params,
  services,
  user,
}) => ({
  new_domain: await doAddRealmDomain(services, user, {
    domain: params.domain,
    allowSubdomains: params.allow_subdomains,
  }),
});

/** An owner changes whether an email domain's subdomains count. */
export const updateRealmDomain: Handler<'patch-realm-domain'> = async ({
  params,
  services,
  user,
}) => {
  await doChangeRealmDomain(services, user, params.domain, params.allow_subdomains);
  return {};
};

/** An owner removes an email domain. */
export const deleteRealmDomain: Handler<'delete-realm-domain'> = async ({
  params,
  services,
  user,
}) => {
  await doRemoveRealmDomain(services, user, params.domain);
  return {};
};

/** The operations of this area, by operationId. */
export const realmDomainHandlers = {
  'get-realm-domains': getRealmDomains,
  'add-realm-domain': createRealmDomain,
  'patch-realm-domain': updateRealmDomain,
  'delete-realm-domain': deleteRealmDomain,
} satisfies Partial<HandlerMap>;
