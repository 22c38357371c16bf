// The compose box: to a channel and topic or to people, Markdown with a
// preview rendered by the server, mention and emoji typeahead, file upload by
// picker, paste or drop, typing notices, and a draft kept per conversation.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, fileForm, ok } from './api';
import { glyph, searchEmoji, withGlyphs } from './emoji';
import { changed, showError, state, useStore } from './store';

/** Where a message goes. */
export type Target =
  { kind: 'stream'; streamId: number; topic: string } | { kind: 'dm'; userIds: number[] };

/** Whether the compose box is open, and where it sends. */
export const composeState = {
  open: false,
  target: { kind: 'stream', streamId: 0, topic: '' } as Target,
};

/** Opens the compose box for `target`. */
export function openCompose(target: Target): void {
  composeState.open = true;
  composeState.target = target;
  changed();
  setTimeout(() => document.getElementById('compose-text')?.focus(), 0);
}

function draftKey(target: Target): string {
  return target.kind === 'stream'
    ? `draft:${state.userId}:stream:${target.streamId}:${target.topic.toLowerCase()}`
    : `draft:${state.userId}:dm:${[...target.userIds].sort((a, b) => a - b).join(',')}`;
}

let lastTyping = 0;
let typingTarget: Target | undefined;

function typingBody(target: Target, op: 'start' | 'stop') {
  return target.kind === 'stream'
    ? { op, type: 'stream' as const, stream_id: target.streamId, topic: target.topic }
    : { op, type: 'direct' as const, to: target.userIds };
}

/** Tells the others that the person is typing (at most every 10 seconds), or stopped. */
function notifyTyping(target: Target, op: 'start' | 'stop'): void {
  if (target.kind === 'stream' && (!target.streamId || !target.topic)) return;
  if (target.kind === 'dm' && target.userIds.length === 0) return;
  const now = Date.now();
  if (op === 'start' && typingTarget === target && now - lastTyping < 10_000) return;
  if (op === 'stop' && !typingTarget) return;
  lastTyping = now;
  typingTarget = op === 'start' ? target : undefined;
  void ok(api.POST('/typing', { body: typingBody(target, op) })).catch(() => undefined);
}

interface Suggestion {
  label: string;
  insert: string;
}

/** The suggestions for the word being typed before the cursor. */
function suggestionsFor(text: string, cursor: number): { start: number; items: Suggestion[] } {
  const before = text.slice(0, cursor);
  const mention = /(^|\s)(@\**)([^\s*@]{0,30})$/.exec(before);
  if (mention) {
    const q = mention[3].toLowerCase();
    const items = [...state.users.values()]
      .filter((u) => u.is_active && u.full_name.toLowerCase().includes(q))
      .slice(0, 8)
      .map((u) => ({ label: `${u.full_name} (${u.email})`, insert: `@**${u.full_name}** ` }));
    return { start: before.length - mention[2].length - mention[3].length, items };
  }
  const emoji = /(^|\s):([a-z0-9_+-]{2,30})$/.exec(before);
  if (emoji) {
    const items = searchEmoji(emoji[2]).map((e) => ({
      label: `${glyph(e.code)} :${e.name}:`,
      insert: `:${e.name}: `,
    }));
    return { start: before.length - emoji[2].length - 1, items };
  }
  return { start: cursor, items: [] };
}

