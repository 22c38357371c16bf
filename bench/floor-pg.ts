// The floor of the sending and reading benchmarks on PostgreSQL: floor.ts's
// program with node:http and pg instead of better-sqlite3, on the same
// database as the server (so the same rows and indexes), each query a named
// prepared statement as the server's hot paths run them. It does exactly the
// work of the SQLite floor, and so of the server but for the rate limit and
// validation against the contract: credentials remembered for 10 s, the same
// look-ups on a send (channel, subscription, can_send_message group through
// subgroups, linkifiers, the topic's muting, who muted the sender, alert words),
// the message and its recipients' rows written in one transaction, the same
// events to the waiting polls, and the same answer bytes for a read of one
// topic. It exists only to be measured beside the server.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Pool, types, type PoolClient, type QueryConfigValues } from 'pg';
import { renderMarkdown } from '../src/lib/markdown';
import { compileLinkifier } from '../src/lib/markdown/linkifiers';
import { containsAlertWord } from '../src/lib/users/alert-words';
import { parseDatabaseUrl } from '../src/db/url';
import { FLAG_COLUMNS, floorQueues, messageObject, refuse, reply, type Sender } from './floor';

// Timestamps are stored in UTC without a zone; read them as milliseconds in UTC.
const typeParsers = {
  getTypeParser: (oid: number, format?: string) =>
    oid === 1114
      ? (text: string) => Date.parse(`${text.replace(' ', 'T')}Z`)
      : types.getTypeParser(oid, format as 'text'),
};

