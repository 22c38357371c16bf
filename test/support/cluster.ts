// Several servers on one database and one Redis key prefix, as the processes
// of one deployment: in this process (each with services of its own, sharing
// nothing with the others but the database and Redis), or as real child
// processes that a test can kill.
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { createTestDatabase, type TestDatabase } from './database';
import { dropRedisKeys, redisEnv } from './redis';
import { ApiClient, TestServer } from './server';

const root = resolve(__dirname, '..', '..');

/** A server running in a child process. */
export class ChildServer extends ApiClient {
  /** Resolves with the exit code (or signal) once the process has exited. */
  readonly exited: Promise<number | string>;

  constructor(
    url: string,
    private readonly child: ChildProcess,
    /** Its name in Redis (its liveness key is `proc:<name>`), when it shares one. */
    readonly processId: string | undefined,
    /** The JSON lines it printed on stdout, as they come. */
    readonly lines: Record<string, unknown>[],
  ) {
    super(url);
    this.exited = new Promise((done) =>
      child.once('exit', (code, signal) => done(code ?? signal ?? 'unknown')),
    );
  }

  /** Sends `signal` to the process. */
  kill(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }
}

/** The servers of one deployment, sharing a fresh database and Redis key prefix. */
export class TestCluster {
  readonly servers: TestServer[] = [];
  private readonly children: ChildServer[] = [];

  private constructor(
    private readonly database: TestDatabase,
    /** The configuration every server of the cluster shares. */
    readonly env: Record<string, string>,
  ) {}

  /** Starts `count` servers in this process; `env` adds configuration variables to each. */
  static async start(count: number, env: Record<string, string> = {}): Promise<TestCluster> {
    // On Redis when the run uses it (the PostgreSQL run); otherwise each process keeps its own memory.
    const cluster = new TestCluster(await createTestDatabase(), { ...redisEnv(), ...env });
    // The first server migrates the database; the others start on it together.
    cluster.servers.push(await TestServer.startOn(cluster.database, cluster.env));
    cluster.servers.push(
      ...(await Promise.all(
        Array.from({ length: count - 1 }, () => TestServer.startOn(cluster.database, cluster.env)),
      )),
    );
    return cluster;
  }

  /** Starts one more server of the cluster in a child process. */
  async spawn(env: Record<string, string> = {}): Promise<ChildServer> {
    const child = spawn(
      process.execPath,
      [
        '-r',
        resolve(root, 'test/support/ts-register.js'),
        resolve(root, 'test/support/child-server.ts'),
      ],
      {
        cwd: root,
        env: {
          ...process.env,
          RATE_LIMIT_USER_REQUESTS: '100000',
          RATE_LIMIT_IP_REQUESTS: '100000',
          RATE_LIMIT_AUTH_ATTEMPTS: '1000',
          EVENT_HEARTBEAT_SECONDS: '1',
          EXTERNAL_URL: 'http://chat.test',
          LOG_LEVEL: 'error',
          ...this.env,
          ...env,
          PORT: '0',
          HOST: '127.0.0.1',
          DATABASE_URL: this.database.url,
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const printed: Record<string, unknown>[] = [];
    const started = await new Promise<{ listening: string; process?: string }>((done, fail) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        try {
          const parsed = JSON.parse(line) as { listening?: string; process?: string };
          printed.push(parsed);
          if (parsed.listening) done(parsed as { listening: string; process?: string });
        } catch {
          // not JSON
        }
      });
      child.once('exit', (code) => fail(new Error(`child server exited with ${code}`)));
    });
    const server = new ChildServer(started.listening, child, started.process, printed);
    this.children.push(server);
    return server;
  }

  /** Stops every server, then removes the database and the Redis keys. */
  async stop(): Promise<void> {
    for (const child of this.children) child.kill('SIGKILL');
    await Promise.all(this.children.map((c) => c.exited));
    await Promise.all(this.servers.map((s) => s.stop()));
    await this.database.drop();
    if (this.env.REDIS_URL) await dropRedisKeys(this.env.REDIS_URL, this.env.REDIS_KEY_PREFIX);
  }
}