/** The compose box (a button to open it while closed). */
export function Compose() {
  const s = useStore();
  const target = composeState.target;
  const key = draftKey(target);
  const [text, setText] = useState('');
  const [preview, setPreview] = useState<string | null>(null);
  const [suggest, setSuggest] = useState<{ start: number; items: Suggestion[]; index: number }>({
    start: 0,
    items: [],
    index: 0,
  });
  const [busy, setBusy] = useState(false);
  const [recipients, setRecipients] = useState('');
  const area = useRef<HTMLTextAreaElement>(null);
  const picker = useRef<HTMLInputElement>(null);

  // Each conversation has its own draft: switching restores it.
  useEffect(() => {
    setText(localStorage.getItem(key) ?? '');
    setPreview(null);
    if (target.kind === 'dm')
      setRecipients(
        target.userIds.map((id) => state.users.get(id)?.email ?? String(id)).join(', '),
      );
  }, [key, composeState.open]);

  const update = (value: string) => {
    setText(value);
    if (value) localStorage.setItem(key, value);
    else localStorage.removeItem(key);
    if (value) notifyTyping(target, 'start');
    const cursor = area.current?.selectionStart ?? value.length;
    setSuggest({ ...suggestionsFor(value, cursor), index: 0 });
  };

  const accept = (item: Suggestion) => {
    const cursor = area.current?.selectionStart ?? text.length;
    const value = text.slice(0, suggest.start) + item.insert + text.slice(cursor);
    update(value);
    setSuggest({ start: 0, items: [], index: 0 });
    area.current?.focus();
  };

  const upload = async (files: FileList | File[]) => {
    for (const file of Array.from(files)) {
      setBusy(true);
      try {
        const answer = await ok(
          api.POST('/user_uploads', {
            body: { filename: file as unknown as string },
            bodySerializer: () => fileForm('filename', file),
          }),
        );
        const link = `[${file.name}](${answer.url})`;
        update(`${text}${text && !text.endsWith('\n') ? '\n' : ''}${link}\n`);
      } catch (error) {
        showError(error);
      } finally {
        setBusy(false);
      }
    }
  };

  const send = async () => {
    if (!text.trim()) return;
    setBusy(true);
    try {
      if (target.kind === 'stream')
        await ok(
          api.POST('/messages', {
            body: { type: 'stream', to: target.streamId, topic: target.topic, content: text },
          }),
        );
      else
        await ok(
          api.POST('/messages', { body: { type: 'direct', to: target.userIds, content: text } }),
        );
      notifyTyping(target, 'stop');
      localStorage.removeItem(key);
      setText('');
      setPreview(null);
    } catch (error) {
      showError(error);
    } finally {
      setBusy(false);
    }
  };

  if (!composeState.open)
    return (
      <div class="compose-closed">
        <button
          aria-keyshortcuts="c"
          onClick={() =>
            openCompose({
              kind: 'stream',
              streamId:
                s.narrow.kind === 'channel' || s.narrow.kind === 'topic'
                  ? s.narrow.streamId
                  : ([...s.subscriptions.keys()][0] ?? 0),
              topic: s.narrow.kind === 'topic' ? s.narrow.topic : '',
            })
          }
        >
          New channel message<span class="key-hint"> (c)</span>
        </button>
        <button
          aria-keyshortcuts="x"
          onClick={() =>
            openCompose({ kind: 'dm', userIds: s.narrow.kind === 'dm' ? s.narrow.userIds : [] })
          }
        >
          New direct message<span class="key-hint"> (x)</span>
        </button>
      </div>
    );

  const channels = [...s.subscriptions.values()].sort((a, b) => a.name.localeCompare(b.name));
  return (
    <form
      class="compose"
      aria-label="Compose a message"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
      onDragOver={(e) => e.preventDefault()}
      onDrop={(e) => {
        e.preventDefault();
        if (e.dataTransfer?.files.length) void upload(e.dataTransfer.files);
      }}
    >
      <div class="to">
        {target.kind === 'stream' ? (
          <>
            <select
              aria-label="Channel"
              value={target.streamId}
              onChange={(e) => {
                composeState.target = { ...target, streamId: Number(e.currentTarget.value) };
                changed();
              }}
            >
              {channels.map((c) => (
                <option key={c.stream_id} value={c.stream_id}>
                  #{c.name}
                </option>
              ))}
            </select>
            <input
              aria-label="Topic"
              placeholder="Topic"
              value={target.topic}
              onInput={(e) => {
                composeState.target = { ...target, topic: e.currentTarget.value };
                changed();
              }}
            />
          </>
        ) : (
          <input
            aria-label="Recipients (email addresses, separated by commas)"
            placeholder="Email addresses of the recipients"
            value={recipients}
            onInput={(e) => setRecipients(e.currentTarget.value)}
            onChange={(e) => {
              const ids = e.currentTarget.value
                .split(',')
                .map((part) => part.trim().toLowerCase())
                .filter(Boolean)
                .map(
                  (email) =>
                    [...state.users.values()].find((u) => u.email.toLowerCase() === email)?.user_id,
                )
                .filter((id): id is number => id !== undefined);
              composeState.target = { kind: 'dm', userIds: ids };
              changed();
            }}
          />
        )}
        <button
          type="button"
          class="link"
          aria-label="Close the compose box"
          onClick={() => {
            notifyTyping(target, 'stop');
            composeState.open = false;
            changed();
          }}
        >
          ×
        </button>
      </div>
      {preview !== null ? (
        <div
          class="preview content"
          aria-label="Preview"
          dangerouslySetInnerHTML={{ __html: withGlyphs(preview) }}
        />
      ) : (
        <textarea
          id="compose-text"
          ref={area}
          aria-label="Message"
          placeholder="Message (Markdown)"
          value={text}
          onInput={(e) => update(e.currentTarget.value)}
          onBlur={() => setTimeout(() => setSuggest({ start: 0, items: [], index: 0 }), 150)}
          onPaste={(e) => {
            const files = e.clipboardData?.files;
            if (files && files.length) {
              e.preventDefault();
              void upload(files);
            }
          }}
          onKeyDown={(e) => {
            if (suggest.items.length) {
              if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
                e.preventDefault();
                const step = e.key === 'ArrowDown' ? 1 : -1;
                setSuggest({
                  ...suggest,
                  index: (suggest.index + step + suggest.items.length) % suggest.items.length,
                });
                return;
              }
              if (e.key === 'Tab' || e.key === 'Enter') {
                e.preventDefault();
                accept(suggest.items[suggest.index]);
                return;
              }
              if (e.key === 'Escape') {
                e.stopPropagation();
                setSuggest({ start: 0, items: [], index: 0 });
                return;
              }
            }
            if (e.key === 'Enter' && !e.shiftKey) {
              e.preventDefault();
              void send();
            }
          }}
        />
      )}
      {suggest.items.length > 0 && (
        <ul class="typeahead" role="listbox" aria-label="Suggestions">
          {suggest.items.map((item, i) => (
            <li
              key={item.insert}
              role="option"
              aria-selected={i === suggest.index}
              onMouseDown={(e) => {
                e.preventDefault();
                accept(item);
              }}
            >
              {item.label}
            </li>
          ))}
        </ul>
      )}
      <div class="buttons">
        <input
          ref={picker}
          type="file"
          multiple
          hidden
          aria-label="Files to upload"
          onChange={(e) => {
            if (e.currentTarget.files) void upload(e.currentTarget.files);
            e.currentTarget.value = '';
          }}
        />
        <button type="button" onClick={() => picker.current?.click()}>
          Upload a file
        </button>
        <button
          type="button"
          aria-pressed={preview !== null}
          onClick={async () => {
            if (preview !== null) return setPreview(null);
            try {
              const answer = await ok(api.POST('/messages/render', { body: { content: text } }));
              setPreview(answer.rendered);
            } catch (error) {
              showError(error);
            }
          }}
        >
          {preview !== null ? 'Edit' : 'Preview'}
        </button>
        <button type="submit" class="primary" disabled={busy || !text.trim()}>
          Send
        </button>
      </div>
    </form>
  );
}
