// The left sidebar: the combined feed, mentions, starred, the channels with
// their topics and unread counts, and the direct message conversations.
import type { Narrow } from './narrow';
import { narrowHash } from './narrow';
import { dmKey, state, unreadCount, useStore } from './store';
import { openNarrow } from './view';

function Count({ n }: { n: number }) {
  return n > 0 ? (
    <span class="count" aria-label={`${n} unread`}>
      {n}
    </span>
  ) : null;
}

function Item(props: {
  narrow: Narrow;
  label: string;
  count: number;
  onPick: () => void;
  class?: string;
}) {
  const current = narrowHash(state.narrow) === narrowHash(props.narrow);
  return (
    <li class={props.class}>
      <a
        href={narrowHash(props.narrow)}
        aria-current={current ? 'page' : undefined}
        onClick={(e) => {
          e.preventDefault();
          props.onPick();
          void openNarrow(props.narrow);
        }}
      >
        <span class="label">{props.label}</span>
        <Count n={props.count} />
      </a>
    </li>
  );
}

/** The left sidebar. */
export function Sidebar({ onPick }: { onPick: () => void }) {
  const s = useStore();
  const channels = [...s.subscriptions.values()].sort((a, b) => a.name.localeCompare(b.name));
  const openStream =
    s.narrow.kind === 'channel' || s.narrow.kind === 'topic' ? s.narrow.streamId : undefined;
  const name = (id: number) => s.users.get(id)?.full_name ?? `User ${id}`;
  return (
    <nav id="left-panel" class="left" aria-label="Channels and conversations">
      <ul>
        <Item
          narrow={{ kind: 'all' }}
          label="Combined feed"
          count={s.unread.size}
          onPick={onPick}
        />
        <Item
          narrow={{ kind: 'mentions' }}
          label="Mentions"
          count={unreadCount((e) => Boolean(e.mentioned))}
          onPick={onPick}
        />
        <Item narrow={{ kind: 'starred' }} label="Starred" count={0} onPick={onPick} />
      </ul>
      <h2>Channels</h2>
      <ul class="channels">
        {channels.map((c) => {
          const topics = new Set<string>(s.topics.get(c.stream_id) ?? []);
          for (const entry of s.unread.values())
            if (entry.streamId === c.stream_id && entry.topic) topics.add(entry.topic);
          return (
            <>
              <Item
                key={c.stream_id}
                class="channel"
                narrow={{ kind: 'channel', streamId: c.stream_id }}
                label={`${c.invite_only ? '🔒' : '#'} ${c.name}`}
                count={unreadCount((e) => e.streamId === c.stream_id)}
                onPick={onPick}
              />
              {openStream === c.stream_id &&
                [...topics]
                  .slice(0, 12)
                  .map((topic) => (
                    <Item
                      key={`${c.stream_id}:${topic}`}
                      class="topic"
                      narrow={{ kind: 'topic', streamId: c.stream_id, topic }}
                      label={topic || '(no topic)'}
                      count={unreadCount((e) => e.streamId === c.stream_id && e.topic === topic)}
                      onPick={onPick}
                    />
                  ))}
            </>
          );
        })}
      </ul>
      <h2>Direct messages</h2>
      <ul class="dms">
        {s.dmConversations.slice(0, 20).map((c) => {
          const key = dmKey(c.user_ids);
          const ids = key.split(',').map(Number);
          return (
            <Item
              key={key}
              narrow={{ kind: 'dm', userIds: ids }}
              label={ids.map(name).join(', ')}
              count={unreadCount((e) => e.dm === key)}
              onPick={onPick}
            />
          );
        })}
      </ul>
    </nav>
  );
}
