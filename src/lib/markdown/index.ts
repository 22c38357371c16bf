// Zulip-flavoured Markdown for message content: renders the HTML clients
// receive as rendered_content and the facts stored with the message
// (mentions, links, attachments). See engine.ts for the dialect.
import { createZulipMarkdown } from './engine';
import { sanitizeRendered } from './sanitize';
import { newTrustedFragments, restoreTrusted } from './trusted';
import { emptyResult, type RenderContext, type RenderResult, type ZulipEnv } from './types';

export { mentionCandidates, type MentionCandidates } from './candidates';
export type { RenderContext, RenderResult } from './types';

const md = createZulipMarkdown();

/** Renders message content to sanitized HTML in Zulip's shapes, with what it mentions and links. */
export function renderMarkdown(content: string, ctx: RenderContext): RenderResult {
  const env: ZulipEnv = { ctx, result: emptyResult(), trusted: newTrustedFragments() };
  const html = restoreTrusted(sanitizeRendered(md.render(content, env)), env.trusted);
  return { ...env.result, html: html.replace(/\n+$/, '') };
}
