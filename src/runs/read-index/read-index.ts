/**
 * Each instance's read index, kept fresh (issue 15). Postgres stays the source of truth:
 * triggers NOTIFY the ids of changed runs and documents (see the run-change-notices
 * migration); this instance LISTENs on a connection of its own, re-reads those runs in
 * batches and applies them to its index, and drops their cached documents. Until the
 * index is built, and whenever the listener is lost (changes may have been missed), reads
 * go through the SQL path while a full rebuild runs.
 *
 * Read-your-writes: a writer's transaction is a `writeVisibly` one (src/services/visible-writes.ts),
 * which calls `caughtUp()` after the commit; that sends a marker on the same channel and waits
 * until the listener has applied everything before it (Postgres delivers notifications in
 * commit order).
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Config } from '../../config.ts';
import { describeFailure } from '../../db/health.ts';
import { preparedStatement, type Db } from '../../db/knex.ts';
import type { Logger } from '../../logger.ts';
import { ByteFile } from '../../lib/byte-file.ts';
import { ByteRing, type KeyedBytes } from '../../lib/byte-ring.ts';
import { buildRunIndex, readIndexedRuns } from './build.ts';
import type { RunIndex } from './run-index.ts';

/**
 * The channel the triggers notify on; a payload is comma-separated ids, `*` (resync),
 * `catalogue` (models, hardware profiles or users changed), `hardware-names` (a hardware name's
 * mapping changed) or `sync:<token>`.
 */
export const RUN_CHANGES_CHANNEL = 'speed_test_runs_changed';
/** How the listener's connection names itself to Postgres (pg_stat_activity). */
export const LISTENER_APPLICATION_NAME = 'read-index-listener';
const SYNC_PREFIX = 'sync:';
const RESYNC = '*';
const CATALOGUE = 'catalogue';
/** An admin changed a hardware name's mapping: the resolver's copy is loaded again (src/services/hardware-names.service.ts). */
export const HARDWARE_NAMES_NOTICE = 'hardware-names';
/** Resolutions kept at most (then all are dropped): names people filter by are few. */
const RESOLUTIONS_CAP = 10_000;
/** A writer waits at most this long for its own change to arrive (then the index catches up on its own). */
const CATCH_UP_TIMEOUT_MS = 2000;
const REFRESH_BATCH = 5000;
/** The document cache's bytes when the caller names no bound (the config's READ_INDEX_DOCUMENTS_MB default). */
const DEFAULT_DOCUMENT_CACHE_BYTES = 4 * 1024 * 1024;
const RECONNECT_MS = { first: 500, max: 30_000 };
/** Documents read per query while the document file is filled (about 2 MB). */
const FILL_BATCH = 1000;
/** A fill batch that raced a change is read again at most this many times (then its runs are read as pages ask). */
const FILL_RETRIES = 3;

/**
 * The stored documents of runs, in the order of the ids asked for (null for a run without one):
 * rows come back by position, so no run id is read back and matched. One statement text
 * whatever the ids: prepared once per connection, never planned again.
 */
const readDocumentsInOrder = preparedStatement<{ document: string | null }>(
  'select d.document from unnest($1::uuid[]) with ordinality as wanted (run_id, at) ' +
    'left join speed_test_run_documents d using (run_id) order by wanted.at',
);

export type ReadIndexState = 'off' | 'building' | 'ready' | 'closed';

