// POST /v1/routes/clusters with stops in the body: the answer's shape, determinism, every size rule, stops at
// one position, the edge cluster counts and the 2,000 / 100 limits, through the real service and pool.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { API_ONLY, expect422 } from '../api/helpers.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { VADUZ, blobs, cluster, expectClustering, haversine, offset, partition, plainStops, scatter, sizes, type At } from './helpers.js';

let app: App & { url: string };
let team: TestTeam;

beforeAll(async () => {
  app = await startTestApp(API_ONLY);
  team = await makeTeam(app);
});
afterAll(() => app.close());

const run = (body: unknown) => cluster(app, team.key, body);
const hundred = scatter(VADUZ, 100, 4000, 5);

describe('answer', () => {
  it('finds three well-separated groups, field by field', async () => {
    const { points, centers } = blobs(3, 20);
    const d = expectClustering(await run({ stops: points, clusters: 3 }), plainStops(points));
    expect(d.summary).toEqual({ stops: 60, clusters: 3, balanced: false, max_stops: null });
    // Ids follow the first stop of each cluster, so the groups come back in input order.
    expect(partition(d)).toEqual([0, 1, 2].map((b) => Array.from({ length: 20 }, (_, i) => b * 20 + i)));
    d.clusters.forEach((c: any, i: number) => {
      expect(c.count).toBe(20);
      expect(haversine(c.centroid, centers[i])).toBeLessThan(300);
      expect(c.radius).toBeGreaterThan(0);
      expect(c.radius).toBeLessThan(600);
      // Stops within a cluster come in request order.
      expect(c.stops.map((s: any) => s.index)).toEqual([...c.stops.map((s: any) => s.index)].sort((a: number, b: number) => a - b));
    });
  });

  it('echoes stop ids, and POI stops carry the POI id and position', async () => {
    const poiAt = offset(VADUZ, 800, 10);
    const created = await api(app, 'POST', '/v1/pois', { key: team.key, body: { name: 'depot', ...poiAt } });
    expect(created.status).toBe(201);
    const poiId = created.body.data.id;
    const a = offset(VADUZ, 500, 200),
      b = offset(VADUZ, 6000, 90);
    const stops = [{ ...a, id: 'first' }, { poi_id: poiId, id: 'x'.repeat(100) }, { poi_id: poiId.toLowerCase() }, b, { ...b, id: 'First' }];
    const d = expectClustering(await run({ stops, clusters: 2 }), [
      { id: 'first', poi_id: null, ...a },
      { id: 'x'.repeat(100), poi_id: poiId, ...poiAt },
      { id: null, poi_id: poiId, ...poiAt },
      { id: null, poi_id: null, ...b },
      { id: 'First', poi_id: null, ...b },
    ]);
    expect(partition(d)).toEqual([
      [0, 1, 2],
      [3, 4],
    ]);
  });

  it('is deterministic: the same request twice gives the identical body', async () => {
    const points = scatter(VADUZ, 2000, 8000, 42);
    const stops = points.map((p, i) => ({ ...p, id: `s${i}` }));
    for (const extra of [{ clusters: 37 }, { clusters: 37, balanced: true }, { max_stops: 45 }]) {
      const first = await run({ stops, ...extra });
      expectClustering(
        first,
        points.map((p, i) => ({ id: `s${i}`, poi_id: null, ...p })),
        'balanced' in extra,
      );
      const second = await run({ stops, ...extra });
      expect(second.status).toBe(200);
      expect(second.body).toEqual(first.body);
      expect(JSON.stringify(second.body)).toBe(JSON.stringify(first.body));
    }
  });
});

