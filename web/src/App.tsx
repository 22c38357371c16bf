// The app: the sign-in form while signed out; then Zulip's layout, channels
// and conversations on the left, the messages and the compose box in the
// middle, people on the right, with the keyboard keys Zulip's web app has.
import { useEffect, useRef, useState } from 'preact/hooks';
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

function onKey(event: KeyboardEvent, closePanels: () => boolean): void {
  const target = event.target as HTMLElement;
  const typing =
    ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName) || target.isContentEditable;
  // Enter on a button or a link presses it; it replies only from a message or the page.
  const pressing = event.key === 'Enter' && (target.tagName === 'BUTTON' || target.tagName === 'A');
  if (event.key === 'Escape') {
    // A dialog or side panel closes first, and gives the focus back where it was.
    if (closePanels()) return;
    if (composeState.open) {
      composeState.open = false;
      changed();
    }
    (document.activeElement as HTMLElement | null)?.blur();
    return;
  }
  if (typing || pressing || event.ctrlKey || event.metaKey || event.altKey) return;
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

/** The icons of the buttons that open the side panels at phone width (no font needed). */
function Icon({ name }: { name: 'menu' | 'people' }) {
  return (
    <svg viewBox="0 0 20 20" width="20" height="20" aria-hidden="true" focusable="false">
      {name === 'menu' ? (
        <path d="M3 5h14M3 10h14M3 15h14" stroke="currentColor" stroke-width="2" />
      ) : (
        <path
          d="M7 9a3 3 0 1 0 0-6 3 3 0 0 0 0 6zm-5 8c0-3 2.2-5 5-5s5 2 5 5zm11.5-8a2.5 2.5 0 1 0 0-5 2.5 2.5 0 0 0 0 5zM13 17h6c0-2.6-1.7-4.4-4-4.8-.7 0-1.4.2-2 .5 1 1.1 1.6 2.6 1.6 4.3z"
          fill="currentColor"
        />
      )}
    </svg>
  );
}

type Panel = '' | 'left' | 'right';

/** The whole page. */
export function App() {
  const s = useStore();
  const [settings, setSettings] = useState(false);
  const [panel, setPanel] = useState<Panel>('');
  const [search, setSearch] = useState('');
  // What Esc closes, read by the key handler installed once.
  const open = useRef({ settings, panel });
  open.current = { settings, panel };
  const toggles = { left: useRef<HTMLButtonElement>(null), right: useRef<HTMLButtonElement>(null) };
  const settingsButton = useRef<HTMLButtonElement>(null);

  /** Opens `side` (or closes it when open); at phone width the panel lies over the messages. */
  const togglePanel = (side: Panel) => setPanel(panel === side ? '' : side);

  // An opened panel takes the focus, so that the keyboard and screen readers land in it.
  useEffect(() => {
    if (!panel) return;
    document.querySelector<HTMLElement>(`#${panel}-panel a, #${panel}-panel button`)?.focus();
  }, [panel]);

  useEffect(() => {
    if (s.signedIn && !s.ready) void start();
  }, [s.signedIn, s.ready]);

  useEffect(() => {
    const popped = () => void openNarrow(parseHash(location.hash), false);
    const keys = (e: KeyboardEvent) => {
      // While the settings dialog is open, the keys of the message list wait.
      if (open.current.settings && e.key !== 'Escape') return;
      onKey(e, () => {
        if (open.current.settings) {
          setSettings(false);
          settingsButton.current?.focus();
          return true;
        }
        const side = open.current.panel;
        if (side) {
          setPanel('');
          toggles[side].current?.focus();
          return true;
        }
        return false;
      });
    };
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
          ref={toggles.left}
          class="icon phone-only"
          aria-label="Channels and conversations"
          aria-controls="left-panel"
          aria-expanded={panel === 'left'}
          onClick={() => togglePanel('left')}
        >
          <Icon name="menu" />
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
        <button
          ref={settingsButton}
          onClick={() => {
            setPanel('');
            setSettings(true);
          }}
        >
          Settings
        </button>
        <button onClick={() => void signOut()}>Sign out</button>
        <button
          ref={toggles.right}
          class="icon phone-only"
          aria-label="People"
          aria-controls="right-panel"
          aria-expanded={panel === 'right'}
          onClick={() => togglePanel('right')}
        >
          <Icon name="people" />
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
      {panel && <div class="backdrop" aria-hidden="true" onClick={() => setPanel('')} />}
      <Users onPick={() => setPanel('')} />
      {settings && (
        <Settings
          onClose={() => {
            setSettings(false);
            settingsButton.current?.focus();
          }}
        />
      )}
    </div>
  );
}
