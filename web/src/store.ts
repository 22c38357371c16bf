// The client's state: what POST /register returned, kept up to date by the
// events of GET /events as Zulip's clients do, and the messages of the view.
// Components read it through useStore(), which re-renders them on a change.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiFailure, ok, onSessionEnded } from './api';
import type { Narrow } from './narrow';

// Events and the register state are read field by field below; their full
// types are the contract's long unions, narrowed here by `type` and `op`.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Loose = Record<string, any>;

/** A message as GET /messages and message events give it (HTML content). */
export interface Message {
  id: number;
  sender_id: number;
  sender_full_name: string;
  timestamp: number;
  content: string;
  type: 'stream' | 'private';
  stream_id?: number;
  subject: string;
  display_recipient: string | { id: number; full_name: string; email: string }[];
  reactions: { emoji_name: string; emoji_code: string; reaction_type: string; user_id: number }[];
  flags: string[];
  last_edit_timestamp?: number;
  avatar_url?: string | null;
}

/** A user of the organization. */
export interface Person {
  user_id: number;
  full_name: string;
  email: string;
  is_bot: boolean;
  is_active: boolean;
  role: number;
  avatar_url?: string | null;
}

/** A channel the user is subscribed to. */
export interface Subscription {
  stream_id: number;
  name: string;
  color?: string;
  invite_only?: boolean;
  description?: string;
}

/** What an unread message counts towards. */
interface UnreadEntry {
  streamId?: number;
  topic?: string;
  /** The other people of a direct message conversation, sorted, joined by commas. */
  dm?: string;
  mentioned?: boolean;
}

/** Typing notices being shown: who, where, until when. */
interface Typing {
  senderId: number;
  key: string;
  until: number;
}

export const state = {
  ready: false,
  signedIn: false,
  userId: 0,
  realmName: '',
  isAdmin: false,
  emojiDataUrl: '',
  queueId: '',
  lastEventId: -1,
  users: new Map<number, Person>(),
  subscriptions: new Map<number, Subscription>(),
  unread: new Map<number, UnreadEntry>(),
  presence: new Map<number, { active: number; idle: number }>(),
  dmConversations: [] as { user_ids: number[]; max_message_id: number }[],
  topics: new Map<number, string[]>(),
  narrow: { kind: 'all' } as Narrow,
  messages: [] as Message[],
  foundOldest: false,
  loading: false,
  typing: [] as Typing[],
  error: '',
  /** Whether the event queue is being (re)connected. */
  reconnecting: false,
};

let version = 0;
const listeners = new Set<() => void>();

/** Tells the components that the state changed. */
export function changed(): void {
  version++;
  for (const listener of listeners) listener();
}