/** What services read through: the index when it can answer, and the stored documents. */
export interface RunReadIndex {
  /** The index, when built and listening; null means: answer through the SQL path. */
  current(): Promise<RunIndex | null>;
  /**
   * The stored documents (revision 3 JSON, as UTF-8 bytes: views into one buffer) of a page
   * `index` gave, in this order; runs gone meanwhile are left out. Cached by slot, so a cached
   * page formats no run id.
   */
  documents(index: RunIndex, slots: readonly number[]): Promise<{ slot: number; document: Buffer }[]>;
  /** Resolves once this instance has applied every run change committed before the call. */
  caughtUp(): Promise<void>;
  /**
   * What a name resolves to (`resolve` reads the catalogue: a model tree, the hardware
   * profiles a name matches, a user), remembered under `key` while the index is ready and
   * no catalogue change has been notified since; computed afresh otherwise. Called after
   * `current()`, so a strict read has caught up first. The value is shared: never mutate it.
   */
  resolved<T>(key: string, resolve: () => Promise<T>): Promise<T>;
  /**
   * A value read from the database (`load`), kept while the index is ready and until the next
   * change of any kind is notified (a run, the catalogue, a resync): for small tables whose
   * every read would otherwise be a query, such as the model catalogue that search reads,
   * whose run counts follow every approval. Loaded once however many wait for it; computed
   * afresh while the index is not ready. The value is shared: never mutate it.
   */
  fresh<T>(key: string, load: () => Promise<T>): Promise<T>;
  /**
   * Bumped on the arrival of every change notice (a run, the catalogue, a resync) and whenever
   * the index is replaced: an answer computed while it held a value stays true for readers
   * until it moves on (`src/middleware/read-cache.ts` keys anonymous answers with it).
   */
  changes(): number;
  /** Whether the index answers reads now (`status().state === 'ready'`, without building the status). */
  isReady(): boolean;
  status(): ReadIndexStatus;
}

export interface ReadIndexStatus {
  state: ReadIndexState;
  runs: number | null;
  /**
   * Where the runs' documents are kept: every one in a file (`filling` until each has been
   * read once), or the most recently read in memory; `held`: how many are.
   */
  documents: { store: 'file' | 'memory'; held: number; filling: boolean };
}

/** Ends a client, and drops its socket if the server does not answer the goodbye within a second. */
async function endClient(client: pg.Client): Promise<void> {
  client.removeAllListeners('end');
  let timer: NodeJS.Timeout | undefined;
  const ended = client.end().catch(() => undefined);
  const gaveUp = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), 1000)));
  if ((await Promise.race([ended, gaveUp])) === 'timeout')
    (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  clearTimeout(timer);
}

type Notice = { ids: string[] } | { token: string } | { resync: true } | { hardwareNames: true };

export class ReadIndexKeeper implements RunReadIndex {
  private state: ReadIndexState;
  private index: RunIndex | null = null;
  /** The index being built: changes arriving meanwhile are held, then applied to it. */
  private building = false;
  private readonly held = new Set<string>();
  private listener: pg.Client | null = null;
  private readonly queue: Notice[] = [];
  private draining: Promise<void> | null = null;
  private readonly waiters = new Map<string, () => void>();
  private readonly instance = randomUUID();
  private syncs = 0;
  /** The listener's client while it connects (closed with the app even if the server never answers). */
  private connecting: pg.Client | null = null;
  private buildStarted = 0;
  private reconnectMs = RECONNECT_MS.first;
  private reconnectTimer: NodeJS.Timeout | undefined;
  /**
   * Documents of the current index's runs by slot, emptied when the index is replaced: every
   * run's in a file once filled (READ_INDEX_DOCUMENT_FILE_MB), else the newest read in memory.
   */
  private readonly docs: KeyedBytes<number>;
  /** The file, when documents are kept in one: filled from the database once the index is ready. */
  private readonly docFile: ByteFile | null;
  private filling: Promise<void> | null = null;
  /** What the last fill was of: a new index, or a file that started over since, is filled again. */
  private filled: { index: RunIndex; restarts: number; whole: boolean } | null = null;
  /** Bumped whenever documents are invalidated: a fill that raced an invalidation is not kept. */
  private docGeneration = 0;
  /** Names resolved to ids, while the catalogue is unchanged (see `resolved`). */
  private readonly resolutions = new Map<string, Promise<unknown>>();
  /** Bumped whenever resolutions are dropped: one computed across a drop is not kept. */
  private resolutionGeneration = 0;
  /** Values kept until the next change of any kind (see `fresh`), as the promise of their load. */
  private readonly snapshots = new Map<string, Promise<unknown>>();
  private changeCount = 0;

