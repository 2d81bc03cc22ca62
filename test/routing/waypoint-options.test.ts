// Per-waypoint options (issue 36) on Liechtenstein with real kernels: a curbside arrival and departure has
// the waypoint on the right of the direction of travel (checked on the route's own line against the
// road's direction), a bearing sets the direction the route leaves in, and `radius` bounds (or, Infinity,
// lifts) the snapping distance.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePool } from '../../src/compute/pool.js';
import { loadMap, route, WaypointTooFarError, type RouteResult } from '../../src/engine/engine.js';
import type { LatLon } from '../../src/lib/lat-lon.js';
import { plainNodes, pointSegmentMeters, rng, testMap, type TestGraph } from './helpers.js';

let g: TestGraph;
beforeAll(async () => {
  const map = await testMap();
  g = map.graphs['driving-car'];
  await loadMap(map.dir);
});
afterAll(closePool);

const K = (lat: number) => 111_320 * Math.cos((lat * Math.PI) / 180);
const pt = (q: number): [number, number] => [g.geomCoords[2 * q + 1], g.geomCoords[2 * q]];

/** Points `side` meters off the middle of random two-way segments (+ right, − left of the geometry's
 *  direction), at least `clear` meters from every other segment of the graph (brute force). */
function doors(n: number, side: number, clear: number, seed: number): Array<{ door: LatLon; geom: number; a: [number, number]; b: [number, number] }> {
  const rand = rng(seed);
  const out: Array<{ door: LatLon; geom: number; a: [number, number]; b: [number, number] }> = [];
  for (let tries = 0; out.length < n && tries < 5000; tries++) {
    const geom = Math.floor(rand() * g.geomCount);
    if (!g.origWeight[2 * geom] || !g.origWeight[2 * geom + 1]) continue;
    const q = g.geomFirst[geom] + Math.floor(rand() * (g.geomLast[geom] - g.geomFirst[geom]));
    const a = pt(q),
      b = pt(q + 1);
    const mid = { lat: (a[1] + b[1]) / 2, lon: (a[0] + b[0]) / 2 };
    const dx = (b[0] - a[0]) * K(mid.lat),
      dy = (b[1] - a[1]) * 111_320;
    const len = Math.hypot(dx, dy);
    if (len < 20) continue;
    // Right of the direction (dx, dy) is (dy, −dx).
    const door = { lat: mid.lat + ((-dx / len) * side) / 111_320, lon: mid.lon + ((dy / len) * side) / K(mid.lat) };
    let nearest = Infinity;
    for (let o = 0; o < g.geomCount && nearest >= clear; o++) {
      for (let r = g.geomFirst[o]; r < g.geomLast[o] && nearest >= clear; r++) {
        if (r === q) continue;
        nearest = Math.min(nearest, pointSegmentMeters(door.lat, door.lon, pt(r), pt(r + 1)));
      }
    }
    if (nearest >= clear) out.push({ door, geom, a, b });
  }
  return out;
}

const lineOf = (r: RouteResult): Array<[number, number]> => Array.from({ length: r.geometry.length / 2 }, (_, i) => [r.geometry[2 * i], r.geometry[2 * i + 1]]);

/** The side of `p` seen along a → b: > 0 left, < 0 right (local plane). */
function side(a: [number, number], b: [number, number], p: LatLon): number {
  const k = K(p.lat) / 111_320;
  return (b[0] - a[0]) * k * (p.lat - a[1]) - (b[1] - a[1]) * (p.lon - a[0]) * k;
}

/** The last (or first) segment of a line with two distinct ends. */
function endSegment(line: Array<[number, number]>, last: boolean): [[number, number], [number, number]] {
  if (last) {
    let i = line.length - 2;
    while (i > 0 && line[i][0] === line[line.length - 1][0] && line[i][1] === line[line.length - 1][1]) i--;
    return [line[i], line[line.length - 1]];
  }
  let i = 1;
  while (i < line.length - 1 && line[i][0] === line[0][0] && line[i][1] === line[0][1]) i++;
  return [line[0], line[i]];
}

