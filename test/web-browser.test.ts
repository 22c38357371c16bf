// The web client in a real browser: headless Chromium (Debian's `chromium`,
// which .ci/run installs) driven with playwright-core against a real server.
// Two people in two browser contexts chat live: sign in, send to a channel
// and topic, typing notices, unread counts falling as messages are read,
// reactions, edits, deletions, a direct message and its reply, an upload
// opened, search, an avatar uploaded and shown to the other person, scrolling
// back through a channel's history; the server restarts in the middle and the page
// misses no message; refusals show a clear message; a third person joins
// through an invitation link and lands signed in. Screenshots at desktop and phone width are written to docs/, and axe-core
// finds no serious accessibility violation. No request leaves this machine.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import sharp from 'sharp';
import { createTestDatabase, type TestDatabase } from './support/database';
import { redisEnv } from './support/redis';
import { TestServer, type Cast } from './support/server';
import { buildWebClient, startRelay, type Relay } from './support/web-client';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const screenshots = resolve(__dirname, '..', 'docs', 'screenshots');
/** The longest any one state may take to appear. */
const WAIT = 15_000;
/**
 * The older messages to scroll back through, fifty to a page as the client
 * fetches them. Paging does not depend on the database: the PostgreSQL
 * project scrolls through three pages, the SQLite project through ten.
 */
const HISTORY = process.env.TEST_DATABASE === 'postgresql' ? 150 : 500;

let database: TestDatabase;
let env: Record<string, string>;
let server: TestServer;
let relay: Relay;
let browser: Browser;
let cast: Cast;
let design: number;
const contexts: BrowserContext[] = [];
/** Every address the pages asked for. */
const requested: string[] = [];

async function startServer(): Promise<void> {
  server = await TestServer.startOn(database, env);
  relay.point(Number(new URL(server.url).port));
}

async function newContext(
  options: { phone?: boolean; bypassCSP?: boolean; signedInAs?: BrowserContext } = {},
) {
  const context = await browser.newContext({
    viewport: options.phone ? { width: 390, height: 844 } : { width: 1280, height: 800 },
    ...(options.phone ? { isMobile: true, hasTouch: true } : {}),
    bypassCSP: options.bypassCSP,
    // The session of a context signed in already: its cookies and storage.
    storageState: options.signedInAs ? await options.signedInAs.storageState() : undefined,
  });
  context.on('request', (request) => requested.push(request.url()));
  context.on('page', (page) => page.on('dialog', (dialog) => void dialog.accept()));
  contexts.push(context);
  return context;
}

async function signIn(context: BrowserContext, email: string, password = 'password') {
  const page = await context.newPage();
  await page.goto(relay.url);
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('.app').waitFor({ timeout: WAIT });
  return page;
}

/** The message whose text is `text`, in `page`'s list. */
function message(page: Page, text: string | RegExp) {
  return page.locator('article.message').filter({
    has: page.locator('.content', { hasText: text }),
  });
}

/** Opens the compose box to `topic` of #design and sends `text`. */
async function sendToDesign(page: Page, topic: string, text: string) {
  const close = page.getByRole('button', { name: 'Close the compose box' });
  if ((await close.isVisible()) && !(await page.getByLabel('Topic').isVisible()))
    await close.click();
  if (!(await page.getByLabel('Topic').isVisible()))
    await page.getByRole('button', { name: 'New channel message (c)' }).click();
  await page.getByLabel('Channel', { exact: true }).selectOption(String(design));
  await page.getByLabel('Topic').fill(topic);
  await page.getByLabel('Message', { exact: true }).fill(text);
  await page.getByLabel('Message', { exact: true }).press('Enter');
  // Sent once the box is empty again.
  await page.waitForFunction(
    () => (globalThis as any).document.getElementById('compose-text')?.value === '',
    null,
    { timeout: WAIT },
  );
}

