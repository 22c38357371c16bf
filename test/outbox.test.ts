// Outgoing mail: without SMTP_URL each mail is kept in the outbox, logged,
// and printed by `npm run manage -- outbox [--to EMAIL]`; with SMTP_URL it
// goes to that SMTP server (a small one written here with node:net) and
// nothing is kept.
import { createServer, type Server, type Socket } from 'node:net';
import { runManage } from '../src/cli/manage';
import { readOutbox } from '../src/lib/mail/outbox';
import { TestServer } from './support/server';

async function manage(server: TestServer, ...argv: string[]) {
  let out = '';
  let err = '';
  const code = await runManage(
    argv,
    { DATABASE_URL: server.services.config.databaseUrl, LOG_LEVEL: 'silent' },
    (t) => (out += t),
    (t) => (err += t),
  );
  return { code, out, err };
}

describe('without SMTP_URL', () => {
  let server: TestServer;
  const logLines: string[] = [];

  beforeAll(async () => {
    server = await TestServer.start(
      { LOG_LEVEL: 'info', EMAIL_FROM: 'chat@lear.example' },
      logLines,
    );
  });
  afterAll(() => server.stop());

  test('invitations are kept, logged and printed by the outbox command', async () => {
    const { owner } = await server.createRealm();
    const res = await server.call('POST', '/invites', {
      as: owner,
      params: { invitee_emails: 'Ann@example.org, bob@example.org' },
    });
    expect(res.status).toBe(200);
    expect(server.services.mail.kind).toBe('outbox');

    const all = await manage(server, 'outbox');
    expect(all.err).toBe('');
    expect(all.code).toBe(0);
    expect(all.out.trim().split('\n')).toHaveLength(1);
    const printed = JSON.parse(all.out);
    expect(printed.emails.map((m: { to: string }) => m.to)).toEqual([
      'Ann@example.org',
      'bob@example.org',
    ]);
    expect(printed.emails[0]).toEqual({
      id: expect.any(Number),
      from: 'chat@lear.example',
      to: 'Ann@example.org',
      subject: 'Olivia Owner invited you to join Test organization',
      text: expect.stringMatching(/http:\/\/chat\.test\/join\/[A-Za-z0-9_-]{32}\n/),
      html: expect.stringContaining('<a href="http://chat.test/join/'),
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });

    const ann = JSON.parse((await manage(server, 'outbox', '--to', 'ann@EXAMPLE.org')).out);
    expect(ann.emails.map((m: { to: string }) => m.to)).toEqual(['Ann@example.org']);
    expect(JSON.parse((await manage(server, 'outbox', '--to', 'x@example.org')).out)).toEqual({
      emails: [],
    });

    const logged = logLines
      .map((line) => JSON.parse(line))
      .filter((l) => l.msg === 'mail kept in the outbox (SMTP_URL is not set)');
    expect(logged.map((l) => l.to)).toEqual(['Ann@example.org', 'bob@example.org']);
    // The join link stays out of the log.
    expect(logLines.join('\n')).not.toMatch(/\/join\/[A-Za-z0-9_-]{32}/);
  });

  test('the command has help, and refuses unknown options', async () => {
    const help = await manage(server, 'outbox', '--help');
    expect(help.code).toBe(0);
    expect(help.out).toContain('usage: manage outbox [--to EMAIL]');
    expect((await manage(server, '--help')).out).toContain('outbox');
    const bad = await manage(server, 'outbox', '--from', 'x');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/^outbox: /);
  });
});

/** What a tiny SMTP server received: the envelope and the message of each mail. */
interface Received {
  from: string;
  to: string[];
  data: string;
}

