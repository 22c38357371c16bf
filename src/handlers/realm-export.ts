// Organization exports: POST, GET and DELETE /export/realm, and GET
// /export/realm/consents. Administrators only.
import { doDeleteRealmExport, doStartRealmExport } from '../actions/export/realm-export';
import { exportConsents, ExportType, listRealmExports } from '../lib/export/realm-exports';
import { requireAdministrator } from '../lib/realm/admin';
import type { Handler, HandlerMap } from './types';

/** An administrator starts an export of the organization. */
export const exportRealm: Handler<'export-realm'> = async ({ params, services, user }) => ({
  id: await doStartRealmExport(services, user, params.export_type ?? ExportType.PUBLIC),
});

/** An administrator lists the organization's exports. */
export const getRealmExports: Handler<'get-realm-exports'> = async ({ services, user, realm }) => {
  requireAdministrator(user);
  return {
    exports: await services.db.read((db) =>
      listRealmExports(db, realm, services.config.externalUrl),
    ),
  };
};

/** An administrator deletes a finished export. */
export const deleteRealmExport: Handler<'delete-realm-export'> = async ({
  params,
  services,
  user,
}) => {
  await doDeleteRealmExport(services, user, params.export_id);
  return {};
};

/** An administrator reads who consents to exports of their private data. */
export const getRealmExportConsents: Handler<'get-realm-export-consents'> = async ({
  services,
  user,
}) => {
  requireAdministrator(user);
  return { export_consents: await services.db.read((db) => exportConsents(db, user.realmId)) };
};

/** The operations of this area, by operationId. */
export const realmExportHandlers = {
  'export-realm': exportRealm,
  'get-realm-exports': getRealmExports,
  'delete-realm-export': deleteRealmExport,
  'get-realm-export-consents': getRealmExportConsents,
} satisfies Partial<HandlerMap>;
