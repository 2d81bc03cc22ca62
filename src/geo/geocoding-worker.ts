// Durable background reverse geocoding of POIs. The POIs' own `geocode_pending` flag is the queue: a
// worker claims a batch with FOR UPDATE SKIP LOCKED under a lease, geocodes it in the worker pool and
// writes the addresses in one statement. Any number of processes may run one side by side; a process that
// dies mid-batch leaves leases that run out, and its POIs are claimed again. A write only lands when the
// POI is still pending at the coordinates that were geocoded, so a POI moved meanwhile stays pending and
// each geocoding is written exactly once.
import type { Logger } from 'pino';
import { PoolBusyError, runTask } from '../compute/pool.js';
import type { Sql } from '../db/client.js';
import { checkGeocoderIndex } from './index-format.js';
import { PlaceRegistry, type PlaceIds } from './places.js';
import type { Address } from './reverse.js';

export const GEOCODE_CHANNEL = 'waymark_geocode';

/** Wakes the geocoding workers without waiting: a lost notification only costs the poll interval. */
export function notifyGeocoding(sql: Sql): void {
  sql`SELECT pg_notify(${GEOCODE_CHANNEL}, '')`.then(
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
  /** Poll interval when idle; NOTIFY wakes the worker sooner. Default 500 ms. */
  pollMs?: number;
  /** How long a claimed POI is held before another worker may take it over. Default 30 s. */
  leaseMs?: number;
  /** Claims of one POI before it is finished with an empty address. Default 5. */
  maxAttempts?: number;
  /** Batches in flight at once in this process, so one's SQL overlaps another's geocoding. Default 2. */
  lanes?: number;
}

export interface ClaimedPoi {
  id: string;
  latitude: number;
  longitude: number;
  geocode_attempts: number;
}

/** The geocoder failed on a batch's points: unlike a database error or a busy pool, this counts as an attempt. */
class GeocoderFailure extends Error {
  constructor(cause: unknown) {
    super('the geocode task failed', { cause });
  }
}

const EMPTY: Address = Object.freeze({ street: null, housenumber: null, city: null, zipcode: null, country: null, display_name: null });

export class GeocodingWorker {
  private readonly places: PlaceRegistry;
  private readonly batchSize: number;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly maxAttempts: number;
  private readonly laneCount: number;
  private running = false;
  private lanes: Promise<void>[] = [];
  private readonly inFlight = new Set<Promise<number>>();
  private readonly sleepers = new Set<() => void>();
  /** Counts notifications, so a lane that was busy when one came claims again instead of sleeping. */
  private wakeups = 0;
  private unlisten: (() => Promise<void>) | undefined;

  constructor(private readonly sql: Sql, private readonly opts: GeocodingOptions) {
    this.places = new PlaceRegistry(sql);
    this.batchSize = opts.batchSize ?? 500;
    this.pollMs = opts.pollMs ?? 500;
    this.leaseMs = opts.leaseMs ?? 30_000;
    this.maxAttempts = opts.maxAttempts ?? 5;
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
  }

  /** Geocodes until nothing is left to claim, then waits for this process's batches in flight. */
  async drain(): Promise<void> {
    while ((await this.track(this.runBatch())) > 0);
    await Promise.allSettled([...this.inFlight]);
  }

  private async lane(): Promise<void> {
    while (this.running) {
      const seen = this.wakeups;
      let claimed = 0;
      try {
        claimed = await this.track(this.runBatch());
      } catch (err) {
        this.opts.log.error({ err }, 'geocoding batch failed; its POIs are retried later');
      }
      if (this.running && claimed < this.batchSize && seen === this.wakeups) await this.sleep();
    }
  }

  private track(batch: Promise<number>): Promise<number> {
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
    const started = Date.now();
    const claimed = await this.claim();
    if (!claimed.length) return 0;
    try {
      const written = await this.process(claimed);
      this.opts.log.debug({ claimed: claimed.length, written, ms: Date.now() - started }, 'geocoded a batch');
    } catch (err) {
      await this.backOff(claimed, err instanceof GeocoderFailure).catch(() => {});
      throw err;
    }
    return claimed.length;
  }

  /** Geocodes claimed POIs at the coordinates they were claimed with; returns how many addresses were written. */
  async process(claimed: ClaimedPoi[]): Promise<number> {
    // A POI claimed more often than allowed is finished as found nowhere: it never stays pending.
    const fresh = claimed.filter((p) => p.geocode_attempts <= this.maxAttempts);
    let found: Address[] = [];
    if (fresh.length) {
      try {
        found = await runTask<Address[]>('geocode', { mapDir: this.opts.mapDir, points: fresh.map((p) => ({ lat: p.latitude, lon: p.longitude })) });
      } catch (err) {
        throw err instanceof PoolBusyError ? err : new GeocoderFailure(err);
      }
    }
    let next = 0;
    const addresses = claimed.map((p) => (p.geocode_attempts <= this.maxAttempts ? found[next++] : EMPTY));
    return this.write(claimed, addresses, await this.places.resolve(addresses));
  }

  private claim(): Promise<ClaimedPoi[]> {
    return this.sql<ClaimedPoi[]>`
      UPDATE pois p SET geocode_lease_until = now() + ${this.leaseMs} * interval '1 millisecond', geocode_attempts = p.geocode_attempts + 1
      FROM (
        SELECT id FROM pois
        WHERE geocode_pending AND (geocode_lease_until IS NULL OR geocode_lease_until < now())
        ORDER BY id LIMIT ${this.batchSize}
        FOR UPDATE SKIP LOCKED
      ) c
      WHERE p.id = c.id
      RETURNING p.id, p.latitude, p.longitude, p.geocode_attempts`;
  }

  /** One statement for the batch; skips POIs moved (or finished elsewhere) since they were claimed. */
  private async write(claimed: ClaimedPoi[], addresses: Address[], places: PlaceIds[]): Promise<number> {
    const result = await this.sql`
      UPDATE pois p SET
        street = v.street, display_name = v.display_name,
        country_id = v.country_id, city_id = v.city_id, zipcode_id = v.zipcode_id,
        geocoded_at = now(), geocode_pending = false, geocode_lease_until = NULL, geocode_attempts = 0
      FROM unnest(
        ${claimed.map((p) => p.id)}::text[], ${claimed.map((p) => p.latitude)}::float8[], ${claimed.map((p) => p.longitude)}::float8[],
        ${addresses.map((a) => a.street)}::text[], ${addresses.map((a) => a.display_name)}::text[],
        ${places.map((p) => p.countryId)}::uuid[], ${places.map((p) => p.cityId)}::uuid[], ${places.map((p) => p.zipcodeId)}::uuid[]
      ) AS v(id, latitude, longitude, street, display_name, country_id, city_id, zipcode_id)
      WHERE p.id = v.id AND p.geocode_pending AND p.latitude = v.latitude AND p.longitude = v.longitude`;
    return result.count;
  }

  /** After a failure: retry later, waiting longer after each attempt (2 s, 4 s, … at most 60 s). Only a
   *  failure of the geocoder keeps the attempt its claim counted; other failures are not the POIs' doing. */
  private async backOff(claimed: ClaimedPoi[], countsAsAttempt: boolean): Promise<void> {
    await this.sql`
      UPDATE pois SET
        geocode_lease_until = now() + least(60, 2 ^ geocode_attempts) * interval '1 second',
        geocode_attempts = greatest(geocode_attempts - ${countsAsAttempt ? 0 : 1}, 0)
      WHERE id = ANY(${claimed.map((p) => p.id)}::text[]) AND geocode_pending`;
  }
}

/**
 * Starts background geocoding against `mapDir`, after checking that its geocoder index loads in the
 * worker pool (a broken map must not finish every POI with an empty address). Undefined when it does not.
 */
export async function startGeocoding(sql: Sql, opts: GeocodingOptions): Promise<GeocodingWorker | undefined> {
  try {
    // Not a geocode task: building the geocoder takes a worker seconds on a country, and the server
    // would not listen until it is done. Each worker builds its own on its first batch.
    await checkGeocoderIndex(opts.mapDir);
  } catch (err) {
    opts.log.error({ err, mapDir: opts.mapDir }, 'the geocoder index does not load: background geocoding is off');
    return undefined;
  }
  const worker = new GeocodingWorker(sql, opts);
  await worker.start();
  opts.log.info({ mapDir: opts.mapDir }, 'background geocoding started');
  return worker;
}
