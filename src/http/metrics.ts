// Prometheus metrics, served at GET /metrics: requests by operation and
// status, their latency, the event queues and waiting polls, and the time
// spent in the database. Per request the cost is one counter increment and
// one histogram observation with a bounded label set (operation IDs and a few
// fixed names, never paths); everything else is read when Prometheus scrapes.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Scheduler } from '../lib/messages/scheduler';
import type { Database } from '../db/client';
import type { EventQueueStore, PublicationStats, QueueStats } from '../events/queues';
import { passwordChecks } from '../lib/users/secrets';
import { emailNotificationStats } from '../actions/notifications/email-notifications';
import type { StreamStats } from './event-stream';

/** The metrics of one server. */
export interface Metrics {
  /** The registry /metrics answers from. */
  registry: Registry;
  /** Counts one answered request and its duration in seconds. */
  observeRequest(operation: string, status: number, seconds: number): void;
}

/** Latency buckets in seconds: from a cached read to a long-poll's full wait. */
const latencyBuckets = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
];

/**
 * Creates the metrics of a server over its database and event queues. With
 * `processMetrics`, prom-client's process and Node.js metrics (CPU, memory,
 * event-loop delay, garbage collection) are added; they watch the whole
 * process, so only the server started by `npm start` asks for them.
 */
export function createMetrics(
  sources: { db: Database; queues: EventQueueStore; scheduler: Scheduler; streams: StreamStats },
  options: { processMetrics?: boolean } = {},
): Metrics {
  const registry = new Registry();
  // Requests are counted here, each series by reference, in the order they
  // first occur, and handed to prom-client when /metrics is read: prom-client
  // would hash and check the labels on every increment.
  const counts: { labels: { operation: string; status: string }; count: number }[] = [];
  new Counter({
    name: 'chat_http_requests_total',
    help: 'HTTP requests answered, by operation (operationId, or health, ready, metrics, openapi, docs, user-uploads, user-avatars, none) and status code.',
    labelNames: ['operation', 'status'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const { labels, count } of counts) this.inc(labels, count);
    },
  });
  const latency = new Histogram({
    name: 'chat_http_request_duration_seconds',
    help: 'Time from receiving a request to answering it, by operation; long-polls (get-events) wait up to the heartbeat interval.',
    labelNames: ['operation'] as const,
    buckets: latencyBuckets,
    registers: [registry],
  });
  registerStateMetrics(registry, sources);
  if (options.processMetrics) collectDefaultMetrics({ register: registry });
  // The series of each operation and status, looked up once, by operation and
  // then by status (no key string is built per request): a lookup by labels
  // hashes the label set on every call.
  const series = new Map<
    string,
    Map<number, { counted: (typeof counts)[number]; time: (seconds: number) => void }>
  >();
  return {
    registry,
    observeRequest(operation, status, seconds) {
      let byStatus = series.get(operation);
      if (!byStatus) series.set(operation, (byStatus = new Map()));
      let found = byStatus.get(status);
      if (!found) {
        const counted = { labels: { operation, status: String(status) }, count: 0 };
        counts.push(counted);
        const histogram = latency.labels(operation);
        found = { counted, time: (s) => histogram.observe(s) };
        byStatus.set(status, found);
      }
      found.counted.count++;
      found.time(seconds);
    },
  };
}

/**
 * The figures read from the process's state when /metrics is asked: event
 * queues and streams, the periodic task, database calls, password checks, notification emails.
 */
