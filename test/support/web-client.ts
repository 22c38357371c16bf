// What the browser tests of the web client need: the client built (once, into
// web/dist, safely when two test processes build at the same time), and a
// TCP relay at a fixed address in front of the test server, so that a
// restarted server on a new port keeps the page's origin.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, renameSync, rmSync, mkdirSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..', '..');

/** Builds web/ into web/dist: into a folder of its own first, then moved in file by file. */
export function buildWebClient(): void {
  const out = mkdtempSync(join(tmpdir(), 'web-build-'));
  try {
    execFileSync(
      process.execPath,
      [
        join(root, 'node_modules', 'vite', 'bin', 'vite.js'),
        'build',
        join(root, 'web'),
        '--outDir',
        out,
      ],
      { cwd: root, stdio: 'pipe' },
    );
    const dist = join(root, 'web', 'dist');
    mkdirSync(join(dist, 'web-assets'), { recursive: true });
    // Assets carry their content's hash in their names: copying one over itself changes nothing.
    cpSync(join(out, 'web-assets'), join(dist, 'web-assets'), { recursive: true });
    // The page last, replaced in one step.
    const page = join(dist, `index.html.${process.pid}`);
    cpSync(join(out, 'index.html'), page);
    renameSync(page, join(dist, 'index.html'));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  if (!existsSync(join(root, 'web', 'dist', 'index.html'))) throw new Error('web client not built');
}

/** A relay from a fixed local port to whichever server port is current. */
export interface Relay {
  url: string;
  /** Sends new connections to `port`, and cuts the ones open to the previous server. */
  point(port: number): void;
  close(): Promise<void>;
}

/** Starts a relay on a free local port. */
export async function startRelay(): Promise<Relay> {
  let target = 0;
  const open = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(target, '127.0.0.1');
    open.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    point(next) {
      target = next;
      for (const socket of open) socket.destroy();
      open.clear();
    },
    close: () =>
      new Promise<void>((done) => {
        for (const socket of open) socket.destroy();
        server.close(() => done());
      }),
  };
}
