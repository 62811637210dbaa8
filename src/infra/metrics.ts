import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { QueryOperation, QueryTimer } from '../db/timed-dialect.js';
import type { JobCount } from './job-runner.js';
import type { PresentHere } from './presence.js';
import type { BlobOperation, BlobStoreTimer } from './timed-blob-store.js';

/** How a job's run ended, as `maproom_job_duration_seconds` labels it. */
export type JobOutcome = 'complete' | 'error' | 'cancelled' | 'interrupted';

/** What a job runner tells the metrics (JobRunner). */
export interface JobObserver {
  jobEnded(kind: string, outcome: JobOutcome, seconds: number): void;
}

/** What the metrics read when scraped, from the parts that know it. */
export interface MetricSources {
  /** Live sockets open on this instance, and the events sent on them since start. */
  live: { sockets(): number; eventsSent(): number };
  /** Jobs waiting, running and failed, by kind (the `jobs` table: every instance's). */
  jobs(): Promise<JobCount[]>;
  /** GDAL processes this instance runs now. */
  gdalProcesses(): number;
  /** The people and tokens present through this instance's live sockets, and their rooms. */
  presence(): PresentHere;
}

/** Seconds: the request durations' buckets, from a cached read to a big upload's answer. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Seconds: a job's run, from a small import to a million-feature layer. */
const JOB_BUCKETS = [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600];
/** Seconds: a database statement, from an SQLite read by key (tens of µs) to a transaction that waited for the lock. */
const QUERY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** Seconds: an object-store call, from a file read on disk to a big file's upload to S3. */
const OBJECT_STORE_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * The instance's metrics in the Prometheus format (prom-client), served at `GET /metrics`
 * when METRICS_TOKEN is set (docs/decisions.md, "Metrics"): request durations by route as
 * registered, live sockets and events, jobs by kind and state and their run times, GDAL
 * processes, rate-limit refusals, database and object-store call durations, people present,
 * and Node's own process metrics (memory, CPU, event-loop delay). Counted where it happens
 * (requests, job ends, refusals, database and store calls); read when scraped (sockets, jobs,
 * GDAL, presence).
 */
export class Metrics implements JobObserver, QueryTimer, BlobStoreTimer {
  readonly registry = new Registry();
  private readonly requests = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method, route as registered and status code',
    labelNames: ['method', 'route', 'status_code'],
    buckets: REQUEST_BUCKETS,
    registers: [this.registry],
  });
  private readonly jobRuns = new Histogram({
    name: 'maproom_job_duration_seconds',
    help: "A job's run on this instance, by kind and how it ended",
    labelNames: ['kind', 'outcome'],
    buckets: JOB_BUCKETS,
    registers: [this.registry],
  });
  private readonly refusals = new Counter({
    name: 'maproom_rate_limited_total',
    help: 'Requests refused with 429 by a rate limit',
    registers: [this.registry],
  });
  private readonly queries = new Histogram({
    name: 'maproom_db_query_duration_seconds',
    help: 'Database calls of this instance: each statement that reads or writes, and each transaction from begin to end',
    labelNames: ['operation'],
    buckets: QUERY_BUCKETS,
    registers: [this.registry],
  });
  /** Each operation's series, bound once: a statement's timing costs no label lookup. */
  private readonly queryTimes: Record<QueryOperation, { observe(seconds: number): void }> = {
    read: this.queries.labels('read'),
    write: this.queries.labels('write'),
    transaction: this.queries.labels('transaction'),
  };
  private readonly objectStoreCalls = new Histogram({
    name: 'maproom_object_store_duration_seconds',
    help: 'Object-store (files) calls of this instance by operation, until the store answers',
    labelNames: ['operation'],
    buckets: OBJECT_STORE_BUCKETS,
    registers: [this.registry],
  });
  private sources: MetricSources | undefined;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    const read = () => this.sources;
    new Gauge({
      name: 'maproom_live_sockets',
      help: 'Live channel sockets open on this instance',
      registers: [this.registry],
      collect() {
        this.set(read()?.live.sockets() ?? 0);
      },
    });
    let reported = 0;
    new Counter({
      name: 'maproom_live_events_sent_total',
      help: 'Events sent on the live channel sockets of this instance',
      registers: [this.registry],
      collect() {
        const sent = read()?.live.eventsSent() ?? 0;
        this.inc(sent - reported);
        reported = sent;
      },
    });
    // Counted from this instance's sockets in memory, each scrape (no Redis read).
    const present = (): PresentHere => read()?.presence() ?? { people: 0, rooms: 0 };
    new Gauge({
      name: 'maproom_presence_people',
      help: 'People and room tokens present through live sockets of this instance, once per room they are in',
      registers: [this.registry],
      collect() {
        this.set(present().people);
      },
    });
    new Gauge({
      name: 'maproom_presence_rooms',
      help: 'Rooms with someone present through live sockets of this instance',
      registers: [this.registry],
      collect() {
        this.set(present().rooms);
      },
    });
    new Gauge({
      name: 'maproom_gdal_processes',
      help: 'GDAL processes this instance runs now',
      registers: [this.registry],
      collect() {
        this.set(read()?.gdalProcesses() ?? 0);
      },
    });
    // One read of the jobs table per scrape for both gauges (prom-client collects them at once).
    let reading: ReturnType<MetricSources['jobs']> | null = null;
    const jobs = () => {
      reading ??= (read()?.jobs() ?? Promise.resolve([])).finally(() => setImmediate(() => (reading = null)));
      return reading;
    };
    new Gauge({
      name: 'maproom_jobs',
      help: 'Jobs of every instance by kind and state: queued (waiting), processing (running), error (failed)',
      labelNames: ['kind', 'state'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const row of await jobs()) this.set({ kind: row.kind, state: row.state }, row.count);
      },
    });
    new Gauge({
      name: 'maproom_job_oldest_seconds',
      help: 'Age of the oldest job of each kind and state (queued: how long the queue has kept it waiting)',
      labelNames: ['kind', 'state'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const row of await jobs())
          if (row.oldestAt !== null) this.set({ kind: row.kind, state: row.state }, (Date.now() - row.oldestAt) / 1000);
      },
    });
  }

  /** Where the gauges read from, once the service is built. */
  watch(sources: MetricSources) {
    this.sources = sources;
  }

  /** Times every request the app answers (the hook is added only when there are metrics). */
  observeRequests(app: FastifyInstance) {
    app.addHook('onResponse', (request, reply, done) => {
      this.requestAnswered(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
  }

  /** An answered request: `route` as registered (`/api/rooms/:roomId/markers`), `unmatched` for none. */
  requestAnswered(method: string, route: string | undefined, statusCode: number, seconds: number) {
    this.requests.observe({ method, route: route ?? 'unmatched', status_code: statusCode }, seconds);
    if (statusCode === 429) this.refusals.inc();
  }

  jobEnded(kind: string, outcome: JobOutcome, seconds: number) {
    this.jobRuns.observe({ kind, outcome }, seconds);
  }

  queried(operation: QueryOperation, seconds: number) {
    this.queryTimes[operation].observe(seconds);
  }

  objectStoreCalled(operation: BlobOperation, seconds: number) {
    this.objectStoreCalls.observe({ operation }, seconds);
  }

  /** The Prometheus text and its content type. */
  async scrape(): Promise<{ text: string; contentType: string }> {
    return { text: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
