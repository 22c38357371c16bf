// A timer that runs a task every few seconds in this process (the delivery of
// scheduled messages, and the deletion of deactivated organizations whose
// deletion date has come), one run at a time, and can be stopped cleanly.
import type { Logger } from '../../log';

/** A running periodic task. */
export interface Scheduler {
  /** Stops the timer and waits for a run in progress to finish. */
  stop(): Promise<void>;
  /** Runs finished so far, failed ones included (for /metrics). */
  readonly runs: number;
}

/**
 * Runs `task` every `intervalSeconds` (never two runs at once; a failed run is
 * logged and the next one goes ahead). An interval of 0 starts nothing.
 */
export function startScheduler(
  intervalSeconds: number,
  task: () => Promise<unknown>,
  log: Logger,
): Scheduler {
  if (intervalSeconds <= 0) return { stop: async () => {}, runs: 0 };
  let running: Promise<void> | null = null;
  let runs = 0;
  const timer = setInterval(() => {
    if (running) return;
    running = task()
      .then(() => undefined)
      .catch((error) => log.error('scheduled task failed', { error: String(error) }))
      .finally(() => {
        running = null;
        runs++;
      });
  }, intervalSeconds * 1000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
    get runs() {
      return runs;
    },
  };
}
