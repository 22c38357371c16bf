// The capacity of one server process under a model of an organization's use,
// load generator included on the same machine, on SQLite and, with
// BENCH_POSTGRES_URL, on PostgreSQL (a schema of its own, dropped after).
// Each of N users has a client open, which holds a long-poll on an event
// queue and, each action at its period from a phase of its own:
//  - reports presence every 60 s, as Zulip's web app does: the client's first
//    report (last_update_id=-1, made when the client opens, before its first
//    trial) reads everyone's presence, and each later one sends the
//    presence_last_update_id of the previous answer, so that only the
//    entries changed since come back;
//  - sends a message every 2 minutes to their channel (channels of 50);
//  - reads the newest 50 messages of a topic of that channel every 5 minutes.
// The model's clock runs on from trial to trial, so every user keeps its
// periods across them and the load is the same throughout. Each size N is
// run as BENCH_CAPACITY_TRIALS (3) trials of BENCH_CAPACITY_SECONDS (20)
// open-loop, one after another under the same long-polls. A trial passes
// when no request fails, every message reaches its 50 polls, the p99 of sends
// (due -> answered) is under 200 ms and the p99 from a send being due to the
// last of its 50 polls answered is under 500 ms; a size passes when its
// median trial passes (at least 2 of 3). The search starts at an eighth of
// BENCH_CAPACITY_MAX (5,000), doubles while sizes pass (halves while they
// fail), then halves the gap between the last pass and the first failure
// twice; it prints the largest N that passed. The members are created as the
// search first needs them, so a size never tried costs no setup. A user's report within 55 s of
// the client opening is recorded without a write (the server's throttle), as
// it would be in a client's first minute.
// With BENCH_REDIS_URL too, the same model then runs against `npm run cluster`
// with one worker and with two (BENCH_CAPACITY_CLUSTER lists the sizes) on
// PostgreSQL and Redis (a schema and a key prefix of their own), each printed
// as a ratio to the SQLite process's capacity in the same run. With
// BENCH_CLUSTER_WORKERS (1 or 2), only the cluster of that size runs.
//   npm run bench:capacity   (BENCH_CAPACITY_SECONDS, BENCH_CAPACITY_MAX, BENCH_CAPACITY_TRIALS)
import { randomBytes } from 'node:crypto';
import { Agent } from 'node:http';
import { Client } from 'pg';
import {
  addUsers,
  call,
  sleep,
  startCluster,
  startServer,
  stopped,
  subscribeAll,
  withSchema,
  type BenchUser,
  type Started,
} from './load';
import {
  fire,
  figure,
  formShot,
  getShot,
  percentile,
  percentiles,
  spread,
  type Shot,
} from './open-loop';
import { deliveryTimes, registerQueues, startPollers, type Poll } from './pollers-client';

const seconds = Number(process.env.BENCH_CAPACITY_SECONDS || 20);
const channelSize = 50;
/** The most users tried, in whole channels. */
const maxUsers = Math.max(
  channelSize,
  Math.round(Number(process.env.BENCH_CAPACITY_MAX || 5000) / channelSize) * channelSize,
);
const trials = Number(process.env.BENCH_CAPACITY_TRIALS || 3);
const postgresUrl = process.env.BENCH_POSTGRES_URL || '';
const redisUrl = process.env.BENCH_REDIS_URL || '';
const clusterWorkers = Number(process.env.BENCH_CLUSTER_WORKERS || 0);
/**
 * The cluster sizes measured after SQLite and PostgreSQL (BENCH_CAPACITY_CLUSTER,
 * workers separated by commas): one and two workers when BENCH_REDIS_URL is set.
 */
const clusterSeries = (process.env.BENCH_CAPACITY_CLUSTER ?? (redisUrl && postgresUrl ? '1,2' : ''))
  .split(',')
  .filter(Boolean)
  .map(Number);
const goals = { sendP99: 200, deliveryP99: 500, users: 5000 };
const periods = { presence: 60, send: 120, read: 300 } as const;

type Kind = keyof typeof periods;

/** One scheduled request of a user, `at` milliseconds into the trial. */
interface Action {
  at: number;
  kind: Kind;
  user: number;
}

/** What one trial measured. */
interface Trial {
  sends: { due: number; ms: number; id?: number }[];
  sendP99: number;
  deliveryP99: number;
  failed: number;
  short: number;
  /** Presence entries per report answered in the trial, on average. */
  presenceEntries: number;
  passed: boolean;
}

