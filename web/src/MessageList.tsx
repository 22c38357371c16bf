// The message list: messages of the view grouped by channel and topic (or
// conversation), each with its sender's avatar and name, time, the server's
// rendered HTML, an edited mark and reactions; older messages load on
// scrolling up, and the messages seen are marked read.
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api, ok } from './api';
import { Avatar } from './Avatar';
import { openCompose } from './Compose';
import { glyph, popular, searchEmoji, withGlyphs } from './emoji';
import { narrowHash } from './narrow';
import { changed, dmKey, dmUserIds, showError, state, useStore, type Message } from './store';
import { loadOlder, markSeen, openNarrow } from './view';

let selectedId: number | undefined;

/** The message the keyboard acts on. */
export function selectedMessage(): Message | undefined {
  return state.messages.find((m) => m.id === selectedId) ?? state.messages.at(-1);
}

/** Moves the keyboard selection by `step` messages. */
export function moveSelection(step: number): void {
  const current = selectedMessage();
  const index = current ? state.messages.indexOf(current) : -1;
  const next = state.messages[Math.max(0, Math.min(state.messages.length - 1, index + step))];
  if (!next) return;
  selectedId = next.id;
  changed();
  document.getElementById(`message-${next.id}`)?.focus();
}

function time(timestamp: number): string {
  return new Date(timestamp * 1000).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

function header(m: Message): string {
  if (m.type === 'stream') {
    const name = state.subscriptions.get(m.stream_id!)?.name ?? `channel ${m.stream_id}`;
    return `#${name} > ${m.subject || '(no topic)'}`;
  }
  const others = dmUserIds(m).filter((id) => id !== state.userId);
  const names = (others.length ? others : [state.userId]).map(
    (id) => state.users.get(id)?.full_name ?? `User ${id}`,
  );
  return `Direct message with ${names.join(', ')}`;
}

function groupKey(m: Message): string {
  return m.type === 'stream'
    ? `s:${m.stream_id}:${m.subject.toLowerCase()}`
    : `d:${dmKey(dmUserIds(m))}`;
}

function EmojiPicker({ onPick, onClose }: { onPick: (name: string) => void; onClose: () => void }) {
  const [query, setQuery] = useState('');
  const found = query ? searchEmoji(query, 24) : popular;
  return (
    <div class="picker" role="dialog" aria-label="Add a reaction">
      <input
        autoFocus
        aria-label="Search emoji"
        placeholder="Search emoji"
        value={query}
        onInput={(e) => setQuery(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.stopPropagation();
            onClose();
          }
          if (e.key === 'Enter' && found[0]) onPick(found[0].name);
        }}
      />
      <div class="choices">
        {found.map((e) => (
          <button key={e.name} title={e.name} aria-label={e.name} onClick={() => onPick(e.name)}>
            {glyph(e.code)}
          </button>
        ))}
      </div>
    </div>
  );
}

async function toggleReaction(m: Message, name: string, code?: string): Promise<void> {
  const mine = m.reactions.some(
    (r) => r.user_id === state.userId && (r.emoji_name === name || r.emoji_code === code),
  );
  try {
    if (mine)
      await ok(
        api.DELETE('/messages/{message_id}/reactions', {
          params: { path: { message_id: m.id }, query: { emoji_name: name } },
        }),
      );
    else
      await ok(
        api.POST('/messages/{message_id}/reactions', {
          params: { path: { message_id: m.id } },
          body: { emoji_name: name },
        }),
      );
  } catch (error) {
    showError(error);
  }
}

function Editor({ m, onDone }: { m: Message; onDone: () => void }) {
  const [text, setText] = useState<string | null>(null);
  useEffect(() => {
    ok(
      api.GET('/messages/{message_id}', {
        params: { path: { message_id: m.id }, query: { apply_markdown: false } },
      }),
    )
      .then((answer) => setText(String(answer.message.content)))
      .catch((error) => {
        showError(error);
        onDone();
      });
  }, [m.id]);
  if (text === null) return <p>Loading…</p>;
  const save = async () => {
    try {
      await ok(
        api.PATCH('/messages/{message_id}', {
          params: { path: { message_id: m.id } },
          body: { content: text },
        }),
      );
      onDone();
    } catch (error) {
      showError(error);
    }
  };
  return (
    <div class="editor">
      <textarea
        aria-label="Edited message text"
        autoFocus
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey) {
            e.preventDefault();
            void save();
          }
          if (e.key === 'Escape') {
            e.stopPropagation();
            onDone();
          }
        }}
      />
      <button onClick={() => void save()}>Save</button>
      <button onClick={onDone}>Cancel</button>
    </div>
  );
}