  constructor(
    private readonly deps: {
      db: Db;
      databaseUrl: string;
      logger: Logger;
      /** The answer cache is the middleware's (src/middleware/read-cache.ts), not the keeper's. */
      config: Omit<Config['readIndex'], 'answerCacheBytes' | 'answerFileBytes' | 'documentCacheBytes' | 'documentFileBytes'> & {
        documentCacheBytes?: number;
        /** 0 or none: documents in memory. */
        documentFileBytes?: number;
      };
      /** Loads the hardware name mappings into the resolver: on every (re)build and when another instance changed them. */
      reloadHardwareNames?: () => Promise<void>;
    },
  ) {
    this.state = deps.config.enabled ? 'building' : 'off';
    const { documentCacheSize, documentCacheBytes = DEFAULT_DOCUMENT_CACHE_BYTES, documentFileBytes = 0 } = deps.config;
    this.docFile = documentFileBytes > 0 ? new ByteFile(documentFileBytes, deps.config.documentDirectory) : null;
    this.docs = this.docFile ?? new ByteRing(documentCacheSize === 0 ? 0 : documentCacheBytes, documentCacheSize);
  }

  /** Connects the listener and builds the index in the background. */
  start(): void {
    if (this.state === 'building') void this.connect();
  }

  async close(): Promise<void> {
    this.state = 'closed';
    this.replaceIndex(null);
    clearTimeout(this.reconnectTimer);
    this.releaseWaiters();
    const clients = [this.listener, this.connecting];
    this.listener = null;
    this.connecting = null;
    await Promise.all([...clients.map((client) => client && endClient(client)), this.filling]);
    this.docFile?.close();
  }

  isReady(): boolean {
    return this.state === 'ready';
  }

  status(): ReadIndexStatus {
    return {
      state: this.state,
      runs: this.index?.count ?? null,
      documents: { store: this.docFile ? 'file' : 'memory', held: this.docs.size, filling: this.filling !== null },
    };
  }

  async current(): Promise<RunIndex | null> {
    if (this.state !== 'ready') return null;
    if (this.deps.config.freshness === 'strict') await this.caughtUp();
    return this.index;
  }

  async caughtUp(): Promise<void> {
    if (!this.listener || this.state === 'off' || this.state === 'closed') return;
    const token = `${this.instance}:${(this.syncs += 1)}`;
    let timer: NodeJS.Timeout | undefined;
    const arrived = new Promise<void>((resolve) => {
      this.waiters.set(token, resolve);
      timer = setTimeout(resolve, CATCH_UP_TIMEOUT_MS);
    });
    try {
      await this.deps.db.raw('select pg_notify(?, ?)', [RUN_CHANGES_CHANNEL, SYNC_PREFIX + token]);
      await arrived;
    } catch (error) {
      // The database is unreachable: the caller's own query has failed or will; nothing to wait for.
      this.deps.logger.debug({ cause: describeFailure(error) }, 'read index catch-up marker not sent');
    } finally {
      clearTimeout(timer);
      this.waiters.delete(token);
    }
  }

  resolved<T>(key: string, resolve: () => Promise<T>): Promise<T> {
    if (this.state !== 'ready') return resolve();
    const kept = this.resolutions.get(key);
    if (kept) return kept as Promise<T>;
    if (this.resolutions.size >= RESOLUTIONS_CAP) this.resolutions.clear();
    // Kept as the promise, so that concurrent readers of a new name resolve it once; one that
    // fails, or was resolved across a catalogue change, is not kept.
    const generation = this.resolutionGeneration;
    // A promise of its own: a loader may hand back a Knex query, which runs again on every `then`.
    const resolving = Promise.resolve(resolve());
    this.resolutions.set(key, resolving);
    const forget = () => {
      if (this.resolutions.get(key) === resolving) this.resolutions.delete(key);
    };
    resolving.then(() => generation !== this.resolutionGeneration && forget(), forget);
    return resolving;
  }

  private forgetResolutions(): void {
    this.resolutions.clear();
    this.resolutionGeneration += 1;
  }

  fresh<T>(key: string, load: () => Promise<T>): Promise<T> {
    if (this.state !== 'ready') return load();
    const kept = this.snapshots.get(key);
    if (kept) return kept as Promise<T>;
    const loading = Promise.resolve(load());
    this.snapshots.set(key, loading);
    // A failed load is not kept: the next read tries again.
    loading.catch(() => this.snapshots.get(key) === loading && this.snapshots.delete(key));
    return loading;
  }

