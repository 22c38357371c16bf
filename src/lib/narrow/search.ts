// Search highlighting: `match_content` (the rendered HTML) and `match_subject`
// (the escaped topic) with each matching word wrapped in
// <span class="highlight">, as Zulip's clients expect.
import { searchWords } from './narrow-sql';

/** Escapes text for HTML. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** A rough stem, so that "running" also highlights "runs" (the engines stem words too). */
function stem(word: string): string {
  const lower = word.toLowerCase();
  for (const suffix of ['ing', 'ed', 'es', 's']) {
    if (lower.length > suffix.length + 2 && lower.endsWith(suffix))
      return lower.slice(0, -suffix.length);
  }
  return lower;
}

/** A pattern matching words that start with any of the stems of `text`, or null when there are none. */
function wordPattern(text: string): RegExp | null {
  const stems = [...new Set(searchWords(text).map(stem))].filter(Boolean);
  if (stems.length === 0) return null;
  const alternatives = stems.map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  return new RegExp(`(?<![\\p{L}\\p{N}_])((?:${alternatives})[\\p{L}\\p{N}_]*)`, 'giu');
}

/** Wraps matching words of the text (not the tags) of `html` in highlight spans. */
export function highlightHtml(html: string, text: string): string {
  const pattern = wordPattern(text);
  if (!pattern) return html;
  return html
    .split(/(<[^>]*>)/)
    .map((part) =>
      part.startsWith('<') ? part : part.replace(pattern, '<span class="highlight">$1</span>'),
    )
    .join('');
}

/** The search fields of one message: highlighted content and topic. */
export function searchFields(
  renderedContent: string,
  topic: string,
  text: string | null,
): { match_content: string; match_subject: string } {
  const subject = escapeHtml(topic);
  if (text === null) return { match_content: renderedContent, match_subject: subject };
  return {
    match_content: highlightHtml(renderedContent, text),
    match_subject: highlightHtml(subject, text),
  };
}
