import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { closePool, computePool, observeTasks } from '../../src/compute/pool.js';
import { DEFAULT_EXTRACT } from '../../src/map/build.js';
import { loadOsm, type OsmData } from '../../src/map/osm/osm-data.js';
import { loadMap, matrix, NoRouteError, route, routeJson, WaypointTooFarError, type ProfileName, type RouteResult } from '../../src/engine/engine.js';
import { dijkstra, geometryWays, lineDistanceMeters, plainNodes, rng, testMap, type TestGraph as RoadGraph } from './helpers.js';
import { pairsOf } from '../../src/engine/line-json.js';
import { closedTo } from '../../src/engine/route-core.js';

// These check the node-based searches (hierarchy, matrix, avoidance) against a node-based reference, so
// routes here price no turns (turn-prices.test.ts checks the priced routes): the pool's threads take the
// setting from the environment's configuration when the pool starts.
process.env.WAYMARK_TURN_PRICES = 'off';

const PROFILES: ProfileName[] = ['driving-car', 'driving-hgv', 'cycling-regular', 'foot-walking'];
let graphs: Record<string, RoadGraph>;
let osm: OsmData;

beforeAll(async () => {
  const map = await testMap();
  graphs = map.graphs;
  await loadMap(map.dir);
  osm = await loadOsm(DEFAULT_EXTRACT);
});
afterAll(closePool);

const at = (g: RoadGraph, v: number) => ({ lat: g.nodeCoords[2 * v], lon: g.nodeCoords[2 * v + 1] });

async function tryRoute(req: Parameters<typeof route>[0]): Promise<RouteResult | NoRouteError> {
  try {
    return await route(req);
  } catch (err) {
    if (err instanceof NoRouteError) return err;
    throw err;
  }
}