export async function floorPostgres(databaseUrl: string, baseUrl: string): Promise<number> {
  const target = parseDatabaseUrl(databaseUrl);
  if (target.provider !== 'postgresql') throw new Error('floorPostgres runs on PostgreSQL only');
  const pool = new Pool({
    connectionString: target.connectionString,
    max: 10,
    ...(target.schema ? { options: `-c search_path="${target.schema}"` } : {}),
  });

  /** A named prepared statement: `run` answers its rows, on the pool or on `client`. */
  const statement = (name: string, text: string) => ({
    async run<T>(values: QueryConfigValues<unknown[]>, client?: PoolClient): Promise<T[]> {
      const config = { name, text, values, types: typeParsers };
      return (await (client ?? pool).query(config)).rows as T[];
    },
  });

  const userByKey = statement(
    'user_by_key',
    'SELECT "id", "realmId", "emailLower", "email", "fullName", "isActive" FROM "User" WHERE "apiKey" = $1',
  );
  const streamByName = statement(
    'stream_by_name',
    'SELECT "id", "name", "inviteOnly", "isArchived", "canSendMessageGroupId" FROM "Stream" WHERE "realmId" = $1 AND "nameLower" = $2',
  );
  const subscribed = statement(
    'subscribed',
    'SELECT 1 FROM "Subscription" WHERE "userId" = $1 AND "streamId" = $2 AND "active"',
  );
  const inGroup = statement(
    'in_group',
    `WITH RECURSIVE g("id") AS (SELECT $1::int UNION SELECT s."subgroupId" FROM "UserGroupSubgroup" s JOIN g ON s."supergroupId" = g."id")
     SELECT 1 FROM "UserGroupMember" m JOIN g ON m."groupId" = g."id" WHERE m."userId" = $2 LIMIT 1`,
  );
  const subscribers = statement(
    'subscribers',
    'SELECT s."userId", s."isMuted" FROM "Subscription" s JOIN "User" u ON u."id" = s."userId" WHERE s."streamId" = $1 AND s."active" AND u."isActive"',
  );
  const linkifiersOf = statement(
    'linkifiers',
    'SELECT "pattern", "urlTemplate" FROM "Linkifier" WHERE "realmId" = $1 ORDER BY "order", "id"',
  );
  const topicPolicies = statement(
    'topic_policies',
    'SELECT "userId", "visibilityPolicy" FROM "UserTopic" WHERE "streamId" = $1 AND "topicLower" = $2',
  );
  const mutersOf = statement('muters', 'SELECT "userId" FROM "MutedUser" WHERE "mutedUserId" = $1');
  const alertWords = statement(
    'alert_words',
    'SELECT "userId", "word" FROM "AlertWord" WHERE "realmId" = $1',
  );
  const insertMessage = statement(
    'insert_message',
    'INSERT INTO "Message" ("realmId", "senderId", "streamId", "topic", "topicLower", "content", "renderedContent", "dateSent", "sendingClient", "hasLink") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING "id"',
  );
  // One statement for any number of recipients: their IDs and read flags as arrays.
  const insertRecipients = statement(
    'insert_recipients',
    'INSERT INTO "UserMessage" ("userId", "messageId", "read") SELECT u, $2, r FROM unnest($1::int[], $3::boolean[]) AS t(u, r)',
  );
  const topicMessages = statement(
    'topic_messages',
    `SELECT m."id", m."senderId", m."streamId", m."topic", m."renderedContent", m."dateSent", m."lastEditTime", m."sendingClient", m."isMeMessage", ${FLAG_COLUMNS.map(([, c]) => `um."${c}"`).join(', ')}, um."id" IS NULL AS "missing"
     FROM "Message" m LEFT JOIN "UserMessage" um ON um."messageId" = m."id" AND um."userId" = $1
     WHERE m."realmId" = $2 AND m."streamId" = $3 AND m."topicLower" = $4 ORDER BY m."id" DESC LIMIT $5`,
  );
  const reactionsOf = statement(
    'reactions',
    'SELECT "messageId", "emojiName", "emojiCode", "reactionType", "userId" FROM "Reaction" WHERE "messageId" = ANY($1::int[])',
  );
  const usersById = statement(
    'users_by_id',
    'SELECT "id", "email", "fullName" FROM "User" WHERE "id" = ANY($1::int[])',
  );

  /** Writes the message and its recipients' rows in one transaction; answers its ID. */
  const send = async (
    sender: Sender,
    streamId: number,
    topic: string,
    content: string,
    html: string,
    to: number[],
  ): Promise<number> => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const [{ id }] = await insertMessage.run<{ id: number }>(
        [
          sender.realmId,
          sender.id,
          streamId,
          topic,
          topic.toLowerCase(),
          content,
          html,
          new Date().toISOString(),
          'API',
          html.includes('<a '),
        ],
        client,
      );
      await insertRecipients.run([to, id, to.map((userId) => userId === sender.id)], client);
      await client.query('COMMIT');
      return id;
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
  };

  const queues = floorQueues();

  // Credentials are remembered for 10 s by header, as the server's Authenticator does.
  const known = new Map<string, { user: Sender; expires: number }>();
  /** The active user the request's basic credentials name, or null. */
  const authenticate = async (req: IncomingMessage): Promise<Sender | null> => {
    const header = req.headers.authorization ?? '';
    const now = Date.now();
    const cached = known.get(header);
    if (cached && cached.expires > now) return cached.user;
    if (!header.startsWith('Basic ')) return null;
    const decoded = Buffer.from(header.slice(6), 'base64').toString();
    const colon = decoded.lastIndexOf(':');
    const [user] = await userByKey.run<Sender>([decoded.slice(colon + 1)]);
    if (!user || !user.isActive || user.emailLower !== decoded.slice(0, colon).toLowerCase())
      return null;
    known.set(header, { user, expires: now + 10_000 });
    return user;
  };

  type StreamRow = {
    id: number;
    name: string;
    inviteOnly: boolean;
    isArchived: boolean;
    canSendMessageGroupId: number;
  };

  const postMessage = async (sender: Sender, form: URLSearchParams, res: ServerResponse) => {
    const type = form.get('type');
    const to = form.get('to') ?? '';
    const topic = form.get('topic') ?? '';
    const content = form.get('content') ?? '';
    if (type !== 'stream' && type !== 'channel') return refuse(res, 400, 'Only channel messages');
    if (!topic || !content) return refuse(res, 400, 'Missing topic or content');
    const [stream] = await streamByName.run<StreamRow>([sender.realmId, to.toLowerCase()]);
    const isSubscribed = stream && (await subscribed.run([sender.id, stream.id])).length > 0;
    if (!stream || stream.isArchived || (stream.inviteOnly && !isSubscribed))
      return refuse(res, 400, `Channel '${to}' does not exist`, 'STREAM_DOES_NOT_EXIST');
    if ((await inGroup.run([stream.canSendMessageGroupId, sender.id])).length === 0)
      return refuse(res, 400, 'You do not have permission to post in this channel.');
    const linkifiers = (
      await linkifiersOf.run<{ pattern: string; urlTemplate: string }>([sender.realmId])
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
    const subs = await subscribers.run<{ userId: number; isMuted: boolean }>([stream.id]);
    const recipients = subs.map((r) => r.userId);
    // Who muted the topic, who muted the sender, whose alert words it holds:
    // the server looks these up for the flags and the events (none hold here).
    await topicPolicies.run([stream.id, topic.toLowerCase()]);
    await mutersOf.run([sender.id]);
    const wanted = new Set(recipients);
    for (const { userId, word } of await alertWords.run<{ userId: number; word: string }>([
      sender.realmId,
    ]))
      if (wanted.has(userId)) containsAlertWord(content, word);
    const id = await send(sender, stream.id, topic, content, rendered.html, recipients);
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
          isMeMessage: false,
        },
        sender,
        stream.name,
        [],
        undefined,
      ),
    );
    queues.deliverAll(recipients, sender.id, {
      others: `{"type":"message","message":${message},"flags":[],"id":-1}`,
      sender: `{"type":"message","message":${message},"flags":["read"],"id":-1}`,
    });
  };

  const readTopic = async (user: Sender, query: URLSearchParams, res: ServerResponse) => {
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
    const [stream] = await streamByName.run<StreamRow>([
      user.realmId,
      channel.operand.toLowerCase(),
    ]);
    if (!stream || (stream.inviteOnly && (await subscribed.run([user.id, stream.id])).length === 0))
      return refuse(res, 400, 'Invalid channel name', 'STREAM_DOES_NOT_EXIST');
    const rows = (
      await topicMessages.run<Parameters<typeof messageObject>[0] & Record<string, unknown>>([
        user.id,
        user.realmId,
        stream.id,
        topic.operand.toLowerCase(),
        numBefore,
      ])
    ).reverse();
    const reactions = new Map<number, unknown[]>();
    for (const r of await reactionsOf.run<{
      messageId: number;
      emojiName: string;
      emojiCode: string;
      reactionType: string;
      userId: number;
    }>([rows.map((r) => r.id)])) {
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
    for (const u of await usersById.run<{ id: number; email: string; fullName: string }>([
      [...new Set(rows.map((r) => r.senderId))],
    ]))
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

  const fail = (res: ServerResponse) => (error: unknown) => {
    process.stderr.write(`${(error as Error)?.stack ?? error}\n`);
    if (!res.headersSent) refuse(res, 500, 'Internal error', 'INTERNAL');
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://floor');
    authenticate(req)
      .then((user) => {
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
          req.on('end', () => postMessage(user, new URLSearchParams(body), res).catch(fail(res)));
          return;
        }
        req.resume();
        refuse(res, 404, 'Not found', 'NOT_FOUND');
      })
      .catch(fail(res));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
}