describe('size rules', () => {
  it('plain: exactly the requested number for distinct stops, sizes uncapped', async () => {
    const d = expectClustering(await run({ stops: hundred, clusters: 7 }), plainStops(hundred));
    expect(d.summary).toEqual({ stops: 100, clusters: 7, balanced: false, max_stops: null });
  });

  it('balanced clusters: sizes differ by at most one; max_stops is the balanced size', async () => {
    const d = expectClustering(await run({ stops: hundred, clusters: 7, balanced: true }), plainStops(hundred), true);
    expect(d.summary).toEqual({ stops: 100, clusters: 7, balanced: true, max_stops: 15 });
    expect(sizes(d)).toEqual([15, 15, 14, 14, 14, 14, 14]);
  });

  it('max_stops: the fewest clusters that hold every stop, none over the cap', async () => {
    const d = expectClustering(await run({ stops: hundred, max_stops: 12 }), plainStops(hundred));
    expect(d.summary).toEqual({ stops: 100, clusters: 9, balanced: false, max_stops: 12 });
    for (const s of sizes(d)) expect(s).toBeLessThanOrEqual(12);
  });

  it('max_stops with balanced: the same count, sizes differing by at most one', async () => {
    const d = expectClustering(await run({ stops: hundred, max_stops: 12, balanced: true }), plainStops(hundred), true);
    expect(d.summary).toEqual({ stops: 100, clusters: 9, balanced: true, max_stops: 12 });
    expect(sizes(d)).toEqual([12, 11, 11, 11, 11, 11, 11, 11, 11]);
  });

  it('max_stops of at least the stop count gives one cluster', async () => {
    for (const max of [100, 101, 1_000_000]) {
      const d = expectClustering(await run({ stops: hundred, max_stops: max }), plainStops(hundred));
      expect(d.summary).toEqual({ stops: 100, clusters: 1, balanced: false, max_stops: max });
    }
  });

  it('balanced beats the natural groups when they are uneven', async () => {
    // 30 stops in one place and 10 in another: plain k-means keeps the groups, balanced evens them out.
    const points = [...scatter(VADUZ, 30, 200, 3), ...scatter(offset(VADUZ, 8000, 0), 10, 200, 4)];
    expect(sizes(expectClustering(await run({ stops: points, clusters: 2 }), plainStops(points)))).toEqual([30, 10]);
    expect(sizes(expectClustering(await run({ stops: points, clusters: 2, balanced: true }), plainStops(points), true))).toEqual([20, 20]);
    expect(sizes(expectClustering(await run({ stops: points, max_stops: 25 }), plainStops(points)))).toEqual([25, 15]);
  });
});

describe('stops at one position', () => {
  const same: At[] = Array.from({ length: 6 }, () => VADUZ);

  it('plain: the empty clusters are dropped', async () => {
    const d = expectClustering(await run({ stops: same, clusters: 3 }), plainStops(same));
    expect(d.summary).toEqual({ stops: 6, clusters: 1, balanced: false, max_stops: null });
    expect(d.clusters[0]).toMatchObject({ id: 1, count: 6, radius: 0 });
    expect(d.clusters[0].centroid.latitude).toBeCloseTo(VADUZ.latitude, 12);
    expect(d.clusters[0].centroid.longitude).toBeCloseTo(VADUZ.longitude, 12);
  });

  it('two positions asked for five clusters: two come back', async () => {
    const other = offset(VADUZ, 2000, 45);
    const points = [VADUZ, other, VADUZ, other, VADUZ];
    const d = expectClustering(await run({ stops: points, clusters: 5 }), plainStops(points));
    expect(d.summary.clusters).toBe(2);
    expect(partition(d)).toEqual([
      [0, 2, 4],
      [1, 3],
    ]);
  });

  it('balanced and max_stops still split them into capped clusters', async () => {
    const balanced = expectClustering(await run({ stops: same, clusters: 3, balanced: true }), plainStops(same), true);
    expect(balanced.summary).toEqual({ stops: 6, clusters: 3, balanced: true, max_stops: 2 });
    expect(sizes(balanced)).toEqual([2, 2, 2]);
    const capped = expectClustering(await run({ stops: same, max_stops: 4 }), plainStops(same));
    expect(capped.summary).toEqual({ stops: 6, clusters: 2, balanced: false, max_stops: 4 });
    expect(sizes(capped)[0]).toBeLessThanOrEqual(4);
  });
});

