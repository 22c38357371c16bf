// Emoji names and codes. Unicode emoji come from the project's data file,
// zulip-emoji-names.tsv (beside this module): one emoji a line, with its
// canonical name, its code (code points in lowercase hex joined by dashes, as
// Zulip writes them: "1f44d", "2708") and its aliases. Reactions, statuses and
// Markdown accept every name; reads and events report the canonical one. The
// one extra emoji is `zulip`. Custom (realm) emoji live in the database.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../paths';

/** The reaction types, i.e. the namespaces of emoji codes. */
export const ReactionType = {
  UNICODE: 'unicode_emoji',
  REALM: 'realm_emoji',
  EXTRA: 'zulip_extra_emoji',
} as const;

/** The name this server used for the extra emoji's namespace before; read as `zulip_extra_emoji`. */
const LEGACY_EXTRA = 'service_extra_emoji';

/** The data file, read from the source tree both by tests and by the built server in dist/. */
const EMOJI_DATA_FILE = join(projectRoot, 'src', 'lib', 'emoji', 'zulip-emoji-names.tsv');

/** One Unicode emoji of the data file. */
export interface UnicodeEmoji {
  /** The canonical name, reported in reads and events. */
  name: string;
  /** Code points in lowercase hex joined by dashes. */
  code: string;
  /** The other names that also select this emoji. */
  aliases: string[];
}

/** Parses the data file: `#` comment lines, a header line, then name, code and aliases by tabs. */
export function parseEmojiTable(text: string): UnicodeEmoji[] {
  const rows: UnicodeEmoji[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#') || line.startsWith('name\t')) continue;
    const [name, code, aliases = ''] = line.replace(/\r$/, '').split('\t');
    if (!name || !code) throw new Error(`malformed emoji line: ${JSON.stringify(line)}`);
    rows.push({ name, code, aliases: aliases === '' ? [] : aliases.split(',') });
  }
  return rows;
}

/** Every Unicode emoji, in the data file's order. */
export const unicodeEmoji: readonly UnicodeEmoji[] = parseEmojiTable(
  readFileSync(EMOJI_DATA_FILE, 'utf8'),
);

const codeByName = new Map<string, string>();
const nameByCode = new Map<string, string>();
// Codes without U+FE0F selectors, for emoji characters typed in a message.
const byBareCode = new Map<string, UnicodeEmoji>();
for (const emoji of unicodeEmoji) {
  nameByCode.set(emoji.code, emoji.name);
  byBareCode.set(withoutSelectors(emoji.code), emoji);
  for (const name of [emoji.name, ...emoji.aliases]) codeByName.set(name, emoji.code);
}

function withoutSelectors(code: string): string {
  return code
    .split('-')
    .filter((part) => part !== 'fe0f')
    .join('-');
}

/** Built-in emoji that are not Unicode, by name; their code is their name. */
export const extraEmoji = new Set(['zulip']);

/** The code of the Unicode emoji called `name` (its canonical name or an alias), if there is one. */
export function unicodeEmojiCode(name: string): string | undefined {
  return codeByName.get(name);
}

/** The canonical name of the Unicode emoji whose code is exactly `code`, if there is one. */
export function unicodeEmojiName(code: string): string | undefined {
  return nameByCode.get(code);
}

/**
 * The Unicode emoji a typed character sequence stands for, given as its code
 * points (`1f44d`, or `2764-fe0f`): variation selectors do not matter.
 */
export function unicodeEmojiByTypedCode(code: string): UnicodeEmoji | undefined {
  return byBareCode.get(withoutSelectors(code));
}

/** The reaction type a client sent, with the legacy name of the extra namespace read as Zulip's. */
export function normalizeReactionType(type: string): string {
  return type === LEGACY_EXTRA ? ReactionType.EXTRA : type;
}

/**
 * The name a reaction or status stores for an emoji already checked: the
 * canonical name for a Unicode emoji (`thumbs_up` is stored as `+1`), the
 * name as given otherwise.
 */
export function storedEmojiName(name: string, emoji: { code: string; type: string }): string {
  if (emoji.type !== ReactionType.UNICODE) return name;
  return unicodeEmojiName(emoji.code) ?? name;
}
