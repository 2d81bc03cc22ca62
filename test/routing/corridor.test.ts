// The warm-up's circles along a route (engine/corridor.ts): where they are, checked by geometry.
import { describe, expect, it } from 'vitest';
import { corridorAlong } from '../../src/engine/corridor.js';
import { greatCircleMeters } from '../../src/lib/geo/sphere.js';

/** A line of `points` vertices from (lat, lon) heading `east` or north, 100 m apart. */
function line(lat: number, lon: number, points: number, east: boolean): Int32Array {
  const out = new Int32Array(points * 2);
  const stepDeg = 100 / 111_195.08;
  for (let i = 0; i < points; i++) {
    out[2 * i] = Math.round((lat + (east ? 0 : i * stepDeg)) * 1e7);
    out[2 * i + 1] = Math.round((lon + (east ? (i * stepDeg) / Math.cos((lat * Math.PI) / 180) : 0)) * 1e7);
  }
  return out;
}

describe('corridorAlong', () => {
  it('puts the circles along the stretch, to the left of the line, one in twenty on it', () => {
    // 100 km heading east at 47°N: the stretch starts 10 km in and is 50 km long.
    const c = corridorAlong(line(47, 9, 1001, true), 50_000, 500, 50)!;
    expect(c.circles).toHaveLength(500);
    // The ends are the line's vertices at or just past 10 and 60 km (100 m apart).
    const startM = greatCircleMeters(47, 9, c.ends[0].lat, c.ends[0].lon);
    const endM = greatCircleMeters(47, 9, c.ends[1].lat, c.ends[1].lon);
    expect(startM - 10_000).toBeGreaterThanOrEqual(-0.5);
    expect(startM - 10_000).toBeLessThan(100.5);
    expect(endM - 60_000).toBeGreaterThanOrEqual(-0.5);
    expect(endM - 60_000).toBeLessThan(100.5);
    for (const [k, circle] of c.circles.entries()) {
      expect(circle.radius).toBe(50);
      // Left of a line heading east is north of it: 65 m (radius + 15), or on it.
      const north = greatCircleMeters(47, circle.lon, circle.lat, circle.lon) * Math.sign(circle.lat - 47);
      expect(north).toBeCloseTo(k % 20 === 10 ? 0 : 65, 0);
      const along = greatCircleMeters(47, 9, 47, circle.lon);
      expect(along).toBeGreaterThan(10_000);
      expect(along).toBeLessThan(60_000);
    }
  });

  it('turns the offset with the line: left of a line heading north is west', () => {
    const c = corridorAlong(line(47, 9, 300, false), 120_000, 20, 30)!;
    for (const [k, circle] of c.circles.entries()) {
      const west = greatCircleMeters(circle.lat, 9, circle.lat, circle.lon) * Math.sign(9 - circle.lon);
      expect(west).toBeCloseTo(k % 20 === 10 ? 0 : 45, 0);
    }
  });

  it('has none for a line too short to hold them', () => {
    expect(corridorAlong(line(47, 9, 3, true), 120_000, 500, 50)).toBeNull();
    expect(corridorAlong(new Int32Array(2), 120_000, 1, 50)).toBeNull();
  });
});
