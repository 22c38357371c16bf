// The Slack-compatible incoming webhook: a message written for Slack's
// incoming webhooks (`text`, Block Kit `blocks`, legacy `attachments`) posted
// as Markdown. As in Zulip, the topic is the URL's `topic`, else the Slack
// channel the payload names (without its `#` or `@`), else no topic; a
// payload with nothing to show posts nothing.
import { globalTime, paragraphs, type IntegrationMessage } from './integrations';
import type { PayloadValue } from './payload';

/** The sending client of the integration's messages, as Zulip names it. */
export const SLACK_INCOMING_CLIENT = 'ZulipSlackIncomingWebhook';

/** Slack's mrkdwn as Markdown: links, bold, italics and strikethrough. */
export function slackMarkupToMarkdown(text: string): string {
  return text
    .replace(/<((?:https?|mailto):[^|>\s]+)\|([^>]+)>/g, '[$2]($1)')
    .replace(/<((?:https?|mailto):[^|>\s]+)>/g, '$1')
    .replace(/(^|[^\w*])\*(?!\s)([^*\n]+?)(?<!\s)\*(?![\w*])/g, '$1**$2**')
    .replace(/(^|[^\w_])_(?!\s)([^_\n]+?)(?<!\s)_(?!\w)/g, '$1*$2*')
    .replace(/(^|[^\w~])~(?!\s)([^~\n]+?)(?<!\s)~(?!\w)/g, '$1~~$2~~');
}

/** The text of a text object (`{"type": "mrkdwn", "text": ...}`). */
function textOf(object: PayloadValue): string {
  object.get('type').oneOf(['plain_text', 'mrkdwn']);
  return object.text('text');
}

/** An image element or block as a link to the image. */
function image(element: PayloadValue): string {
  return `[${element.optText('alt_text') ?? 'image'}](${element.text('image_url')})`;
}

/** One Block Kit block; blocks that cannot be shown (buttons, inputs) are left out. */
function block(value: PayloadValue): string {
  switch (value.text('type')) {
    case 'header':
      return `## ${textOf(value.get('text'))}`;
    case 'divider':
      return '----';
    case 'image': {
      const title = value.opt('title');
      return title ? `[${textOf(title)}](${value.text('image_url')})` : image(value);
    }
    case 'context':
      return paragraphs(
        ...(value.opt('elements')?.list() ?? []).map((element) =>
          element.text('type') === 'image' ? image(element) : textOf(element),
        ),
      );
    case 'section': {
      const fields = (value.opt('fields')?.list() ?? []).map(textOf);
      const accessory = value.opt('accessory');
      return paragraphs(
        value.has('text') ? textOf(value.get('text')) : undefined,
        fields.length ? fieldsTable(fields) : undefined,
        accessory?.text('type') === 'image' ? image(accessory) : undefined,
      );
    }
    default:
      return '';
  }
}

/** A section's fields, which Slack shows in two columns, as a table (one field as it is). */
function fieldsTable(fields: string[]): string {
  if (fields.length === 1) return fields[0];
  const cell = (text = '') => text.replace(/\n/g, ' ').replace(/\|/g, '\\|');
  const rows = ['| | |', '|-|-|'];
  for (let i = 0; i < fields.length; i += 2)
    rows.push(`| ${cell(fields[i])} | ${cell(fields[i + 1])} |`);
  return rows.join('\n');
}

/** One legacy attachment. */
function attachment(value: PayloadValue): string {
  const title = value.optText('title');
  const link = value.optText('title_link');
  const fields = (value.opt('fields')?.list() ?? [])
    .map((field) => {
      const name = field.optText('title');
      const text = field.optText('value');
      return name && text ? `**${name}**: ${text}` : name ? `**${name}**` : (text ?? '');
    })
    .filter(Boolean);
  const seconds = value.opt('ts')?.int();
  const time = seconds === undefined ? undefined : new Date(seconds * 1000);
  return paragraphs(
    title && (link ? `## [${title}](${link})` : `## ${title}`),
    value.optText('pretext'),
    value.optText('text'),
    fields.join('\n'),
    ...(value.opt('blocks')?.list() ?? []).map(block),
    value.optText('image_url') && `[](${value.text('image_url')})`,
    value.optText('footer'),
    time && !Number.isNaN(time.getTime()) ? globalTime(time.toISOString()) : undefined,
  );
}

/** The message of a Slack payload, or none when it has nothing to show. */
export function slackIncomingMessages(payload: PayloadValue): IntegrationMessage[] {
  const pieces = [
    ...(payload.opt('blocks')?.list() ?? []).map(block),
    ...(payload.opt('attachments')?.list() ?? []).map(attachment),
  ];
  let body = paragraphs(...pieces.map((piece) => piece.trim()));
  // The text is the fallback of blocks and attachments, shown when they show nothing.
  if (!body)
    body = [payload.optText('icon_emoji'), payload.optText('text')].filter(Boolean).join(' ');
  body = slackMarkupToMarkdown(body).trim();
  if (!body) return [];
  const channel = payload.optText('channel')?.replace(/^[#@]/, '');
  return [{ topic: channel ?? '(no topic)', content: body, event: 'message' }];
}
