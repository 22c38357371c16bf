// What the browser tests of the web client need: the client built (into
// web/dist, safely when two test processes build at the same time, and only
// when its sources differ from those of the last build), and a
// TCP relay at a fixed address in front of the test server, so that a
// restarted server on a new port keeps the page's origin.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  mkdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..', '..');

/** What the web client's build reads (as scripts/run-built.mjs lists it), and the lock file. */
const webInputs = [
  'web/src',
  'web/index.html',
  'web/vite.config.mjs',
  'web/tsconfig.json',
  'generated/api.d.ts',
  'package.json',
  'package-lock.json',
];

/** A hash of the contents of `paths` under the root, files in name order. */
function hashOf(paths: string[]): string {
  const hash = createHash('sha256');
  const add = (path: string) => {
    const full = join(root, path);
    if (!existsSync(full)) return hash.update(`${path}: none\n`);
    if (statSync(full).isDirectory()) {
      for (const entry of readdirSync(full).sort()) add(join(path, entry));
      return hash;
    }
    return hash.update(`${path}: ${readFileSync(full).length}\n`).update(readFileSync(full));
  };
  for (const path of paths) add(path);
  return hash.digest('hex');
}

/**
 * Builds web/ into web/dist: into a folder of its own first, then moved in
 * file by file. Skipped when web/dist holds a build of these very sources
 * (the hash of what the build reads, written beside it): the suite's two
 * projects build once between them.
 */
export function buildWebClient(): void {
  const dist = join(root, 'web', 'dist');
  const sources = hashOf(webInputs);
  const record = join(dist, '.sources-sha256');
  if (
    existsSync(join(dist, 'index.html')) &&
    existsSync(record) &&
    readFileSync(record, 'utf8') === sources
  )
    return;
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
    mkdirSync(join(dist, 'web-assets'), { recursive: true });
    // Assets carry their content's hash in their names: copying one over itself changes nothing.
    cpSync(join(out, 'web-assets'), join(dist, 'web-assets'), { recursive: true });
    // The page last, replaced in one step.
    const page = join(dist, `index.html.${process.pid}`);
    cpSync(join(out, 'index.html'), page);
    renameSync(page, join(dist, 'index.html'));
    // Written last, and in one step: a build cut short leaves no record of it.
    const written = `${record}.${process.pid}`;
    writeFileSync(written, sources);
    renameSync(written, record);
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