/** A minimal SMTP server on a free port of 127.0.0.1 that accepts every mail. */
async function smtpListener(): Promise<{ server: Server; port: number; mails: Received[] }> {
  const mails: Received[] = [];
  const server = createServer((socket: Socket) => {
    let buffer = '';
    let current: Received = { from: '', to: [], data: '' };
    let inData = false;
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply('220 test.smtp ESMTP ready');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          current.data = buffer.slice(0, end);
          buffer = buffer.slice(end + 5);
          mails.push(current);
          current = { from: '', to: [], data: '' };
          inData = false;
          reply('250 2.0.0 queued');
          continue;
        }
        const eol = buffer.indexOf('\r\n');
        if (eol < 0) return;
        const line = buffer.slice(0, eol);
        buffer = buffer.slice(eol + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO') reply('250-test.smtp\r\n250 8BITMIME');
        else if (verb === 'HELO') reply('250 test.smtp');
        else if (verb === 'MAIL') {
          current.from = /<(.*)>/.exec(line)?.[1] ?? '';
          reply('250 2.1.0 ok');
        } else if (verb === 'RCPT') {
          current.to.push(/<(.*)>/.exec(line)?.[1] ?? '');
          reply('250 2.1.5 ok');
        } else if (verb === 'DATA') {
          inData = true;
          reply('354 go ahead');
        } else if (verb === 'QUIT') {
          reply('221 bye');
          socket.end();
        } else if (verb === 'RSET' || verb === 'NOOP') reply('250 ok');
        else reply('502 5.5.2 not implemented');
      }
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return { server, port: address.port, mails };
}

describe('with SMTP_URL', () => {
  test('invitations go out through the SMTP server, and nothing is kept', async () => {
    const smtp = await smtpListener();
    try {
      await TestServer.using(
        { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, EMAIL_FROM: 'chat@lear.example' },
        async (server) => {
          expect(server.services.mail.kind).toBe('smtp');
          const { owner } = await server.createRealm();
          const res = await server.call('POST', '/invites', {
            as: owner,
            params: { invitee_emails: 'carol@example.org' },
          });
          expect(res.status).toBe(200);
          expect(smtp.mails).toHaveLength(1);
          const [mail] = smtp.mails;
          expect(mail.from).toBe('chat@lear.example');
          expect(mail.to).toEqual(['carol@example.org']);
          expect(mail.data).toContain(
            'Subject: Olivia Owner invited you to join Test organization',
          );
          expect(mail.data).toMatch(/http:\/\/chat\.test\/join\/[A-Za-z0-9_-]{32}/);
          expect(await server.services.db.read((db) => readOutbox(db))).toEqual([]);

          // The link from the mail works.
          const path = /http:\/\/chat\.test(\/join\/[A-Za-z0-9_-]{32})/.exec(mail.data)![1];
          const page = await fetch(`${server.url}${path}`);
          expect(page.status).toBe(200);
          expect(await page.text()).toContain('carol@example.org');
        },
      );
    } finally {
      await new Promise((resolve) => smtp.server.close(resolve));
    }
  });

  test('a refusing SMTP server is logged; the invitation stays', async () => {
    const logLines: string[] = [];
    // Nothing listens on this port once the listener is closed.
    const closed = await smtpListener();
    await new Promise((resolve) => closed.server.close(resolve));
    await TestServer.using(
      { SMTP_URL: `smtp://127.0.0.1:${closed.port}`, LOG_LEVEL: 'error' },
      async (server) => {
        const { owner } = await server.createRealm();
        const res = await server.call('POST', '/invites', {
          as: owner,
          params: { invitee_emails: 'dave@example.org' },
        });
        expect(res.status).toBe(200);
        const list = await server.call('GET', '/invites', { as: owner });
        expect(list.body.invites.map((i: { email: string }) => i.email)).toEqual([
          'dave@example.org',
        ]);
        const failures = logLines
          .map((line) => JSON.parse(line))
          .filter((l) => l.msg === 'invitation mail failed');
        expect(failures).toEqual([expect.objectContaining({ mailer: 'smtp' })]);
      },
      logLines,
    );
  });
});
