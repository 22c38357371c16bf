// The floor of the sending and reading benchmarks: the smallest correct
// program doing the work this server does on those paths, with node:http and
// better-sqlite3 on the same database (so the same rows and indexes). Like the
// server it remembers credentials for 10 s, answers avatar_url null (the
// client computes gravatars), and on a send looks up the linkifiers, the
// topic's muting, who muted the sender and the alert words; it counts no rate
// limit and validates nothing against the contract, so it stays below the
// server's work by those two. Its log is checkpointed by the server's worker
// thread (src/db/sqlite-checkpoints.ts), never inside a commit:
//  - POST /api/v1/messages (a channel message, urlencoded form): checks the
//    credentials, that the channel exists and the sender may post to it
//    (its can_send_message group, through subgroups), renders the Markdown
//    with this server's renderer, writes the message and one row per
//    subscriber in one transaction, answers the ID, and hands a message
//    event to every waiting long-poll of the subscribers;
//  - GET /api/v1/events: a long-poll on a queue (made on first use, owned by
//    the authenticated user), answered with the events past last_event_id or
//    parked until one comes;
//  - GET /api/v1/messages with a channel-and-topic narrow and anchor=newest:
//    the newest num_before messages of the topic with the user's flags, their
//    reactions and senders, as Zulip's message objects.
// Anything else is a 404. It exists only to be measured beside the server.
import BetterSqlite3, { type Statement } from 'better-sqlite3';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { renderMarkdown } from '../src/lib/markdown';
import { compileLinkifier } from '../src/lib/markdown/linkifiers';
import { containsAlertWord } from '../src/lib/users/alert-words';
import { SqliteCheckpointer } from '../src/db/sqlite-checkpoints';
import { parseDatabaseUrl } from '../src/db/url';

/** The authenticated user, as the floors read them. */
export interface Sender {
  id: number;
  realmId: number;
  emailLower: string;
  email: string;
  fullName: string;
  isActive: number;
}

/** An event queue of the floors: its events, and the poll waiting on it. */
export interface Queue {
  userId: number;
  events: { id: number; json: string }[];
  nextId: number;
  waiting: ServerResponse | null;
}

/** The bit of each flag in a message row's "flags" column, in the order Zulip lists them. */
export const FLAG_COLUMNS = [
  ['read', 'read'],
  ['starred', 'starred'],
  ['mentioned', 'mentioned'],
  ['stream_wildcard_mentioned', 'streamWildcardMentioned'],
  ['topic_wildcard_mentioned', 'topicWildcardMentioned'],
  ['has_alert_word', 'hasAlertWord'],
  ['historical', 'historical'],
] as const;

/**
 * Answers `body` as JSON with `status`, encoded as the server encodes its
 * answers: copied as Latin-1 when the text is ASCII alone, otherwise UTF-8.
 */
export function reply(res: ServerResponse, status: number, body: string): void {
  const bytes = Buffer.from(body, Buffer.byteLength(body) === body.length ? 'latin1' : 'utf8');
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': bytes.length,
  });
  res.end(bytes);
}

/** Answers an error envelope. */
export function refuse(
  res: ServerResponse,
  status: number,
  msg: string,
  code = 'BAD_REQUEST',
): void {
  reply(res, status, JSON.stringify({ result: 'error', msg, code }));
}

/** A channel message row as Zulip's message object, as the server presents it. */
export const messageObject = (
  row: {
    id: number;
    senderId: number;
    streamId: number;
    topic: string;
    renderedContent: string;
    dateSent: number | string;
    lastEditTime: number | string | null;
    sendingClient: string;
    isMeMessage: number | boolean;
  },
  sender: { email: string; fullName: string },
  streamName: string,
  reactions: unknown[],
  flags: string[] | undefined,
) => ({
  id: row.id,
  sender_id: row.senderId,
  content: row.renderedContent,
  recipient_id: row.streamId,
  timestamp: Math.floor(new Date(row.dateSent).getTime() / 1000),
  client: row.sendingClient,
  subject: row.topic,
  topic_links: [],
  is_me_message: row.isMeMessage === 1 || row.isMeMessage === true,
  reactions,
  submessages: [],
  sender_full_name: sender.fullName,
  sender_email: sender.email,
  sender_realm_str: 'bench',
  display_recipient: streamName,
  type: 'stream',
  stream_id: row.streamId,
  // Clients that compute gravatars themselves (Zulip's default) get null, as from the server.
  avatar_url: null,
  content_type: 'text/html',
  ...(row.lastEditTime !== null
    ? { last_edit_timestamp: Math.floor(new Date(row.lastEditTime).getTime() / 1000) }
    : {}),
  ...(flags ? { flags } : {}),
});

