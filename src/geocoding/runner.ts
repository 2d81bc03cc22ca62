// Durable background reverse geocoding of POIs. The POIs' own `geocode_pending` flag is the queue: a
// runner claims a batch with FOR UPDATE SKIP LOCKED under a lease, geocodes it in the compute pool and
// writes the addresses in one statement. Any number of processes may run one side by side; a process that
// dies mid-batch leaves leases that run out (at once for a process of this host: src/jobs/runner-ids.ts), and
// its POIs are claimed again. A write only lands when the POI is still pending at the coordinates that were
// geocoded, so a POI moved meanwhile stays pending and each geocoding is written exactly once.
//
// A process that dies is not the POIs' fault: only the geocoder failing on them uses their attempts. POIs
// whose claim did not finish are claimed again in smaller and smaller batches, so that one POI that takes
// the process down every time ends up alone, and is set aside after `maxCrashes` claims in a row.
import type { Logger } from 'pino';
import { PoolBusyError } from '../compute/pool.js';
import { activeMap } from '../engine/engine.js';
import { type Sql, retryable } from '../db/client.js';
import { asConnectionError, isDatabaseUnavailable } from '../db/errors.js';
import { isDeadHere, newRunnerId, retireRunnerId, thisHostPattern } from '../jobs/runner-ids.js';
import { PlaceRegistry, type PlaceIds } from './places.js';
import type { Address } from '../engine/geocoder/reverse.js';
import { geocodePoints, storedAddress } from './address.js';
import { backgroundError } from '../lib/background-errors.js';

export const GEOCODE_CHANNEL = 'waymark_geocode';

/** Wakes the geocoding runners without waiting: a lost notification only costs the poll interval. */
export function notifyGeocoding(sql: Sql): void {
  retryable(sql`SELECT pg_notify(${GEOCODE_CHANNEL}, '')`).then(
    () => {},
    () => {},
  );
}

export interface GeocodingOptions {
  /** A map directory with a `geocoder/` index. */
  mapDir: string;
  log: Logger;
  /** POIs per claim; default 500. */
  batchSize?: number;
  /** Poll interval when idle; NOTIFY wakes the runner sooner. Default 500 ms. */
  pollMs?: number;
  /** How long a claimed POI is held before another runner may take it over. Default 30 s. */
  leaseMs?: number;
  /** Failures of the geocoder on a POI before it is finished with an empty address. Default 5. */
  maxAttempts?: number;
  /** Claims of a POI in a row that ended with the process gone before it is set aside (finished with an
   *  empty address). Default 8: the batches shrink to one POI at the fifth, so a POI is set aside only
   *  after its process died four times with it alone. */
  maxCrashes?: number;
  /** Batches in flight at once in this process, so one's SQL overlaps another's geocoding. Default 2. */
  lanes?: number;
}

export interface ClaimedPoi {
  id: string;
  latitude: number;
  longitude: number;
  geocode_attempts: number;
  /** This claim's number among the claims in a row that have not finished. */
  geocode_claims?: number;
}

/** The geocoder failed on a batch's points: unlike a database error or a busy pool, this counts as an attempt. */
class GeocoderFailure extends Error {
  constructor(cause: unknown) {
    super('the geocode task failed', { cause });
  }
}

/** How often this host's dead runners are looked for (each look is one small indexed query). */
const DEAD_SWEEP_MS = 1000;

const EMPTY: Address = Object.freeze({ street: null, housenumber: null, city: null, zipcode: null, country: null, display_name: null });

export class GeocodingRunner {
  private readonly places: PlaceRegistry;
  private readonly batchSize: number;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly maxAttempts: number;
  private readonly maxCrashes: number;
  private readonly laneCount: number;
  readonly runnerId = newRunnerId();
  /** The first claim of a process always looks for dead runners (performance.now() starts near 0). */
  private lastSweep = Number.NEGATIVE_INFINITY;
  /** Claims of this process's lanes, one after the other (see claim()). */
  private claiming: Promise<unknown> = Promise.resolve();
  private running = false;
  private lanes: Promise<void>[] = [];
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly sleepers = new Set<() => void>();
  /** Counts notifications, so a lane that was busy when one came claims again instead of sleeping. */
  private wakeups = 0;
  private unlisten: (() => Promise<void>) | undefined;

  constructor(
    private readonly sql: Sql,
    private readonly opts: GeocodingOptions,
  ) {
    this.places = new PlaceRegistry(sql);
    this.batchSize = opts.batchSize ?? 500;
    this.pollMs = opts.pollMs ?? 500;
    this.leaseMs = opts.leaseMs ?? 30_000;
    this.maxAttempts = opts.maxAttempts ?? 5;
    this.maxCrashes = opts.maxCrashes ?? 8;
    this.laneCount = opts.lanes ?? 2;
  }

  async start(): Promise<void> {
    if (this.running) return;
    const sub = await this.sql.listen(GEOCODE_CHANNEL, () => this.wake());
    this.unlisten = () => sub.unlisten();
    this.running = true;
    this.lanes = Array.from({ length: this.laneCount }, () => this.lane());
  }

