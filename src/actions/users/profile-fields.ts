// Custom profile fields: creating a field (a custom_profile_fields event with
// the whole list to everyone) and changing users' values (realm_user updates,
// built by the caller's transaction, or by doChangeOwnProfileData when users
// change their own).
import { userIdsWhoCanAccess } from '../../lib/users/user-access';
import type { User } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { ApiError } from '../../errors';
import { isAdmin } from '../../lib/channels/stream-access';
import {
  checkProfileValue,
  FieldType,
  isRenderable,
  listCustomProfileFields,
  MAX_SUMMARY_FIELDS,
  renderProfileValue,
} from '../../lib/users/profile-fields';
import type { EventOf } from '../../events/queues';
import type { Services } from '../../services';
import { EveryoneIn } from '../../events/bus';

/** One requested change of a user's value: an empty value removes it. */
export interface ProfileDataChange {
  id: number;
  value: string | number[] | null;
}

/**
 * Applies value changes to `user` inside a transaction and returns, for each
 * value that changed, the `person` of its realm_user update event.
 */
export async function applyProfileData(
  tx: Db,
  user: User,
  changes: ProfileDataChange[],
  baseUrl: string,
): Promise<EventOf<'realm_user', 'update'>['person'][]> {
  const persons: EventOf<'realm_user', 'update'>['person'][] = [];
  for (const change of changes) {
    const field = await tx.customProfileField.findFirst({
      where: { id: change.id, realmId: user.realmId },
    });
    if (!field) throw new ApiError(`Field id ${change.id} not found.`);
    const existing = await tx.customProfileFieldValue.findUnique({
      where: { userId_fieldId: { userId: user.id, fieldId: field.id } },
    });
    const empty =
      change.value === null ||
      change.value === '' ||
      (Array.isArray(change.value) && change.value.length === 0);
    if (empty) {
      if (!existing) continue;
      await tx.customProfileFieldValue.delete({ where: { id: existing.id } });
      persons.push({ user_id: user.id, custom_profile_field: { id: field.id, value: null } });
      continue;
    }
    const value = await checkProfileValue(tx, field, change.value!);
    if (existing?.value === value) continue;
    const renderedValue = isRenderable(field.fieldType) ? renderProfileValue(value, baseUrl) : null;
    await tx.customProfileFieldValue.upsert({
      where: { userId_fieldId: { userId: user.id, fieldId: field.id } },
      create: { userId: user.id, fieldId: field.id, value, renderedValue },
      update: { value, renderedValue },
    });
    persons.push({
      user_id: user.id,
      custom_profile_field: {
        id: field.id,
        value,
        ...(renderedValue ? { rendered_value: renderedValue } : {}),
      },
    });
  }
  return persons;
}

/**
 * PATCH and DELETE /users/me/profile_data: a user changes or clears their own
 * values, each change as `applyProfileData` makes it. Every field must exist
 * in the organization, and a field that is not `editable_by_user` may be
 * changed only by an administrator; the first field failing either refuses
 * the whole request. Bots have no values to change. Everyone active learns
 * each changed value through a realm_user update.
 */
export async function doChangeOwnProfileData(
  services: Services,
  user: User,
  changes: ProfileDataChange[],
): Promise<void> {
  if (user.isBot) throw new ApiError('This endpoint does not accept bot requests.');
  await services.db.write(async (tx, onCommit) => {
    const fields = await tx.customProfileField.findMany({
      where: { realmId: user.realmId, id: { in: changes.map((c) => c.id) } },
      select: { id: true, editableByUser: true },
    });
    const byId = new Map(fields.map((f) => [f.id, f]));
    for (const { id } of changes) {
      const field = byId.get(id);
      if (!field) throw new ApiError(`Field id ${id} not found.`);
      if (!field.editableByUser && !isAdmin(user))
        throw new ApiError(
          'You are not allowed to change this field. Contact an administrator to update it.',
        );
    }
    const persons = await applyProfileData(
      tx,
      user,
      changes,
      services.config.externalUrl.replace(/\/$/, ''),
    );
    if (persons.length === 0) return;
    const everyone = await userIdsWhoCanAccess(tx, user);
    onCommit(() => {
      for (const person of persons)
        services.bus.publish({ type: 'realm_user', op: 'update', person }, everyone);
    });
  });
}

/** What creating a field needs. */
export interface NewProfileField {
  name: string;
  hint: string;
  fieldType: number;
  fieldData: Record<string, unknown>;
  displayInProfileSummary: boolean;
  required: boolean;
  editableByUser: boolean;
}

