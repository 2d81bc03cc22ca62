import type { Sql } from '../../db/client.js';
import { BatchLoader } from '../../db/batch-loader.js';
import { fetchPoisWithCounters, type PoiCounters } from './store.js';

// About a third of a kilobyte a POI: ~150,000 POIs' JSON at most, ~50 MB (twice that for names outside Latin-1).
const MAX_CACHED_CHARS = 50_000_000;

/** POIs of one team as one snapshot shows them, with the team's counters of that snapshot. */
export interface PoiRead extends PoiCounters {
  /** JSON by POI id, for the ids asked that exist. */
  pois: Map<string, string>;
}

interface Request {
  n: number;
  teamId: string;
  ids: string[];
}

interface Cached {
  content: string;
  json: string;
}

const key = (teamId: string, id: string) => `${teamId} ${id}`;
const newer = (a: string, b: string | undefined) => b === undefined || BigInt(a) > BigInt(b);

/**
 * Reads POIs' JSON, batching the reads of one event-loop turn into one statement, and keeps what it read
 * with the team's content counter of that read. The statement always reads the teams' counters; a POI
 * held at the current counter is not read again, since nothing the team's POIs show has changed since.
 * Every answer is of one snapshot: held JSON is used only when the same statement that answers found
 * its counter unchanged; a request whose held JSON turns out older is read again, whole.
 */
export class PoiReader {
  private readonly held = new Map<string, Cached>();
  private readonly newest = new Map<string, string>();
  private chars = 0;
  private serial = 0;
  /** POI rows read from the database so far (for tests and measurements). */
  rowsRead = 0;
  private readonly batches: BatchLoader<Request, PoiRead>;

  constructor(private readonly sql: Sql) {
    this.batches = new BatchLoader(
      (requests) => this.readMany(requests),
      (r) => String(r.n),
    );
  }

  async read(teamId: string, ids: string[]): Promise<PoiRead> {
    return (await this.batches.load({ n: this.serial++, teamId, ids }))!;
  }

  /** Drops what is held of a POI this process has just changed, so that its next read goes straight to the rows. */
  forget(teamId: string, id: string): void {
    this.drop(key(teamId, id));
  }

  private usable(teamId: string, id: string): Cached | undefined {
    const entry = this.held.get(key(teamId, id));
    return entry && entry.content === this.newest.get(teamId) ? entry : undefined;
  }

  private async readMany(requests: Request[]): Promise<Map<string, PoiRead>> {
    const answers = new Map<string, PoiRead>();
    const wanted = new Map<string, { teamId: string; id: string }>();
    for (const r of requests) for (const id of r.ids) if (!this.usable(r.teamId, id)) wanted.set(key(r.teamId, id), { teamId: r.teamId, id });
    const first = await this.fetch(requests, [...wanted.values()]);
    const again: Request[] = [];
    for (const r of requests) {
      const counters = first.counters.get(r.teamId)!;
      const pois = new Map<string, string>();
      let stale = false;
      for (const id of r.ids) {
        const k = key(r.teamId, id);
        if (wanted.has(k)) {
          const json = first.pois.get(k);
          if (json !== undefined) pois.set(id, json);
          continue;
        }
        const entry = this.held.get(k);
        if (entry?.content === counters.content) pois.set(id, entry.json);
        else stale = true;
      }
      if (stale) again.push(r);
      else answers.set(String(r.n), { ...counters, pois });
    }
    if (again.length) {
      // Something the held JSON shows changed in between: these requests read every row.
      const second = await this.fetch(
        again,
        again.flatMap((r) => r.ids.map((id) => ({ teamId: r.teamId, id }))),
      );
      for (const r of again) {
        const pois = new Map<string, string>();
        for (const id of r.ids) {
          const json = second.pois.get(key(r.teamId, id));
          if (json !== undefined) pois.set(id, json);
        }
        answers.set(String(r.n), { ...second.counters.get(r.teamId)!, pois });
      }
    }
    return answers;
  }

  /** Reads, keeps what it read, and returns it keyed `team id`. */
  private async fetch(requests: Request[], keys: Array<{ teamId: string; id: string }>) {
    const read = await fetchPoisWithCounters(this.sql, [...new Set(requests.map((r) => r.teamId))], keys);
    this.rowsRead += keys.length;
    for (const [teamId, counters] of read.counters) if (newer(counters.content, this.newest.get(teamId))) this.newest.set(teamId, counters.content);
    const pois = new Map<string, string>();
    for (const p of read.pois) {
      const k = key(p.teamId, p.id);
      pois.set(k, p.json);
      this.hold(k, { content: read.counters.get(p.teamId)!.content, json: p.json });
    }
    return { counters: read.counters, pois };
  }

  private drop(k: string): void {
    const entry = this.held.get(k);
    if (!entry) return;
    this.chars -= entry.json.length;
    this.held.delete(k);
  }

  private hold(k: string, entry: Cached): void {
    this.drop(k);
    this.held.set(k, entry);
    this.chars += entry.json.length;
    // Oldest first: a Map keeps insertion order.
    for (const [old, e] of this.held) {
      if (this.chars <= MAX_CACHED_CHARS) break;
      this.chars -= e.json.length;
      this.held.delete(old);
    }
  }
}
