// Emoji names and glyphs from the server's emoji data (Zulip's names), which
// the register state names as `server_emoji_data_url`: a static document of
// this server, not an operation of the API.

/** One emoji: its canonical name and its code (hex code points joined by "-"). */
export interface Emoji {
  name: string;
  code: string;
}

let names: Emoji[] = [];
let loading: Promise<void> | undefined;

/** Loads the emoji data once. */
export function loadEmoji(url: string): Promise<void> {
  // Always from this server: the address's path alone, at the page's own origin.
  loading ??= fetch(new URL(url, location.href).pathname, { credentials: 'same-origin' })
    .then((res) => res.json() as Promise<{ code_to_names: Record<string, string[]> }>)
    .then((data) => {
      names = Object.entries(data.code_to_names).flatMap(([code, all]) =>
        all.map((name) => ({ name, code })),
      );
    })
    .catch(() => {
      loading = undefined;
    });
  return loading;
}

/** The glyph of an emoji code ("1f44d" or "1f1e9-1f1ea"). */
export function glyph(code: string): string {
  try {
    return String.fromCodePoint(...code.split('-').map((part) => parseInt(part, 16)));
  } catch {
    return '?';
  }
}

/** A Unicode emoji in a message's HTML, as the server renders it: the span, its code, its `:name:` text. */
const EMOJI_SPAN =
  /(<span [^>]*class="emoji emoji-([0-9a-f]+(?:-[0-9a-f]+)*)"[^>]*>):[^<>]*:<\/span>/g;

/**
 * A message's HTML with each Unicode emoji shown as its glyph in place of
 * its `:name:` text (the span keeps the name as its title and label).
 */
export function withGlyphs(html: string): string {
  return html.replace(
    EMOJI_SPAN,
    (_all, open: string, code: string) => `${open}${glyph(code)}</span>`,
  );
}

/** Emoji whose name starts with (then contains) `text`, at most `limit`. */
export function searchEmoji(text: string, limit = 8): Emoji[] {
  const q = text.toLowerCase();
  const starts = names.filter((e) => e.name.startsWith(q));
  const contains = q ? names.filter((e) => !e.name.startsWith(q) && e.name.includes(q)) : [];
  return [...starts, ...contains].slice(0, limit);
}

/** A few emoji people react with most, shown first in the picker. */
export const popular: Emoji[] = [
  { name: '+1', code: '1f44d' },
  { name: 'tada', code: '1f389' },
  { name: 'smile', code: '1f604' },
  { name: 'heart', code: '2764' },
  { name: 'eyes', code: '1f440' },
  { name: 'octopus', code: '1f419' },
];
