// Custom profile fields: the organization's field definitions, each user's
// values (`profile_data` of the user object), the checks a new value passes
// and the HTML of values written in Markdown.
import type { CustomProfileField } from '../../../generated/prisma/sqlite/client';
import { Prisma } from '../../../generated/prisma/sqlite/client';
import { queryRows, type Db } from '../../db/client';
import { ApiError } from '../../errors';
import { renderMarkdown } from '../markdown';
import type { StateProvider } from '../state';
import type { ProfileData } from './users';

/** Field types, as the API numbers them. */
export const FieldType = {
  SHORT_TEXT: 1,
  LONG_TEXT: 2,
  SELECT: 3,
  DATE: 4,
  URL: 5,
  USER: 6,
  EXTERNAL_ACCOUNT: 7,
  PRONOUNS: 8,
} as const;

/** At most this many fields may be shown in profile summaries. */
export const MAX_SUMMARY_FIELDS = 2;

/** Whether values of a field type are Markdown, so they carry a `rendered_value`. */
export function isRenderable(fieldType: number): boolean {
  return fieldType === FieldType.SHORT_TEXT || fieldType === FieldType.LONG_TEXT;
}

/** The HTML of a Markdown value (mentions and emoji of the organization are not resolved in it). */
export function renderProfileValue(value: string, baseUrl: string): string {
  const none = () => undefined;
  return renderMarkdown(value, {
    userByName: none,
    userById: none,
    groupByName: none,
    streamByName: none,
    realmEmojiByName: none,
    baseUrl,
  }).html;
}

/** A field definition as the API shows it. */
export function presentCustomProfileField(field: CustomProfileField) {
  return {
    id: field.id,
    name: field.name,
    type: field.fieldType as 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8,
    hint: field.hint,
    field_data: field.fieldData,
    order: field.order,
    required: field.required,
    editable_by_user: field.editableByUser,
    ...(field.displayInProfileSummary ? { display_in_profile_summary: true } : {}),
  };
}

/** The organization's fields, by display order. */
export async function listCustomProfileFields(db: Db, realmId: number) {
  const fields = await db.customProfileField.findMany({
    where: { realmId },
    orderBy: [{ order: 'asc' }, { id: 'asc' }],
  });
  return fields.map(presentCustomProfileField);
}

/**
 * What a user's own answer (GET /users/me) reads besides the user: the
 * highest ID of the messages they received (-1 for none), as `maxMessageId`
 * of messages.ts gives it, and their `profile_data`, as `profileDataOf`
 * gives it, in one statement (one round trip on PostgreSQL).
 */
export async function ownUserData(
  db: Db,
  userId: number,
): Promise<{ maxMessageId: number; profileData: ProfileData }> {
  const rows = await queryRows<{
    maxMessageId: number | bigint | null;
    fieldId: number | null;
    value: string;
    renderedValue: string | null;
    fieldType: number;
  }>(
    db,
    // One row carries the highest ID and no field, one row each value; in any
    // order (profile_data's keys are numbers, which objects keep sorted).
    Prisma.sql`
    SELECT MAX("messageId") AS "maxMessageId", NULL AS "fieldId", NULL AS "value", NULL AS "renderedValue", NULL AS "fieldType"
    FROM "UserMessage" WHERE "userId" = ${userId}
    UNION ALL
    SELECT NULL, v."fieldId", v."value", v."renderedValue", f."fieldType"
    FROM "CustomProfileFieldValue" v JOIN "CustomProfileField" f ON f."id" = v."fieldId"
    WHERE v."userId" = ${userId}`,
  );
  let max: number | bigint | null = null;
  const profileData: ProfileData = {};
  for (const row of rows) {
    if (row.fieldId === null) max = row.maxMessageId;
    else profileData[String(row.fieldId)] = profileValue(row);
  }
  return { maxMessageId: max === null ? -1 : Number(max), profileData };
}