/** The floors' event queues: long-polls parked on them, and the delivery of a message's events. */
export function floorQueues() {
  const queues = new Map<string, Queue>();
  const queuesOfUser = new Map<number, Queue[]>();

  /** Adds the event to the queue, answering its waiting poll if any. */
  const deliver = (queue: Queue, json: string) => {
    queue.events.push({ id: queue.nextId, json: json.replace('"id":-1', `"id":${queue.nextId}`) });
    queue.nextId++;
    if (queue.waiting) {
      const res = queue.waiting;
      queue.waiting = null;
      answerPoll(queue, res);
    }
  };
  const answerPoll = (queue: Queue, res: ServerResponse) => {
    reply(
      res,
      200,
      `{"result":"success","msg":"","events":[${queue.events.map((e) => e.json).join(',')}],"queue_id":null}`,
    );
  };

  const poll = (user: Sender, query: URLSearchParams, res: ServerResponse) => {
    const queueId = query.get('queue_id') ?? '';
    const lastEventId = Number(query.get('last_event_id') ?? -1);
    let queue = queues.get(queueId);
    if (!queue) {
      queue = { userId: user.id, events: [], nextId: 0, waiting: null };
      queues.set(queueId, queue);
      queuesOfUser.set(user.id, [...(queuesOfUser.get(user.id) ?? []), queue]);
    }
    if (queue.userId !== user.id) return refuse(res, 400, `Bad event queue ID: ${queueId}`);
    queue.events = queue.events.filter((e) => e.id > lastEventId);
    if (queue.events.length) answerPoll(queue, res);
    else {
      queue.waiting = res;
      res.once('close', () => {
        if (queue.waiting === res) queue.waiting = null;
      });
    }
  };

  /** Hands a message's events to the waiting polls of its recipients. */
  const deliverAll = (
    recipients: number[],
    senderId: number,
    events: { others: string; sender: string },
  ) => {
    for (const userId of recipients)
      for (const queue of queuesOfUser.get(userId) ?? [])
        deliver(queue, userId === senderId ? events.sender : events.others);
  };
  return { poll, deliverAll };
}

