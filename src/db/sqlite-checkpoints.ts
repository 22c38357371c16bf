// SQLite in WAL mode appends each commit to the write-ahead log; a checkpoint
// copies the log back into the database file, so that the next writer can
// start the log over. Left to SQLite, the commit that takes the log past 1,000
// pages runs that checkpoint itself, fsync included: on the server's one
// connection, that is on the event loop, inside whichever request committed.
// Measured on `bench:floors`, that one commit in a thousand was half of the
// p99 from a send to its delivery.
//
// So the server's connection never checkpoints. A worker thread with a
// connection of its own watches the log and, once 1,000 pages wait to be
// copied (SQLite's own threshold, so that a page written often is copied as
// seldom as before), runs a PASSIVE checkpoint: it copies what every reader is
// done with and waits for no one, and the server's reads and writes never
// wait for it. A PASSIVE checkpoint can fall short only of frames a reader
// still needs, and the server's reads hold no snapshot across an await (a
// transaction's snapshot is the latest commit), so each one catches up with
// the log and the next commit starts it over. Should the worker fail, the
// server's connection checkpoints for itself again.
//
// The worker learns how much of the log waits from the WAL-index header in
// the `-shm` file, whose layout SQLite documents (walformat.html): the last
// committed frame (`mxFrame`, at byte 16) and the last one copied
// (`nBackfill`, at byte 96), in the machine's byte order. Reading those 100
// bytes a few times a second costs next to nothing; a checkpoint of a log
// with nothing to copy would still take its locks and read the index.
import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';

/** How often the worker looks at the log. */
const WATCH_MS = 100;

/** Pages waiting in the log that make the worker checkpoint: SQLite's own default. */
const CHECKPOINT_PAGES = 1000;

/**
 * The log file is cut back to this size when it starts over, so that one burst
 * of writes does not leave a large file behind.
 */
const LOG_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * The worker's program; the driver's path comes in `workerData`, so that it
 * runs from the sources under test as from the build. It reports only what it
 * is asked for, and failures: a quiet timer does not wake the event loop.
 */
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const { closeSync, openSync, readSync } = require('node:fs');
const { endianness } = require('node:os');
const Driver = require(workerData.driver);
const db = new Driver(workerData.file, { timeout: 0 });
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)').raw();
const header = Buffer.alloc(100);
const read = endianness() === 'LE' ? 'readUInt32LE' : 'readUInt32BE';
let index;
const waiting = () => {
  try {
    index ??= openSync(workerData.file + '-shm', 'r');
    if (readSync(index, header, 0, 100, 0) < 100) return 0;
    return header[read](16) - header[read](96);
  } catch {
    return 0;
  }
};
const run = (asked) => {
  try {
    const [busy, logged, copied] = checkpoint.get();
    if (asked) parentPort.postMessage({ kind: 'checkpointed', busy, logged, copied });
  } catch (error) {
    parentPort.postMessage({ kind: 'failed', error: String(error) });
  }
};
const timer = setInterval(() => {
  if (waiting() >= workerData.pages) run(false);
}, workerData.watchMs);
parentPort.on('message', (message) => {
  if (message === 'now') return run(true);
  clearInterval(timer);
  if (index !== undefined) closeSync(index);
  db.close();
  parentPort.close();
});
parentPort.postMessage({ kind: 'ready' });
`;

/** One checkpoint's outcome, as SQLite reports it. */
export interface CheckpointResult {
  /** Whether another checkpoint held the log, so that this one did nothing. */
  busy: boolean;
  /** Frames in the log. */
  logged: number;
  /** Frames of the log now in the database file. */
  copied: number;
}

type WorkerMessage =
  | { kind: 'ready' }
  | { kind: 'failed'; error: string }
  | { kind: 'checkpointed'; busy: number; logged: number; copied: number };

interface Waiter {
  resolve: (result: CheckpointResult) => void;
  reject: (error: Error) => void;
}

/** The worker thread that checkpoints a SQLite database's log. */
export class SqliteCheckpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;
  private waiting: Waiter[] = [];
  private stopping = false;
  /** Set when the worker failed and the connection checkpoints for itself. */
  failed: string | null = null;

  private constructor(
    file: string,
    private readonly connection: BetterSqlite3.Database,
    private readonly warn: (what: string, fields: Record<string, unknown>) => void,
  ) {
    connection.pragma(`journal_size_limit = ${LOG_SIZE_LIMIT_BYTES}`);
    connection.pragma('wal_autocheckpoint = 0');
    this.worker = new Worker(workerSource, {
      eval: true,
      workerData: {
        file,
        driver: require.resolve('better-sqlite3'),
        watchMs: WATCH_MS,
        pages: CHECKPOINT_PAGES,
      },
    });
    // The worker never keeps the process alive on its own.
    this.worker.unref();
    this.worker.on('message', (message: WorkerMessage) => this.receive(message));
    this.worker.on('error', (error) => this.fail(String(error)));
    this.exited = new Promise((resolve) =>
      this.worker.once('exit', (code) => {
        if (!this.stopping) this.fail(`the worker exited with code ${code}`);
        resolve();
      }),
    );
  }

  /**
   * Starts checkpointing `file`, whose server connection is `connection`;
   * resolves once the worker's connection is open, or the worker has failed.
   */
  static async start(
    file: string,
    connection: BetterSqlite3.Database,
    warn: (what: string, fields: Record<string, unknown>) => void,
  ): Promise<SqliteCheckpointer> {
    const checkpointer = new SqliteCheckpointer(file, connection, warn);
    await new Promise<void>((resolve) => {
      const ready = (message: WorkerMessage) => {
        if (message.kind !== 'ready') return;
        checkpointer.worker.off('message', ready);
        resolve();
      };
      checkpointer.worker.on('message', ready);
      void checkpointer.exited.then(() => resolve());
    });
    return checkpointer;
  }

  /** Runs a checkpoint now, beside the timer's; resolves with its outcome. */
  checkpoint(): Promise<CheckpointResult> {
    if (this.failed) return Promise.reject(new Error(`checkpoints failed: ${this.failed}`));
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.worker.postMessage('now');
    });
  }

  /** Stops the worker and closes its connection. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (!this.failed) this.worker.postMessage('stop');
    await this.exited;
  }

  private receive(message: WorkerMessage): void {
    if (message.kind === 'failed') return this.fail(message.error);
    if (message.kind !== 'checkpointed') return;
    const result = { busy: message.busy === 1, logged: message.logged, copied: message.copied };
    // Answers come in the order asked.
    this.waiting.shift()?.resolve(result);
  }

  /**
   * Hands checkpoints back to the server's connection, as SQLite does them by
   * default: the log never grows without bound for want of a worker.
   */
  private fail(error: string): void {
    if (this.failed) return;
    this.failed = error;
    this.warn('background checkpoints failed; the connection checkpoints for itself', { error });
    if (this.connection.open) this.connection.pragma(`wal_autocheckpoint = ${CHECKPOINT_PAGES}`);
    void this.worker.terminate();
    const waiting = this.waiting;
    this.waiting = [];
    for (const { reject } of waiting) reject(new Error(`checkpoints failed: ${error}`));
  }
}
