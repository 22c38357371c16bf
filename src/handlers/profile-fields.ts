// Custom profile fields: GET, POST and PATCH /realm/profile_fields, and
// PATCH and DELETE /realm/profile_fields/{field_id}; a user's own values:
// PATCH and DELETE /users/me/profile_data.
import {
  doChangeOwnProfileData,
  doCreateCustomProfileField,
  doDeleteCustomProfileField,
  doReorderCustomProfileFields,
  doUpdateCustomProfileField,
} from '../actions/users/profile-fields';
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

/** A user sets or clears their own values of fields. */
export const updateProfileData: Handler<'update-profile-data'> = async ({
  params,
  services,
  user,
}) => {
  await doChangeOwnProfileData(
    services,
    user,
    params.data.map(({ id, value }) => ({ id, value: value as string | number[] | null })),
  );
  return {};
};

/** A user clears their own values of the fields named by ID. */
export const removeProfileData: Handler<'remove-profile-data'> = async ({
  params,
  services,
  user,
}) => {
  await doChangeOwnProfileData(
    services,
    user,
    params.data.map((id) => ({ id, value: null })),
  );
  return {};
};

/** The operations of this area, by operationId. */
export const profileFieldHandlers = {
  'get-custom-profile-fields': getCustomProfileFields,
  'create-custom-profile-field': createCustomProfileField,
  'reorder-custom-profile-fields': reorderCustomProfileFields,
  'update-custom-profile-field': updateCustomProfileField,
  'delete-custom-profile-field': deleteCustomProfileField,
  'update-profile-data': updateProfileData,
  'remove-profile-data': removeProfileData,
} satisfies Partial<HandlerMap>;
