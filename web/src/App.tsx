// The app: the sign-in form while signed out; then Zulip's layout, channels
// and conversations on the left, the messages and the compose box in the
// middle, people on the right, with the keyboard keys Zulip's web app has.
import { useEffect, useState } from 'preact/hooks';
import { api, ok, setCsrf } from './api';
import { Compose, composeState, openCompose } from './Compose';
import { loadEmoji } from './emoji';
import { Login } from './Login';
import { MessageList, moveSelection, selectedMessage } from './MessageList';
import { parseHash } from './narrow';
import { Settings } from './Settings';
import { Sidebar } from './Sidebar';
import {
  changed,
  expireTyping,
  pollEvents,
  register,
  showError,
  state,
  useStore,
  whenQueueRenewed,
} from './store';
import { Users } from './Users';
import { openNarrow, reloadMessages } from './view';

/** Signs out: ends the session on the server and shows the sign-in form. */
async function signOut(): Promise<void> {
  try {
    await ok(api.POST('/logout'));
  } catch (error) {
    showError(error);
  }
  setCsrf('');
  state.signedIn = false;
  state.ready = false;
  state.error = '';
  changed();
}

/** Starts a signed-in session: the event queue, the view named by the address, presence. */
async function start(): Promise<void> {
  try {
    await register();
  } catch (error) {
    showError(error);
    state.signedIn = false;
    changed();
    return;
  }
  whenQueueRenewed(reloadMessages);
  void loadEmoji(state.emojiDataUrl);
  void pollEvents();
  await openNarrow(parseHash(location.hash), false);
}

function reportPresence(): void {
  if (!state.signedIn) return;
  void ok(
    api.POST('/users/me/presence', {
      body: { status: document.hasFocus() ? 'active' : 'idle', new_user_input: true },
    }),
  ).catch(() => undefined);
}

function onKey(event: KeyboardEvent, openSettings: (open: boolean) => void): void {
  const target = event.target as HTMLElement;
  const typing =
    target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.isContentEditable;
  if (event.key === 'Escape') {
    openSettings(false);
    if (composeState.open) {
      composeState.open = false;
      changed();
    }
    (document.activeElement as HTMLElement | null)?.blur();
    return;
  }
  if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
  const message = selectedMessage();
  switch (event.key) {
    case 'j':
    case 'ArrowDown':
      moveSelection(1);
      break;
    case 'k':
    case 'ArrowUp':
      moveSelection(-1);
      break;
    case 'r':
    case 'Enter':
      if (!message) return;
      openCompose(
        message.type === 'stream'
          ? { kind: 'stream', streamId: message.stream_id!, topic: message.subject }
          : {
              kind: 'dm',
              userIds: Array.isArray(message.display_recipient)
                ? message.display_recipient.map((r) => r.id).filter((id) => id !== state.userId)
                : [],
            },
      );
      break;
    case 'c':
      openCompose({
        kind: 'stream',
        streamId:
          state.narrow.kind === 'channel' || state.narrow.kind === 'topic'
            ? state.narrow.streamId
            : ([...state.subscriptions.keys()][0] ?? 0),
        topic: state.narrow.kind === 'topic' ? state.narrow.topic : '',
      });
      break;
    case 'x':
      openCompose({ kind: 'dm', userIds: state.narrow.kind === 'dm' ? state.narrow.userIds : [] });
      break;
    case '/':
      document.getElementById('search')?.focus();
      break;
    default:
      return;
  }
  event.preventDefault();
}

/** The whole page. */
export function App() {
  const s = useStore();
  const [settings, setSettings] = useState(false);
  const [panel, setPanel] = useState<'' | 'left' | 'right'>('');
  const [search, setSearch] = useState('');

  useEffect(() => {
    if (s.signedIn && !s.ready) void start();
  }, [s.signedIn, s.ready]);

  useEffect(() => {
    const popped = () => void openNarrow(parseHash(location.hash), false);
    const keys = (e: KeyboardEvent) => onKey(e, setSettings);
    window.addEventListener('popstate', popped);
    window.addEventListener('keydown', keys);
    const presence = setInterval(reportPresence, 60_000);
    const typing = setInterval(expireTyping, 2_000);
    return () => {
      window.removeEventListener('popstate', popped);
      window.removeEventListener('keydown', keys);
      clearInterval(presence);
      clearInterval(typing);
    };
  }, []);

  useEffect(() => {
    if (s.ready) reportPresence();
  }, [s.ready]);

  if (!s.signedIn) return <Login />;
  if (!s.ready)
    return (
      <main class="loading" aria-busy="true">
        <p>Loading…</p>
        {s.error && (
          <p class="alert" role="alert">
            {s.error}
          </p>
        )}
      </main>
    );

  return (
    <div class={`app ${panel ? `show-${panel}` : ''}`}>
      <header class="top">
        <button
          class="icon phone-only"
          aria-label="Channels and conversations"
          aria-expanded={panel === 'left'}
          onClick={() => setPanel(panel === 'left' ? '' : 'left')}
        >
          ☰
        </button>
        <strong class="realm">{s.realmName}</strong>
        <form
          role="search"
          class="search"
          onSubmit={(e) => {
            e.preventDefault();
            if (search.trim()) void openNarrow({ kind: 'search', query: search.trim() });
          }}
        >
          <input
            id="search"
            type="search"
            aria-label="Search messages"
            placeholder="Search"
            value={search}
            onInput={(e) => setSearch(e.currentTarget.value)}
          />
        </form>
        {s.reconnecting && (
          <span class="reconnecting" role="status">
            Reconnecting…
          </span>
        )}
        <button onClick={() => setSettings(true)}>Settings</button>
        <button onClick={() => void signOut()}>Sign out</button>
        <button
          class="icon phone-only"
          aria-label="People"
          aria-expanded={panel === 'right'}
          onClick={() => setPanel(panel === 'right' ? '' : 'right')}
        >
          👥
        </button>
      </header>
      <Sidebar onPick={() => setPanel('')} />
      <main class="middle" aria-label="Messages">
        {s.error && (
          <p class="alert" role="alert">
            {s.error}{' '}
            <button
              class="link"
              aria-label="Dismiss"
              onClick={() => {
                state.error = '';
                changed();
              }}
            >
              ×
            </button>
          </p>
        )}
        <MessageList />
        <Compose />
      </main>
      <Users onPick={() => setPanel('')} />
      {settings && <Settings onClose={() => setSettings(false)} />}
    </div>
  );
}
