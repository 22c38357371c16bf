// On SQLite the server's connection never checkpoints its write-ahead log in
// a commit: a worker thread with a connection of its own copies the log into
// the database file (src/db/sqlite-checkpoints.ts). Committed messages must
// reach the file once the log holds enough of them, a worker that fails must
// hand checkpoints back, and a stopped server leaves everything in the file.
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Driver from 'better-sqlite3';
import { parseDatabaseUrl } from '../src/db/url';
import { createTestDatabase } from './support/database';
import { TestServer, type Cast } from './support/server';
import { waitFor } from './support/wait';

/** The SQLite file `server` runs on. */
function fileOf(server: TestServer): string {
  const target = parseDatabaseUrl(server.services.config.databaseUrl);
  if (target.provider !== 'sqlite') throw new Error('this file runs on SQLite only');
  return target.file;
}

/** Whether the database file alone, without its log, holds a message with `content`. */
function fileHolds(file: string, content: string): boolean {
  const dir = mkdtempSync(join(tmpdir(), 'chat-checkpoint-'));
  try {
    copyFileSync(file, join(dir, 'copy.db'));
    const copy = new Driver(join(dir, 'copy.db'));
    try {
      return copy.prepare('SELECT 1 FROM Message WHERE content = ?').get(content) !== undefined;
    } finally {
      copy.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The server connection's automatic checkpoint threshold, in pages (0: never). */
async function autocheckpointPages(server: TestServer): Promise<number> {
  const [row] = await server.services.db.read((db) =>
    db.$queryRawUnsafe<{ wal_autocheckpoint: number | bigint }[]>('PRAGMA wal_autocheckpoint'),
  );
  return Number(row.wal_autocheckpoint);
}

async function sendTo(server: TestServer, cast: Cast, content: string): Promise<void> {
  const res = await server.call('POST', '/messages', {
    as: cast.owner,
    params: { type: 'direct', to: JSON.stringify([cast.member.id]), content },
  });
  expect(res.status).toBe(200);
}

describe('a running server', () => {
  let server: TestServer;
  let cast: Cast;
  beforeAll(async () => {
    ({ server, cast } = await TestServer.startWithCast());
  });
  afterAll(() => server.stop());

  test('copies committed messages into the database file, its own connection never checkpointing', async () => {
    expect(await autocheckpointPages(server)).toBe(0);
    const first = `checkpointed ${Date.now()}`;
    await sendTo(server, cast, first);
    // Messages until the log holds enough pages for the worker to copy it.
    let sent = 1;
    await waitFor('the first message to be in the database file', async () => {
      if (fileHolds(fileOf(server), first)) return true;
      await sendTo(server, cast, `filler ${sent++}`);
      return false;
    });
  });

  test('copies the whole log in a checkpoint while the server reads and writes', async () => {
    const sends = Array.from({ length: 20 }, (_, i) => sendTo(server, cast, `busy ${i}`));
    await Promise.all(sends);
    const result = await server.services.db.checkpointer!.checkpoint();
    expect(result.busy).toBe(false);
    expect(result.copied).toBe(result.logged);
  });
});

test('a worker that fails hands checkpoints back to the connection, and says so', async () => {
  const lines: string[] = [];
  const { server, cast } = await TestServer.startWithCast({ LOG_LEVEL: 'warn' }, lines);
  try {
    const checkpointer = server.services.db.checkpointer!;
    // The worker thread dies as a crash would end it.
    await (
      checkpointer as unknown as { worker: { terminate(): Promise<number> } }
    ).worker.terminate();
    await waitFor('the failure to be noticed', () => checkpointer.failed);
    expect(await autocheckpointPages(server)).toBe(1000);
    expect(lines.join('\n')).toContain('background checkpoints failed');
    await expect(checkpointer.checkpoint()).rejects.toThrow(/checkpoints failed/);
    await sendTo(server, cast, 'still sending');
  } finally {
    await server.stop();
  }
});

test('a stopped server leaves every message in the database file and no log', async () => {
  const database = await createTestDatabase({ withCast: true });
  try {
    const server = await TestServer.startOn(database, {});
    const cast = await server.readCast();
    await sendTo(server, cast, 'kept on stop');
    await server.stop();
    const file = fileOf(server);
    expect(existsSync(`${file}-wal`)).toBe(false);
    expect(fileHolds(file, 'kept on stop')).toBe(true);
  } finally {
    await database.drop();
  }
});