/** The built-in external account subtypes and the names their fields take. */
const externalAccountSubtypes: Record<string, { name: string; hint: string }> = {
  github: { name: 'GitHub', hint: 'Enter your GitHub username' },
  twitter: { name: 'Twitter', hint: 'Enter your Twitter username' },
};

function checkFieldData(field: Pick<NewProfileField, 'fieldType' | 'fieldData'>): void {
  if (field.fieldType === FieldType.SELECT) {
    const choices = Object.entries(field.fieldData);
    if (choices.length < 1) throw new ApiError('Field must have at least one choice.');
    for (const [key, choice] of choices) {
      const c = choice as { text?: unknown; order?: unknown };
      if (!c || typeof c !== 'object' || typeof c.text !== 'string' || c.text === '')
        throw new ApiError(`field_data["${key}"]["text"] is not a string`);
      if (typeof c.order !== 'string' && typeof c.order !== 'number')
        throw new ApiError(`field_data["${key}"]["order"] is not a string`);
    }
  } else if (field.fieldType === FieldType.EXTERNAL_ACCOUNT) {
    const subtype = field.fieldData.subtype;
    if (typeof subtype !== 'string') throw new ApiError('subtype key is missing from field_data');
    if (subtype === 'custom') {
      const pattern = field.fieldData.url_pattern;
      if (typeof pattern !== 'string')
        throw new ApiError('Custom external account must define URL pattern');
      if (!pattern.includes('%(username)s')) throw new ApiError('Malformed URL pattern.');
    } else if (!(subtype in externalAccountSubtypes)) {
      throw new ApiError('Invalid external account type');
    }
  }
}

/** POST /realm/profile_fields: adds a field after the existing ones and announces the new list. */
export async function doCreateCustomProfileField(
  services: Services,
  realmId: number,
  input: NewProfileField,
): Promise<number> {
  checkFieldData(input);
  const subtype =
    input.fieldType === FieldType.EXTERNAL_ACCOUNT ? (input.fieldData.subtype as string) : null;
  const builtIn = subtype && subtype !== 'custom' ? externalAccountSubtypes[subtype] : null;
  const name = builtIn ? builtIn.name : input.name.trim();
  const hint = builtIn ? builtIn.hint : input.hint;
  if (!builtIn && !name) throw new ApiError('Label cannot be blank.');
  if (
    input.displayInProfileSummary &&
    (input.fieldType === FieldType.LONG_TEXT || input.fieldType === FieldType.USER)
  ) {
    throw new ApiError('Field type not supported for display in profile summary.');
  }
  return services.db.write(async (tx, onCommit) => {
    if (
      input.displayInProfileSummary &&
      (await tx.customProfileField.count({ where: { realmId, displayInProfileSummary: true } })) >=
        MAX_SUMMARY_FIELDS
    ) {
      throw new ApiError('Only 2 custom profile fields can be displayed in the profile summary.');
    }
    if (await tx.customProfileField.findFirst({ where: { realmId, name } }))
      throw new ApiError('A field with that label already exists.');
    const last = await tx.customProfileField.findFirst({
      where: { realmId },
      orderBy: { order: 'desc' },
    });
    const field = await tx.customProfileField.create({
      data: {
        realmId,
        name,
        hint,
        fieldType: input.fieldType,
        fieldData: Object.keys(input.fieldData).length > 0 ? JSON.stringify(input.fieldData) : '',
        order: last ? last.order + 1 : 0,
        displayInProfileSummary: input.displayInProfileSummary,
        required: input.required,
        editableByUser: input.editableByUser,
      },
    });
    const fields = await listCustomProfileFields(tx, realmId);
    const everyone = new EveryoneIn(realmId);
    onCommit(() => services.bus.publish({ type: 'custom_profile_fields', fields }, everyone));
    return field.id;
  });
}

// Sends the organization's fields, as they now are, to everyone once committed.
async function announceFields(
  services: Services,
  tx: Db,
  realmId: number,
  onCommit: (callback: () => void) => void,
): Promise<void> {
  const fields = await listCustomProfileFields(tx, realmId);
  const everyone = new EveryoneIn(realmId);
  onCommit(() => services.bus.publish({ type: 'custom_profile_fields', fields }, everyone));
}