function MessageRow({ m, selected }: { m: Message; selected: boolean }) {
  const [editing, setEditing] = useState(false);
  const [picking, setPicking] = useState(false);
  const mine = m.sender_id === state.userId;
  const grouped = new Map<string, { name: string; code: string; users: number[] }>();
  for (const r of m.reactions) {
    const entry = grouped.get(r.emoji_code) ?? {
      name: r.emoji_name,
      code: r.emoji_code,
      users: [],
    };
    entry.users.push(r.user_id);
    grouped.set(r.emoji_code, entry);
  }
  const starred = m.flags.includes('starred');
  return (
    <article
      id={`message-${m.id}`}
      data-id={m.id}
      class={`message ${selected ? 'selected' : ''} ${state.unread.has(m.id) ? 'unread' : ''}`}
      tabIndex={0}
      aria-label={`${m.sender_full_name} at ${time(m.timestamp)}`}
      onFocus={() => {
        selectedId = m.id;
      }}
    >
      <div class="meta">
        <Avatar userId={m.sender_id} name={m.sender_full_name} url={m.avatar_url} />
        <span class="sender">{m.sender_full_name}</span>
        <time dateTime={new Date(m.timestamp * 1000).toISOString()}>{time(m.timestamp)}</time>
        {m.last_edit_timestamp !== undefined && m.last_edit_timestamp !== null && (
          <span class="edited">(edited)</span>
        )}
        <span class="actions">
          <button aria-label="Add a reaction" onClick={() => setPicking(!picking)}>
            ☺
          </button>
          <button
            aria-label={starred ? 'Unstar' : 'Star'}
            aria-pressed={starred}
            onClick={() =>
              void ok(
                api.POST('/messages/flags', {
                  body: { messages: [m.id], op: starred ? 'remove' : 'add', flag: 'starred' },
                }),
              ).catch(showError)
            }
          >
            {starred ? '★' : '☆'}
          </button>
          {mine && (
            <>
              <button aria-label="Edit message" onClick={() => setEditing(true)}>
                ✎
              </button>
              <button
                aria-label="Delete message"
                onClick={() => {
                  if (confirm('Delete this message?'))
                    void ok(
                      api.DELETE('/messages/{message_id}', {
                        params: { path: { message_id: m.id } },
                      }),
                    ).catch(showError);
                }}
              >
                <svg
                  viewBox="0 0 16 16"
                  width="14"
                  height="14"
                  aria-hidden="true"
                  focusable="false"
                >
                  <path
                    d="M2 4h12M6 4V2h4v2M4 4l1 10h6l1-10M7 7v5M9 7v5"
                    fill="none"
                    stroke="currentColor"
                    stroke-width="1.4"
                  />
                </svg>
              </button>
            </>
          )}
        </span>
      </div>
      {editing ? (
        <Editor m={m} onDone={() => setEditing(false)} />
      ) : (
        <div class="content" dangerouslySetInnerHTML={{ __html: withGlyphs(m.content) }} />
      )}
      {grouped.size > 0 && (
        <div class="reactions">
          {[...grouped.values()].map((r) => {
            const names = r.users.map((id) => state.users.get(id)?.full_name ?? 'someone');
            return (
              <button
                key={r.code}
                class={`reaction ${r.users.includes(state.userId) ? 'mine' : ''}`}
                aria-pressed={r.users.includes(state.userId)}
                aria-label={`${r.name}: ${names.join(', ')}`}
                title={`${names.join(', ')} reacted with :${r.name}:`}
                onClick={() => void toggleReaction(m, r.name, r.code)}
              >
                {/^[0-9a-f-]+$/.test(r.code) ? glyph(r.code) : `:${r.name}:`} {r.users.length}
              </button>
            );
          })}
        </div>
      )}
      {picking && (
        <EmojiPicker
          onClose={() => setPicking(false)}
          onPick={(name) => {
            setPicking(false);
            void toggleReaction(m, name);
          }}
        />
      )}
    </article>
  );
}