describe('edge counts', () => {
  it('one cluster: the mean of every stop and the farthest one', async () => {
    const d = expectClustering(await run({ stops: hundred, clusters: 1 }), plainStops(hundred));
    expect(d.summary).toEqual({ stops: 100, clusters: 1, balanced: false, max_stops: null });
    const mean = { latitude: hundred.reduce((a, p) => a + p.latitude, 0) / 100, longitude: hundred.reduce((a, p) => a + p.longitude, 0) / 100 };
    expect(haversine(d.clusters[0].centroid, mean)).toBeLessThan(1e-3);
    expect(d.clusters[0].radius).toBeCloseTo(Math.max(...hundred.map((p) => haversine(mean, p))), 0);
  });

  it('a single stop', async () => {
    const d = expectClustering(await run({ stops: [{ ...VADUZ, id: 'only' }], clusters: 1, balanced: true }), [{ id: 'only', poi_id: null, ...VADUZ }], true);
    expect(d.summary).toEqual({ stops: 1, clusters: 1, balanced: true, max_stops: 1 });
    expect(d.clusters[0]).toMatchObject({ count: 1, radius: 0, centroid: VADUZ });
  });

  it('as many clusters as stops: one stop each, centred on it', async () => {
    const points = scatter(VADUZ, 10, 3000, 9);
    for (const balanced of [false, true]) {
      const d = expectClustering(await run({ stops: points, clusters: 10, balanced }), plainStops(points), balanced);
      expect(d.summary.clusters).toBe(10);
      expect(partition(d)).toEqual(points.map((_, i) => [i]));
      for (const c of d.clusters) {
        expect(c.radius).toBe(0);
        expect(c.centroid).toEqual({ latitude: c.stops[0].latitude, longitude: c.stops[0].longitude });
      }
    }
  });
});

describe('limits', () => {
  const full = scatter(VADUZ, 2000, 9000, 77);

  it('2,000 stops into 100 clusters, plain, balanced, and by max_stops 20', async () => {
    expect(expectClustering(await run({ stops: full, clusters: 100 }), plainStops(full)).summary.clusters).toBe(100);
    const balanced = expectClustering(await run({ stops: full, clusters: 100, balanced: true }), plainStops(full), true);
    expect(sizes(balanced).every((s) => s === 20)).toBe(true);
    // With the longest ids, the largest body a valid request can have still fits the 1 MB JSON limit.
    const id = (i: number) => String(i).padStart(100, 'x');
    const capped = expectClustering(
      await run({ stops: full.map((p, i) => ({ ...p, id: id(i) })), max_stops: 20 }),
      full.map((p, i) => ({ id: id(i), poi_id: null, ...p })),
    );
    expect(capped.summary).toEqual({ stops: 2000, clusters: 100, balanced: false, max_stops: 20 });
  });

  it('2,001 stops: 422 at stops', async () => {
    expect422(await run({ stops: [...full, VADUZ], clusters: 5 }), ['stops']);
  });

  it('clusters above 100: 422 at clusters, whatever the stop count', async () => {
    expect422(await run({ stops: full, clusters: 101 }), ['clusters']);
  });

  it('more clusters than stops: 422 at clusters', async () => {
    const res = await run({ stops: scatter(VADUZ, 5, 1000), clusters: 6 });
    expect422(res, ['clusters']);
    expect(res.body.errors.clusters[0]).toContain('5');
  });

  it('a max_stops that needs more than 100 clusters: 422 at max_stops', async () => {
    const res = await run({ stops: full, max_stops: 19 });
    expect422(res, ['max_stops']);
    expect(res.body.errors.max_stops[0]).toContain('20');
  });
});
