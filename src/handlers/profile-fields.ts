// Custom profile fields: GET, POST and PATCH /realm/profile_fields, and
// PATCH and DELETE /realm/profile_fields/{field_id}.
import {
  doCreateCustomProfileField,
  doDeleteCustomProfileField,
  doReorderCustomProfileFields,
  doUpdateCustomProfileField,
} from '../actions/profile-fields';
import { requireAdministrator } from '../lib/realm/admin';
import { listCustomProfileFields } from '../lib/users/profile-fields';
import type { Handler, HandlerMap } from './types';

/** The organization's fields, in display order. */
export const getCustomProfileFields: Handler<'get-custom-profile-fields'> = async ({
  services,
  realm,
}) => ({
  custom_fields: await services.db.read((db) => listCustomProfileFields(db, realm.id)),
});

/** An administrator adds a field. */
export const createCustomProfileField: Handler<'create-custom-profile-field'> = async ({
  params,
  services,
  user,
  realm,
}) => {
  requireAdministrator(user);
  const id = await doCreateCustomProfileField(services, realm.id, {
    name: params.name ?? '',
    hint: params.hint ?? '',
    fieldType: params.field_type,
    fieldData: (params.field_data as Record<string, unknown> | undefined) ?? {},
    displayInProfileSummary: params.display_in_profile_summary ?? false,
    required: params.required ?? false,
    editableByUser: params.editable_by_user ?? true,
  });
  return { id };
};

/** An administrator sets the order the fields are shown in. */
export const reorderCustomProfileFields: Handler<'reorder-custom-profile-fields'> = async ({
  params,
  services,
  user,
  realm,
}) => {
  requireAdministrator(user);
  await doReorderCustomProfileFields(services, realm.id, params.order);
  return {};
};

/** An administrator changes a field's label, hint, options or flags. */
export const updateCustomProfileField: Handler<'update-custom-profile-field'> = async ({
  params,
  services,
  user,
  realm,
}) => {
  requireAdministrator(user);
  await doUpdateCustomProfileField(services, realm.id, params.field_id, {
    name: params.name,
    hint: params.hint,
    fieldData: params.field_data as Record<string, unknown> | undefined,
    displayInProfileSummary: params.display_in_profile_summary,
    required: params.required,
    editableByUser: params.editable_by_user,
  });
  return {};
};

/** An administrator deletes a field and every user's value of it. */
export const deleteCustomProfileField: Handler<'delete-custom-profile-field'> = async ({
  params,
  services,
  user,
  realm,
}) => {
  requireAdministrator(user);
  await doDeleteCustomProfileField(services, realm.id, params.field_id);
  return {};
};

/** The operations of this area, by operationId. */
export const profileFieldHandlers = {
  'get-custom-profile-fields': getCustomProfileFields,
  'create-custom-profile-field': createCustomProfileField,
  'reorder-custom-profile-fields': reorderCustomProfileFields,
  'update-custom-profile-field': updateCustomProfileField,
  'delete-custom-profile-field': deleteCustomProfileField,
} satisfies Partial<HandlerMap>;
