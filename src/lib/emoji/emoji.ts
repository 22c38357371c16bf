// Emoji names and codes. Unicode emoji come from the emoji-datasource
// package: each has a code (its codepoints in lowercase hex joined by dashes,
// without the FE0F variation selector, as Zulip writes them: "1f44d", "2708")
// and one or more names ("+1", "thumbs_up"). The one
// service_extra_emoji is `zulip`. Custom (realm) emoji live in the database.
import emojiData from 'emoji-datasource/emoji.json';

/** The reaction types, i.e. the namespaces of emoji codes. */
export const ReactionType = {
  UNICODE: 'unicode_emoji',
  REALM: 'realm_emoji',
  EXTRA: 'service_extra_emoji',
} as const;

const codeByName = new Map<string, string>();
const nameByCode = new Map<string, string>();
for (const entry of emojiData as { unified: string; short_name: string; short_names: string[] }[]) {
  const code = normalizeCode(entry.unified);
  nameByCode.set(code, entry.short_name.replace(/-/g, '_'));
  for (const name of entry.short_names) {
    codeByName.set(name, code);
    codeByName.set(name.replace(/-/g, '_'), code);
  }
}

/** A Unicode emoji code in Zulip's form: lowercase, without FE0F selectors. */
function normalizeCode(code: string): string {
  return code.toLowerCase().replace(/-fe0f/g, '');
}

/** Built-in emoji that are not Unicode, by name; their code is their name. */
export const extraEmoji = new Set(['zulip']);

/** The code of the Unicode emoji called `name`, if there is one. */
export function unicodeEmojiCode(name: string): string | undefined {
  return codeByName.get(name);
}

/** The canonical name of the Unicode emoji with `code`, if there is one. */
export function unicodeEmojiName(code: string): string | undefined {
  return nameByCode.get(normalizeCode(code));
}

/** Whether `name` is a well-formed emoji name: lowercase letters, digits, `_`, `-` and `+`. */
export function isValidEmojiName(name: string): boolean {
  return /^[a-z0-9_+-]+$/.test(name);
}
