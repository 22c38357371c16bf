// The CPU cost of a presence report in an organization of
// BENCH_PRESENCE_MEMBERS members (2,000 unless set), in this process on a fresh
// SQLite database. A report as the capacity model makes it: a member who last
// reported a minute ago reports again (a write), then reads what changed since
// their previous report, which with everyone reporting each minute is nearly
// the whole organization. The answer is read from the presence cache, against
// the baseline of the single query over every row that answered it before
// (lib/users/presence.ts before the cache), in the same run, taking turns
// BENCH_ROUNDS times (3 unless set), BENCH_REPORTS reports a turn. Also the
// check of a report within the throttle (nothing to write): one prepared read,
// against the Prisma model read in a write transaction it was.
//   npm run bench:presence
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Prisma, type Realm, type User } from '../generated/prisma/sqlite/client';
import { doCreateRealm } from '../src/actions/realm/realms';
import { doCreateUser } from '../src/actions/users/users';
import { doUpdatePresence } from '../src/actions/users/presence';
import { loadConfig } from '../src/config';
import { queryRows, type Db } from '../src/db/client';
import { Role } from '../src/lib/constants';
import { modernPresence, readPresences } from '../src/lib/users/presence';
import { createLogger } from '../src/log';
import type { Services } from '../src/services';
import { closeServices, createServices } from '../src/startup';
import { figure, ratios, withSpread } from './open-loop';

const members = Number(process.env.BENCH_PRESENCE_MEMBERS || 2000);
const rounds = Number(process.env.BENCH_ROUNDS || 3);
const reports = Number(process.env.BENCH_REPORTS || 150);

/** The answer as the single query over every row built it (the baseline). */
async function uncachedDelta(db: Db, realmId: number, after: number) {
  const rows = await queryRows<{
    userId: number;
    lastActiveTime: Date | null;
    lastConnectedTime: Date | null;
    lastUpdateId: number;
    email: string;
    emailAddressVisibility: number;
    dateJoined: Date;
  }>(
    db,
    Prisma.sql`SELECT p."userId", p."lastActiveTime", p."lastConnectedTime", p."lastUpdateId", u."email", u."emailAddressVisibility", u."dateJoined"
    FROM "UserPresence" p JOIN "User" u ON u."id" = p."userId"
    WHERE p."realmId" = ${realmId} AND u."isActive" = ${true} AND u."isBot" = ${false} AND u."presenceEnabled" = ${true}
    AND p."lastUpdateId" > ${after}`,
  );
  const presences: Record<string, ReturnType<typeof modernPresence>> = {};
  let lastUpdateId = after;
  for (const r of rows) {
    presences[String(r.userId)] = modernPresence({ ...r, user: { dateJoined: r.dateJoined } });
    lastUpdateId = Math.max(lastUpdateId, Number(r.lastUpdateId));
  }
  return { presences, lastUpdateId };
}

/** CPU microseconds of `fn`. */
async function cpu(fn: () => Promise<unknown>): Promise<number> {
  const start = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(start);
  return used.user + used.system;
}