describe('routing engine on Liechtenstein', () => {
  it.each(PROFILES)('%s: 500 random pairs have the reference Dijkstra duration', async (profile) => {
    const g = graphs[profile];
    // The reference keeps the default lorry off the ways below its size, as its routes do.
    const closed = closedTo(g as unknown as Parameters<typeof closedTo>[0], profile);
    if (profile === 'driving-hgv') expect(closed.size).toBeGreaterThan(0);
    const nodes = plainNodes(g, closed);
    const rand = rng(42);
    let compared = 0,
      unreachable = 0;
    // 50 sources × 10 targets: one reference search per source.
    for (let i = 0; i < 50; i++) {
      const s = nodes[Math.floor(rand() * nodes.length)];
      const ref = dijkstra(g, s, { blocked: closed });
      const targets = Array.from({ length: 10 }, () => nodes[Math.floor(rand() * nodes.length)]);
      const results = await Promise.all(targets.map((t) => tryRoute({ profile, waypoints: [at(g, s), at(g, t)] })));
      results.forEach((r, k) => {
        const expected = ref[targets[k]];
        if (r instanceof NoRouteError) {
          expect(r.reason).toBe(profile === 'driving-hgv' && dijkstra(g, s)[targets[k]] < Infinity ? 'too-big' : 'unreachable');
          expect(expected).toBe(Infinity);
          unreachable++;
        } else {
          expect(r.duration).toBeCloseTo(expected / 10, 6);
          compared++;
        }
      });
    }
    expect(compared + unreachable).toBe(500);
    expect(compared).toBeGreaterThan(400);
  });

  it('matrix entries equal the single routes', async () => {
    const g = graphs['driving-car'];
    const nodes = plainNodes(g);
    const rand = rng(7);
    const points = Array.from({ length: 8 }, () => {
      const v = nodes[Math.floor(rand() * nodes.length)];
      return { lat: at(g, v).lat + 0.0003, lon: at(g, v).lon + 0.0002 };
    });
    const m = await matrix({ profile: 'driving-car', points });
    for (let i = 0; i < points.length; i++) {
      expect(m.durations[i][i]).toBe(0);
      for (let j = 0; j < points.length; j++) {
        if (i === j) continue;
        const r = await tryRoute({ profile: 'driving-car', waypoints: [points[i], points[j]] });
        if (r instanceof NoRouteError) expect(m.durations[i][j]).toBeNull();
        else {
          expect(m.durations[i][j]).toBeCloseTo(r.duration, 6);
          expect(m.distances[i][j]).toBeCloseTo(r.distance, 3);
        }
      }
    }
  });

  it.each(['driving-car', 'foot-walking'] as ProfileName[])('%s: avoided routes keep out of every circle', async (profile) => {
    const g = graphs[profile];
    const nodes = plainNodes(g);
    const rand = rng(99);
    let avoided = 0,
      blocked = 0;
    for (let i = 0; i < 40; i++) {
      const a = at(g, nodes[Math.floor(rand() * nodes.length)]);
      const b = at(g, nodes[Math.floor(rand() * nodes.length)]);
      const plain = await tryRoute({ profile, waypoints: [a, b] });
      if (plain instanceof NoRouteError || pairsOf(plain.geometry).length < 10) continue;
      // Circles on the plain route, none containing a waypoint (the API skips those POIs).
      const circles = Array.from({ length: 3 }, () => {
        const [lon, lat] = pairsOf(plain.geometry)[1 + Math.floor(rand() * (pairsOf(plain.geometry).length - 2))];
        return { lat, lon, radius: 10 + Math.floor(rand() * 90) };
      }).filter((c) => plain.snapped.every((p) => lineDistanceMeters(c.lat, c.lon, [[p.lon, p.lat]]) > c.radius + 5));
      if (!circles.length) continue;
      const r = await tryRoute({ profile, waypoints: [a, b], avoid: { circles } });
      // The API's route: searched from both ends at once on the two idle threads, the first answer kept.
      const tasks: string[] = [];
      observeTasks((kernel) => tasks.push(kernel));
      const raced = await routeJson({ profile, waypoints: [a, b], avoid: { circles } }).catch((e: unknown) => e);
      await vi.waitFor(() => expect(tasks).toEqual(['routeJson', 'routeJson']));
      observeTasks(undefined);
      if (r instanceof NoRouteError) {
        expect(r.reason).toBe('blocked');
        expect(raced).toBeInstanceOf(NoRouteError);
        expect((raced as NoRouteError).reason).toBe('blocked');
        blocked++;
        continue;
      }
      for (const c of circles) expect(lineDistanceMeters(c.lat, c.lon, pairsOf(r.geometry))).toBeGreaterThan(c.radius - 1);
      expect(r.duration).toBeGreaterThanOrEqual(plain.duration - 1e-9);
      const answer = raced as Awaited<ReturnType<typeof routeJson>>;
      const line = (JSON.parse(Buffer.concat(answer.geometryJson).toString('utf8')) as { coordinates: Array<[number, number]> }).coordinates;
      answer.release();
      expect(answer.duration).toBeCloseTo(r.duration, 6);
      // The text's 1e-6° rounding moves a point by at most 0.1 m.
      for (const c of circles) expect(lineDistanceMeters(c.lat, c.lon, line)).toBeGreaterThan(c.radius - 1.2);
      avoided++;
    }
    expect(avoided).toBeGreaterThan(10);
    expect(blocked).toBeLessThan(avoided);
  });

  it('an avoided route that touches no circle is the plain route', async () => {
    const g = graphs['driving-car'];
    const nodes = plainNodes(g);
    const rand = rng(5);
    let checked = 0;
    for (let i = 0; i < 20; i++) {
      const a = at(g, nodes[Math.floor(rand() * nodes.length)]);
      const b = at(g, nodes[Math.floor(rand() * nodes.length)]);
      const plain = await tryRoute({ profile: 'driving-car', waypoints: [a, b] });
      if (plain instanceof NoRouteError) continue;
      // Circles 1.5–3 km off the route's bounding box.
      const [w, s, e, n] = plain.bbox;
      const circles = [
        { lat: n + 0.02, lon: (w + e) / 2, radius: 200 },
        { lat: s - 0.02, lon: w - 0.02, radius: 500 },
      ];
      const r = await route({ profile: 'driving-car', waypoints: [a, b], avoid: { circles } });
      expect(r.duration).toBe(plain.duration);
      expect(r.distance).toBe(plain.distance);
      expect(pairsOf(r.geometry)).toEqual(pairsOf(plain.geometry));
      checked++;
    }
    expect(checked).toBeGreaterThan(10);
  });

  it('a compute thread killed in the middle of a raced route leaves the answer to the other', async () => {
    const vaduz = { lat: 47.141, lon: 9.5209 },
      schaan = { lat: 47.1651, lon: 9.5096 };
    const circles = [{ lat: 47.1535, lon: 9.5155, radius: 40 }];
    const alone = await route({ profile: 'driving-car', waypoints: [vaduz, schaan], avoid: { circles } });
    const outcomes: boolean[] = [];
    observeTasks((kernel, _s, ok) => kernel === 'routeJson' && outcomes.push(ok));
    try {
      // The pool learns of the death only when the thread has gone: it still gets one of the two tasks,
      // which it never reads.
      void computePool().threads[0].terminate();
      const r = await routeJson({ profile: 'driving-car', waypoints: [vaduz, schaan], avoid: { circles } });
      r.release();
      expect(r.duration).toBeCloseTo(alone.duration, 6);
      await vi.waitFor(() => expect(outcomes.sort()).toEqual([false, true]));
    } finally {
      observeTasks(undefined);
    }
    // The pool makes a new thread in its place.
    await vi.waitFor(() => expect(computePool().threads.length).toBe(2));
  });

  it('geometry starts and ends at the snapped positions', async () => {
    const a = { lat: 47.1412, lon: 9.5215 },
      b = { lat: 47.1655, lon: 9.51 };
    const r = await route({ profile: 'driving-car', waypoints: [a, b] });
    expect(pairsOf(r.geometry)[0][0]).toBeCloseTo(r.snapped[0].lon, 9);
    expect(pairsOf(r.geometry)[0][1]).toBeCloseTo(r.snapped[0].lat, 9);
    expect(pairsOf(r.geometry).at(-1)![0]).toBeCloseTo(r.snapped[1].lon, 9);
    expect(pairsOf(r.geometry).at(-1)![1]).toBeCloseTo(r.snapped[1].lat, 9);
    expect(r.legs).toHaveLength(1);
    expect(r.distance).toBeGreaterThan(2500);
    expect(r.distance).toBeLessThan(6000);
  });
});

