// Code playgrounds of an organization: listing them, and checking a new one as
// Zulip does (each field first, then the URL template's one variable, then
// uniqueness of the name for the language), each refusal naming its field.
import type { RealmPlayground } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { ApiError } from '../../errors';
import { parseUrlTemplate, templateVariables } from '../markdown/url-template';
import type { StateProvider } from '../state';

/** The longest language name a playground may have. */
export const MAX_PYGMENTS_LANGUAGE_LENGTH = 40;

/** A code playground as the API shows it. */
export function presentPlayground(playground: RealmPlayground) {
  return {
    id: playground.id,
    name: playground.name,
    pygments_language: playground.pygmentsLanguage,
    url_template: playground.urlTemplate,
  };
}

/** The organization's code playgrounds, oldest first. */
export async function listPlaygrounds(db: Db, realmId: number) {
  const rows = await db.realmPlayground.findMany({ where: { realmId }, orderBy: { id: 'asc' } });
  return rows.map(presentPlayground);
}

/** `realm_playgrounds`: the organization's code playgrounds. */
export const realmPlaygroundsState: StateProvider = async ({ db, realm }) => ({
  realm_playgrounds: await listPlaygrounds(db, realm.id),
});

// The characters a language name may hold, as Zulip allows them (Pygments' lexer
// names, such as `Python` or `Objective-C++`): letters of either case, digits,
// spaces and `_+,-./#` (the `+-.` range takes in the comma).
const REQUEST_LANGUAGE = /^[ a-zA-Z0-9_+-./#]*$/;
// What a stored language may be: the same characters, once trimmed and not empty.
const STORED_LANGUAGE = /^[ a-zA-Z0-9_+-./#]+$/;
const invalidLanguage = 'Invalid characters in pygments language';
const blank = 'This field cannot be blank.';

/** Refuses a language parameter that is too long or holds characters no language name has. */
export function checkRequestedLanguage(language: string): void {
  if (language.length > MAX_PYGMENTS_LANGUAGE_LENGTH)
    throw new ApiError(
      `pygments_language is too long (limit: ${MAX_PYGMENTS_LANGUAGE_LENGTH} characters)`,
    );
  if (!REQUEST_LANGUAGE.test(language)) throw new ApiError(invalidLanguage);
}

/**
 * Refuses a playground that cannot be stored: `BAD_REQUEST` with the first
 * problem as the message and every problem by field in `errors` (`name`,
 * `pygments_language`, `url_template`, or `__all__` for the template's
 * variables and for a clash). `clash` tells whether the organization has a
 * playground of this name for this language.
 */
export async function checkPlayground(
  input: { name: string; pygmentsLanguage: string; urlTemplate: string },
  clash: () => Promise<boolean>,
): Promise<void> {
  const errors: Record<string, string[]> = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  if (!input.name) add('name', blank);
  if (!input.pygmentsLanguage) add('pygments_language', blank);
  else if (!STORED_LANGUAGE.test(input.pygmentsLanguage)) add('pygments_language', invalidLanguage);
  const template = parseUrlTemplate(input.urlTemplate);
  if (!input.urlTemplate) add('url_template', blank);
  else if (!template) add('url_template', 'Invalid URL template.');
  if (template) {
    const variables = templateVariables(template);
    if (!variables.has('code'))
      add('__all__', 'Missing the required variable "code" in the URL template');
    else if (variables.size !== 1)
      add('__all__', '"code" should be the only variable present in the URL template');
  }
  if (!errors.name && !errors.pygments_language && (await clash()))
    add('__all__', 'Realm playground with this Realm, Pygments language and Name already exists.');
  const fields = Object.keys(errors);
  if (fields.length > 0) throw new ApiError(errors[fields[0]][0], 'BAD_REQUEST', 400, { errors });
}