describe('curbside, bearing and radius on Liechtenstein', () => {
  it('a curbside arrival and departure has the waypoint on the right of the direction of travel, on either side of the road', async () => {
    const nodes = plainNodes(g);
    const rand = rng(5);
    let checked = 0,
      turned = 0;
    for (const sideM of [15, -15]) {
      for (const { door } of doors(12, sideM, 40, sideM > 0 ? 1 : 2)) {
        const start = nodes[Math.floor(rand() * nodes.length)];
        const origin = { lat: g.nodeCoords[2 * start], lon: g.nodeCoords[2 * start + 1] };
        const plain = await route({ profile: 'driving-car', waypoints: [origin, door] }).catch(() => null);
        if (!plain) continue;
        const curb = await route({ profile: 'driving-car', waypoints: [origin, door, origin], waypointOptions: [null, { curb: true, side: 'right' }, null] });
        const line = lineOf(curb);
        // The door's point in the line: where the first leg ends (its snapped position).
        const k = line.findIndex((p) => Math.abs(p[0] - curb.snapped[1].lon) < 1e-7 && Math.abs(p[1] - curb.snapped[1].lat) < 1e-7);
        expect(k).toBeGreaterThan(0);
        const [a1, b1] = endSegment(line.slice(0, k + 1), true);
        const [a2, b2] = endSegment(line.slice(k), false);
        expect(side(a1, b1, door)).toBeLessThan(0);
        expect(side(a2, b2, door)).toBeLessThan(0);
        expect(curb.legs[0].duration).toBeGreaterThanOrEqual(plain.duration - 1e-6);
        if (curb.legs[0].duration > plain.duration + 1e-6) turned++;
        checked++;
      }
    }
    console.log(`curbside: ${checked} doors checked, ${turned} needed a longer way round`);
    expect(checked).toBeGreaterThan(15);
    expect(turned).toBeGreaterThan(0);
  });

  it('a bearing sets the direction the route leaves in (and the reverse bearing the other)', async () => {
    const nodes = plainNodes(g);
    const rand = rng(8);
    let checked = 0;
    for (const { door, a, b } of doors(10, 5, 30, 3)) {
      const to = nodes[Math.floor(rand() * nodes.length)];
      const target = { lat: g.nodeCoords[2 * to], lon: g.nodeCoords[2 * to + 1] };
      const along = (Math.atan2((b[0] - a[0]) * K(door.lat), (b[1] - a[1]) * 111_320) * 180) / Math.PI;
      for (const value of [along, along + 180]) {
        const bearing = { value: ((value % 360) + 360) % 360, range: 20 };
        const r = await route({ profile: 'driving-car', waypoints: [door, target], waypointOptions: [{ bearing }, null] }).catch(() => null);
        if (!r) continue;
        const [p, q] = endSegment(lineOf(r), false);
        const leaves = (Math.atan2((q[0] - p[0]) * K(door.lat), (q[1] - p[1]) * 111_320) * 180) / Math.PI;
        const diff = Math.abs(((leaves - bearing.value + 540) % 360) - 180);
        expect(diff).toBeLessThanOrEqual(20.5);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(10);
  });

  it('radius: a point 800 m from any road is too far by default and within 600 m, routed within 1,000 m or without a limit', async () => {
    // Search out from Vaduz eastward (into the mountains) for a point 750–900 m from every road.
    let lonely: LatLon | null = null;
    for (let lat = 47.12; lat < 47.2 && !lonely; lat += 0.003) {
      for (let lon = 9.56; lon < 9.64 && !lonely; lon += 0.003) {
        // The car's own roads (what it snaps to), those within 0.02° only.
        let nearest = Infinity;
        for (let o = 0; o < g.geomCount && nearest > 750; o++) {
          for (let r = g.geomFirst[o]; r < g.geomLast[o]; r++) {
            const [x, y] = pt(r);
            if (Math.abs(y - lat) > 0.02 || Math.abs(x - lon) > 0.03) continue;
            nearest = Math.min(nearest, pointSegmentMeters(lat, lon, pt(r), pt(r + 1)));
          }
        }
        if (nearest > 750 && nearest < 900) lonely = { lat, lon };
      }
    }
    expect(lonely).not.toBeNull();
    const vaduz = { lat: 47.1393, lon: 9.5215 };
    const far = (options?: Parameters<typeof route>[0]['waypointOptions']) =>
      route({ profile: 'driving-car', waypoints: [vaduz, lonely!], waypointOptions: options }).then(
        (r) => r,
        (e: unknown) => e,
      );
    expect(await far()).toBeInstanceOf(WaypointTooFarError);
    expect(await far([null, { radius: 600 }])).toBeInstanceOf(WaypointTooFarError);
    const within = (await far([null, { radius: 1000 }])) as RouteResult;
    const unlimited = (await far([null, { radius: Infinity }])) as RouteResult;
    expect(within.duration).toBeGreaterThan(0);
    expect(unlimited.duration).toBe(within.duration);
  });
});
