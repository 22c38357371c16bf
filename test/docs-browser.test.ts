// The rendered docs at GET /api/docs: what the server answers, and what a
// browser makes of it. Headless Chromium (Debian's `chromium`, which .ci/run
// installs) loads the page with every address outside this machine failing,
// driven through the Chrome DevTools protocol over --remote-debugging-pipe:
// every operation renders, Redoc's search finds one, and no request leaves
// the server.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { parse } from 'yaml';
import { specPath } from '../src/http/spec';
import { TestServer } from './support/server';
import { waitFor } from './support/wait';

let server: TestServer;

beforeAll(async () => {
  server = await TestServer.start();
});
afterAll(() => server.stop());

const contract = parse(readFileSync(specPath, 'utf8')) as {
  paths: Record<string, Record<string, { operationId?: string; summary?: string }>>;
};
/** Every operation of the contract: its ID and summary. */
const operations = Object.values(contract.paths).flatMap((item) =>
  Object.values(item)
    .filter((op) => typeof op === 'object' && op?.operationId)
    .map((op) => ({ id: op.operationId!, summary: op.summary ?? '' })),
);

describe('GET /api/docs', () => {
  test('is a page rendering /openapi.json with the Redoc bundle this server serves', async () => {
    const res = await fetch(`${server.url}/api/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    expect(html).toContain('<redoc spec-url="/openapi.json"');
    expect(html).toContain('<script src="/api/docs/redoc.standalone.js"></script>');
    // Nothing on the page names another server.
    expect(html).not.toMatch(/\b(src|href)="(https?:)?\/\//);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("img-src 'self' data:");
    expect((await fetch(`${server.url}/api/docs/`)).status).toBe(200);
  });

  test('serves the standalone bundle of the installed redoc package', async () => {
    const res = await fetch(`${server.url}/api/docs/redoc.standalone.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const bundle = readFileSync(require.resolve('redoc/bundles/redoc.standalone.js'));
    expect(Buffer.from(await res.arrayBuffer()).equals(bundle)).toBe(true);
    const license = await fetch(`${server.url}/api/docs/redoc.standalone.js.LICENSE.txt`);
    expect(license.status).toBe(200);
    expect(license.headers.get('content-type')).toBe('text/plain; charset=utf-8');
  });

  test('answers a revalidation with 304, other methods with 405, other files with 404', async () => {
    const first = await fetch(`${server.url}/api/docs/redoc.standalone.js`, { method: 'HEAD' });
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    // node:http, since fetch adds Cache-Control: no-cache to a conditional request.
    const again = await new Promise<number | undefined>((resolve, reject) => {
      get(
        `${server.url}/api/docs/redoc.standalone.js`,
        { headers: { 'if-none-match': etag } },
        (res) => resolve(res.resume().statusCode),
      ).on('error', reject);
    });
    expect(again).toBe(304);
    const post = await fetch(`${server.url}/api/docs`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect(await post.json()).toEqual({
      result: 'error',
      msg: 'Method Not Allowed',
      allowed_methods: ['GET', 'HEAD'],
    });
    const missing = await fetch(`${server.url}/api/docs/../package.json`);
    expect(missing.status).toBe(404);
    const other = await fetch(`${server.url}/api/docs/redoc.lib.js`);
    expect(other.status).toBe(404);
    expect(await other.json()).toEqual({ result: 'error', msg: 'Not Found', code: 'NOT_FOUND' });
  });
});

/** The Chromium executable: $CHROMIUM, or `chromium` on the PATH; undefined when absent. */
function findChromium(): string | undefined {
  const candidate = process.env.CHROMIUM ?? 'chromium';
  const probe = spawnSync(candidate, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  return probe.status === 0 ? candidate : undefined;
}

const chromium = findChromium();
if (!chromium) {
  console.warn(
    'Skipping the browser tests of /api/docs: no `chromium` on the PATH (apt-get install chromium, or set CHROMIUM).',
  );
}

/** One message of the DevTools protocol. */
interface CdpMessage {
  id?: number;
  method?: string;
  params?: any;
  result?: any;
  error?: { message: string };
  sessionId?: string;
}

/**
 * A headless Chromium driven through the DevTools protocol over its pipe
 * (file descriptors 3 and 4, one JSON message per NUL-terminated chunk).
 */
class Browser {
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve: (r: any) => void; reject: (e: Error) => void }
  >();
  /** Every event received, in order. */
  readonly events: CdpMessage[] = [];
  private buffer = '';
  stderr = '';

  private constructor(
    private readonly child: ChildProcess,
    private readonly profile: string,
  ) {
    const output = child.stdio[4] as Readable;
    output.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString('utf8');
      let end: number;
      while ((end = this.buffer.indexOf('\0')) >= 0) {
        const message = JSON.parse(this.buffer.slice(0, end)) as CdpMessage;
        this.buffer = this.buffer.slice(end + 1);
        const waiting = message.id !== undefined ? this.pending.get(message.id) : undefined;
        if (waiting) {
          this.pending.delete(message.id!);
          if (message.error) waiting.reject(new Error(message.error.message));
          else waiting.resolve(message.result);
        } else if (message.method) {
          this.events.push(message);
        }
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
  }

  /** Starts Chromium with outside addresses failing: a proxy that refuses, bypassed only for 127.0.0.1. */
  static launch(executable: string): Browser {
    const profile = mkdtempSync(join(tmpdir(), 'chat-docs-chromium-'));
    const child = spawn(
      executable,
      [
        '--headless',
        '--no-sandbox',
        '--disable-background-networking',
        '--disable-gpu',
        '--no-first-run',
        '--no-default-browser-check',
        // Wide enough for Redoc's side menu, which holds the search box.
        '--window-size=1280,1024',
        '--proxy-server=127.0.0.1:9',
        '--proxy-bypass-list=127.0.0.1',
        `--user-data-dir=${profile}`,
        '--remote-debugging-pipe',
        'about:blank',
      ],
      { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] },
    );
    return new Browser(child, profile);
  }

  /** Sends one command (to a page's session when given) and waits for its result. */
  send(method: string, params: object = {}, sessionId?: string): Promise<any> {
    const id = this.nextId++;
    const input = this.child.stdio[3] as Writable;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      input.write(`${JSON.stringify({ id, method, params, sessionId })}\0`);
    });
  }

  /** Opens a tab and attaches to it; returns its session ID. */
  async newPage(): Promise<string> {
    const { targetId } = await this.send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await this.send('Target.attachToTarget', { targetId, flatten: true });
    return sessionId as string;
  }

  /** Evaluates `expression` in the page and returns its value. */
  async evaluate<T>(sessionId: string, expression: string): Promise<T> {
    const { result, exceptionDetails } = await this.send(
      'Runtime.evaluate',
      { expression, returnByValue: true, awaitPromise: true },
      sessionId,
    );
    if (exceptionDetails) throw new Error(`${expression}: ${JSON.stringify(exceptionDetails)}`);
    return result.value as T;
  }

  /** Evaluates `expression` until it is truthy; fails after `ms`. */
  async waitFor<T>(sessionId: string, expression: string, what: string, ms = 30_000): Promise<T> {
    return waitFor(what, () => this.evaluate<T>(sessionId, expression), ms) as Promise<T>;
  }

  /** Stops Chromium and removes its profile. */
  async close(): Promise<void> {
    let gone = false;
    const exited = new Promise((resolve) => this.child.once('exit', resolve)).then(
      () => (gone = true),
    );
    await this.send('Browser.close').catch(() => undefined);
    await waitFor('Chromium to exit', () => gone, 5000).catch(() => this.child.kill('SIGKILL'));
    await exited;
    rmSync(this.profile, { recursive: true, force: true });
  }
}