  async documents(index: RunIndex, slots: readonly number[]): Promise<{ slot: number; document: Buffer }[]> {
    // A page of an index replaced meanwhile is read whole from the database (its slots are not this cache's).
    const inCache = (slot: number) => index === this.index && this.docs.has(slot);
    /** Documents read from the database, and whether each may be cached (no change was notified while it was read). */
    const read = new Map<number, { document: string | null; keep: boolean }>();
    // What the cache holds is taken only once nothing is awaited any more: other requests may write
    // over it meanwhile (a document written over is read from the database in another round).
    for (;;) {
      const missing = slots.filter((slot) => !read.has(slot) && !inCache(slot));
      if (missing.length === 0) break;
      const generation = this.docGeneration;
      const rows = await readDocumentsInOrder(this.deps.db, [index.idsLiteral(missing)]);
      const keep = generation === this.docGeneration;
      missing.forEach((slot, at) => read.set(slot, { document: rows[at]?.document ?? null, keep }));
    }
    // The page's documents as views into one buffer: the cached ones read straight into it (from
    // the file, one `pread` each), no string made of them (the answer copies the bytes as they are).
    let length = 0;
    for (const slot of slots) {
      const fromDb = read.get(slot);
      length += fromDb ? (fromDb.document === null ? 0 : Buffer.byteLength(fromDb.document)) : this.docs.lengthOf(slot);
    }
    const bytes = Buffer.allocUnsafe(length);
    let at = 0;
    const page: { slot: number; document: Buffer }[] = [];
    const keep: [slot: number, document: Buffer][] = [];
    for (const slot of slots) {
      const fromDb = read.get(slot);
      if (fromDb?.document === null) continue;
      const start = at;
      at += fromDb ? bytes.write(fromDb.document, at) : this.docs.readInto(slot, bytes, at);
      const document = bytes.subarray(start, at);
      page.push({ slot, document });
      if (fromDb?.keep) keep.push([slot, document]);
    }
    // Cached last, so that writing these over the oldest cannot take one this page was about to read.
    if (index === this.index) this.keepDocuments(keep);
    // Writing these may have made the file start over (full of rewritten documents): it is filled again.
    if (read.size > 0) this.fillDocuments();
    return page;
  }

  /** Keeps documents read from the database; a file that cannot be written (a full disk) costs the page nothing. */
  private keepDocuments(documents: readonly (readonly [slot: number, document: Uint8Array])[]): void {
    try {
      if (this.docFile) this.docFile.setMany(documents);
      else for (const [slot, document] of documents) this.docs.set(slot, document);
    } catch (error) {
      this.deps.logger.warn({ cause: describeFailure(error) }, 'read index documents not kept');
    }
  }

  /**
   * Reads every run's document into the file, a batch at a time on one pooled connection, so
   * that a page whose answer is not kept costs no round trip (pages read the rest meanwhile, and
   * keep what they read). Started once the index is ready, again when the file had to start over.
   */
  private fillDocuments(): void {
    const file = this.docFile;
    if (!file || this.filling || !this.needsFill()) return;
    this.filling = (async () => {
      // Until the file holds the current index's documents: a rebuild meanwhile begins again.
      while (this.needsFill()) {
        const index = this.index!;
        const restarts = file.restarts;
        await this.fillFrom(index, file);
        // A file that started over during its own fill cannot hold every document: it is not filled
        // again (pages keep the documents they read), or each fill would start the next.
        if (file.restarts !== restarts)
          this.deps.logger.warn(
            { fileMb: Math.round(file.capacity / 2 ** 20) },
            'READ_INDEX_DOCUMENT_FILE_MB holds fewer than every run document',
          );
        this.filled = { index, restarts: file.restarts, whole: file.restarts === restarts };
      }
    })()
      .catch((error: unknown) => {
        // The database went away (or the app is closing): pages read their documents as they come.
        if (this.state !== 'closed') this.deps.logger.warn({ cause: describeFailure(error) }, 'read index documents not filled');
      })
      .finally(() => (this.filling = null));
  }

  /** A new index, or a file that started over since a fill that held every document (rewrites had filled it). */
  private needsFill(): boolean {
    if (!this.docFile || !this.index || this.state !== 'ready') return false;
    if (this.filled?.index !== this.index) return true;
    return this.filled.whole && this.filled.restarts !== this.docFile.restarts;
  }