  /** Stops claiming, finishes the batches in flight. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await Promise.all(this.lanes);
    this.lanes = [];
    await this.unlisten?.();
    this.unlisten = undefined;
    retireRunnerId(this.runnerId);
  }

  /** Geocodes until nothing is left to claim, then waits for this process's batches in flight. */
  async drain(): Promise<void> {
    while ((await this.track(this.runBatch())) > 0);
    await Promise.allSettled([...this.inFlight]);
  }

  private async lane(): Promise<void> {
    // The geocoder is built in each compute thread on its first batch (seconds on a country), not at
    // start: built there, it held both compute threads while the first routes waited (32x32: first
    // route after 26 s instead of 7 s). A process dying while it builds holds one batch's claims,
    // which the next process takes over at once (same host) or after the lease.
    while (this.running) {
      const seen = this.wakeups;
      let full = false;
      try {
        full = (await this.track(this.batch())).full;
      } catch (err) {
        if (isDatabaseUnavailable(err))
          this.opts.log.warn({ err: asConnectionError(err) }, 'geocoding batch interrupted: database unavailable; its POIs are retried later');
        else this.opts.log.error({ err }, 'geocoding batch failed; its POIs are retried later');
      }
      if (this.running && !full && seen === this.wakeups) await this.sleep();
    }
  }

  private track<T>(batch: Promise<T>): Promise<T> {
    this.inFlight.add(batch);
    const untrack = () => this.inFlight.delete(batch);
    batch.then(untrack, untrack);
    return batch;
  }