/** PATCH /realm/profile_fields: sets the display order; `order` must name every field once. */
export async function doReorderCustomProfileFields(
  services: Services,
  realmId: number,
  order: number[],
): Promise<void> {
  await services.db.write(async (tx, onCommit) => {
    const fields = await tx.customProfileField.findMany({
      where: { realmId },
      select: { id: true },
    });
    const wanted = new Set(order);
    if (
      order.length !== fields.length ||
      wanted.size !== fields.length ||
      fields.some((f) => !wanted.has(f.id))
    )
      throw new ApiError('Invalid order mapping.');
    for (const [position, id] of order.entries())
      await tx.customProfileField.update({ where: { id }, data: { order: position } });
    await announceFields(services, tx, realmId, onCommit);
  });
}

/** What changing a field may change; absent parts stay as they are. The type never changes. */
export interface ProfileFieldChange {
  name?: string;
  hint?: string;
  fieldData?: Record<string, unknown>;
  displayInProfileSummary?: boolean;
  required?: boolean;
  editableByUser?: boolean;
}

/**
 * PATCH /realm/profile_fields/{field_id}: changes a field and announces the new
 * list. Options removed from a list-of-options field are cleared from the
 * users who had chosen them.
 */
export async function doUpdateCustomProfileField(
  services: Services,
  realmId: number,
  id: number,
  change: ProfileFieldChange,
): Promise<void> {
  await services.db.write(async (tx, onCommit) => {
    const field = await tx.customProfileField.findFirst({ where: { id, realmId } });
    if (!field) throw new ApiError(`Field id ${id} not found.`);
    const data: Record<string, unknown> = {};
    if (change.fieldData !== undefined) {
      const subtype = change.fieldData.subtype;
      if (field.fieldType === FieldType.EXTERNAL_ACCOUNT && change.name && subtype !== 'custom')
        throw new ApiError('Default custom field cannot be updated.');
      checkFieldData({ fieldType: field.fieldType, fieldData: change.fieldData });
      data.fieldData =
        Object.keys(change.fieldData).length > 0 ? JSON.stringify(change.fieldData) : '';
    }
    if (change.name !== undefined) {
      const name = change.name.trim();
      if (!name) throw new ApiError('Label cannot be blank.');
      if (await tx.customProfileField.findFirst({ where: { realmId, name, id: { not: id } } }))
        throw new ApiError('A field with that label already exists.');
      data.name = name;
    }
    if (change.hint !== undefined) data.hint = change.hint;
    if (change.displayInProfileSummary === true) {
      if (field.fieldType === FieldType.LONG_TEXT || field.fieldType === FieldType.USER)
        throw new ApiError('Field type not supported for display in profile summary.');
      const shown = await tx.customProfileField.count({
        where: { realmId, displayInProfileSummary: true, id: { not: id } },
      });
      if (shown >= MAX_SUMMARY_FIELDS)
        throw new ApiError('Only 2 custom profile fields can be displayed in the profile summary.');
    }
    if (change.displayInProfileSummary !== undefined)
      data.displayInProfileSummary = change.displayInProfileSummary;
    if (change.required !== undefined) data.required = change.required;
    if (change.editableByUser !== undefined) data.editableByUser = change.editableByUser;
    await tx.customProfileField.update({ where: { id }, data });
    await announceFields(services, tx, realmId, onCommit);
    if (field.fieldType === FieldType.SELECT && change.fieldData !== undefined) {
      const removed = { fieldId: id, value: { notIn: Object.keys(change.fieldData) } };
      const cleared = await tx.customProfileFieldValue.findMany({
        where: removed,
        select: { userId: true },
      });
      if (cleared.length === 0) return;
      await tx.customProfileFieldValue.deleteMany({ where: removed });
      const everyone = new EveryoneIn(realmId);
      onCommit(() => {
        for (const { userId } of cleared)
          services.bus.publish(
            {
              type: 'realm_user',
              op: 'update',
              person: { user_id: userId, custom_profile_field: { id, value: null } },
            },
            everyone,
          );
      });
    }
  });
}

/** DELETE /realm/profile_fields/{field_id}: removes a field with every user's value of it. */
export async function doDeleteCustomProfileField(
  services: Services,
  realmId: number,
  id: number,
): Promise<void> {
  await services.db.write(async (tx, onCommit) => {
    const field = await tx.customProfileField.findFirst({ where: { id, realmId } });
    if (!field) throw new ApiError(`Field id ${id} not found.`);
    await tx.customProfileFieldValue.deleteMany({ where: { fieldId: id } });
    await tx.customProfileField.delete({ where: { id } });
    await announceFields(services, tx, realmId, onCommit);
  });
}