/** One value of `profile_data`, with its rendering for the field types that have one. */
function profileValue(row: { value: string; renderedValue: string | null; fieldType: number }) {
  return isRenderable(Number(row.fieldType))
    ? { value: row.value, rendered_value: row.renderedValue ?? '' }
    : { value: row.value };
}

/** The `profile_data` of each of `userIds` (users without values are absent). */
export async function profileDataOf(db: Db, userIds: number[]): Promise<Map<number, ProfileData>> {
  const out = new Map<number, ProfileData>();
  if (userIds.length === 0) return out;
  const rows = await queryRows<{
    userId: number;
    fieldId: number;
    value: string;
    renderedValue: string | null;
    fieldType: number;
  }>(
    db,
    Prisma.sql`
    SELECT v."userId" AS "userId", v."fieldId" AS "fieldId", v."value" AS "value", v."renderedValue" AS "renderedValue", f."fieldType" AS "fieldType"
    FROM "CustomProfileFieldValue" v JOIN "CustomProfileField" f ON f."id" = v."fieldId"
    WHERE v."userId" IN (${Prisma.join(userIds)}) ORDER BY v."fieldId"`,
  );
  for (const row of rows) {
    const userId = Number(row.userId);
    const data = out.get(userId) ?? {};
    data[String(row.fieldId)] = profileValue(row);
    out.set(userId, data);
  }
  return out;
}

function isDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
}

function isUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function capped(field: CustomProfileField, value: string, limit: number): string {
  if (value.length > limit)
    throw new ApiError(`${field.name} is too long (limit: ${limit} characters)`);
  return value;
}

/**
 * Checks a new (non-empty) value of `field` and returns the text to store:
 * for person fields, the JSON list of user IDs.
 */
export async function checkProfileValue(
  db: Db,
  field: CustomProfileField,
  value: string | number[],
): Promise<string> {
  if (field.fieldType === FieldType.USER) {
    if (!Array.isArray(value)) throw new ApiError(`${field.name} is not a list`);
    const ids = [...value];
    const users = await db.user.findMany({
      where: { id: { in: ids }, realmId: field.realmId, isActive: true },
      select: { id: true },
    });
    const missing = ids.find((id) => !users.some((u) => u.id === id));
    if (missing !== undefined) throw new ApiError(`Invalid user ID: ${missing}`);
    return JSON.stringify(ids);
  }
  if (typeof value !== 'string') throw new ApiError(`${field.name} is not a string`);
  switch (field.fieldType) {
    case FieldType.LONG_TEXT:
      return capped(field, value, 500);
    case FieldType.DATE:
      if (!isDate(value)) throw new ApiError(`${field.name} is not a date`);
      return value;
    case FieldType.URL:
      if (!isUrl(value)) throw new ApiError(`${field.name} is not a URL`);
      return value;
    case FieldType.SELECT: {
      const choices = field.fieldData
        ? (JSON.parse(field.fieldData) as Record<string, unknown>)
        : {};
      if (!Object.hasOwn(choices, value))
        throw new ApiError(`'${value}' is not a valid choice for '${field.name}'.`);
      return value;
    }
    default:
      return capped(field, value, 50);
  }
}

/** `custom_profile_fields`: the organization's field definitions. */
export const customProfileFieldsState: StateProvider = async ({ db, realm }) => ({
  custom_profile_fields: await listCustomProfileFields(db, realm.id),
  custom_profile_field_types: {
    SHORT_TEXT: { id: 1, name: 'Text (short)' },
    LONG_TEXT: { id: 2, name: 'Text (long)' },
    SELECT: { id: 3, name: 'List of options' },
    DATE: { id: 4, name: 'Date picker' },
    URL: { id: 5, name: 'Link' },
    USER: { id: 6, name: 'Users' },
    EXTERNAL_ACCOUNT: { id: 7, name: 'External account' },
    PRONOUNS: { id: 8, name: 'Pronouns' },
  },
});
