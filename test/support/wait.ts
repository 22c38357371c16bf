// The one way a test waits: for a state, checked again and again until it
// holds, with a bound after which the test fails naming the state. No test
// sleeps a fixed time, and none asserts how long something took.
import { sample } from './metrics';

/** How long a state may take to come about before the test fails. */
export const WAIT_LIMIT_MS = 15_000;

/**
 * Resolves with the first truthy value `probe` returns, checking it every
 * few milliseconds; throws naming `state` when it has not held within `limitMs`.
 */
export async function waitFor<T>(
  state: string,
  probe: () => T | Promise<T>,
  limitMs = WAIT_LIMIT_MS,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + limitMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value as NonNullable<T>;
      last = value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(
        `waited ${limitMs} ms for ${state}; it never held (last probe: ${last instanceof Error ? last.message : JSON.stringify(last)})`,
      );
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * The value of `promise` (an answer, an exit), or a failure naming `state`
 * when it has not settled within `limitMs`: a hang fails the test there.
 */
export async function within<T>(
  state: string,
  promise: Promise<T>,
  limitMs = WAIT_LIMIT_MS,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`waited ${limitMs} ms for ${state}; it never came`)),
      limitMs,
    );
  });
  try {
    return await Promise.race([promise, bound]);
  } finally {
    clearTimeout(timer);
  }
}

interface HasQueues {
  services: { queues: { waitingPolls(): number } };
}

/** How many polls are parked on GET /events in `server`'s process. */
export async function parkedPolls(server: HasQueues): Promise<number> {
  return server.services.queues.waitingPolls();
}

/** Waits until at least `count` polls are parked on GET /events in `server`'s process. */
export async function waitForParkedPolls(server: HasQueues, count = 1): Promise<void> {
  await waitFor(
    `${count} poll(s) parked on GET /events`,
    async () => (await parkedPolls(server)) >= count,
  );
}

/** Polls parked on GET /events in the process at `url`, from its /metrics (chat_event_polls_waiting). */
export async function parkedPollsAt(url: string): Promise<number> {
  const res = await fetch(`${url}/metrics`);
  return sample(await res.text(), 'chat_event_polls_waiting') ?? 0;
}

/** Waits until at least `count` polls are parked in the process at `url`, as its /metrics says. */
export async function waitForParkedPollsAt(url: string, count = 1): Promise<void> {
  await waitFor(
    `${count} poll(s) parked on GET /events at ${url} (chat_event_polls_waiting)`,
    async () => (await parkedPollsAt(url)) >= count,
  );
}

/** Finished runs of the periodic task in the process at `url`, from its /metrics. */
export async function periodicTaskRuns(url: string): Promise<number> {
  const res = await fetch(`${url}/metrics`);
  return sample(await res.text(), 'chat_periodic_task_runs_total') ?? 0;
}