/** The users of the model, their clients' state, and the model's clock. */
class Model {
  readonly users: BenchUser[] = [];
  /** Each user's phase of each action, in seconds within its period. */
  private readonly phases: Record<Kind, number>[] = [];
  /** Each user's presence_last_update_id from its previous report (-1: none yet). */
  readonly lastUpdateIds: number[] = [];
  /** Model seconds run so far: where the next trial starts. */
  private clock = 0;

  /** Users joining the model, each with phases of its own. */
  add(users: BenchUser[]): void {
    for (const user of users) {
      this.users.push(user);
      this.phases.push({
        presence: Math.random() * periods.presence,
        send: Math.random() * periods.send,
        read: Math.random() * periods.read,
      });
      this.lastUpdateIds.push(-1);
    }
  }

  /** The actions of users 0..n-1 over the next `seconds` of the model's clock, in order. */
  nextTrial(n: number): Action[] {
    const from = this.clock;
    this.clock += seconds;
    const actions: Action[] = [];
    for (let user = 0; user < n; user++)
      for (const kind of Object.keys(periods) as Kind[]) {
        const period = periods[kind];
        const phase = this.phases[user][kind];
        let t = phase + Math.ceil((from - phase) / period) * period;
        for (; t < from + seconds; t += period) actions.push({ at: (t - from) * 1000, kind, user });
      }
    return actions.sort((a, b) => a.at - b.at);
  }
}

const channelOf = (user: number) => `team ${Math.floor(user / channelSize)}`;

/** The request of `kind` for `user`; presence reports carry the client's last update ID. */
function shot(model: Model, kind: Kind, user: number): Shot {
  const as = model.users[user];
  if (kind === 'presence')
    return formShot(as, '/users/me/presence', {
      status: 'active',
      new_user_input: 'true',
      last_update_id: String(model.lastUpdateIds[user]),
    });
  if (kind === 'send')
    return formShot(as, '/messages', {
      type: 'stream',
      to: channelOf(user),
      topic: 'work',
      content: 'An update on **the work**, as usual.',
    });
  return getShot(as, '/messages', {
    anchor: 'newest',
    num_before: '50',
    num_after: '0',
    narrow: JSON.stringify([
      { operator: 'channel', operand: channelOf(user) },
      { operator: 'topic', operand: 'work' },
    ]),
  });
}

/** One trial of users 0..n-1 on `port`, their polls already waiting; delivery is judged later. */
async function runTrial(
  port: number,
  model: Model,
  n: number,
): Promise<Omit<Trial, 'deliveryP99' | 'short' | 'passed'>> {
  const agent = new Agent({ keepAlive: true, maxSockets: 512 });
  const sends: Trial['sends'] = [];
  let failed = 0;
  let reports = 0;
  let entries = 0;
  const start = performance.now() + 50;
  const pending: Promise<void>[] = [];
  for (const action of model.nextTrial(n)) {
    const due = start + action.at;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    pending.push(
      fire(port, agent, shot(model, action.kind, action.user)).then(({ status, text }) => {
        if (status !== 200) failed++;
        if (action.kind === 'send')
          sends.push({
            due: performance.timeOrigin + due,
            ms: performance.now() - due,
            id: status === 200 ? JSON.parse(text).id : undefined,
          });
        if (action.kind === 'presence' && status === 200) {
          const answer = JSON.parse(text);
          model.lastUpdateIds[action.user] = answer.presence_last_update_id;
          reports++;
          entries += Object.keys(answer.presences ?? {}).length;
        }
      }),
    );
  }
  await Promise.all(pending);
  agent.destroy();
  const sendTimes = sends.map((s) => s.ms).sort((a, b) => a - b);
  return {
    sends,
    // A trial without sends (a small organization's short trial) has none late.
    sendP99: sendTimes.length ? percentile(sendTimes, 99) : 0,
    failed,
    presenceEntries: reports ? entries / reports : 0,
  };
}

