// What the indexes of UserMessage cost a send, on SQLite: a message and its
// 51 recipient rows written and committed with better-sqlite3 (the server's
// pragmas) on copies of one migrated database, each altered one way. Prints
// the CPU per message of each variant, best of three rounds, as a ratio to
// the schema as migrated. A study for choosing the schema, not a pass/fail
// test.
//   npm run bench:schema   (BENCH_SCHEMA_MESSAGES: 3,000 per round)
import BetterSqlite3 from 'better-sqlite3';
import { copyFileSync, rmSync } from 'node:fs';
import { parseDatabaseUrl } from '../src/db/url';
import { startServer, type BenchUser } from './load';

const messages = Number(process.env.BENCH_SCHEMA_MESSAGES || 3000);

/** Each variant: the statements that make it from the migrated schema. */
const variants: Record<string, string[]> = {
  'as migrated': [],
  'unread rows in a partial index (userId, messageId) WHERE read = 0': [
    'DROP INDEX "UserMessage_userId_read_idx"',
    'CREATE INDEX "UserMessage_unread" ON "UserMessage"("userId", "messageId") WHERE "read" = 0',
  ],
  'no unread index (unread lookups scan the user rows)': [
    'DROP INDEX "UserMessage_userId_read_idx"',
  ],
  'no (userId, messageId) unique index': ['DROP INDEX "UserMessage_userId_messageId_key"'],
  'no search trigger on Message': ['DROP TRIGGER "Message_search_insert"'],
  'foreign keys not checked': ['PRAGMA foreign_keys = OFF'],
};

/** CPU microseconds per message and its recipient rows on a copy of `file` altered by `statements`. */
function measure(file: string, statements: string[], userIds: number[]): number {
  const copy = `${file}.variant`;
  for (const suffix of ['', '-wal', '-shm']) rmSync(copy + suffix, { force: true });
  copyFileSync(file, copy);
  const db = new BetterSqlite3(copy);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.pragma('synchronous = NORMAL');
    for (const statement of statements) db.exec(statement);
    const { realmId } = db
      .prepare('SELECT "realmId" FROM "User" WHERE "id" = ?')
      .get(userIds[0]) as {
      realmId: number;
    };
    const message = db.prepare(
      `INSERT INTO "Message" ("realmId", "senderId", "topic", "topicLower", "content", "renderedContent", "dateSent") VALUES (?, ?, 'study', 'study', ?, ?, ?) RETURNING "id"`,
    );
    const recipients = db.prepare(
      `INSERT INTO "UserMessage" ("userId", "messageId", "read") VALUES ${userIds.map(() => '(?, ?, ?)').join(', ')}`,
    );
    const send = db.transaction(() => {
      const { id } = message.get(
        realmId,
        userIds[0],
        'Hello **everyone**',
        '<p>Hello <strong>everyone</strong></p>',
        new Date().toISOString(),
      ) as { id: number };
      recipients.run(userIds.flatMap((userId) => [userId, id, userId === userIds[0] ? 1 : 0]));
    });
    for (let i = 0; i < messages / 6; i++) send();
    const before = process.cpuUsage();
    for (let i = 0; i < messages; i++) send();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / messages;
  } finally {
    db.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(copy + suffix, { force: true });
  }
}

async function main(): Promise<void> {
  // A migrated database with an organization of 51 users, left by a server that then stops.
  const chat = await startServer('chat', { BENCH_USERS: '50' });
  const users = [chat.info as BenchUser, ...chat.info.users!];
  const target = parseDatabaseUrl(chat.info.databaseUrl!);
  chat.child.kill();
  await new Promise((resolve) => chat.child.once('exit', resolve));
  if (target.provider !== 'sqlite') throw new Error('the schema study runs on SQLite');
  const settle = new BetterSqlite3(target.file);
  settle.pragma('wal_checkpoint(TRUNCATE)');
  settle.close();

  const best = new Map<string, number>();
  for (let round = 0; round < 3; round++)
    for (const [name, statements] of Object.entries(variants)) {
      const cpu = measure(
        target.file,
        statements,
        users.map((u) => u.id),
      );
      best.set(name, Math.min(best.get(name) ?? Infinity, cpu));
    }
  const base = best.get('as migrated')!;
  process.stdout.write(
    `one message and its ${users.length} recipient rows, ${messages} messages per round, best of 3\n`,
  );
  for (const [name, cpu] of best)
    process.stdout.write(
      `${name.padEnd(70)} ${cpu.toFixed(0).padStart(6)} us CPU   ratio ${(cpu / base).toFixed(3)}\n`,
    );
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