function registerStateMetrics(
  registry: Registry,
  sources: { db: Database; queues: EventQueueStore; scheduler: Scheduler; streams: StreamStats },
): void {
  const { db, queues } = sources;
  const queueGauge = (name: string, help: string, field: keyof QueueStats) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        this.set((await queues.stats())[field]);
      },
    });
  queueGauge('chat_event_queues', 'Event queues held by the queue store.', 'queues');
  queueGauge(
    'chat_event_polls_waiting',
    'GET /events requests and event streams of this process waiting for an event.',
    'waitingPolls',
  );
  queueGauge(
    'chat_event_queue_events',
    'Events held for the event queues: in one process, those its queues hold unacknowledged; with Redis, the entries of the shared event log.',
    'events',
  );
  registerPublicationMetrics(registry, queues);
  registerStreamMetrics(registry, sources.streams);
  new Counter({
    name: 'chat_periodic_task_runs_total',
    help: 'Finished runs of the periodic task (scheduled messages, due organization deletions) in this process.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(sources.scheduler.runs);
    },
  });
  new Counter({
    name: 'chat_database_calls_total',
    help: 'Database calls: plain reads (read) and transactions (write).',
    labelNames: ['kind'] as const,
    registers: [registry],
    collect() {
      this.reset();
      this.inc({ kind: 'read' }, db.timing.reads);
      this.inc({ kind: 'write' }, db.timing.writes);
    },
  });
  new Counter({
    name: 'chat_database_seconds_total',
    help: 'Time spent in database calls, waiting for the connection included, by kind (read or write).',
    labelNames: ['kind'] as const,
    registers: [registry],
    collect() {
      this.reset();
      this.inc({ kind: 'read' }, db.timing.readMs / 1000);
      this.inc({ kind: 'write' }, db.timing.writeMs / 1000);
    },
  });
  new Counter({
    name: 'chat_password_checks_total',
    help: "Password hashes checked by this process: against the account's own hash (account), or against a stand-in for a missing account or password (stand_in), which takes the same time.",
    labelNames: ['against'] as const,
    registers: [registry],
    collect() {
      this.reset();
      this.inc({ against: 'account' }, passwordChecks.account);
      this.inc({ against: 'stand_in' }, passwordChecks.standIn);
    },
  });
  new Counter({
    name: 'chat_notification_emails_total',
    help: 'Notification emails about missed messages sent by this process.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(emailNotificationStats(sources).sent);
    },
  });
  new Gauge({
    name: 'chat_notification_email_last_run_seconds',
    help: 'The time (Unix seconds) the last run of notification emails in this process sent for; 0 before the first.',
    registers: [registry],
    collect() {
      this.set((emailNotificationStats(sources).lastRunAt?.getTime() ?? 0) / 1000);
    },
  });
}

/**
 * What became of the events this process could not deliver at once (a store
 * shared through Redis, while Redis was unreachable).
 */
function registerPublicationMetrics(registry: Registry, queues: EventQueueStore): void {
  const publications = (name: string, help: string, field: keyof PublicationStats) =>
    countOf(registry, name, help, () => queues.publicationStats()[field]);
  publications(
    'chat_event_publications_delayed_total',
    'Events whose delivery to their queues failed at first (Redis unreachable) and was retried.',
    'delayed',
  );
  publications(
    'chat_event_publications_abandoned_total',
    'Events not delivered within EVENT_PUBLISH_RETRY_SECONDS: the queues they were for are dropped, so that their clients register again.',
    'abandoned',
  );
  publications(
    'chat_event_queues_dropped_total',
    'Event queues dropped by this process because they missed an event.',
    'queuesDropped',
  );
  publications(
    'chat_event_queues_dropped_after_crash_total',
    'Event queues dropped by this process because another process died, or stopped, owing events of writes it had committed.',
    'queuesDroppedAfterCrash',
  );
  publications(
    'chat_event_commit_marks_failed_total',
    'Writes this process committed without its in-flight mark in Redis (unreachable): their events are covered only while the process lives.',
    'markFailures',
  );
  new Gauge({
    name: 'chat_event_publication_backlog',
    help: 'Events of this process waiting for another attempt at their delivery.',
    registers: [registry],
    collect() {
      this.set(queues.publicationStats().backlog);
    },
  });
}

/** The event streams (GET /events/stream) of this process. */
function registerStreamMetrics(registry: Registry, streams: StreamStats): void {
  new Gauge({
    name: 'chat_event_streams_open',
    help: 'Event streams (GET /events/stream) this process is writing.',
    registers: [registry],
    collect() {
      this.set(streams.open);
    },
  });
  const streamCounter = (name: string, help: string, field: 'opened' | 'dropped') =>
    countOf(registry, name, help, () => streams[field]);
  streamCounter(
    'chat_event_streams_opened_total',
    'Event streams opened by this process.',
    'opened',
  );
  streamCounter(
    'chat_event_streams_dropped_total',
    'Event streams dropped because their client did not take their output (EVENT_STREAM_MAX_UNSENT_BYTES).',
    'dropped',
  );
}

/** A counter that reads its total, kept elsewhere, when /metrics is asked. */
function countOf(registry: Registry, name: string, help: string, total: () => number): void {
  new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      this.reset();
      this.inc(total());
    },
  });
}