/** The capacity search on one server: the largest N that passed, and whether a size failed. */
async function search(
  chat: Started,
  port: number,
  label: string,
): Promise<{ good: number; bad: number }> {
  const model = new Model();
  model.add([chat.info as BenchUser, ...chat.info.users!]);
  const users = model.users;
  let setup = new Agent({ keepAlive: true, maxSockets: 16 });
  const queues: Poll[] = [];
  let subscribedTo = 0;

  /** Opens the clients of users up to n-1 (creating the users first): channels, a queue each, and the first presence report. */
  async function prepare(n: number): Promise<void> {
    if (users.length < n) {
      const started = performance.now();
      model.add(await addUsers(chat, n - users.length));
      // Its connections sat idle while the users were made, maybe up to the
      // server's keep-alive timeout, which a request sent as it closes them
      // would meet: start afresh.
      setup.destroy();
      setup = new Agent({ keepAlive: true, maxSockets: 16 });
      process.stdout.write(
        `${label}: ${users.length} users, the newest created in ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
      );
    }
    for (; subscribedTo < n; subscribedTo += channelSize)
      await subscribeAll(
        port,
        setup,
        users[0],
        channelOf(subscribedTo),
        users.slice(subscribedTo, subscribedTo + channelSize),
      );
    const opening = users.slice(queues.length, n);
    if (!opening.length) return;
    const first = queues.length;
    queues.push(...(await registerQueues(port, opening)));
    for (let i = first; i < n; i += 16)
      await Promise.all(
        users.slice(i, Math.min(n, i + 16)).map(async (user, j) => {
          const answer = await call(port, setup, user, 'POST', '/users/me/presence', {
            status: 'active',
            new_user_input: 'true',
            last_update_id: '-1',
          });
          if (answer.result !== 'success') throw new Error(`presence: ${JSON.stringify(answer)}`);
          model.lastUpdateIds[i + j] = answer.presence_last_update_id;
        }),
      );
  }

  /** Size n: `trials` trials under the same waiting polls; passes when the median trial does. */
  async function size(n: number): Promise<boolean> {
    await prepare(n);
    const pollers = await startPollers(port, queues.slice(0, n));
    await sleep(Math.max(1000, n));
    const runs = [];
    for (let t = 0; t < trials; t++) runs.push(await runTrial(port, model, n));
    await sleep(1000);
    const seen = await pollers.stop();
    const judged: Trial[] = runs.map((run, i) => {
      const { times, missing } = deliveryTimes(run.sends, seen, Math.min(channelSize, n));
      const deliveryP99 = times.length ? percentile(times, 99) : 0;
      const passed =
        run.failed === 0 &&
        missing === 0 &&
        run.sendP99 < goals.sendP99 &&
        deliveryP99 < goals.deliveryP99;
      process.stdout.write(
        `${String(n).padStart(5)} users, trial ${i + 1} of ${trials}: ${run.sends.length} sends, ${run.failed} failed requests, ${missing} not delivered to all, ${run.presenceEntries.toFixed(0)} presence entries per report; send p99 ${run.sendP99.toFixed(1)} ms; delivered ${percentiles(times)} -> ${passed ? 'pass' : 'fail'}\n`,
      );
      return { ...run, deliveryP99, short: missing, passed };
    });
    const passes = judged.filter((t) => t.passed).length;
    const passed = passes * 2 > trials;
    const p99s = (values: number[]) => {
      const { median, min, max } = spread(values);
      return `${median.toFixed(1)} ms (${min.toFixed(1)}-${max.toFixed(1)})`;
    };
    process.stdout.write(
      `${String(n).padStart(5)} users, ${label}: ${passes} of ${trials} trials pass -> ${passed ? 'pass' : 'fail'} (the median trial decides); p99 over the trials, median (range): send ${p99s(judged.map((t) => t.sendP99))}, delivered ${p99s(judged.map((t) => t.deliveryP99))}\n`,
    );
    return passed;
  }

  try {
    // Sizes are maxUsers / 2^k, in whole channels; start at k = 3.
    const rung = (k: number) =>
      Math.max(channelSize, Math.round(maxUsers / 2 ** k / channelSize) * channelSize);
    let good = 0;
    let bad = 0;
    for (let k = 3; ;) {
      const n = Math.min(maxUsers, rung(k));
      if (await size(n)) {
        good = n;
        while (k > 0 && rung(k) <= good) k--;
        if (bad || rung(k) <= good) break;
      } else {
        bad = n;
        while (rung(k) >= bad && rung(k) > channelSize) k++;
        if (good || rung(k) >= bad) break;
      }
    }
    // Two halvings of the gap between the last pass and the first failure.
    for (let step = 0; step < 2 && good && bad && bad - good > channelSize; step++) {
      const n = Math.round((good + bad) / 2 / channelSize) * channelSize;
      if (await size(n)) good = n;
      else bad = n;
    }
    return { good, bad };
  } finally {
    setup.destroy();
  }
}

/**
 * The search on one database (`env` names it; SQLite when empty), against
 * the server process that created the users or, with `workers`, against
 * `npm run cluster` with that many workers; answers the figure's value.
 */
async function capacity(
  name: string,
  env: Record<string, string>,
  workers = 0,
): Promise<{ good: number; bad: number }> {
  const started = performance.now();
  // The members are created as the search first needs them (with Welcome
  // Bot's messages off, as no trial reads them), so that an organization
  // never tried costs no setup.
  const chat = await startServer('chat', { ...env, WELCOME_MESSAGES: '0' });
  let cluster: Awaited<ReturnType<typeof startCluster>> | undefined;
  try {
    let port = chat.info.port;
    // With workers, the first process only creates users; the cluster serves the model.
    if (workers) {
      cluster = await startCluster({ ...env, DATABASE_URL: env.BENCH_DATABASE_URL }, workers);
      port = cluster.port;
    }
    const result = await search(chat, port, name);
    process.stdout.write(
      `${name}: search took ${((performance.now() - started) / 60_000).toFixed(1)} min\n`,
    );
    return result;
  } finally {
    chat.child.kill();
    if (cluster) await stopped(cluster.child);
  }
}

/** The figure's value: the largest size that passed. */
const sizeText = ({ good, bad }: { good: number; bad: number }) =>
  `${good} users${bad ? '' : ' (the most tried)'}`;

/** Runs `work` on a PostgreSQL schema of its own (and a Redis key prefix named after it), dropped after. */
async function onPostgres<T>(
  work: (env: Record<string, string>) => Promise<T>,
  withRedis = false,
): Promise<T> {
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const databaseUrl = withSchema(postgresUrl, schema);
  const env: Record<string, string> = { BENCH_DATABASE_URL: databaseUrl };
  if (withRedis)
    Object.assign(env, {
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: `${schema}:`,
      RATE_LIMIT_USER_REQUESTS: '100000000',
    });
  try {
    return await work(env);
  } finally {
    const pg = new Client({ connectionString: postgresUrl });
    await pg.connect();
    await pg.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pg.end();
  }
}

async function main(): Promise<void> {
  process.stdout.write(
    `capacity: sizes of ${trials} trials of ${seconds} s each; a trial passes when no request fails, every message reaches its polls, send p99 < ${goals.sendP99} ms and send -> delivered p99 < ${goals.deliveryP99} ms; a size passes when its median trial passes\n`,
  );
  if ((clusterWorkers || clusterSeries.length) && (!postgresUrl || !redisUrl))
    throw new Error('a cluster series needs BENCH_POSTGRES_URL and BENCH_REDIS_URL');
  if (clusterWorkers) {
    const result = await onPostgres((env) => capacity('PostgreSQL', env, clusterWorkers), true);
    process.stdout.write(
      `capacity postgresql, npm run cluster with ${clusterWorkers} workers: ${sizeText(result)}\n`,
    );
    return;
  }
  // One server process, the load generator and the pollers on the same machine.
  const sqlite = await capacity('SQLite', {});
  const figures = [figure('capacity sqlite', sizeText(sqlite), `>= ${goals.users} users`)];
  if (postgresUrl)
    figures.push(
      figure(
        'capacity postgresql',
        sizeText(await onPostgres((env) => capacity('PostgreSQL', env))),
        `>= ${goals.users} users`,
      ),
    );
  else process.stdout.write('PostgreSQL: not measured (set BENCH_POSTGRES_URL)\n');
  // The same model against npm run cluster, on the same machine, beside the SQLite process.
  for (const workers of clusterSeries) {
    const name = `npm run cluster with ${workers} worker${workers > 1 ? 's' : ''}`;
    const result = await onPostgres(
      (env) => capacity(`${name}, PostgreSQL and Redis`, env, workers),
      true,
    );
    figures.push(
      figure(
        `capacity, ${name} on PostgreSQL and Redis, over one SQLite process`,
        `ratio ${(result.good / Math.max(1, sqlite.good)).toFixed(2)} (${sizeText(result)} / ${sqlite.good})`,
        workers >= 2 ? '>= 1' : 'none, for comparison',
      ),
    );
  }
  process.stdout.write(`${figures.join('\n')}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