async function setUp(services: Services) {
  const { realm } = await doCreateRealm(services, {
    name: 'Presence',
    stringId: '',
    owner: { email: 'owner@example.com', fullName: 'Owner', password: 'owner-password' },
  });
  const users: User[] = [];
  for (let i = 0; i < members; i++)
    users.push(
      await doCreateUser(services, realm, {
        email: `member${i}@example.com`,
        fullName: `Member ${i}`,
        role: Role.MEMBER,
        password: null,
      }),
    );
  // Everyone reported a minute ago, in turn.
  const minuteAgo = new Date(Date.now() - 60_000);
  await services.db.write(async (tx) => {
    await tx.userPresence.createMany({
      data: users.map((u, i) => ({
        userId: u.id,
        realmId: realm.id,
        lastActiveTime: minuteAgo,
        lastConnectedTime: minuteAgo,
        lastUpdateId: i + 1,
      })),
    });
    await tx.realm.update({ where: { id: realm.id }, data: { presenceLastUpdateId: members } });
  });
  return { realm, users };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-presence-'));
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: `file:${join(dir, 'bench.db')}`,
    UPLOADS_DIR: join(dir, 'uploads'),
    REDIS_URL: '',
  });
  const services = await createServices(config, createLogger('error'));
  try {
    const started = Date.now();
    const { realm, users } = await setUp(services);
    process.stderr.write(`${members} members created in ${Date.now() - started} ms\n`);
    let next = 0;
    let sequence = members;
    /** One report: the next member writes, then reads the changes since a minute ago. */
    const report = async (read: (db: Db, after: number) => Promise<{ presences: object }>) => {
      const user = users[next++ % members];
      await doUpdatePresence(services, realm, user, 'active');
      sequence++;
      let entries = 0;
      const readCpu = await cpu(async () => {
        const answer = await services.db.read((db) => read(db, sequence - members + 1));
        entries = Object.keys(answer.presences).length;
      });
      return { readCpu, entries };
    };
    const uncached = (db: Db, after: number) => uncachedDelta(db, realm.id, after);
    const cached = (db: Db, after: number) =>
      readPresences(db, services.presence, realm, {
        lastUpdateId: after,
        historyLimitDays: 14,
        modern: true,
        externalUrl: config.externalUrl,
      });
    const turn = async (read: typeof cached) => {
      let readCpu = 0;
      let entries = 0;
      const total = await cpu(async () => {
        for (let i = 0; i < reports; i++) {
          const one = await report(read);
          readCpu += one.readCpu;
          entries += one.entries;
        }
      });
      return { report: total / reports, read: readCpu / reports, entries: entries / reports };
    };
    await turn(cached); // warm-up: statements prepared, the cache filled
    await turn(uncached);
    const before: Awaited<ReturnType<typeof turn>>[] = [];
    const after: Awaited<ReturnType<typeof turn>>[] = [];
    for (let r = 0; r < rounds; r++) {
      before.push(await turn(uncached));
      after.push(await turn(cached));
    }
    const us = (xs: number[]) => `${withSpread(xs.map((x) => x / 1000))} ms`;
    process.stdout.write(
      `${members} members, ${after[0].entries.toFixed(0)} entries an answer; ${rounds} rounds of ${reports} reports each\n` +
        `read, one query over every row: ${us(before.map((b) => b.read))}; from the cache: ${us(after.map((a) => a.read))}\n` +
        `report (write + read), before: ${us(before.map((b) => b.report))}; after: ${us(after.map((a) => a.report))}\n`,
    );
    process.stdout.write(
      `${figure(
        'presence read CPU, cache / one query',
        `ratio ${withSpread(
          ratios(
            after.map((a) => a.read),
            before.map((b) => b.read),
          ),
        )}`,
        '< 0.5',
      )}\n`,
    );
    process.stdout.write(
      `${figure(
        'presence report CPU, cache / one query',
        `ratio ${withSpread(
          ratios(
            after.map((a) => a.report),
            before.map((b) => b.report),
          ),
        )}`,
        '< 0.7',
      )}\n`,
    );
    await throttledCheck(services, realm, users[0]);
  } finally {
    await closeServices(services);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A report within the throttle (the member reported just now): its check,
 * against the Prisma model read in a write transaction it was.
 */
async function throttledCheck(services: Services, realm: Realm, user: User): Promise<void> {
  await doUpdatePresence(services, realm, user, 'active');
  const times = 500;
  const before: number[] = [];
  const after: number[] = [];
  for (let r = 0; r < rounds; r++) {
    before.push(
      await cpu(async () => {
        for (let i = 0; i < times; i++)
          await services.db.write((tx) =>
            tx.userPresence.findUnique({ where: { userId: user.id } }),
          );
      }),
    );
    after.push(
      await cpu(async () => {
        for (let i = 0; i < times; i++) await doUpdatePresence(services, realm, user, 'active');
      }),
    );
  }
  process.stdout.write(
    `throttled report check, before: ${withSpread(before.map((b) => b / times))} us; after: ${withSpread(after.map((a) => a / times))} us\n`,
  );
  process.stdout.write(
    `${figure(
      'presence throttled check CPU, one read / model read in a write',
      `ratio ${withSpread(ratios(after, before))}`,
      '< 0.5',
    )}\n`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