/** Re-renders the calling component on every change of the state. */
export function useStore(): typeof state {
  const [, setSeen] = useState(version);
  useEffect(() => {
    const listener = () => setSeen(version);
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
  return state;
}

/** Shows a refusal or a failure in the page's alert. */
export function showError(error: unknown): void {
  state.error =
    error instanceof ApiFailure
      ? error.message
      : error instanceof Error
        ? `Could not reach the server: ${error.message}`
        : String(error);
  changed();
}

/** The key of a direct message conversation: the other people's IDs, sorted. */
export function dmKey(userIds: number[], me = state.userId): string {
  const others = [...new Set(userIds.filter((id) => id !== me))].sort((a, b) => a - b);
  return (others.length ? others : [me]).join(',');
}

/** The people of a direct message (sender and recipients). */
export function dmUserIds(message: Message): number[] {
  return Array.isArray(message.display_recipient) ? message.display_recipient.map((r) => r.id) : [];
}

function unreadEntry(message: Message): UnreadEntry {
  return message.type === 'stream'
    ? {
        streamId: message.stream_id,
        topic: message.subject,
        mentioned: message.flags.includes('mentioned'),
      }
    : { dm: dmKey(dmUserIds(message)), mentioned: message.flags.includes('mentioned') };
}

/** The number of unread messages that `test` accepts. */
export function unreadCount(test: (entry: UnreadEntry) => boolean): number {
  let count = 0;
  for (const entry of state.unread.values()) if (test(entry)) count++;
  return count;
}

/** Takes the state of a new event queue (POST /register). */
function applyRegister(r: Loose): void {
  state.queueId = r.queue_id;
  state.lastEventId = r.last_event_id;
  state.userId = r.user_id;
  state.realmName = r.realm_name;
  state.isAdmin = Boolean(r.is_admin);
  state.emojiDataUrl = r.server_emoji_data_url ?? '';
  state.users = new Map();
  for (const u of r.realm_users ?? []) state.users.set(u.user_id, u);
  state.subscriptions = new Map();
  for (const s of r.subscriptions ?? []) state.subscriptions.set(s.stream_id, s);
  state.unread = new Map();
  const unread = r.unread_msgs ?? {};
  const mentions = new Set<number>(unread.mentions ?? []);
  for (const s of unread.streams ?? [])
    for (const id of s.unread_message_ids)
      state.unread.set(id, { streamId: s.stream_id, topic: s.topic, mentioned: mentions.has(id) });
  for (const p of unread.pms ?? [])
    for (const id of p.unread_message_ids)
      state.unread.set(id, {
        dm: dmKey([p.other_user_id ?? p.sender_id]),
        mentioned: mentions.has(id),
      });
  for (const h of unread.huddles ?? [])
    for (const id of h.unread_message_ids)
      state.unread.set(id, {
        dm: dmKey(String(h.user_ids_string).split(',').map(Number)),
        mentioned: mentions.has(id),
      });
  state.presence = new Map();
  for (const [id, p] of Object.entries<Loose>(r.presences ?? {}))
    state.presence.set(Number(id), {
      active: p.active_timestamp ?? 0,
      idle: p.idle_timestamp ?? 0,
    });
  state.dmConversations = (r.recent_private_conversations ?? []).map((c: Loose) => ({
    user_ids: c.user_ids,
    max_message_id: c.max_message_id,
  }));
}

/** Opens an event queue and takes its state. */
export async function register(): Promise<void> {
  const r = await ok(
    api.POST('/register', {
      body: {
        apply_markdown: true,
        client_gravatar: false,
        slim_presence: true,
        include_subscribers: false,
        client_capabilities: { stream_typing_notifications: true },
        event_types: [
          'message',
          'update_message',
          'delete_message',
          'reaction',
          'typing',
          'presence',
          'subscription',
          'stream',
          'realm_user',
          'realm',
          'update_message_flags',
          'recent_private_conversations',
        ],
        fetch_event_types: [
          'realm_user',
          'subscription',
          'message',
          'update_message_flags',
          'presence',
          'realm',
          'recent_private_conversations',
        ],
      },
    }),
  );
  applyRegister(r as Loose);
  state.ready = true;
  state.signedIn = true;
  changed();
}

/** Whether `message` belongs in `narrow`. */
export function inNarrow(narrow: Narrow, message: Message): boolean {
  switch (narrow.kind) {
    case 'all':
      return true;
    case 'channel':
      return message.type === 'stream' && message.stream_id === narrow.streamId;
    case 'topic':
      return (
        message.type === 'stream' &&
        message.stream_id === narrow.streamId &&
        message.subject.toLowerCase() === narrow.topic.toLowerCase()
      );
    case 'dm':
      return message.type === 'private' && dmKey(dmUserIds(message)) === dmKey(narrow.userIds);
    case 'mentions':
      return message.flags.includes('mentioned');
    case 'starred':
      return message.flags.includes('starred');
    case 'search':
      return false;
  }
}

function noteDmConversation(message: Message): void {
  if (message.type !== 'private') return;
  const key = dmKey(dmUserIds(message));
  const others = key.split(',').map(Number);
  const found = state.dmConversations.find((c) => dmKey(c.user_ids) === key);
  if (found) found.max_message_id = Math.max(found.max_message_id, message.id);
  else state.dmConversations.push({ user_ids: others, max_message_id: message.id });
  state.dmConversations.sort((a, b) => b.max_message_id - a.max_message_id);
}

function noteTopic(streamId: number | undefined, topic: string): void {
  if (streamId === undefined) return;
  const known = state.topics.get(streamId) ?? [];
  state.topics.set(streamId, [topic, ...known.filter((t) => t !== topic)]);
}

/** Applies one event of the queue to the state. */
function applyEvent(event: Loose): void {
  switch (event.type) {
    case 'message': {
      const message = { ...event.message, flags: event.flags ?? [] } as Message;
      if (!message.flags.includes('read')) state.unread.set(message.id, unreadEntry(message));
      noteDmConversation(message);
      if (message.type === 'stream') noteTopic(message.stream_id, message.subject);
      if (inNarrow(state.narrow, message) && !state.messages.some((m) => m.id === message.id))
        state.messages = [...state.messages, message];
      // A message ends its sender's typing notice.
      state.typing = state.typing.filter((t) => t.senderId !== message.sender_id);
      break;
    }
    case 'update_message': {
      const ids: number[] = event.message_ids ?? [event.message_id];
      state.messages = state.messages.map((m) => {
        if (!ids.includes(m.id)) return m;
        const next = { ...m };
        if (m.id === event.message_id && event.rendered_content !== undefined) {
          next.content = event.rendered_content;
          next.last_edit_timestamp = event.edit_timestamp;
        }
        if (event.subject !== undefined) next.subject = event.subject;
        if (event.new_stream_id !== undefined) next.stream_id = event.new_stream_id;
        return next;
      });
      break;
    }
    case 'delete_message': {
      const ids: number[] = event.message_ids ?? [event.message_id];
      state.messages = state.messages.filter((m) => !ids.includes(m.id));
      for (const id of ids) state.unread.delete(id);
      break;
    }
    case 'reaction': {
      state.messages = state.messages.map((m) => {
        if (m.id !== event.message_id) return m;
        const same = (r: Message['reactions'][number]) =>
          r.user_id === event.user_id && r.emoji_code === event.emoji_code;
        const reactions =
          event.op === 'add'
            ? [
                ...m.reactions.filter((r) => !same(r)),
                {
                  emoji_name: event.emoji_name,
                  emoji_code: event.emoji_code,
                  reaction_type: event.reaction_type,
                  user_id: event.user_id,
                },
              ]
            : m.reactions.filter((r) => !same(r));
        return { ...m, reactions };
      });
      break;
    }
    case 'update_message_flags': {
      const ids: number[] = event.messages ?? [];
      const add = event.op === 'add';
      if (event.flag === 'read' && add) {
        if (event.all) state.unread.clear();
        for (const id of ids) state.unread.delete(id);
      }
      state.messages = state.messages.map((m) =>
        ids.includes(m.id) || (event.all && event.flag === 'read')
          ? {
              ...m,
              flags: add
                ? [...new Set([...m.flags, event.flag])]
                : m.flags.filter((f) => f !== event.flag),
            }
          : m,
      );
      break;
    }
    case 'typing': {
      const key =
        event.message_type === 'stream'
          ? `stream:${event.stream_id}:${String(event.topic).toLowerCase()}`
          : `dm:${dmKey([...(event.recipients ?? []).map((r: Loose) => r.user_id), event.sender.user_id])}`;
      state.typing = state.typing.filter(
        (t) => !(t.senderId === event.sender.user_id && t.key === key),
      );
      if (event.op === 'start')
        state.typing.push({ senderId: event.sender.user_id, key, until: Date.now() + 15_000 });
      break;
    }
    case 'presence': {
      for (const [id, p] of Object.entries<Loose>(event.presences ?? {}))
        state.presence.set(Number(id), {
          active: p.active_timestamp ?? 0,
          idle: p.idle_timestamp ?? 0,
        });
      if (event.user_id !== undefined && event.presence) {
        const latest = Math.max(
          0,
          ...Object.values<Loose>(event.presence).map((p) => p.timestamp ?? 0),
        );
        state.presence.set(event.user_id, { active: latest, idle: latest });
      }
      break;
    }
    case 'subscription': {
      if (event.op === 'add')
        for (const s of event.subscriptions) state.subscriptions.set(s.stream_id, s);
      if (event.op === 'remove')
        for (const s of event.subscriptions) state.subscriptions.delete(s.stream_id);
      if (event.op === 'update') {
        const s = state.subscriptions.get(event.stream_id);
        if (s) state.subscriptions.set(event.stream_id, { ...s, [event.property]: event.value });
      }
      break;
    }
    case 'stream': {
      if (event.op === 'update') {
        const s = state.subscriptions.get(event.stream_id);
        if (s) state.subscriptions.set(event.stream_id, { ...s, [event.property]: event.value });
      }
      if (event.op === 'delete')
        for (const s of event.streams ?? []) state.subscriptions.delete(s.stream_id);
      break;
    }
    case 'realm_user': {
      if (event.op === 'add') state.users.set(event.person.user_id, event.person);
      if (event.op === 'update') {
        const u = state.users.get(event.person.user_id);
        if (u) state.users.set(u.user_id, { ...u, ...event.person });
      }
      if (event.op === 'remove') state.users.delete(event.person.user_id);
      break;
    }
    case 'realm': {
      if (event.op === 'update' && event.property === 'name') state.realmName = event.value;
      if (event.op === 'update_dict' && event.data?.name) state.realmName = event.data.name;
      break;
    }
  }
}

let polling = false;
let onQueueRenewed: () => Promise<void> = async () => undefined;

/** Sets what to do after a lost queue was replaced (reload the view's messages). */
export function whenQueueRenewed(reload: () => Promise<void>): void {
  onQueueRenewed = reload;
}

/**
 * Polls GET /events for as long as the person is signed in. A lost queue
 * (BAD_EVENT_QUEUE_ID: it expired, or the server restarted) is replaced by
 * a new registration, and the view's messages are fetched again, so that
 * nothing sent meanwhile is missed; while the server cannot be reached, the
 * poll is retried with a growing pause.
 */
export async function pollEvents(): Promise<void> {
  if (polling) return;
  polling = true;
  let pause = 500;
  while (state.signedIn) {
    try {
      const answer = await ok(
        api.GET('/events', {
          params: { query: { queue_id: state.queueId, last_event_id: state.lastEventId } },
        }),
      );
      for (const event of (answer as Loose).events as Loose[]) {
        state.lastEventId = Math.max(state.lastEventId, event.id);
        applyEvent(event);
      }
      pause = 500;
      if (state.reconnecting) state.reconnecting = false;
      changed();
    } catch (error) {
      if (!state.signedIn) break;
      if (error instanceof ApiFailure && error.status === 401) {
        endSession();
        break;
      }
      state.reconnecting = true;
      changed();
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, 5000);
      if (error instanceof ApiFailure && error.code === 'BAD_EVENT_QUEUE_ID') {
        try {
          await register();
          await onQueueRenewed();
          state.reconnecting = false;
          changed();
        } catch {
          // Retried at the next turn.
        }
      }
    }
  }
  polling = false;
}

/** Forgets typing notices whose time has passed. */
export function expireTyping(): void {
  const now = Date.now();
  const kept = state.typing.filter((t) => t.until > now);
  if (kept.length !== state.typing.length) {
    state.typing = kept;
    changed();
  }
}

/** The server refused the session (signed out elsewhere, or expired): back to the sign-in form, saying why. */
function endSession(): void {
  if (!state.signedIn) return;
  state.signedIn = false;
  state.error = 'Your session has ended: sign in again.';
  changed();
}

onSessionEnded(endSession);
