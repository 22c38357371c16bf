// Message reminders: a scheduled message (delivery type `remind`) that
// Notification Bot sends to the user at the chosen time, quoting a message
// they asked to be reminded of. Writing the reminder's text, reading
// reminders, and the API's shape.
import type {
  Message,
  Realm,
  ScheduledMessage,
  User,
} from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { badRequest, notFound } from '../../errors';
import { MAX_MESSAGE_LENGTH, MAX_REMINDER_NOTE_LENGTH } from '../constants';
import { channelSlug, encodeHashComponent } from '../markdown/channels';
import { realmUrl } from '../realm/realms';
import type { StateProvider } from '../state';
import { truncate } from '../channels/topics';

/** The `deliveryType` of scheduled messages that are reminders. */
export const REMINDER = 'remind';
/** The `deliveryType` of ordinary scheduled messages. */
export const SEND_LATER = 'send_later';

/** The error of a reminder that is not the user's, or not there. */
export const missingReminder = () => notFound('Reminder does not exist');

/** A note without trailing whitespace or leading blank lines; refused past the limit. */
export function normalizeNote(note: string): string {
  const body = note.replace(/\s+$/u, '').replace(/^\n+/, '');
  if (body.length > MAX_REMINDER_NOTE_LENGTH)
    throw badRequest(`Maximum reminder note length: ${MAX_REMINDER_NOTE_LENGTH} characters`);
  return body;
}

/** A mention of `user` that notifies nobody. */
export const silentMention = (user: Pick<User, 'id' | 'fullName'>) =>
  `@_**${user.fullName}|${user.id}**`;

/** "A", "A and B", "A, B and C": the names of a list, as Zulip writes them. */
function joinNames(names: string[]): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/** A fence of backticks longer than any run of backticks in `text` (at least three). */
function unusedFence(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  return '`'.repeat(Math.max(3, longest + 1));
}

/** The facts about the reminded-of message that its reminder's text names. */
export interface ReminderSubject {
  message: Message;
  sender: Pick<User, 'id' | 'fullName'>;
  /** The channel of a channel message. */
  stream: { id: number; name: string } | null;
  /** The other participants of a direct message (the sender alone when none). */
  recipients: Pick<User, 'id' | 'fullName'>[];
}

/** The people and channel a reminder of `message` names, read for `user`. */
export async function reminderSubject(db: Db, message: Message): Promise<ReminderSubject> {
  const sender = await db.user.findUniqueOrThrow({ where: { id: message.senderId } });
  if (message.streamId !== null) {
    const stream = await db.stream.findUniqueOrThrow({ where: { id: message.streamId } });
    return { message, sender, stream: { id: stream.id, name: stream.name }, recipients: [] };
  }
  const ids = (message.dmKey ?? '')
    .split(',')
    .map(Number)
    .filter((id) => id && id !== message.senderId);
  const others = await db.user.findMany({ where: { id: { in: ids } }, orderBy: { id: 'asc' } });
  return { message, sender, stream: null, recipients: others.length > 0 ? others : [sender] };
}

/**
 * A link to `subject`'s message and where it was said: "in #**channel>topic@id**"
 * (a plain link when the names cannot be written as a channel link, as in
 * Zulip) or "to" its other participants.
 */
export function messagePlace(
  realm: Pick<Realm, 'stringId'>,
  externalUrl: string,
  subject: ReminderSubject,
): { url: string; where: string } {
  const { message, stream } = subject;
  const base = realmUrl(realm, externalUrl);
  let url: string;
  let where: string;
  if (stream) {
    url = `${base}/#narrow/channel/${channelSlug(stream.id, stream.name)}/topic/${encodeHashComponent(message.topic)}/near/${message.id}`;
    // Names a channel link cannot hold become a plain link, as in Zulip.
    const plain = /[>*`\n]|\$\$/.test(stream.name + message.topic);
    where = plain
      ? `in [#${stream.name} > ${message.topic} @ 💬](${url})`
      : `in #**${stream.name}>${message.topic}@${message.id}**`;
  } else {
    // Every participant, the sender included, so that the link works for anyone of them.
    const ids = (message.dmKey ?? '').split(',').map(Number);
    ids.sort((a, b) => a - b);
    url = `${base}/#narrow/dm/${ids.join(',')}-pm/near/${message.id}`;
    where = `to ${joinNames(subject.recipients.map(silentMention))}`;
  }
  return { url, where };
}

/**
 * The text Notification Bot sends for a reminder of `subject`, as Zulip
 * writes it: the request (with the note, quoted), who said it where with a
 * link to the message, and the message itself in a quote block (widgets are
 * named instead of quoted).
 */
export function reminderContent(
  realm: Pick<Realm, 'stringId'>,
  externalUrl: string,
  subject: ReminderSubject,
  note: string | undefined,
): string {
  const { message, sender, stream } = subject;
  const kind = stream ? 'message' : 'direct message';
  let content = note
    ? `You requested a reminder for the following ${kind}. Note:\n > ${note}`
    : `You requested a reminder for the following ${kind}.`;
  content += '\n\n';
  const { url, where } = messagePlace(realm, externalUrl, subject);
  const widget = message.content.startsWith('/poll')
    ? 'poll'
    : message.content.startsWith('/todo')
      ? 'todo list'
      : null;
  if (widget) return `${content}${silentMention(sender)} [sent](${url}) a ${widget} ${where}.`;
  return withQuote(
    `${content}${silentMention(sender)} [said](${url}) ${where}:\n`,
    message.content,
  );
}

/** `content` followed by `text` in a quote block, cut short to keep the whole within a message's length. */
export function withQuote(content: string, text: string): string {
  const fence = unusedFence(content + text);
  const room = MAX_MESSAGE_LENGTH - (content.length + `${fence}quote\n\n${fence}`.length);
  const quoted = truncate(text, room, '\n[message truncated]');
  return `${content}${fence}quote\n${quoted}\n${fence}`;
}

/** A reminder as the API shows it. */
export function presentReminder(reminder: ScheduledMessage) {
  return {
    reminder_id: reminder.id,
    type: 'private' as const,
    to: JSON.parse(reminder.recipients) as number[],
    content: reminder.content,
    rendered_content: reminder.renderedContent,
    scheduled_delivery_timestamp: Math.floor(reminder.scheduledTimestamp.getTime() / 1000),
    failed: reminder.failed,
    reminder_target_message_id: reminder.reminderTargetMessageId!,
  };
}

/** The user's undelivered reminders, earliest delivery first. */
export function listReminders(db: Db, userId: number): Promise<ScheduledMessage[]> {
  return db.scheduledMessage.findMany({
    where: { senderId: userId, delivered: false, deliveryType: REMINDER },
    orderBy: [{ scheduledTimestamp: 'asc' }, { id: 'asc' }],
  });
}

/** `reminders`: the user's undelivered reminders. */
export const remindersState: StateProvider = async ({ db, user }) => ({
  reminders: (await listReminders(db, user.id)).map(presentReminder),
});