/** Fails unless `what` lies wholly inside `page`'s viewport, and the page is no wider than it. */
async function expectInside(page: Page, what: ReturnType<Page['locator']>) {
  await what.waitFor({ timeout: WAIT });
  const viewport = page.viewportSize()!;
  const widths = await page.evaluate(() => ({
    scroll: (globalThis as any).document.documentElement.scrollWidth as number,
    inner: (globalThis as any).innerWidth as number,
  }));
  expect(widths).toEqual({ scroll: viewport.width, inner: viewport.width });
  const box = (await what.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.y).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);
  expect(box.y + box.height).toBeLessThanOrEqual(viewport.height);
}

/** Runs axe-core in `page`: the violations rated serious or critical. */
async function seriousViolations(page: Page): Promise<string[]> {
  // Loaded once a page.
  if (!(await page.evaluate(() => 'axe' in globalThis)))
    await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
  const found = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run: () => Promise<{
            violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
          }>;
        };
      }
    ).axe;
    const result = await axe.run();
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      where: v.nodes.map((n) => n.target.join(' ')).slice(0, 3),
    }));
  });
  return found
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} at ${v.where.join(', ')}`);
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium`);
  buildWebClient();
  database = await createTestDatabase();
  env = { ...redisEnv() };
  relay = await startRelay();
  await startServer();
  cast = await server.createCast();
  const subscribed = await server.call('POST', '/users/me/subscriptions', {
    as: cast.member,
    params: {
      subscriptions: JSON.stringify([{ name: 'design' }]),
      principals: JSON.stringify([cast.member.id, cast.member2.id, cast.admin.id]),
    },
  });
  expect(subscribed.status).toBe(200);
  // Chromium starts while the messages below are sent.
  const launched = chromium
    .launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    })
    .then((started) => (browser = started));
  launched.catch(() => undefined);
  const streams = await server.call('GET', '/streams', { as: cast.member });
  design = streams.body.streams.find((s: { name: string }) => s.name === 'design').stream_id;
  // The older messages, sent fifty at a time: the newest fifty are the first
  // page the client shows.
  for (let start = 1; start <= HISTORY; start += 50) {
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        server.call('POST', '/messages', {
          as: cast.member2,
          params: {
            type: 'stream',
            to: 'design',
            topic: 'history',
            content: `history ${start + i}`,
          },
        }),
      ),
    );
  }
  // Read already, so that the unread counts below count only the new messages.
  await server.call('POST', '/mark_all_as_read', { as: cast.member });
  await server.call('POST', '/mark_all_as_read', { as: cast.member2 });
  await launched;
}, 300_000);

afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => undefined);
  await browser?.close();
  await server?.stop();
  await relay?.close();
  await database?.drop();
});

