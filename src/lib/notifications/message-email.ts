// The notification email of one conversation: the messages a person missed
// there, as they would read them (the rendered HTML, with the server's own
// links made absolute), a link to the conversation, and a link that turns
// these emails off. When the organization or the person keeps message
// content out of emails, the email only says where new messages are.
import type { OutgoingMail } from '../mail/mailer';
import { escapeHtml } from '../mail/mailer';
import { reasonText, type EmailTrigger } from './email-rules';

/** One message of a notification email. */
export interface NotifiedMessage {
  id: number;
  senderName: string;
  dateSent: Date;
  /** The rendered HTML, as stored. */
  html: string;
  /** The Markdown source, for the plain-text part. */
  content: string;
  trigger: EmailTrigger;
}

/** One conversation's missed messages, oldest first. */
export interface NotifiedConversation {
  /** A channel topic, or a direct message conversation. */
  kind: 'stream' | 'dm';
  streamName: string;
  topic: string;
  /** The other participants' names (direct messages). */
  otherNames: string[];
  /** The conversation in the web app. */
  url: string;
  messages: NotifiedMessage[];
}

/** Who the email is for and what it may show. */
export interface NotificationReader {
  email: string;
  fullName: string;
  realmName: string;
  /** Put the organization's name in the subject (several organizations share the address, or the person asked). */
  showRealmName: boolean;
  /** Include the messages themselves and their senders. */
  showContent: boolean;
  /** The organization's address, for links in messages and to settings. */
  realmUrl: string;
  unsubscribeUrl: string;
}

/** Names joined as "A", "A and B", "A, B and C". */
export function joinNames(names: string[]): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/** The subject Zulip gives a conversation's notification email. */
export function conversationSubject(c: NotifiedConversation): string {
  if (c.kind === 'stream') return `#${c.streamName} > ${c.topic}`;
  if (c.otherNames.length === 1) return `DMs with ${c.otherNames[0]}`;
  return `Group DMs with ${joinNames(c.otherNames)}`;
}

/** `html` with links and images to the server's own paths made absolute under `base`. */
export function absoluteLinks(html: string, base: string): string {
  return html.replace(/\b(href|src)="\/(?!\/)/g, `$1="${base}/`);
}

/** The strongest reason among the conversation's messages. */
export function strongestTrigger(messages: NotifiedMessage[]): EmailTrigger {
  const order: EmailTrigger[] = [
    'private_message',
    'mentioned',
    'followed_topic_wildcard_mentioned',
    'wildcard_mentioned',
    'followed_topic',
    'stream',
  ];
  return order.find((t) => messages.some((m) => m.trigger === t)) ?? 'stream';
}

/** The notification email of `conversation` for `reader`. */
export function notificationEmail(
  reader: NotificationReader,
  conversation: NotifiedConversation,
): OutgoingMail {
  const count = conversation.messages.length;
  const plural = count === 1 ? 'message' : 'messages';
  let subject = reader.showContent ? conversationSubject(conversation) : `New ${plural}`;
  if (reader.showRealmName) subject = `[${reader.realmName}] ${subject}`;
  const reason = reasonText(strongestTrigger(conversation.messages));
  const where =
    conversation.kind === 'stream'
      ? `#${conversation.streamName} > ${conversation.topic}`
      : conversation.otherNames.length === 1
        ? `your direct messages with ${conversation.otherNames[0]}`
        : `your direct messages with ${joinNames(conversation.otherNames)}`;
  const settingsUrl = `${reader.realmUrl}/#settings/notifications`;
  const html: string[] = [`<p>Hello ${escapeHtml(reader.fullName)},</p>`];
  const text: string[] = [`Hello ${reader.fullName},`, ''];
  if (reader.showContent) {
    html.push(`<p>You have ${count} new ${plural} in ${escapeHtml(where)}:</p>`);
    text.push(`You have ${count} new ${plural} in ${where}:`, '');
    for (const m of conversation.messages) {
      html.push(
        '<div class="message">',
        `<p><strong>${escapeHtml(m.senderName)}</strong></p>`,
        `<div class="content">${absoluteLinks(m.html, reader.realmUrl)}</div>`,
        '</div>',
      );
      text.push(`${m.senderName}:`, m.content, '');
    }
  } else {
    const hidden =
      'The messages are not shown here: the organization or your settings keep message content out of emails.';
    html.push(`<p>You have ${count} new ${plural} in ${escapeHtml(reader.realmName)}.</p>`);
    html.push(`<p>${hidden}</p>`);
    text.push(`You have ${count} new ${plural} in ${reader.realmName}.`, hidden, '');
  }
  const view = `View or reply in ${reader.realmName}`;
  html.push(`<p><a href="${escapeHtml(conversation.url)}">${escapeHtml(view)}</a></p>`);
  text.push(`${view}: ${conversation.url}`, '');
  html.push(
    `<p class="footer">${escapeHtml(reason)} ` +
      `<a href="${escapeHtml(settingsUrl)}">Manage email preferences</a> or ` +
      `<a href="${escapeHtml(reader.unsubscribeUrl)}">unsubscribe from these emails</a>.</p>`,
  );
  text.push(
    reason,
    `Manage email preferences: ${settingsUrl}`,
    `Unsubscribe: ${reader.unsubscribeUrl}`,
  );
  return { to: reader.email, subject, text: text.join('\n'), html: html.join('\n') };
}
