// The emoji data document the server publishes for clients (the address the
// register response gives as `server_emoji_data_url`), in Zulip's format.
import { unicodeEmoji } from './emoji';

/** Where the emoji data is served, on the realm's own origin. */
export const EMOJI_DATA_PATH = '/static/generated/emoji/emoji_api.json';

/** The emoji data: every Unicode emoji code -> its names, the canonical name first. */
export function emojiDataDocument(): { code_to_names: Record<string, string[]> } {
  const codeToNames: Record<string, string[]> = {};
  for (const emoji of unicodeEmoji) codeToNames[emoji.code] = [emoji.name, ...emoji.aliases];
  return { code_to_names: codeToNames };
}
