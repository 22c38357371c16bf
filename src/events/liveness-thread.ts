// A thread of its own that keeps a process's liveness key (commit-marks.ts)
// alive while the process is busy. The main thread renews the key every
// second from a timer; under a burst (thousands of polls answered at once, a
// long garbage collection of a large heap) its timers can run many seconds
// late, and the others would take a live, working process for dead and drop
// every event queue, which brings every client back at once to register
// again: the burst made worse. This thread, with its own event loop, heap and
// Redis connection, extends the key every second as long as the main thread
// has shown a sign of life within the hang limit; past that (a main thread
// stuck in a loop, or waiting forever) it stops, and the key expires as a dead
// process's does. It only extends a key that exists (SET ... XX): the main
// thread creates it, and deletes it at a clean stop.
import { Worker } from 'node:worker_threads';

/** What the thread is told. */
interface LivenessJob {
  /** The path of ioredis's entry module, which the thread loads. */
  ioredis: string;
  url: string;
  key: string;
  livenessMs: number;
  hangMs: number;
  everyMs: number;
  /** One 64-bit slot: when the main thread last showed a sign of life (ms since the epoch). */
  beat: SharedArrayBuffer;
}

// Plain JavaScript, run by the thread as given (so that it runs the same from
// the compiled server and from TypeScript under test).
const THREAD_SOURCE = `
const { workerData: job } = require('node:worker_threads');
const Redis = require(job.ioredis);
const beat = new BigInt64Array(job.beat);
const client = new Redis(job.url, {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  connectTimeout: 2000,
  retryStrategy: (attempt) => Math.min(attempt * 100, 500),
});
client.on('error', () => undefined);
setInterval(() => {
  if (Date.now() - Number(Atomics.load(beat, 0)) > job.hangMs) return;
  client.set(job.key, '1', 'PX', job.livenessMs, 'XX').catch(() => undefined);
}, job.everyMs);
`;

/** The running thread, and the main thread's side of the beat. */
export class LivenessThread {
  private readonly beat: BigInt64Array;
  private readonly worker: Worker;

  /** Starts a thread extending `job.key` every `job.everyMs` for `job.livenessMs`. */
  constructor(
    job: Omit<LivenessJob, 'beat' | 'ioredis'>,
    /** Told when the thread fails; the main thread's own renewals go on without it. */
    onError: (error: Error) => void,
  ) {
    const shared = new SharedArrayBuffer(8);
    this.beat = new BigInt64Array(shared);
    this.alive();
    const data: LivenessJob = { ...job, beat: shared, ioredis: require.resolve('ioredis') };
    this.worker = new Worker(THREAD_SOURCE, { eval: true, workerData: data });
    this.worker.on('error', onError);
    this.worker.unref();
  }

  /** The main thread's sign of life, given from its own renewal timer. */
  alive(): void {
    Atomics.store(this.beat, 0, BigInt(Date.now()));
  }

  /**
   * Stops the thread, its connection with it. A renewal it sent last may
   * reach Redis after the main thread deletes the key at a clean stop: it
   * only extends a key that exists, so it does not bring it back.
   */
  async stop(): Promise<void> {
    await this.worker.terminate();
  }
}
