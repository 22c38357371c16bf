// Settings: the person's name, avatar and password; their channels (browse,
// join, leave, create); and for administrators the organization's name,
// invitations and people's roles.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ok } from './api';
import { AvatarSettings } from './AvatarSettings';
import { showError, state, useStore } from './store';

const ROLES: [number, string][] = [
  [100, 'Owner'],
  [200, 'Administrator'],
  [300, 'Moderator'],
  [400, 'Member'],
  [600, 'Guest'],
];

function Notice({ text }: { text: string }) {
  return text ? (
    <p class="notice" role="status">
      {text}
    </p>
  ) : null;
}

function Profile() {
  const s = useStore();
  const me = s.users.get(s.userId);
  const [name, setName] = useState(me?.full_name ?? '');
  const [oldPassword, setOld] = useState('');
  const [newPassword, setNew] = useState('');
  const [notice, setNotice] = useState('');
  const act = async (work: () => Promise<unknown>, done: string) => {
    try {
      await work();
      setNotice(done);
    } catch (error) {
      showError(error);
    }
  };
  return (
    <section aria-labelledby="profile-title">
      <h3 id="profile-title">Your profile</h3>
      <Notice text={notice} />
      <AvatarSettings onDone={setNotice} />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void act(() => ok(api.PATCH('/settings', { body: { full_name: name } })), 'Name saved.');
        }}
      >
        <label>
          Full name
          <input value={name} onInput={(e) => setName(e.currentTarget.value)} required />
        </label>
        <button type="submit">Save name</button>
      </form>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void act(
            () =>
              ok(
                api.PATCH('/settings', {
                  body: { old_password: oldPassword, new_password: newPassword },
                }),
              ),
            'Password changed.',
          );
        }}
      >
        <label>
          Current password
          <input
            type="password"
            autocomplete="current-password"
            value={oldPassword}
            onInput={(e) => setOld(e.currentTarget.value)}
          />
        </label>
        <label>
          New password
          <input
            type="password"
            autocomplete="new-password"
            value={newPassword}
            onInput={(e) => setNew(e.currentTarget.value)}
          />
        </label>
        <button type="submit">Change password</button>
      </form>
    </section>
  );
}

function Channels() {
  const s = useStore();
  const [all, setAll] = useState<{ stream_id: number; name: string; description: string }[]>([]);
  const [name, setName] = useState('');
  const [privateChannel, setPrivate] = useState(false);
  const refresh = () =>
    ok(api.GET('/streams'))
      .then((answer) => setAll(answer.streams))
      .catch(showError);
  useEffect(() => void refresh(), [s.subscriptions.size]);
  const join = (channel: string, inviteOnly = false) =>
    ok(
      api.POST('/users/me/subscriptions', {
        body: { subscriptions: [{ name: channel }], invite_only: inviteOnly },
      }),
    ).catch(showError);
  return (
    <section aria-labelledby="channels-title">
      <h3 id="channels-title">Channels</h3>
      <ul class="channel-list">
        {all.map((c) => {
          const subscribed = s.subscriptions.has(c.stream_id);
          return (
            <li key={c.stream_id}>
              <span class="channel-name">
                #{c.name} <small>{c.description}</small>
              </span>
              {subscribed ? (
                <button
                  aria-label={`Leave #${c.name}`}
                  onClick={() =>
                    void ok(
                      api.DELETE('/users/me/subscriptions', {
                        params: { query: { subscriptions: [c.name] } },
                      }),
                    ).catch(showError)
                  }
                >
                  Leave
                </button>
              ) : (
                <button aria-label={`Join #${c.name}`} onClick={() => void join(c.name)}>
                  Join
                </button>
              )}
            </li>
          );
        })}
      </ul>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void join(name, privateChannel).then(() => setName(''));
        }}
      >
        <label>
          New channel name
          <input value={name} onInput={(e) => setName(e.currentTarget.value)} required />
        </label>
        <label class="inline">
          <input
            type="checkbox"
            checked={privateChannel}
            onChange={(e) => setPrivate(e.currentTarget.checked)}
          />{' '}
          Private
        </label>
        <button type="submit">Create channel</button>
      </form>
    </section>
  );
}

