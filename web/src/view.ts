// Loading the view's messages: a narrow's newest, older ones as the person
// scrolls up, and marking messages read once seen.
import { api, ok } from './api';
import { narrowHash, narrowTerms, type Narrow } from './narrow';
import { changed, showError, state, type Message } from './store';

const PAGE = 50;

/** Shows `narrow`: its newest messages, and the address that names it. */
export async function openNarrow(narrow: Narrow, pushAddress = true): Promise<void> {
  state.narrow = narrow;
  state.messages = [];
  state.foundOldest = false;
  state.error = '';
  if (pushAddress && location.hash !== narrowHash(narrow))
    history.pushState(null, '', narrowHash(narrow));
  changed();
  await reloadMessages();
}

/** Fetches the view's newest messages again (after a lost event queue, too). */
export async function reloadMessages(): Promise<void> {
  const narrow = state.narrow;
  state.loading = true;
  changed();
  try {
    const answer = await ok(
      api.GET('/messages', {
        params: {
          query: {
            anchor: 'newest',
            num_before: PAGE,
            num_after: 0,
            narrow: JSON.stringify(narrowTerms(narrow)),
            apply_markdown: true,
            client_gravatar: false,
          },
        },
      }),
    );
    if (state.narrow !== narrow) return;
    const fetched = answer.messages as unknown as Message[];
    // Keep what arrived by events meanwhile.
    const ids = new Set(fetched.map((m) => m.id));
    const later = state.messages.filter((m) => !ids.has(m.id));
    state.messages = [...fetched, ...later].sort((a, b) => a.id - b.id);
    state.foundOldest = Boolean(answer.found_oldest);
    const streamId = narrow.kind === 'channel' || narrow.kind === 'topic' ? narrow.streamId : 0;
    if (streamId && !state.subscriptions.has(streamId) && state.messages.length === 0)
      state.error = 'This channel does not exist, or you may not see it.';
    if (narrow.kind === 'channel' || narrow.kind === 'topic') void loadTopics(narrow.streamId);
  } catch (error) {
    if (state.narrow === narrow) showError(error);
  } finally {
    state.loading = false;
    changed();
  }
}

/** Fetches the messages before the oldest one shown. */
export async function loadOlder(): Promise<void> {
  if (state.loading || state.foundOldest || state.messages.length === 0) return;
  const narrow = state.narrow;
  state.loading = true;
  changed();
  try {
    const answer = await ok(
      api.GET('/messages', {
        params: {
          query: {
            anchor: state.messages[0].id,
            include_anchor: false,
            num_before: PAGE,
            num_after: 0,
            narrow: JSON.stringify(narrowTerms(narrow)),
            apply_markdown: true,
            client_gravatar: false,
          },
        },
      }),
    );
    if (state.narrow !== narrow) return;
    state.messages = [...(answer.messages as unknown as Message[]), ...state.messages];
    state.foundOldest = Boolean(answer.found_oldest);
  } catch (error) {
    showError(error);
  } finally {
    state.loading = false;
    changed();
  }
}

/** Fetches a channel's topics for the left sidebar. */
export async function loadTopics(streamId: number): Promise<void> {
  try {
    const answer = await ok(
      api.GET('/users/me/{stream_id}/topics', { params: { path: { stream_id: streamId } } }),
    );
    state.topics.set(
      streamId,
      answer.topics.map((t) => t.name),
    );
    changed();
  } catch {
    // The sidebar keeps the topics it knows.
  }
}

const seen = new Set<number>();
let flushing: ReturnType<typeof setTimeout> | undefined;

/** Marks a message the person has seen as read (in batches). */
export function markSeen(id: number): void {
  if (!state.unread.has(id) || seen.has(id)) return;
  seen.add(id);
  flushing ??= setTimeout(() => {
    flushing = undefined;
    const ids = [...seen];
    seen.clear();
    void ok(
      api.POST('/messages/flags', { body: { messages: ids, op: 'add', flag: 'read' } }),
    ).catch(showError);
  }, 300);
}
