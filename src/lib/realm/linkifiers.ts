// Linkifiers of an organization: listing them in the order they apply, and
// checking a new or changed one as Zulip does (field errors first, then the
// pattern, then whether the template's variables match the pattern's groups,
// then uniqueness), each refusal naming the field it concerns.
import type { Linkifier } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { ApiError } from '../../errors';
import { compileLinkifierPattern } from '../markdown/linkifiers';
import { PatternError } from '../markdown/linkifier-patterns';
import { parseUrlTemplate, templateVariables } from '../markdown/url-template';
import type { StateProvider } from '../state';

/** A linkifier as the API shows it. */
export function presentLinkifier(linkifier: Linkifier) {
  return { pattern: linkifier.pattern, url_template: linkifier.urlTemplate, id: linkifier.id };
}

/** The organization's linkifiers, in the order they apply. */
export async function listLinkifiers(db: Db, realmId: number) {
  const rows = await db.linkifier.findMany({
    where: { realmId },
    orderBy: [{ order: 'asc' }, { id: 'asc' }],
  });
  return rows.map(presentLinkifier);
}

/** The client capability without which a client gets no linkifiers (they would misread URL templates). */
export const LINKIFIER_CAPABILITY = 'linkifier_url_template';

/**
 * `realm_linkifiers`: the organization's linkifiers, in the order they apply;
 * empty for clients without the `linkifier_url_template` capability.
 */
export const realmLinkifiersState: StateProvider = async ({ db, realm, clientCapabilities }) => ({
  realm_linkifiers:
    clientCapabilities[LINKIFIER_CAPABILITY] === true ? await listLinkifiers(db, realm.id) : [],
});

const blank = 'This field cannot be blank.';

// Python's repr() of a group name, as the messages quote it.
function quoted(name: string): string {
  return name.includes("'") && !name.includes('"') ? `"${name}"` : `'${name}'`;
}

/**
 * Refuses a linkifier that cannot be stored: `BAD_REQUEST` with the first
 * problem as the message and every problem by field in `errors` (`pattern`,
 * `url_template`, or `__all__` for problems of the pair). `clash` tells whether
 * another linkifier of the organization has the pattern.
 */
export async function checkLinkifier(
  pattern: string,
  urlTemplate: string,
  clash: () => Promise<boolean>,
): Promise<void> {
  const errors: Record<string, string[]> = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  if (!pattern) add('pattern', blank);
  const template = urlTemplate ? parseUrlTemplate(urlTemplate) : undefined;
  if (!urlTemplate) add('url_template', blank);
  else if (!template) add('url_template', 'Invalid URL template.');
  let groups: string[] | undefined;
  try {
    groups = compileLinkifierPattern(pattern).groupNames;
  } catch (error) {
    if (!(error instanceof PatternError)) throw error;
    add('__all__', `Bad regular expression: ${error.message}`);
  }
  if (groups && template) {
    const variables = templateVariables(template);
    const notInPattern = [...variables].filter((v) => !groups.includes(v)).sort();
    const notInTemplate = groups.filter((g) => !variables.has(g)).sort();
    if (notInPattern.length > 0)
      add(
        '__all__',
        `Group ${quoted(notInPattern[0])} in URL template is not present in linkifier pattern.`,
      );
    else if (notInTemplate.length > 0)
      add(
        '__all__',
        `Group ${quoted(notInTemplate[0])} in linkifier pattern is not present in URL template.`,
      );
  }
  if (!errors.pattern && (await clash()))
    add('__all__', 'Realm filter with this Realm and Pattern already exists.');
  const fields = Object.keys(errors);
  if (fields.length > 0) throw new ApiError(errors[fields[0]][0], 'BAD_REQUEST', 400, { errors });
}
