// Follows GET /events/stream as a client would (EventSource, curl -N): the
// server-sent events are parsed as they arrive, and each is checked against
// the contract: its `data:` is one event of the schemas of openapi.yaml, and
// its `id:` the event's ID. A refusal (JSON, before any stream) is checked
// against openapi.yaml like every other answer.
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { checkEvents } from './events';
import { waitFor } from './wait';
import {
  authorization,
  checkAgainstContract,
  checkStreamAgainstContract,
  type ApiClient,
  type CallOptions,
  type Reply,
} from './server';

/** One server-sent event: its `id:` and its parsed `data:`. */
export interface StreamedEvent {
  id: string;
  data: any;
}

/** What opening a stream can give: the stream, or a refusal. */
export type StreamOpening = { stream: EventStreamReader } | { refused: Reply };

/** Options of a stream: who opens it, the query, extra headers (Last-Event-ID, Cookie, Host). */
export interface StreamOptions {
  as?: CallOptions['as'];
  params?: Record<string, string | number>;
  headers?: Record<string, string>;
  /** The path prefix: /api/v1 (credentials) or /json (the session cookie). */
  prefix?: '/api/v1' | '/json';
}

/** A stream being read. */
export class EventStreamReader {
  /** The events received so far, in order. */
  readonly events: StreamedEvent[] = [];
  /** How many comment lines (heartbeats) arrived. */
  comments = 0;
  /** Resolves once the server has ended the stream or cut the connection. */
  readonly ended: Promise<'end' | 'cut'>;
  private buffer = '';
  private failure: Error | undefined;

  constructor(
    private readonly request: ClientRequest,
    private readonly response: IncomingMessage,
  ) {
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => this.take(chunk));
    this.ended = new Promise((done) => {
      response.once('end', () => done('end'));
      response.once('error', () => done('cut'));
      response.once('close', () => done(response.complete ? 'end' : 'cut'));
    });
  }

  /** The events' data, in order. */
  get data(): any[] {
    return this.events.map((e) => e.data);
  }

  /** Waits until at least `count` events have arrived; answers them all. */
  async waitForEvents(count: number): Promise<StreamedEvent[]> {
    await waitFor(`${count} event(s) on the stream`, () => {
      if (this.failure) throw this.failure;
      return this.events.length >= count;
    });
    return this.events;
  }

  /** Waits until at least `count` comment lines have arrived. */
  async waitForComments(count: number): Promise<void> {
    await waitFor(`${count} comment(s) on the stream`, () => this.comments >= count);
  }

  /** Stops reading, as a client that takes nothing more: the server's output piles up. */
  stopReading(): void {
    this.response.pause();
    this.response.socket.pause();
  }

  /** Reads again after stopReading. */
  resumeReading(): void {
    this.response.socket.resume();
    this.response.resume();
  }

  /** Closes the connection, as a client going away. */
  close(): void {
    this.request.destroy();
  }

  /** Parses what arrived, by the rules of the server-sent events format. */
  private take(chunk: string): void {
    this.buffer += chunk;
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) !== -1) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      let id: string | undefined;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) this.comments++;
        else if (line.startsWith('id: ')) id = line.slice(4);
        else if (line.startsWith('data: ')) data.push(line.slice(6));
        else this.failure ??= new Error(`unexpected line on the stream: ${line}`);
      }
      if (data.length === 0) continue;
      try {
        const event = JSON.parse(data.join('\n'));
        checkEvents([event]);
        if (String(event.id) !== id)
          throw new Error(`the event's id: ${id} is not its ID ${event.id}`);
        this.events.push({ id, data: event });
      } catch (error) {
        this.failure ??= error as Error;
      }
    }
  }
}

/**
 * Opens GET /events/stream on `client`'s server: the stream once its answer
 * has begun (checked against the contract), or the refusal.
 */
export async function openStream(
  client: ApiClient,
  options: StreamOptions = {},
): Promise<StreamOpening> {
  const prefix = options.prefix ?? '/api/v1';
  const query = new URLSearchParams(
    Object.entries(options.params ?? {}).map(([k, v]): [string, string] => [k, String(v)]),
  ).toString();
  const path = `/events/stream${query ? `?${query}` : ''}`;
  const headers: Record<string, string> = { accept: 'text/event-stream', ...options.headers };
  const auth = authorization(options.as);
  if (auth) headers.authorization = auth;
  const { request, response } = await new Promise<{
    request: ClientRequest;
    response: IncomingMessage;
  }>((resolve, reject) => {
    const request = httpRequest(`${client.url}${prefix}${path}`, { headers }, (response) =>
      resolve({ request, response }),
    );
    request.on('error', reject);
    request.end();
  });
  const status = response.statusCode ?? 0;
  const type = response.headers['content-type'] ?? '';
  if (status === 200 && type.startsWith('text/event-stream')) {
    await checkStreamAgainstContract('GET', path, status, type);
    return { stream: new EventStreamReader(request, response) };
  }
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  const out = new Headers();
  for (const [name, value] of Object.entries(response.headers))
    if (value !== undefined) out.set(name, String(value));
  const refused: Reply = {
    status,
    headers: out,
    body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
  };
  await checkAgainstContract('GET', path, refused);
  return { refused };
}

/** Opens a stream that must open; throws with the refusal otherwise. */
export async function follow(
  client: ApiClient,
  options: StreamOptions = {},
): Promise<EventStreamReader> {
  const opening = await openStream(client, options);
  if ('stream' in opening) return opening.stream;
  throw new Error(
    `GET /events/stream answered ${opening.refused.status}: ${JSON.stringify(opening.refused.body)}`,
  );
}
