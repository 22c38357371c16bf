// Writes an event stream (events/stream.ts) as server-sent events, for both
// front ends (Koa and the lean path): each event as `id:` (its ID in the
// queue) and `data:` (its JSON, on one line), a comment line when the
// heartbeat interval passes without events, so that proxies keep the
// connection open. A client that does not take what is written (a slow
// reader) is dropped once its unsent output passes the stream's bound; the
// queue keeps its events (within its own bound), for the client to resume
// from with Last-Event-ID.
import type { ServerResponse } from 'node:http';
import { eventJson, type QueuedEvent } from '../events/queues';
import type { EventStream } from '../events/stream';
import type { Logger } from '../log';

/** The streams of one server, for metrics. */
export interface StreamStats {
  /** Streams open now. */
  open: number;
  /** Streams opened since the start. */
  opened: number;
  /** Streams dropped because their client did not take their output. */
  dropped: number;
}

/** Counts starting at zero. */
export function newStreamStats(): StreamStats {
  return { open: 0, opened: 0, dropped: 0 };
}

/** The media type of a stream's answer. */
export const EVENT_STREAM_TYPE = 'text/event-stream';

/** What a heartbeat writes: a comment, which EventSource ignores. */
const HEARTBEAT = ': heartbeat\n\n';

/** The server-sent events of a batch of events. */
function eventsText(events: QueuedEvent[]): string {
  let text = '';
  for (const event of events) text += `id: ${event.id}\ndata: ${eventJson(event)}\n\n`;
  return text;
}

/**
 * How a stream ended: its queue's end (see EventStream.next), the client
 * gone, dropped as too slow, or cut by a failure of the store (Redis).
 */
export type StreamEnd = 'ended' | 'closed' | 'dropped' | 'failed';

/**
 * Answers with `stream` until it ends: status 200 and `headers` (the request
 * ID, rate-limit headers) at once, then the events waiting and each batch as
 * it comes. A failure after the answer has begun cuts the connection, and is
 * logged with the request's ID.
 */
export async function writeEventStream(
  res: ServerResponse,
  stream: EventStream,
  headers: Record<string, string>,
  context: { stats: StreamStats; log: Logger; requestId: string },
): Promise<StreamEnd> {
  const { stats } = context;
  res.statusCode = 200;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', `${EVENT_STREAM_TYPE}; charset=utf-8`);
  res.setHeader('Cache-Control', 'no-cache, no-transform');
  // nginx would otherwise hold the events back in its buffer.
  res.setHeader('X-Accel-Buffering', 'no');
  let closed = false;
  const onClose = () => {
    closed = true;
    stream.close();
  };
  res.on('close', onClose);
  stats.open++;
  stats.opened++;
  try {
    let batch: QueuedEvent[] | null = stream.first;
    for (;;) {
      // Checked before writing more, so that one batch larger than the bound
      // (a resumed stream's backlog) still goes out to a client that reads.
      if (res.writableLength > stream.maxUnsentBytes) {
        stats.dropped++;
        res.destroy();
        return 'dropped';
      }
      // The first write goes out with the headers, so the client sees the stream open.
      res.write(batch.length > 0 ? eventsText(batch) : HEARTBEAT);
      if (closed || res.destroyed) return 'closed';
      batch = await stream.next();
      if (closed || res.destroyed) return 'closed';
      if (batch === null) {
        res.end();
        return 'ended';
      }
    }
  } catch (error) {
    context.log.warn('event stream cut', {
      request_id: context.requestId,
      error: error instanceof Error ? error.message : String(error),
    });
    res.destroy();
    return 'failed';
  } finally {
    stats.open--;
    res.off('close', onClose);
    stream.close();
  }
}