export function floor(databaseUrl: string, baseUrl: string): Promise<number> {
  const target = parseDatabaseUrl(databaseUrl);
  if (target.provider !== 'sqlite') throw new Error('the floor runs on SQLite only');
  const db = new BetterSqlite3(target.file);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  // As on the server, a worker thread checkpoints the log, not the commits.
  void SqliteCheckpointer.start(target.file, db, () => undefined);

  const userByKey = db.prepare(
    'SELECT "id", "realmId", "emailLower", "email", "fullName", "isActive" FROM "User" WHERE "apiKey" = ?',
  );
  const streamByName = db.prepare(
    'SELECT "id", "name", "inviteOnly", "isArchived", "canSendMessageGroupId" FROM "Stream" WHERE "realmId" = ? AND "nameLower" = ?',
  );
  const subscribed = db.prepare(
    'SELECT 1 FROM "Subscription" WHERE "userId" = ? AND "streamId" = ? AND "active" = 1',
  );
  const inGroup = db.prepare(
    `WITH RECURSIVE g("id") AS (SELECT ? UNION SELECT s."subgroupId" FROM "UserGroupSubgroup" s JOIN g ON s."supergroupId" = g."id")
     SELECT 1 FROM "UserGroupMember" m JOIN g ON m."groupId" = g."id" WHERE m."userId" = ? LIMIT 1`,
  );
  const subscribers = db.prepare(
    'SELECT s."userId", s."isMuted" FROM "Subscription" s JOIN "User" u ON u."id" = s."userId" WHERE s."streamId" = ? AND s."active" = 1 AND u."isActive" = 1',
  );
  const linkifiersOf = db.prepare(
    'SELECT "pattern", "urlTemplate" FROM "Linkifier" WHERE "realmId" = ? ORDER BY "order", "id"',
  );
  const topicPolicies = db.prepare(
    'SELECT "userId", "visibilityPolicy" FROM "UserTopic" WHERE "streamId" = ? AND "topicLower" = ?',
  );
  const mutersOf = db.prepare('SELECT "userId" FROM "MutedUser" WHERE "mutedUserId" = ?');
  const alertWords = db.prepare('SELECT "userId", "word" FROM "AlertWord" WHERE "realmId" = ?');
  const insertMessage = db.prepare(
    'INSERT INTO "Message" ("realmId", "senderId", "streamId", "topic", "topicLower", "content", "renderedContent", "dateSent", "sendingClient", "hasLink") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING "id"',
  );
  const recipientInserts = new Map<number, Statement>();
  const insertRecipients = (count: number): Statement => {
    let statement = recipientInserts.get(count);
    if (!statement) {
      statement = db.prepare(
        `INSERT INTO "UserMessage" ("userId", "messageId", "read") VALUES ${Array(count).fill('(?, ?, ?)').join(', ')}`,
      );
      recipientInserts.set(count, statement);
    }
    return statement;
  };
  const topicMessages = db.prepare(
    `SELECT m."id", m."senderId", m."streamId", m."topic", m."renderedContent", m."dateSent", m."lastEditTime", m."sendingClient", m."isMeMessage", ${FLAG_COLUMNS.map(([, c]) => `um."${c}"`).join(', ')}, um."id" IS NULL AS "missing"
     FROM "Message" m LEFT JOIN "UserMessage" um ON um."messageId" = m."id" AND um."userId" = ?
     WHERE m."realmId" = ? AND m."streamId" = ? AND m."topicLower" = ? ORDER BY m."id" DESC LIMIT ?`,
  );
  const reactionsOf = db.prepare(
    'SELECT "messageId", "emojiName", "emojiCode", "reactionType", "userId" FROM "Reaction" WHERE "messageId" IN (SELECT value FROM json_each(?))',
  );
  const usersById = db.prepare(
    'SELECT "id", "email", "fullName" FROM "User" WHERE "id" IN (SELECT value FROM json_each(?))',
  );
  const send = db.transaction(
    (
      sender: Sender,
      streamId: number,
      topic: string,
      content: string,
      html: string,
      to: number[],
    ) => {
      const { id } = insertMessage.get(
        sender.realmId,
        sender.id,
        streamId,
        topic,
        topic.toLowerCase(),
        content,
        html,
        new Date().toISOString(),
        'API',
        html.includes('<a ') ? 1 : 0,
      ) as { id: number };
      insertRecipients(to.length).run(
        to.flatMap((userId) => [userId, id, userId === sender.id ? 1 : 0]),
      );
      return id;
    },
  );

  const queues = floorQueues();

  // Credentials are remembered for 10 s by header, as the server's Authenticator does.
  const known = new Map<string, { user: Sender; expires: number }>();
  /** The active user the request's basic credentials name, or null. */
  const authenticate = (req: IncomingMessage): Sender | null => {
    const header = req.headers.authorization ?? '';
    const now = Date.now();
    const cached = known.get(header);
    if (cached && cached.expires > now) return cached.user;
    if (!header.startsWith('Basic ')) return null;
    const decoded = Buffer.from(header.slice(6), 'base64').toString();
    const colon = decoded.lastIndexOf(':');
    const user = userByKey.get(decoded.slice(colon + 1)) as Sender | undefined;
    if (!user || !user.isActive || user.emailLower !== decoded.slice(0, colon).toLowerCase())
      return null;
    known.set(header, { user, expires: now + 10_000 });
    return user;
  };

  const postMessage = (sender: Sender, form: URLSearchParams, res: ServerResponse) => {
    const type = form.get('type');
    const to = form.get('to') ?? '';
    const topic = form.get('topic') ?? '';
    const content = form.get('content') ?? '';
    if (type !== 'stream' && type !== 'channel') return refuse(res, 400, 'Only channel messages');
    if (!topic || !content) return refuse(res, 400, 'Missing topic or content');
    const stream = streamByName.get(sender.realmId, to.toLowerCase()) as
      | {
          id: number;
          name: string;
          inviteOnly: number;
          isArchived: number;
          canSendMessageGroupId: number;
        }
      | undefined;
    const isSubscribed = stream && subscribed.get(sender.id, stream.id) !== undefined;
    if (!stream || stream.isArchived || (stream.inviteOnly && !isSubscribed))
      return refuse(res, 400, `Channel '${to}' does not exist`, 'STREAM_DOES_NOT_EXIST');
    if (!inGroup.get(stream.canSendMessageGroupId, sender.id))
      return refuse(res, 400, 'You do not have permission to post in this channel.');
    const linkifiers = (
      linkifiersOf.all(sender.realmId) as { pattern: string; urlTemplate: string }[]
    )
      .map((l) => compileLinkifier({ pattern: l.pattern, url_template: l.urlTemplate }))
      .filter((l) => l !== null);
    const rendered = renderMarkdown(content, {
      userByName: () => undefined,
      userById: () => undefined,
      groupByName: () => undefined,
      streamByName: () => undefined,
      realmEmojiByName: () => undefined,
      linkifiers,
      baseUrl,
    });
    const subs = subscribers.all(stream.id) as { userId: number; isMuted: number }[];
    const recipients = subs.map((r) => r.userId);
    // Who muted the topic, who muted the sender, whose alert words it holds:
    // the server looks these up for the flags and the events (none hold here).
    topicPolicies.all(stream.id, topic.toLowerCase());
    mutersOf.all(sender.id);
    const wanted = new Set(recipients);
    for (const { userId, word } of alertWords.all(sender.realmId) as {
      userId: number;
      word: string;
    }[])
      if (wanted.has(userId)) containsAlertWord(content, word);
    const id = send(sender, stream.id, topic, content, rendered.html, recipients);
    reply(res, 200, `{"result":"success","msg":"","id":${id}}`);
    const message = JSON.stringify(
      messageObject(
        {
          id,
          senderId: sender.id,
          streamId: stream.id,
          topic,
          renderedContent: rendered.html,
          dateSent: Date.now(),
          lastEditTime: null,
          sendingClient: 'API',
          isMeMessage: 0,
        },
        sender,
        stream.name,
        [],
        undefined,
      ),
    );
    const events = {
      others: `{"type":"message","message":${message},"flags":[],"id":-1}`,
      sender: `{"type":"message","message":${message},"flags":["read"],"id":-1}`,
    };
    queues.deliverAll(recipients, sender.id, events);
  };

  const readTopic = (user: Sender, query: URLSearchParams, res: ServerResponse) => {
    let narrow: { operator: string; operand: string }[];
    try {
      narrow = JSON.parse(query.get('narrow') ?? '[]');
    } catch {
      return refuse(res, 400, 'Bad narrow');
    }
    const channel = narrow.find((t) => t.operator === 'channel' || t.operator === 'stream');
    const topic = narrow.find((t) => t.operator === 'topic');
    const numBefore = Number(query.get('num_before') ?? 0);
    if (!channel || !topic || query.get('anchor') !== 'newest' || !(numBefore <= 5000))
      return refuse(res, 400, 'The floor reads one topic from the newest message');
    const stream = streamByName.get(user.realmId, channel.operand.toLowerCase()) as
      { id: number; name: string; inviteOnly: number } | undefined;
    if (!stream || (stream.inviteOnly && subscribed.get(user.id, stream.id) === undefined))
      return refuse(res, 400, 'Invalid channel name', 'STREAM_DOES_NOT_EXIST');
    const rows = (
      topicMessages.all(
        user.id,
        user.realmId,
        stream.id,
        topic.operand.toLowerCase(),
        numBefore,
      ) as (Parameters<typeof messageObject>[0] & Record<string, number>)[]
    ).reverse();
    const ids = JSON.stringify(rows.map((r) => r.id));
    const reactions = new Map<number, unknown[]>();
    for (const r of reactionsOf.all(ids) as {
      messageId: number;
      emojiName: string;
      emojiCode: string;
      reactionType: string;
      userId: number;
    }[]) {
      const list = reactions.get(r.messageId) ?? [];
      list.push({
        emoji_name: r.emojiName,
        emoji_code: r.emojiCode,
        reaction_type: r.reactionType,
        user_id: r.userId,
      });
      reactions.set(r.messageId, list);
    }
    const senders = new Map<number, { email: string; fullName: string }>();
    for (const u of usersById.all(JSON.stringify([...new Set(rows.map((r) => r.senderId))])) as {
      id: number;
      email: string;
      fullName: string;
    }[])
      senders.set(u.id, u);
    const messages = rows.map((row) => {
      const flags: string[] = row.missing ? ['read', 'historical'] : [];
      if (!row.missing)
        for (const [flag, column] of FLAG_COLUMNS) if (row[column]) flags.push(flag);
      return messageObject(
        row,
        senders.get(row.senderId)!,
        stream.name,
        reactions.get(row.id) ?? [],
        flags,
      );
    });
    reply(
      res,
      200,
      JSON.stringify({
        result: 'success',
        msg: '',
        messages,
        anchor: 10000000000000000,
        found_anchor: false,
        found_oldest: messages.length < numBefore,
        found_newest: true,
        history_limited: false,
      }),
    );
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://floor');
    const user = authenticate(req);
    if (!user) {
      req.resume();
      return refuse(res, 401, 'Invalid API key', 'UNAUTHORIZED');
    }
    if (req.method === 'GET' && url.pathname === '/api/v1/events')
      return queues.poll(user, url.searchParams, res);
    if (req.method === 'GET' && url.pathname === '/api/v1/messages')
      return readTopic(user, url.searchParams, res);
    if (req.method === 'POST' && url.pathname === '/api/v1/messages') {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => postMessage(user, new URLSearchParams(body), res));
      return;
    }
    req.resume();
    refuse(res, 404, 'Not found', 'NOT_FOUND');
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
}
