// Initial state of POST /register for search: the words full-text search leaves out.
import type { StateProviders } from '../state';
import { stopWords } from './stop-words';

/** The narrow area's register state: `stop_words`. */
export const narrowStateProviders = {
  stop_words: async () => ({ stop_words: stopWords }),
} satisfies StateProviders;
