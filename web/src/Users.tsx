// The right sidebar: the organization's people with their avatars and presence; a click
// opens the direct message conversation with them.
import { Avatar } from './Avatar';
import { state, useStore } from './store';
import { openNarrow } from './view';

/** How recently a person was seen: active (in the last 2 minutes), idle, or offline. */
function presenceOf(userId: number): 'active' | 'idle' | 'offline' {
  const p = state.presence.get(userId);
  const now = Date.now() / 1000;
  if (p && now - p.active < 140) return 'active';
  if (p && now - Math.max(p.idle, p.active) < 140) return 'idle';
  return 'offline';
}

/** The right sidebar. */
export function Users({ onPick }: { onPick: () => void }) {
  const s = useStore();
  const order = { active: 0, idle: 1, offline: 2 };
  const people = [...s.users.values()]
    .filter((u) => u.is_active && !u.is_bot)
    .map((u) => ({ ...u, presence: presenceOf(u.user_id) }))
    .sort(
      (a, b) => order[a.presence] - order[b.presence] || a.full_name.localeCompare(b.full_name),
    );
  return (
    <aside id="right-panel" class="right" aria-label="People">
      <h2>People</h2>
      <ul>
        {people.map((u) => (
          <li key={u.user_id}>
            <button
              class="person"
              onClick={() => {
                onPick();
                void openNarrow({ kind: 'dm', userIds: [u.user_id] });
              }}
            >
              <span class={`dot ${u.presence}`} aria-label={u.presence} role="img" />
              <Avatar userId={u.user_id} name={u.full_name} url={u.avatar_url} size={22} />
              {u.full_name}
              {u.user_id === s.userId ? ' (you)' : ''}
            </button>
          </li>
        ))}
      </ul>
    </aside>
  );
}
