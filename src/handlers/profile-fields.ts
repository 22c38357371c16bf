// Custom profile fields: GET and POST /realm/profile_fields.
import { doCreateCustomProfileField } from '../actions/profile-fields';
import { ApiError } from '../errors';
import { Role } from '../lib/constants';
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
  if (user.role > Role.ADMINISTRATOR)
    throw new ApiError('Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
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

/** The operations of this area, by operationId. */
export const profileFieldHandlers = {
  'get-custom-profile-fields': getCustomProfileFields,
  'create-custom-profile-field': createCustomProfileField,
} satisfies Partial<HandlerMap>;