function Organization() {
  const s = useStore();
  const [name, setName] = useState(s.realmName);
  const [emails, setEmails] = useState('');
  const [link, setLink] = useState('');
  const [notice, setNotice] = useState('');
  const streamIds = [...s.subscriptions.keys()];
  return (
    <section aria-labelledby="org-title">
      <h3 id="org-title">Organization</h3>
      <Notice text={notice} />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void ok(api.PATCH('/realm', { body: { name } }))
            .then(() => setNotice('Organization name saved.'))
            .catch(showError);
        }}
      >
        <label>
          Organization name
          <input value={name} onInput={(e) => setName(e.currentTarget.value)} required />
        </label>
        <button type="submit">Save organization name</button>
      </form>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void ok(
            api.POST('/invites', {
              body: {
                invitee_emails: emails,
                stream_ids: streamIds,
                invite_expires_in_minutes: 60 * 24 * 10,
              },
            }),
          )
            .then(() => {
              setNotice(`Invitations sent to ${emails}.`);
              setEmails('');
            })
            .catch(showError);
        }}
      >
        <label>
          Invite by email (addresses separated by commas)
          <input value={emails} onInput={(e) => setEmails(e.currentTarget.value)} required />
        </label>
        <button type="submit">Send invitations</button>
      </form>
      <button
        onClick={() =>
          void ok(
            api.POST('/invites/multiuse', {
              body: { stream_ids: streamIds, invite_expires_in_minutes: 60 * 24 * 10 },
            }),
          )
            .then((answer) => setLink(answer.invite_link))
            .catch(showError)
        }
      >
        Create an invitation link
      </button>
      {link && (
        <p>
          Invitation link: <input readOnly aria-label="Invitation link" value={link} class="wide" />
        </p>
      )}
      <h4>Roles</h4>
      <ul class="roles">
        {[...s.users.values()]
          .filter((u) => u.is_active && !u.is_bot)
          .map((u) => (
            <li key={u.user_id}>
              <label>
                {u.full_name}
                <select
                  aria-label={`Role of ${u.full_name}`}
                  value={u.role}
                  disabled={u.user_id === state.userId}
                  onChange={(e) =>
                    void ok(
                      api.PATCH('/users/{user_id}', {
                        params: { path: { user_id: u.user_id } },
                        body: { role: Number(e.currentTarget.value) as never },
                      }),
                    ).catch(showError)
                  }
                >
                  {ROLES.map(([value, label]) => (
                    <option key={value} value={value}>
                      {label}
                    </option>
                  ))}
                </select>
              </label>
            </li>
          ))}
      </ul>
    </section>
  );
}

/** The settings dialog. */
export function Settings({ onClose }: { onClose: () => void }) {
  const s = useStore();
  const [tab, setTab] = useState<'profile' | 'channels' | 'organization'>('profile');
  const dialog = useRef<HTMLDivElement>(null);
  // The dialog takes the focus when it opens, and Tab stays inside it while it is open.
  useEffect(() => {
    dialog.current?.querySelector<HTMLElement>('[role="tab"][aria-selected="true"]')?.focus();
  }, []);
  const keepFocus = (e: KeyboardEvent) => {
    if (e.key !== 'Tab' || !dialog.current) return;
    const focusable = [
      ...dialog.current.querySelectorAll<HTMLElement>('button, input, select, textarea, a[href]'),
    ].filter((el) => !(el as HTMLButtonElement).disabled && el.offsetParent !== null);
    const first = focusable[0];
    const last = focusable.at(-1);
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault();
      last?.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first?.focus();
    }
  };
  const tabs = ['profile', 'channels', ...(s.isAdmin ? ['organization' as const] : [])] as const;
  /** Arrow keys move between the tabs, as in a tab list. */
  const onTabKey = (e: KeyboardEvent) => {
    const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
    if (!step) return;
    e.preventDefault();
    const next = tabs[(tabs.indexOf(tab) + step + tabs.length) % tabs.length];
    setTab(next);
    document.getElementById(`tab-${next}`)?.focus();
  };
  return (
    <div
      class="overlay"
      onClick={(e) => {
        if (e.target === e.currentTarget) onClose();
      }}
    >
      <div
        ref={dialog}
        class="dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby="settings-title"
        onKeyDown={keepFocus}
      >
        <header>
          <h2 id="settings-title">Settings</h2>
          <button class="link" aria-label="Close settings" onClick={onClose}>
            ×
          </button>
        </header>
        <div class="tabs" role="tablist" aria-label="Settings sections" onKeyDown={onTabKey}>
          {tabs.map((name) => (
            <button
              key={name}
              id={`tab-${name}`}
              role="tab"
              aria-selected={tab === name}
              aria-controls="settings-panel"
              tabIndex={tab === name ? 0 : -1}
              onClick={() => setTab(name)}
            >
              {{ profile: 'Profile', channels: 'Channels', organization: 'Organization' }[name]}
            </button>
          ))}
        </div>
        <div id="settings-panel" role="tabpanel" aria-labelledby={`tab-${tab}`}>
          {tab === 'profile' && <Profile />}
          {tab === 'channels' && <Channels />}
          {tab === 'organization' && s.isAdmin && <Organization />}
        </div>
      </div>
    </div>
  );
}
