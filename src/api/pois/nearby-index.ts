import type { Sql } from '../../db/client.js';
import type { PoiReader } from './poi-reader.js';
import { teamPositionRows, type PoiJsonRow } from './store.js';
import { TeamPositions, type Near } from './team-positions.js';

// About 240 bytes a point (id string, coordinates, unit vector, tree; measured): the budget bounds the
// process at ~240 MB. A team past it on its own keeps its distance lists in SQL.
const MAX_POINTS = 1_000_000;
// A rebuild waits at least this long after the previous one, and ten times as long as it took, so a
// team whose POIs keep changing costs at most a tenth of a core in rebuilds (its lists then use SQL).
const MIN_REBUILD_GAP_MS = 250;
const TOO_LARGE_RECHECK_MS = 3_600_000;

interface Entry {
  positions?: TeamPositions;
  version?: string;
  building: boolean;
  notBefore: number;
  lastUsed: number;
}

/**
 * Distance lists answered from an in-process index of each team's POI positions instead of a scan of
 * the spatial index in PostgreSQL (which costs the database ~1 µs a candidate, ~0.4 ms a 500 m list over
 * 100,000 POIs). The answer stays exact: the page's rows are read in one statement with the team's
 * version (poi_versions, bumped by every statement that adds, moves or removes POIs), and a page
 * chosen by an index of another version is thrown away: the caller answers from SQL, and the index is
 * rebuilt in the background.
 */
export class NearbyIndex {
  private readonly teams = new Map<string, Entry>();
  private points = 0;

  constructor(
    private readonly sql: Sql,
    private readonly reader: PoiReader,
  ) {}

  /** A page of the distance list, or undefined when the index cannot vouch for one. */
  async page(teamId: string, near: Near, cursor: string | null, limit: number): Promise<{ data: PoiJsonRow[]; next: string | null } | undefined> {
    const entry = this.entry(teamId);
    const { positions, version } = entry;
    if (!positions || version === undefined) return undefined;
    // One POI more than the page tells whether another page follows; only the page's rows are read.
    const chosen = positions.within(near, cursor, limit + 1);
    if (!chosen) return undefined;
    const more = chosen.length > limit;
    if (more) chosen.pop();
    const read = await this.reader.read(
      teamId,
      chosen.map((p) => p.id),
    );
    if (read.version !== version || chosen.some((p) => !read.pois.has(p.id))) {
      if (entry.version === version) this.rebuild(teamId, entry);
      return undefined;
    }
    return {
      data: chosen.map((p) => ({ id: p.id, json: withDistance(read.pois.get(p.id)!, p.meters) })),
      next: more ? chosen[chosen.length - 1].id : null,
    };
  }

  /** The team's POIs inside the boxes and the version they are of, or undefined while none is held. */
  inBoxes(teamId: string, boxes: Parameters<TeamPositions['inBoxes']>[0]): { version: string; pois: ReturnType<TeamPositions['inBoxes']> } | undefined {
    const { positions, version } = this.entry(teamId);
    return positions && version !== undefined ? { version, pois: positions.inBoxes(boxes) } : undefined;
  }

  /** The held version is not the database's: read again (in the background). */
  stale(teamId: string, version: string): void {
    const entry = this.entry(teamId);
    if (entry.version === version) this.rebuild(teamId, entry);
  }

  private entry(teamId: string): Entry {
    let entry = this.teams.get(teamId);
    if (!entry) {
      entry = { building: false, notBefore: 0, lastUsed: 0 };
      this.teams.set(teamId, entry);
      this.rebuild(teamId, entry);
    }
    entry.lastUsed = Date.now();
    return entry;
  }

  private rebuild(teamId: string, entry: Entry): void {
    if (entry.building || Date.now() < entry.notBefore) return;
    entry.building = true;
    const started = performance.now();
    loadPositions(this.sql, teamId, MAX_POINTS)
      .then(
        (loaded) => {
          if (this.teams.get(teamId) !== entry) return; // evicted meanwhile
          if (!loaded) {
            // More POIs than the whole budget: this team's lists stay in SQL; look again in an hour.
            this.points -= entry.positions?.size ?? 0;
            [entry.positions, entry.version] = [undefined, undefined];
            entry.notBefore = Date.now() + TOO_LARGE_RECHECK_MS;
            return;
          }
          const { positions, version } = loaded;
          this.points += positions.size - (entry.positions?.size ?? 0);
          [entry.positions, entry.version] = [positions, version];
          this.evict(teamId);
        },
        () => {
          // The lists keep using SQL; the next list after the gap tries again.
        },
      )
      .finally(() => {
        entry.building = false;
        entry.notBefore = Math.max(entry.notBefore, Date.now() + Math.max(MIN_REBUILD_GAP_MS, 10 * (performance.now() - started)));
      });
  }

  /** Drops the least recently used teams' positions while over budget (never the one just built). */
  private evict(keep: string): void {
    if (this.points <= MAX_POINTS) return;
    const byAge = [...this.teams].filter(([id, e]) => id !== keep && e.positions).sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [id, e] of byAge) {
      if (this.points <= MAX_POINTS) break;
      this.points -= e.positions!.size;
      this.teams.delete(id);
    }
  }
}

/** The team's positions and version, read in one snapshot; undefined past `max` POIs. */
async function loadPositions(sql: Sql, teamId: string, max: number): Promise<{ positions: TeamPositions; version: string } | undefined> {
  const read = await teamPositionRows(sql, teamId, max);
  if (!read) return undefined;
  const { rows, version } = read;
  // The database's collation may order ids differently from JavaScript; the index needs JavaScript's.
  if (rows.some((r, i) => i > 0 && rows[i - 1][0] >= r[0])) rows.sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const lat = new Float64Array(rows.length);
  const lon = new Float64Array(rows.length);
  rows.forEach((r, i) => {
    lat[i] = r[1];
    lon[i] = r[2];
  });
  return {
    positions: new TeamPositions(
      rows.map((r) => r[0]),
      lat,
      lon,
    ),
    version,
  };
}

/**
 * The POI's JSON with `"distance"` after its coordinates, printed as the SQL list prints
 * `round(meters * 100) / 100`: PostgreSQL rounds float8 halves to even, and both print the shortest
 * text that reads back as the same double (TeamPositions.within gives no distance that the last bit of
 * a sine could round the other way). `,"category":` cannot occur earlier: the name before it is a JSON
 * string, whose quotes are escaped.
 */
export function withDistance(json: string, meters: number): string {
  const cents = meters * 100;
  let rounded = Math.round(cents);
  if (rounded - cents === 0.5 && rounded % 2 !== 0) rounded -= 1;
  const at = json.indexOf(',"category":');
  return `${json.slice(0, at)},"distance":${rounded / 100}${json.slice(at)}`;
}