  private async fillFrom(index: RunIndex, file: ByteFile): Promise<void> {
    file.reserve(index.slotCount);
    const batch: number[] = [];
    const flush = async () => {
      for (let attempt = 0; attempt < FILL_RETRIES && batch.length > 0; attempt += 1) {
        const generation = this.docGeneration;
        const rows = await readDocumentsInOrder(this.deps.db, [index.idsLiteral(batch)]);
        if (index !== this.index) return;
        if (generation !== this.docGeneration) continue;
        // A failed write (a full disk) ends the fill: pages read the rest as they come.
        file.setMany(batch.flatMap((slot, at) => (rows[at]?.document && !file.has(slot) ? [[slot, rows[at].document] as const] : [])));
        break;
      }
      batch.length = 0;
    };
    for (let slot = 0; slot < index.slotCount && index === this.index && this.state === 'ready'; slot += 1) {
      if (file.has(slot) || !index.holdsSlot(slot)) continue;
      batch.push(slot);
      if (batch.length === FILL_BATCH) await flush();
    }
    if (index === this.index) await flush();
  }

  /**
   * The one place the index is replaced (built, dropped, closed): the cached documents go
   * with it (they are keyed by its slots), and so do the resolutions (while there is no
   * listening index, catalogue changes may go unseen).
   */
  private replaceIndex(index: RunIndex | null): void {
    this.index = index;
    this.docs.clear();
    this.docGeneration += 1;
    this.forgetResolutions();
    this.changed();
  }

  changes(): number {
    return this.changeCount;
  }