describe('routes through several waypoints, searched in two halves at once', () => {
  it.each([4, 5, 9, 12])('%i waypoints: the same line, legs, box and snapped positions as searched whole', async (count) => {
    const g = graphs['driving-car'];
    const nodes = plainNodes(g);
    const rand = rng(count);
    let compared = 0;
    for (let trial = 0; trial < 10; trial++) {
      const waypoints = Array.from({ length: count }, () => at(g, nodes[Math.floor(rand() * nodes.length)]));
      // A repeated waypoint: a leg of no length, drawn as a repeated point, at the halves' seam or beside it.
      if (trial === 0) waypoints[Math.ceil((count - 1) / 2)] = waypoints[Math.ceil((count - 1) / 2) - 1];
      const whole = await tryRoute({ profile: 'driving-car', waypoints });
      const halves = await routeJson({ profile: 'driving-car', waypoints }).catch((e: unknown) => e);
      if (whole instanceof NoRouteError) {
        expect(halves).toBeInstanceOf(NoRouteError);
        expect((halves as NoRouteError).legIndex).toBe(whole.legIndex);
        continue;
      }
      const split = halves as Awaited<ReturnType<typeof routeJson>>;
      // The line is written from 1e-7° integers rounded half up to 1e-6°: the same from the whole route's degrees.
      const r6 = (x: number) => Math.round(Math.round(x * 1e7) / 10) / 1e6;
      const text = Buffer.concat(split.geometryJson).toString('utf8');
      split.release();
      expect(JSON.parse(text)).toEqual({ type: 'LineString', coordinates: pairsOf(whole.geometry).map(([lon, lat]) => [r6(lon), r6(lat)]) });
      expect(split.legs).toEqual(whole.legs);
      expect(split.snapped).toEqual(whole.snapped);
      expect(split.bbox).toEqual(whole.bbox.map(r6));
      expect(split.distance).toBeCloseTo(whole.distance, 6);
      expect(split.duration).toBeCloseTo(whole.duration, 6);
      compared++;
    }
    expect(compared).toBeGreaterThan(5);
  });

  it('is searched whole while a thread is busy: a half would queue behind its task', async () => {
    const g = graphs['driving-car'];
    const nodes = plainNodes(g);
    const rand = rng(77);
    const pick = () => at(g, nodes[Math.floor(rand() * nodes.length)]);
    const waypoints = Array.from({ length: 6 }, pick);
    const tasks: string[] = [];
    observeTasks((kernel) => tasks.push(kernel));
    try {
      // A matrix with avoidance is a Dijkstra per row: it holds one of the two threads for a while.
      const points = Array.from({ length: 300 }, pick);
      const busy = matrix({ profile: 'driving-car', points, avoid: { circles: [{ ...pick(), radius: 20 }] } });
      await routeJson({ profile: 'driving-car', waypoints });
      const whileBusy = tasks.filter((t) => t === 'routeJson').length;
      await busy;
      tasks.length = 0;
      await routeJson({ profile: 'driving-car', waypoints });
      expect([whileBusy, tasks.filter((t) => t === 'routeJson').length]).toEqual([1, 2]);
    } finally {
      observeTasks(undefined);
    }
  });

  it('an avoiding route is searched from one end only while a thread is busy', async () => {
    const g = graphs['driving-car'];
    const nodes = plainNodes(g);
    const rand = rng(78);
    const pick = () => at(g, nodes[Math.floor(rand() * nodes.length)]);
    const tasks: string[] = [];
    observeTasks((kernel) => tasks.push(kernel));
    try {
      const busy = matrix({ profile: 'driving-car', points: Array.from({ length: 300 }, pick), avoid: { circles: [{ ...pick(), radius: 20 }] } });
      const waypoints = [pick(), pick()];
      const r = await routeJson({ profile: 'driving-car', waypoints, avoid: { circles: [{ ...pick(), radius: 30 }] } }).catch((e: unknown) => e);
      if (!(r instanceof NoRouteError)) (r as Awaited<ReturnType<typeof routeJson>>).release();
      expect(tasks.filter((t) => t === 'routeJson')).toHaveLength(1);
      await busy;
    } finally {
      observeTasks(undefined);
    }
  });

  it('a half that fails is answered as the whole route fails', async () => {
    const vaduz = { lat: 47.141, lon: 9.5209 },
      schaan = { lat: 47.1651, lon: 9.5096 },
      far = { lat: 47.5, lon: 9.0 };
    const err = await routeJson({ profile: 'driving-car', waypoints: [vaduz, far, schaan, vaduz, { lat: 46.9, lon: 9.9 }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaypointTooFarError);
    expect((err as WaypointTooFarError).indexes).toEqual([1, 4]);
  });
});

describe('profile semantics', () => {
  it('car respects a oneway that foot walks against', async () => {
    const g = graphs['driving-car'];
    const c = g.geomCoords;
    let checked = 0;
    for (let geom = 0; geom < g.geomCount && checked < 5; geom++) {
      if (!(g.origWeight[2 * geom] > 0 && g.origWeight[2 * geom + 1] === 0)) continue;
      // The longest straight segment of the oneway piece, so points on it snap onto it.
      let best = -1,
        bestLen = 0;
      for (let p = g.geomFirst[geom]; p < g.geomLast[geom]; p++) {
        const len = lineDistanceMeters(c[2 * p], c[2 * p + 1], [[c[2 * p + 3], c[2 * p + 2]]]);
        if (len > bestLen) {
          bestLen = len;
          best = p;
        }
      }
      if (bestLen < 80) continue;
      const pt = (t: number) => ({ lat: c[2 * best] + t * (c[2 * best + 2] - c[2 * best]), lon: c[2 * best + 1] + t * (c[2 * best + 3] - c[2 * best + 1]) });
      const along = await route({ profile: 'driving-car', waypoints: [pt(0.2), pt(0.8)] });
      const against = await tryRoute({ profile: 'driving-car', waypoints: [pt(0.8), pt(0.2)] });
      expect(along.distance).toBeCloseTo(0.6 * bestLen, 0);
      if (against instanceof NoRouteError) continue;
      expect(against.distance).toBeGreaterThan(0.6 * bestLen + 20);
      const walk = await route({ profile: 'foot-walking', waypoints: [pt(0.8), pt(0.2)] });
      expect(walk.distance).toBeLessThan(0.6 * bestLen + 20);
      checked++;
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('car obeys a real turn restriction of the extract; the bike takes the turn', async () => {
    const car = graphs['driving-car'];
    const carWayOf = geometryWays(car, osm.ways, (ref) => osm.coord(ref));
    let proven = 0;
    for (const rel of osm.relations) {
      const kind = rel.tags.restriction;
      if (rel.tags.type !== 'restriction' || !kind || !/^no_(left|right)_turn|no_straight_on$/.test(kind) || rel.tags.except) continue;
      const from = rel.members.find((m) => m.role === 'from' && m.type === 'way')?.ref;
      const viaMember = rel.members.find((m) => m.role === 'via' && m.type === 'node');
      const to = rel.members.find((m) => m.role === 'to' && m.type === 'way')?.ref;
      const via = viaMember && osm.coord(viaMember.ref);
      if (from === undefined || to === undefined || !via) continue;
      // Points 20 m before the via node on the from way and 20 m after it on the to way.
      const near = (way: number): { lat: number; lon: number } | null => {
        for (let geom = 0; geom < car.geomCount; geom++) {
          if (carWayOf[geom] !== way) continue;
          const f = car.geomFirst[geom],
            l = car.geomLast[geom],
            c = car.geomCoords;
          const same = (p: number): boolean => Math.abs(c[2 * p] - via[0]) < 1e-9 && Math.abs(c[2 * p + 1] - via[1]) < 1e-9;
          const endAt = same(l) ? l : same(f) ? f : -1;
          if (endAt < 0) continue;
          const other = endAt === l ? l - 1 : f + 1;
          const dLat = c[2 * other] - via[0],
            dLon = c[2 * other + 1] - via[1];
          const segM = Math.hypot(dLat * 111195, dLon * 111195 * Math.cos((via[0] * Math.PI) / 180));
          const t = Math.min(0.9, 20 / segM);
          return { lat: via[0] + t * dLat, lon: via[1] + t * dLon };
        }
        return null;
      };
      const a = near(from),
        b = near(to);
      if (!a || !b) continue;
      const bike = await tryRoute({ profile: 'cycling-regular', waypoints: [a, b] });
      if (bike instanceof NoRouteError || bike.distance > 45) continue; // the turn is not a direct 40 m for bikes here
      const drive = await tryRoute({ profile: 'driving-car', waypoints: [a, b] });
      // A from or to way off the car's main network (behind a barrier, say) snaps the car elsewhere: no test of the turn.
      const onWays = (r: RouteResult): boolean =>
        lineDistanceMeters(a.lat, a.lon, [[r.snapped[0].lon, r.snapped[0].lat]]) < 0.5 &&
        lineDistanceMeters(b.lat, b.lon, [[r.snapped[1].lon, r.snapped[1].lat]]) < 0.5;
      if (!(drive instanceof NoRouteError) && !onWays(drive)) continue;
      if (!(drive instanceof NoRouteError)) expect(drive.distance).toBeGreaterThan(bike.distance + 20);
      proven++;
    }
    expect(proven).toBeGreaterThan(0);
  });

  it('bike uses a cycleway a car may not', async () => {
    const bike = graphs['cycling-regular'],
      car = graphs['driving-car'];
    const bikeWayOf = geometryWays(bike, osm.ways, (ref) => osm.coord(ref));
    const carWays = new Set(geometryWays(car, osm.ways, (ref) => osm.coord(ref)));
    const ways = new Map(osm.ways.map((w) => [w.id, w]));
    let checked = 0;
    for (let geom = 0; geom < bike.geomCount && checked < 3; geom++) {
      const way = ways.get(bikeWayOf[geom]);
      if (way?.tags.highway !== 'cycleway' || carWays.has(way.id) || bike.geomCm[geom] < 20_000) continue;
      const first = bike.geomFirst[geom],
        last = bike.geomLast[geom];
      if (last - first !== 1) continue;
      const c = bike.geomCoords;
      const p = (t: number) => ({ lat: c[2 * first] + t * (c[2 * last] - c[2 * first]), lon: c[2 * first + 1] + t * (c[2 * last + 1] - c[2 * first + 1]) });
      const r = await route({ profile: 'cycling-regular', waypoints: [p(0.2), p(0.8)] });
      expect(r.distance).toBeCloseTo((0.6 * bike.geomCm[geom]) / 100, 0);
      expect(r.snapped[0].lat).toBeCloseTo(p(0.2).lat, 7);
      // A car cannot stand on the cycleway: it snaps elsewhere (or nowhere within 500 m).
      const d = await tryRoute({ profile: 'driving-car', waypoints: [p(0.2), p(0.8)] }).catch((e: unknown) => e);
      if (!(d instanceof WaypointTooFarError) && !(d instanceof NoRouteError)) {
        const s0 = (d as RouteResult).snapped[0];
        expect(lineDistanceMeters(p(0.2).lat, p(0.2).lon, [[s0.lon, s0.lat]])).toBeGreaterThan(1);
      }
      checked++;
    }
    expect(checked).toBeGreaterThan(0);
  });
});

describe('routing errors', () => {
  const vaduz = { lat: 47.141, lon: 9.5209 },
    schaan = { lat: 47.1651, lon: 9.5096 };

  it('names every waypoint farther than 500 m from a usable road', async () => {
    const err = await route({ profile: 'driving-car', waypoints: [vaduz, schaan, { lat: 47.5, lon: 9.0 }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaypointTooFarError);
    expect((err as WaypointTooFarError).indexes).toEqual([2]);
    const all = await route({ profile: 'driving-car', waypoints: [{ lat: 47.5, lon: 9.0 }, vaduz, { lat: 46.9, lon: 9.9 }, schaan] }).catch((e: unknown) => e);
    expect((all as WaypointTooFarError).indexes).toEqual([0, 2]);
  });

  it('tells blocked (a ring of circles around a waypoint) from unreachable', async () => {
    // Eight circles of 150 m on a 250 m ring around Schaan: every road out crosses one.
    const ring = Array.from({ length: 12 }, (_, k) => {
      const a = (k / 12) * 2 * Math.PI;
      return {
        lat: schaan.lat + (250 / 111195) * Math.sin(a),
        lon: schaan.lon + (250 / (111195 * Math.cos((schaan.lat * Math.PI) / 180))) * Math.cos(a),
        radius: 150,
      };
    });
    const err = await route({ profile: 'driving-car', waypoints: [vaduz, { lat: 47.15, lon: 9.515 }, schaan], avoid: { circles: ring } }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(NoRouteError);
    expect((err as NoRouteError).reason).toBe('blocked');
    expect((err as NoRouteError).legIndex).toBe(1);

    // A piece of road the main network does not reach (some are close enough to a main road to snap there).
    const g = graphs['driving-car'];
    const main = plainNodes(g)[0];
    const reach = dijkstra(g, main);
    let unreachable: NoRouteError | null = null;
    for (let geom = 0; geom < g.geomCount && !unreachable; geom++) {
      const d = 2 * geom;
      if (!(g.origWeight[d] > 0 && g.origHead[d] !== 0xffffffff && reach[g.origHead[d]] === Infinity && g.geomCm[geom] > 3000)) continue;
      const f = g.geomFirst[geom],
        c = g.geomCoords;
      const mid = { lat: (c[2 * f] + c[2 * f + 2]) / 2, lon: (c[2 * f + 1] + c[2 * f + 3]) / 2 };
      const r = await tryRoute({ profile: 'driving-car', waypoints: [at(g, main), mid] });
      if (r instanceof NoRouteError) unreachable = r;
    }
    expect(unreachable?.reason).toBe('unreachable');
    expect(unreachable?.legIndex).toBe(0);
  });
});