function typingLine(): string {
  const n = state.narrow;
  const names = state.typing
    .filter((t) => t.senderId !== state.userId)
    .filter((t) =>
      n.kind === 'topic'
        ? t.key === `stream:${n.streamId}:${n.topic.toLowerCase()}`
        : n.kind === 'channel'
          ? t.key.startsWith(`stream:${n.streamId}:`)
          : n.kind === 'dm'
            ? t.key === `dm:${dmKey([...n.userIds, state.userId])}`
            : n.kind === 'all',
    )
    .map((t) => state.users.get(t.senderId)?.full_name ?? 'Someone');
  if (names.length === 0) return '';
  return `${[...new Set(names)].join(', ')} ${names.length === 1 ? 'is' : 'are'} typing…`;
}

/** The message list of the view. */
export function MessageList() {
  const s = useStore();
  const scroller = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const before = useRef<{ first?: number; height: number }>({ height: 0 });

  // Keep the view at the bottom as messages arrive, and in place when older ones load above.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const first = s.messages[0]?.id;
    if (before.current.first !== undefined && first !== undefined && first < before.current.first)
      el.scrollTop += el.scrollHeight - before.current.height;
    else if (stick.current) el.scrollTop = el.scrollHeight;
    before.current = { first, height: el.scrollHeight };
  });

  // Messages seen while the page has focus are marked read.
  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (document.visibilityState !== 'visible') return;
        for (const entry of entries)
          if (entry.isIntersecting) markSeen(Number((entry.target as HTMLElement).dataset.id));
      },
      { root: el, threshold: 0.5 },
    );
    for (const node of el.querySelectorAll('.message.unread')) observer.observe(node);
    return () => observer.disconnect();
  });

  const onScroll = () => {
    const el = scroller.current!;
    stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
    if (el.scrollTop < 80) void loadOlder();
  };

  const groups: { key: string; messages: Message[] }[] = [];
  for (const m of s.messages) {
    const key = groupKey(m);
    if (groups.at(-1)?.key === key) groups.at(-1)!.messages.push(m);
    else groups.push({ key, messages: [m] });
  }
  const selected = selectedMessage()?.id;
  const typing = typingLine();
  return (
    <div class="messages" ref={scroller} onScroll={onScroll}>
      {s.foundOldest && s.messages.length > 0 && <p class="edge">No older messages.</p>}
      {s.loading && (
        <p class="edge" role="status">
          Loading messages…
        </p>
      )}
      {!s.loading && s.messages.length === 0 && <p class="edge">No messages here yet.</p>}
      {groups.map((g) => {
        const first = g.messages[0];
        return (
          <section class="group" key={`${g.key}:${first.id}`} aria-label={header(first)}>
            <h3 class="recipient">
              <a
                href="#"
                onClick={(e) => {
                  e.preventDefault();
                  void openNarrow(
                    first.type === 'stream'
                      ? { kind: 'topic', streamId: first.stream_id!, topic: first.subject }
                      : { kind: 'dm', userIds: dmUserIds(first).filter((id) => id !== s.userId) },
                  );
                }}
              >
                {header(first)}
              </a>
              <button
                class="link"
                aria-label={`Reply to ${header(first)}`}
                onClick={() =>
                  openCompose(
                    first.type === 'stream'
                      ? { kind: 'stream', streamId: first.stream_id!, topic: first.subject }
                      : { kind: 'dm', userIds: dmUserIds(first).filter((id) => id !== s.userId) },
                  )
                }
              >
                Reply
              </button>
            </h3>
            {g.messages.map((m) => (
              <MessageRow key={m.id} m={m} selected={m.id === selected} />
            ))}
          </section>
        );
      })}
      <p class="typing" aria-live="polite">
        {typing}
      </p>
      <span hidden>{narrowHash(s.narrow)}</span>
    </div>
  );
}