  /** Something the reads show may have changed: what was kept until then is dropped. */
  private changed(): void {
    this.snapshots.clear();
    this.changeCount += 1;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.deps.databaseUrl, application_name: LISTENER_APPLICATION_NAME });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    client.on('notification', (message) => message.channel === RUN_CHANGES_CHANNEL && this.notice(message.payload ?? ''));
    this.connecting = client;
    try {
      await client.connect();
      await client.query(`listen ${RUN_CHANGES_CHANNEL}`);
    } catch (error) {
      await endClient(client);
      if (this.connecting === client) this.connecting = null;
      return this.retry(error);
    }
    this.connecting = null;
    if (this.state === 'closed') return void endClient(client);
    this.listener = client;
    // Listening before the build's snapshot: every change it misses is notified.
    await this.rebuild();
    await this.drain();
  }

  /**
   * Builds a new index from the database; changes notified meanwhile are held, then queued
   * first, so the next drain applies them before the index serves (it turns ready there).
   */
  private async rebuild(): Promise<void> {
    const listener = this.listener;
    this.replaceIndex(null);
    this.building = true;
    this.held.clear();
    if (this.state !== 'closed') this.state = 'building';
    this.buildStarted = Date.now();
    try {
      if (!listener) return;
      // Notices of mapping changes may have been missed too.
      await this.deps.reloadHardwareNames?.();
      // On the listener's own connection: requests keep the whole pool, and a close ends it.
      const index = await buildRunIndex(listener);
      if (this.state === 'closed' || this.listener !== listener) return;
      this.replaceIndex(index);
      this.queue.unshift({ ids: [...this.held] });
    } catch (error) {
      if (this.listener === listener && listener) {
        this.listener = null;
        await endClient(listener);
      }
      this.retry(error);
    } finally {
      // A build whose listener was lost meanwhile leaves the next build's state alone.
      if (this.listener === listener) {
        this.building = false;
        this.held.clear();
      }
    }
  }

  private retry(error: unknown): void {
    if (this.state === 'closed') return;
    this.state = 'building';
    // Once per outage, in one line (no stack): the database's own outage is logged by its health watch.
    if (this.reconnectMs === RECONNECT_MS.first)
      this.deps.logger.warn({ cause: describeFailure(error) }, 'read index unavailable: reads use the database until it is rebuilt');
    this.reconnectTimer = setTimeout(() => void this.connect(), this.reconnectMs);
    this.reconnectTimer.unref();
    this.reconnectMs = Math.min(this.reconnectMs * 2, RECONNECT_MS.max);
  }

  /** The listener's connection is gone: changes may be missed from now on, so the index is rebuilt. */
  private lost(client: pg.Client, error?: unknown): void {
    if (this.listener !== client || this.state === 'closed') return;
    this.listener = null;
    this.replaceIndex(null);
    this.releaseWaiters();
    this.retry(error ?? new Error('listener connection ended'));
  }

  private releaseWaiters(): void {
    for (const resolve of this.waiters.values()) resolve();
    this.waiters.clear();
  }

  private notice(payload: string): void {
    // Dropped on arrival, ahead of the queue: a value loaded from here on reads the committed change.
    if (!payload.startsWith(SYNC_PREFIX)) this.changed();
    if (payload === CATALOGUE) return this.forgetResolutions();
    if (payload.startsWith(SYNC_PREFIX)) this.queue.push({ token: payload.slice(SYNC_PREFIX.length) });
    else if (payload === RESYNC) this.queue.push({ resync: true });
    else if (payload === HARDWARE_NAMES_NOTICE) this.queue.push({ hardwareNames: true });
    else this.queue.push({ ids: payload.split(',') });
    void this.drain();
  }

  /** Applies queued notices in arrival order; a marker resolves once everything before it is applied. */
  private drain(): Promise<void> {
    this.draining ??= (async () => {
      while (this.queue.length > 0) {
        const ids = new Set<string>();
        let resync = false;
        let hardwareNames = false;
        while (this.queue.length > 0 && !('token' in this.queue[0]!)) {
          const notice = this.queue.shift()!;
          if ('resync' in notice) resync = true;
          else if ('hardwareNames' in notice) hardwareNames = true;
          else if ('ids' in notice) for (const id of notice.ids) ids.add(id);
        }
        if (hardwareNames) await this.reloadHardwareNames();
        if (resync) {
          // Without a listener the index is already dropped (and rebuilt on reconnect).
          if (this.listener) await this.rebuild();
        } else if (ids.size > 0) {
          await this.applyChanges([...ids]);
        }
        while (this.queue.length > 0 && 'token' in this.queue[0]!) {
          const { token } = this.queue.shift() as { token: string };
          this.waiters.get(token)?.();
        }
      }
      if (this.index && this.state === 'building') {
        this.state = 'ready';
        this.reconnectMs = RECONNECT_MS.first;
        this.deps.logger.info({ runs: this.index.count, ms: Date.now() - this.buildStarted }, 'read index built');
        this.fillDocuments();
      }
    })().finally(() => {
      this.draining = null;
      // A notice that came while this drain was finishing (it found the drain still set) is applied now.
      if (this.queue.length > 0) void this.drain();
    });
    return this.draining;
  }

  /**
   * Loads the mappings again, then drops every resolution (a device list or name search made
   * with the old mappings); a failed load rebuilds, which loads them again.
   */
  private async reloadHardwareNames(): Promise<void> {
    try {
      await this.deps.reloadHardwareNames?.();
      this.forgetResolutions();
    } catch (error) {
      this.deps.logger.warn({ cause: describeFailure(error) }, 'hardware name mappings not reloaded: rebuilding');
      if (this.listener) await this.rebuild();
    }
  }

  /** Re-reads these runs: approved ones are (re)placed, every other id removed; their documents are dropped. */
  private async applyChanges(ids: string[]): Promise<void> {
    for (const id of ids) {
      const slot = this.index?.slotOf(id) ?? -1;
      if (slot >= 0) this.docs.delete(slot);
    }
    this.docGeneration += 1;
    if (this.building) {
      for (const id of ids) this.held.add(id);
      return;
    }
    const index = this.index;
    const listener = this.listener;
    if (!index || !listener) return;
    try {
      for (let from = 0; from < ids.length; from += REFRESH_BATCH) {
        const chunk = ids.slice(from, from + REFRESH_BATCH);
        const runs = await readIndexedRuns(listener, chunk);
        if (this.index !== index) return;
        const approved = new Set(runs.map((run) => run.id));
        for (const id of chunk) if (!approved.has(id)) index.remove(id);
        for (const run of runs) index.upsert(run);
      }
    } catch (error) {
      // A change could not be read: the index may now be wrong, so it is rebuilt.
      this.deps.logger.warn({ cause: describeFailure(error) }, 'read index refresh failed: rebuilding');
      if (this.listener) await this.rebuild();
    }
  }
}

/** The read index of an instance with READ_INDEX=off: every read goes through the SQL path. */
export const noReadIndex: RunReadIndex = {
  current: async () => null,
  documents: async () => [],
  caughtUp: async () => undefined,
  resolved: (_key, resolve) => resolve(),
  fresh: (_key, load) => load(),
  changes: () => 0,
  isReady: () => false,
  status: () => ({ state: 'off', runs: null, documents: { store: 'memory', held: 0, filling: false } }),
};