describe('two people chat in the web client', () => {
  let a: Page;
  let b: Page;

  test('a wrong password gets a clear refusal, and nothing is fetched from elsewhere', async () => {
    const context = await newContext();
    const page = await context.newPage();
    await page.goto(relay.url);
    await page.getByLabel('Email address').fill(cast.member.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'Your username or password is incorrect' })
      .waitFor({ timeout: WAIT });
    expect(await page.locator('.app').count()).toBe(0);
  });

  test('both sign in; a message to a channel and topic arrives live', async () => {
    a = await signIn(await newContext(), cast.member.email);
    b = await signIn(await newContext(), cast.member2.email);
    await sendToDesign(a, 'greetings', 'Hello from the web :tada:');
    await message(b, 'Hello from the web').waitFor({ timeout: WAIT });
    // A Unicode emoji shows as its glyph, its name kept as the title.
    const tada = message(b, 'Hello from the web').locator('.content .emoji');
    expect(await tada.textContent()).toBe('🎉');
    expect(await tada.getAttribute('title')).toBe('tada');
    const group = b.locator('section.group', { has: message(b, 'Hello from the web') });
    expect(await group.locator('h3').textContent()).toContain('#design > greetings');
    expect(await message(b, 'Hello from the web').locator('.sender').textContent()).toBe(
      cast.member.fullName,
    );
  });

  test('typing notices show in the other browser', async () => {
    await b.getByRole('link', { name: '#design > greetings' }).first().click();
    await b.waitForFunction(
      () => (globalThis as any).location.hash.includes('/topic/greetings'),
      null,
      {
        timeout: WAIT,
      },
    );
    await a.getByLabel('Message', { exact: true }).pressSequentially('still typ');
    await b
      .locator('.typing', { hasText: `${cast.member.fullName} is typing…` })
      .waitFor({ timeout: WAIT });
    await a.getByLabel('Message', { exact: true }).fill('');
  });

  test('unread counts fall as the messages are read', async () => {
    for (const text of ['Lunch at noon?', 'Or at one?', 'Third thought'])
      await sendToDesign(a, 'lunch', text);
    const lunch = b.locator('nav.left li.topic', { hasText: 'lunch' });
    await lunch.locator('.count', { hasText: '3' }).waitFor({ timeout: WAIT });
    await lunch.getByRole('link').click();
    await message(b, 'Third thought').waitFor({ timeout: WAIT });
    await lunch.locator('.count').waitFor({ state: 'detached', timeout: WAIT });
    expect(await b.locator('nav.left li.channel .count').count()).toBe(0);
  });

  test('a reaction, an edit and a deletion appear live', async () => {
    await b.getByRole('link', { name: 'Combined feed' }).click();
    const lunch = message(b, 'Lunch at noon?');
    await lunch.waitFor({ timeout: WAIT });
    await lunch.getByRole('button', { name: 'Add a reaction' }).click();
    await b
      .getByRole('dialog', { name: 'Add a reaction' })
      .getByRole('button', { name: '+1' })
      .click();
    await message(a, 'Lunch at noon?')
      .getByRole('button', { name: `+1: ${cast.member2.fullName}` })
      .waitFor({ timeout: WAIT });

    const mine = message(a, 'Or at one?');
    await mine.getByRole('button', { name: 'Edit message' }).click();
    const editor = a.getByRole('textbox', { name: 'Edited message text' });
    await editor.fill('Or at two?');
    await editor.press('Enter');
    const edited = message(b, 'Or at two?');
    await edited.waitFor({ timeout: WAIT });
    expect(await edited.locator('.edited').textContent()).toBe('(edited)');

    await message(a, 'Third thought').getByRole('button', { name: 'Delete message' }).click();
    await message(b, 'Third thought').waitFor({ state: 'detached', timeout: WAIT });
  });

  test('a direct message and its reply, with an uploaded file opened', async () => {
    await b
      .getByRole('complementary', { name: 'People' })
      .getByRole('button', { name: cast.member.fullName })
      .click();
    await b.getByRole('button', { name: 'New direct message (x)' }).click();
    await b.getByLabel('Message', { exact: true }).fill('A private word');
    await b.getByLabel('Message', { exact: true }).press('Enter');
    const dm = a.locator('nav.left ul.dms li', { hasText: cast.member2.fullName });
    await dm.locator('.count', { hasText: '1' }).waitFor({ timeout: WAIT });
    await dm.getByRole('link').click();
    await message(a, 'A private word').waitFor({ timeout: WAIT });
    await a
      .getByRole('button', { name: /^Reply to Direct message with/ })
      .first()
      .click();
    await a.getByLabel('Files to upload').setInputFiles({
      name: 'notes.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('The notes of the meeting.\n'),
    });
    const box = a.getByLabel('Message', { exact: true });
    await a.waitForFunction(
      () =>
        (globalThis as any).document
          .getElementById('compose-text')
          ?.value.includes('/user_uploads/'),
      null,
      { timeout: WAIT },
    );
    await box.press('End');
    await box.pressSequentially('Here you are');
    await box.press('Enter');
    const reply = message(b, 'Here you are');
    await reply.waitFor({ timeout: WAIT });
    const href = await reply.locator('a', { hasText: 'notes.txt' }).getAttribute('href');
    expect(href).toMatch(/^\/user_uploads\//);
    const opened = await b.context().request.get(new URL(href!, relay.url).toString());
    expect(opened.status()).toBe(200);
    expect(await opened.text()).toBe('The notes of the meeting.\n');
  });

  test('search finds a message', async () => {
    await a.getByLabel('Search messages').fill('private');
    await a.getByLabel('Search messages').press('Enter');
    await message(a, 'A private word').waitFor({ timeout: WAIT });
    expect(await message(a, 'Hello from the web').count()).toBe(0);
  });

  test('an avatar uploaded in the settings shows beside messages and in the people list, live', async () => {
    // Before, no picture: initials stand in for the Gravatar picture the page may not load.
    const reply = message(b, 'Here you are');
    expect(await reply.locator('.avatar.initials').textContent()).toBe('KH');
    await a.getByRole('button', { name: 'Settings' }).click();
    const settings = a.getByRole('dialog', { name: 'Settings' });
    await settings.waitFor({ timeout: WAIT });
    await settings.getByLabel('Avatar image').setInputFiles({
      name: 'me.png',
      mimeType: 'image/png',
      buffer: await sharp({
        create: { width: 240, height: 160, channels: 3, background: '#2e9e4f' },
      })
        .png()
        .toBuffer(),
    });
    await settings.getByRole('status').filter({ hasText: 'Avatar uploaded.' }).waitFor({
      timeout: WAIT,
    });
    await settings.locator('img.avatar').waitFor({ timeout: WAIT });
    await a.keyboard.press('Escape');
    await settings.waitFor({ state: 'detached', timeout: WAIT });
    // The other browser hears of it and shows the picture, loaded from this server.
    const shown = reply.locator('img.avatar');
    await shown.waitFor({ timeout: WAIT });
    expect(await shown.getAttribute('src')).toMatch(
      /^\/user_avatars\/\d+\/[0-9a-f]{40}\.png\?version=2$/,
    );
    await b.waitForFunction(
      () =>
        [...(globalThis as any).document.querySelectorAll('article.message img.avatar')].some(
          (img: any) => img.complete && img.naturalWidth === 100,
        ),
      null,
      { timeout: WAIT },
    );
    await b
      .getByRole('complementary', { name: 'People' })
      .getByRole('button', { name: cast.member.fullName })
      .locator('img.avatar')
      .waitFor({ timeout: WAIT });
  });

  test(`scrolling up loads older messages back to the first of ${HISTORY}`, async () => {
    await a.goto(`${relay.url}/#narrow/channel/${design}/topic/history`);
    await message(a, new RegExp(`^history ${HISTORY}$`)).waitFor({ timeout: WAIT });
    const list = a.locator('.messages');
    const first = message(a, /^history 1$/);
    for (let round = 0; round < 20 && !(await first.count()); round++) {
      const before = await a.locator('article.message').count();
      await list.evaluate((el) => {
        el.scrollTop = 0;
      });
      await a.waitForFunction(
        (n) => (globalThis as any).document.querySelectorAll('article.message').length > n,
        before,
        { timeout: WAIT },
      );
    }
    await first.waitFor({ timeout: WAIT });
    expect(await a.locator('article.message').count()).toBe(HISTORY);
    // The last page was full: one more scroll finds that nothing is older.
    await list.evaluate((el) => {
      el.scrollTop = 0;
    });
    await a.getByText('No older messages.').waitFor({ timeout: WAIT });
  });

  test('the server restarts mid-session and the page misses no message', async () => {
    await a.goto(`${relay.url}/#narrow/channel/${design}`);
    await message(a, 'Hello from the web').waitFor({ timeout: WAIT });
    await server.stop();
    await a.getByRole('status').filter({ hasText: 'Reconnecting…' }).waitFor({ timeout: WAIT });
    await startServer();
    // Sent before the page is back.
    const sent = await server.call('POST', '/messages', {
      as: cast.member2,
      params: { type: 'stream', to: 'design', topic: 'greetings', content: 'Sent while away' },
    });
    expect(sent.status).toBe(200);
    await message(a, 'Sent while away').waitFor({ timeout: 30_000 });
    await a.getByText('Reconnecting…').waitFor({ state: 'detached', timeout: 30_000 });
    // And live again afterwards.
    await sendToDesign(b, 'greetings', 'Back again');
    await message(a, 'Back again').waitFor({ timeout: WAIT });
  });

  test('a channel the person may not see gets a clear refusal and shows nothing', async () => {
    const secret = await server.call('POST', '/users/me/subscriptions', {
      as: cast.admin,
      params: { subscriptions: JSON.stringify([{ name: 'secret' }]), invite_only: true },
    });
    expect(secret.status).toBe(200);
    await server.call('POST', '/messages', {
      as: cast.admin,
      params: { type: 'stream', to: 'secret', topic: 'plans', content: 'Top secret plans' },
    });
    const streams = await server.call('GET', '/streams', { as: cast.admin });
    const id = streams.body.streams.find((s: { name: string }) => s.name === 'secret').stream_id;
    await a.goto(`${relay.url}/#narrow/channel/${id}`);
    const alert = a.getByRole('alert');
    await alert.waitFor({ timeout: WAIT });
    expect(await alert.textContent()).toMatch(/channel/i);
    expect(await message(a, 'Top secret plans').count()).toBe(0);
  });

  test('a request without its CSRF token is refused with a clear message', async () => {
    await b.route('**/json/messages', async (route) => {
      const headers = { ...route.request().headers() };
      delete headers['x-csrftoken'];
      await route.continue({ headers });
    });
    await b.getByRole('link', { name: 'Combined feed' }).click();
    // The composer may be open already, left so by an earlier test.
    const compose = b.getByRole('button', { name: 'New channel message (c)' });
    if (await compose.isVisible()) await compose.click();
    await b.getByLabel('Channel', { exact: true }).selectOption(String(design));
    await b.getByLabel('Topic').fill('forged');
    await b.getByLabel('Message', { exact: true }).fill('Forged message');
    await b.getByLabel('Message', { exact: true }).press('Enter');
    await b
      .getByRole('alert')
      .filter({ hasText: 'CSRF error: CSRF token missing.' })
      .waitFor({ timeout: WAIT });
    await b.unroute('**/json/messages');
    const stored = await server.services.db.read((db) =>
      db.message.count({ where: { content: 'Forged message' } }),
    );
    expect(stored).toBe(0);
  });

  // How the pages look and read (layout, focus, accessibility) does not depend
  // on the database: checked once, in the SQLite project, which alone writes
  // the screenshots. The pages open in the first person's session.
  const onceOnly = process.env.TEST_DATABASE === 'postgresql' ? test.skip : test;

  onceOnly(
    'screenshots at desktop and phone width, and no serious accessibility violation',
    async () => {
      mkdirSync(screenshots, { recursive: true });
      const desktop = await newContext({ bypassCSP: true, signedInAs: a.context() });
      const page = await desktop.newPage();
      await page.goto(`${relay.url}/#narrow/channel/${design}/topic/lunch`);
      await message(page, 'Lunch at noon?').waitFor({ timeout: WAIT });
      await page.screenshot({ path: join(screenshots, 'web-desktop.png') });
      expect(await seriousViolations(page)).toEqual([]);
      // The settings dialog takes the focus, and Esc gives it back to the Settings button.
      const focused = () =>
        page.evaluate(() => (globalThis as any).document.activeElement?.textContent as string);
      await page.getByRole('button', { name: 'Settings' }).click();
      await page.getByRole('dialog', { name: 'Settings' }).waitFor({ timeout: WAIT });
      expect(await focused()).toBe('Profile');
      expect(await seriousViolations(page)).toEqual([]);
      await page.keyboard.press('Escape');
      await page.getByRole('dialog', { name: 'Settings' }).waitFor({ state: 'detached' });
      expect(await focused()).toBe('Settings');
      const phone = await (
        await newContext({ phone: true, bypassCSP: true, signedInAs: a.context() })
      ).newPage();
      await phone.goto(`${relay.url}/#narrow/channel/${design}/topic/lunch`);
      await message(phone, 'Lunch at noon?').waitFor({ timeout: WAIT });
      await phone.screenshot({ path: join(screenshots, 'web-phone.png') });
      // At phone width nothing sticks out on the right: the header's Sign out, the compose
      // box's Send, and the channels and people open over the messages from their buttons.
      await expectInside(phone, phone.getByRole('button', { name: 'Sign out' }));
      await phone.getByRole('button', { name: /^New channel message/ }).click();
      await expectInside(phone, phone.getByRole('button', { name: 'Send' }));
      await expectInside(phone, phone.getByLabel('Topic'));
      const channels = phone.getByRole('navigation', { name: 'Channels and conversations' });
      expect(await channels.isVisible()).toBe(false);
      // Enter on the button opens the panel (it does not reply to a message).
      await phone.getByRole('button', { name: 'Channels and conversations' }).press('Enter');
      await channels.getByRole('link', { name: /design/ }).waitFor({ timeout: WAIT });
      await expectInside(phone, channels);
      await phone.screenshot({ path: join(screenshots, 'web-phone-channels.png') });
      await phone.keyboard.press('Escape');
      await channels.waitFor({ state: 'hidden', timeout: WAIT });
      await phone.getByRole('button', { name: 'People', exact: true }).click();
      const people = phone.getByRole('complementary', { name: 'People' });
      await people.getByText('King Hamlet').waitFor({ timeout: WAIT });
      await expectInside(phone, people);
      expect(await seriousViolations(phone)).toEqual([]);
      const login = await (await newContext({ bypassCSP: true })).newPage();
      await login.goto(relay.url);
      await login.getByLabel('Email address').waitFor({ timeout: WAIT });
      expect(await seriousViolations(login)).toEqual([]);
      expect(readFileSync(join(screenshots, 'web-desktop.png')).length).toBeGreaterThan(10_000);
    },
  );

  test('signed out in one tab, the other shows that the session ended', async () => {
    const other = await a.context().newPage();
    await other.goto(relay.url);
    await other.getByRole('button', { name: 'Sign out' }).click();
    await other.getByLabel('Email address').waitFor({ timeout: WAIT });
    // The first tab's event poll is refused: it shows the sign-in form and says why.
    const said = a.getByRole('alert').filter({ hasText: 'Your session has ended' });
    await said.waitFor({ timeout: WAIT });
    expect(await said.textContent()).toBe('Your session has ended: sign in again.');
    expect(await a.locator('.app').count()).toBe(0);
    await a.getByLabel('Email address').waitFor({ timeout: WAIT });
  });

  test('a third person joins through an invitation link and lands signed in', async () => {
    const made = await server.call('POST', '/invites/multiuse', {
      as: cast.admin,
      params: { invite_expires_in_minutes: 60, stream_ids: JSON.stringify([design]) },
    });
    expect(made.status).toBe(200);
    const path = new URL(made.body.invite_link as string).pathname;
    const page = await (await newContext()).newPage();
    await page.goto(`${relay.url}${path}`);
    await page.getByLabel('Email address').fill('miranda@example.com');
    await page.getByLabel('Full name').fill('Miranda');
    await page.getByLabel(/^Password/).fill('miranda-password');
    await page.getByRole('button', { name: 'Create my account' }).click();
    const open = page.getByRole('link', { name: 'open the web app' });
    await open.waitFor({ timeout: WAIT }).catch(async () => {
      throw new Error(`no link to the web app on: ${await page.locator('body').innerText()}`);
    });
    await open.click();
    await page.locator('.app').waitFor({ timeout: WAIT });
    await page
      .getByRole('complementary', { name: 'People' })
      .getByText('Miranda (you)')
      .waitFor({ timeout: WAIT });
    // The channel of the invitation is theirs, with its history.
    await page.goto(`${relay.url}/#narrow/channel/${design}`);
    await message(page, 'Back again').waitFor({ timeout: WAIT });
  });

  test('no page asked for anything but this server', () => {
    const elsewhere = requested.filter(
      (url) => !url.startsWith(relay.url) && !url.startsWith('data:') && !url.startsWith('blob:'),
    );
    expect(elsewhere).toEqual([]);
  });
});
