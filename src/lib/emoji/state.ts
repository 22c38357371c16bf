// Initial state of POST /register for custom emoji (`realm_emoji`).
import type { StateProviders } from '../state';
import { realmEmojiState } from './realm-emoji';

/** The emoji area's register state. */
export const emojiStateProviders = {
  realm_emoji: realmEmojiState,
} satisfies StateProviders;