const browserTest = chromium ? test : test.skip;

describe('/api/docs in headless Chromium, outside addresses failing', () => {
  let browser: Browser;
  let page: string;

  beforeAll(async () => {
    if (!chromium) return;
    browser = Browser.launch(chromium);
    page = await browser.newPage();
    await browser.send('Network.enable', {}, page);
    await browser.send('Runtime.enable', {}, page);
    await browser.send('Log.enable', {}, page);
    await browser.send('Page.enable', {}, page);
    // A tab of a headless browser has no focus of its own; typing needs one.
    await browser.send('Emulation.setFocusEmulationEnabled', { enabled: true }, page);
    await browser.send('Page.navigate', { url: `${server.url}/api/docs` }, page);
    // Redoc marks each operation's section with data-section-id="operation/<operationId>".
    await browser.waitFor(
      page,
      `document.querySelectorAll('[data-section-id^="operation/"]').length >= ${operations.length}`,
      'every operation to render',
      // Every operation's examples are rendered too: minutes on a busy machine.
      150_000,
    );
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
  });

  test('is run in CI, where chromium is installed', () => {
    // .ci/run installs chromium: there, its absence fails instead of skipping.
    if (process.env.CI && !chromium) throw new Error('chromium is not installed');
  });

  browserTest('renders every operation with its summary', async () => {
    const rendered = await browser.evaluate<Record<string, string>>(
      page,
      `Object.fromEntries([...document.querySelectorAll('[data-section-id^="operation/"]')]
        .map((section) => [section.getAttribute('data-section-id').slice('operation/'.length),
          
          // The heading's own text, without badges such as "Deprecated".
          [...section.querySelector('h2').childNodes].filter((node) => node.nodeType === Node.TEXT_NODE)
            .map((node) => node.textContent).join('').trim()]))`,
    );
    for (const op of operations) {
      expect([op.id, rendered[op.id]]).toEqual([op.id, op.summary]);
    }
    expect(Object.keys(rendered).sort()).toEqual(operations.map((op) => op.id).sort());
  });

  browserTest('loads nothing from outside the server, and reports no error', async () => {
    const own = new URL(server.url).origin;
    const requests = browser.events
      .filter((e) => e.method === 'Network.requestWillBeSent' && e.sessionId === page)
      .map((e) => e.params.request.url as string);
    expect(requests).toEqual(
      expect.arrayContaining([
        `${own}/api/docs`,
        `${own}/api/docs/redoc.standalone.js`,
        `${own}/openapi.json`,
      ]),
    );
    // Redoc's one outside image (its logo) is refused by the page's
    // Content-Security-Policy: the browser names it, and never sends it.
    const outside = browser.events.filter(
      (e) =>
        e.method === 'Network.requestWillBeSent' &&
        e.sessionId === page &&
        !e.params.request.url.startsWith(`${own}/`) &&
        !/^(data|blob):/.test(e.params.request.url),
    );
    for (const request of outside) {
      const failed = browser.events.find(
        (e) =>
          e.method === 'Network.loadingFailed' && e.params.requestId === request.params.requestId,
      );
      expect([request.params.request.url, failed?.params.blockedReason]).toEqual([
        request.params.request.url,
        'csp',
      ]);
    }
    // Nothing else goes out. Whether the logo's request comes before the page is
    // sampled depends on when Redoc draws its footer, so it may be missing.
    for (const request of outside)
      expect(request.params.request.url).toBe('https://cdn.redoc.ly/redoc/logo-mini.svg');
    const failures = browser.events.filter(
      (e) =>
        e.sessionId === page &&
        (e.method === 'Runtime.exceptionThrown' ||
          (e.method === 'Runtime.consoleAPICalled' && e.params.type === 'error') ||
          (e.method === 'Log.entryAdded' &&
            e.params.entry.level === 'error' &&
            !e.params.entry.text.includes('https://cdn.redoc.ly/redoc/logo-mini.svg'))),
    );
    expect(failures).toEqual([]);
  });

  browserTest('finds an operation with Redoc search, and opens it', async () => {
    await browser.evaluate(page, `document.querySelector('input.search-input').focus()`);
    await browser.send('Input.insertText', { text: 'send a message' }, page);
    const found = await browser.waitFor<string[]>(
      page,
      `(() => {
        const items = [...document.querySelectorAll('[data-role="search:results"] li')];
        return items.length > 0 && items.map((li) => li.getAttribute('data-item-id'));
      })()`,
      'search results',
    );
    expect(found).toContain('tag/messages/operation/send-message');
    await browser.evaluate(
      page,
      `document.querySelector('[data-role="search:results"] li[data-item-id="tag/messages/operation/send-message"] label').click()`,
    );
    await browser.waitFor(
      page,
      `location.hash === '#tag/messages/operation/send-message'`,
      'the operation to open',
    );
  });
});