  private sleep(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, this.pollMs);
      this.sleepers.add(done);
    });
  }

  private wake(): void {
    this.wakeups++;
    for (const done of [...this.sleepers]) done();
  }

  /** Claims, geocodes and writes one batch; returns how many POIs it claimed. */
  async runBatch(): Promise<number> {
    return (await this.batch()).claimed;
  }

  /** A batch, and whether it was as large as it could be (more may be waiting: claim again at once). */
  private async batch(): Promise<{ claimed: number; full: boolean }> {
    const started = Date.now();
    const { pois: claimed, limit } = await this.claim();
    if (!claimed.length) return { claimed: 0, full: false };
    try {
      const written = await this.process(claimed);
      this.opts.log.debug({ claimed: claimed.length, written, ms: Date.now() - started }, 'geocoded a batch');
    } catch (err) {
      await this.backOff(claimed, err instanceof GeocoderFailure).catch((e) => backgroundError('geocoding-back-off', e, { pois: claimed.length }));
      throw err;
    }
    return { claimed: claimed.length, full: claimed.length === limit };
  }

  /** Geocodes claimed POIs at the coordinates they were claimed with; returns how many addresses were written. */
  async process(claimed: ClaimedPoi[]): Promise<number> {
    // A POI the geocoder failed on too often, or whose claims kept ending with the process gone, is
    // finished as found nowhere: it never stays pending, nor takes the process down again.
    const reasons = claimed.map((p) =>
      (p.geocode_claims ?? 1) > this.maxCrashes
        ? `set aside: the process geocoding it stopped ${this.maxCrashes} times in a row (killed, out of memory or crashed)`
        : p.geocode_attempts >= this.maxAttempts
          ? `the geocoder failed on it ${p.geocode_attempts} times`
          : null,
    );
    const setAside = claimed.filter((_, i) => reasons[i] !== null);
    if (setAside.length)
      this.opts.log.warn({ pois: setAside.map((p) => p.id), reasons: [...new Set(reasons.filter(Boolean))] }, 'POIs finished without an address');
    const fresh = claimed.filter((_, i) => reasons[i] === null);
    let found: Address[] = [];
    if (fresh.length) {
      try {
        found = await geocodePoints(fresh.map((p) => ({ lat: p.latitude, lon: p.longitude })));
      } catch (err) {
        throw err instanceof PoolBusyError ? err : new GeocoderFailure(err);
      }
    }
    let next = 0;
    const addresses = claimed.map((_, i) => (reasons[i] === null ? found[next++] : EMPTY));
    return this.write(claimed, addresses, await this.places.resolve(addresses), reasons);
  }

  /**
   * Claims a batch: POIs whose last claim did not finish first, as many as `batchSize` shrunk by a
   * factor of four for each such claim in a row (500, 125, 31, 7, 1, 1, …), so that a POI that takes
   * the process down keeps fewer others with it each time; then fresh POIs.
   */
  private claim(): Promise<{ pois: ClaimedPoi[]; limit: number }> {
    // One at a time: a lane claiming while the other still releases a dead runner's POIs would see them
    // leased, take lower-tier POIs instead, and the POIs that keep killing processes would not be isolated.
    const next = this.claiming.then(() => this.claimNow());
    // Only the queue's copy: `next` goes back to the caller, who handles its failure.
    this.claiming = next.catch(() => {});
    return next;
  }

  private async claimNow(): Promise<{ pois: ClaimedPoi[]; limit: number }> {
    if (performance.now() - this.lastSweep >= DEAD_SWEEP_MS) {
      this.lastSweep = performance.now();
      await this.releaseDeadHere();
    }
    const [suspect] = await retryable(this.sql<{ claims: number }[]>`
      SELECT geocode_claims AS claims FROM pois
      WHERE geocode_pending AND geocode_claims > 0 AND (geocode_lease_until IS NULL OR geocode_lease_until < now())
      ORDER BY geocode_claims DESC, id LIMIT 1`);
    const claims = suspect?.claims ?? 0;
    const limit = claims ? Math.max(1, this.batchSize >> (2 * claims)) : this.batchSize;
    const pois = await this.sql<ClaimedPoi[]>`
      UPDATE pois p SET geocode_lease_until = now() + ${this.leaseMs} * interval '1 millisecond',
        geocode_claims = p.geocode_claims + 1, geocode_claimed_by = ${this.runnerId}
      FROM (
        SELECT id FROM pois
        WHERE geocode_pending AND geocode_claims = ${claims} AND (geocode_lease_until IS NULL OR geocode_lease_until < now())
        ORDER BY id LIMIT ${limit}
        FOR UPDATE SKIP LOCKED
      ) c
      WHERE p.id = c.id
      RETURNING p.id, p.latitude, p.longitude, p.geocode_attempts, p.geocode_claims`;
    return { pois, limit };
  }

  /** Ends the claims of this host's dead runners, so that their POIs are claimed now, not when the lease ends. */
  private async releaseDeadHere(): Promise<void> {
    const holders = await retryable(this.sql<{ runner: string }[]>`
      SELECT DISTINCT geocode_claimed_by AS runner FROM pois
      WHERE geocode_pending AND geocode_claims > 0 AND geocode_lease_until >= now()
        AND geocode_claimed_by LIKE ${thisHostPattern()} AND geocode_claimed_by <> ${this.runnerId}`);
    const dead = holders.map((h) => h.runner).filter(isDeadHere);
    if (!dead.length) return;
    this.opts.log.info({ runners: dead }, 'taking over the geocoding of a dead runner of this host');
    await this.sql`
      UPDATE pois SET geocode_lease_until = now() - interval '1 millisecond'
      WHERE geocode_pending AND geocode_claims > 0 AND geocode_claimed_by = ANY(${dead}::text[])`;
  }

  /** One statement for the batch; skips POIs moved (or finished elsewhere) since they were claimed. */
  private async write(claimed: ClaimedPoi[], addresses: Address[], places: PlaceIds[], reasons: (string | null)[]): Promise<number> {
    const stored = addresses.map((a, i) => storedAddress(a, places[i]));
    const result = await this.sql`
      UPDATE pois p SET
        street = v.street, display_name = v.display_name,
        country_id = v.country_id, city_id = v.city_id, zipcode_id = v.zipcode_id,
        geocoded_at = now(), geocode_pending = false, geocode_lease_until = NULL, geocode_attempts = 0,
        geocode_claims = 0, geocode_claimed_by = NULL, geocode_error = v.error
      FROM unnest(
        ${claimed.map((p) => p.id)}::text[], ${claimed.map((p) => p.latitude)}::float8[], ${claimed.map((p) => p.longitude)}::float8[],
        ${stored.map((a) => a.street)}::text[], ${stored.map((a) => a.displayName)}::text[],
        ${stored.map((a) => a.countryId)}::uuid[], ${stored.map((a) => a.cityId)}::uuid[], ${stored.map((a) => a.zipcodeId)}::uuid[],
        ${reasons}::text[]
      ) AS v(id, latitude, longitude, street, display_name, country_id, city_id, zipcode_id, error)
      WHERE p.id = v.id AND p.geocode_pending AND p.latitude = v.latitude AND p.longitude = v.longitude`;
    return result.count;
  }

  /** After a failure: retry later, waiting longer after each attempt (2 s, 4 s, … at most 60 s). Only a
   *  failure of the geocoder counts as an attempt; other failures are not the POIs' doing. The claim
   *  ended here, in a live process: not a crash. */
  private async backOff(claimed: ClaimedPoi[], countsAsAttempt: boolean): Promise<void> {
    const inc = countsAsAttempt ? 1 : 0;
    await this.sql`
      UPDATE pois SET
        geocode_lease_until = now() + least(60, 2 ^ greatest(1, geocode_attempts + ${inc})) * interval '1 second',
        geocode_attempts = geocode_attempts + ${inc}, geocode_claims = 0, geocode_claimed_by = NULL
      WHERE id = ANY(${claimed.map((p) => p.id)}::text[]) AND geocode_pending`;
  }
}

/**
 * Starts background geocoding against `mapDir`, whose geocoder index the map's load checked and built in
 * every compute thread (engine.ts, loadMap). Undefined when the map has none: a map without one must not
 * finish every POI with an empty address.
 */
export async function startGeocoding(sql: Sql, opts: GeocodingOptions): Promise<GeocodingRunner | undefined> {
  if (!activeMap()?.manifest.geocoder) {
    opts.log.error({ mapDir: opts.mapDir }, 'the map has no geocoder index: background geocoding is off');
    return undefined;
  }
  const runner = new GeocodingRunner(sql, opts);
  await runner.start();
  opts.log.info({ mapDir: opts.mapDir }, 'background geocoding started');
  return runner;
}
