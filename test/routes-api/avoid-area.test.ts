// The geometric rules of avoidance: the selection box (rule 1), skipping (rule 3), the 150 km sum (rule 5).
import { describe, expect, it } from 'vitest';
import { avoidSelectionBox, straightLineMeters, withinRadiusOfAny } from '../../src/engine/avoid-area.js';
import { haversine, offset } from './helpers.js';

const P = { latitude: 47.15, longitude: 9.52 };

/** The margin actually added on each side, in meters. */
function margins(points: Array<{ latitude: number; longitude: number }>) {
  const box = avoidSelectionBox(points);
  const south = Math.min(...points.map((p) => p.latitude)),
    north = Math.max(...points.map((p) => p.latitude));
  const west = Math.min(...points.map((p) => p.longitude)),
    east = Math.max(...points.map((p) => p.longitude));
  return {
    south: haversine({ latitude: box.south, longitude: west }, { latitude: south, longitude: west }),
    north: haversine({ latitude: box.north, longitude: west }, { latitude: north, longitude: west }),
    // Measured along the grown box's northern edge (its most poleward latitude here).
    west: haversine({ latitude: box.north, longitude: box.west }, { latitude: box.north, longitude: west }),
    east: haversine({ latitude: box.north, longitude: box.east }, { latitude: box.north, longitude: east }),
  };
}

describe('selection box', () => {
  it('grows by 10% of the diagonal on every side', () => {
    const far = offset(offset(P, 30_000, 0), 40_000, 90); // diagonal ≈ 50 km → 5 km
    const diagonal = haversine(P, far);
    for (const m of Object.values(margins([P, far]))) expect(m).toBeCloseTo(diagonal / 10, -1);
  });

  it('grows by at least 1 km (even for one point) and at most 10 km', () => {
    for (const m of Object.values(margins([P, offset(P, 2000, 45)]))) expect(m).toBeCloseTo(1000, 0);
    for (const m of Object.values(margins([P, P]))) expect(m).toBeCloseTo(1000, 0);
    for (const m of Object.values(margins([P, offset(P, 300_000, 60)]))) expect(m).toBeCloseTo(10_000, -1);
  });

  it('contains every waypoint', () => {
    const pts = [P, offset(P, 5000, 200), offset(P, 8000, 330)];
    const b = avoidSelectionBox(pts);
    for (const p of pts) {
      expect(p.latitude).toBeGreaterThan(b.south);
      expect(p.latitude).toBeLessThan(b.north);
      expect(p.longitude).toBeGreaterThan(b.west);
      expect(p.longitude).toBeLessThan(b.east);
    }
  });
});

describe('distances', () => {
  it('sums consecutive straight lines', () => {
    const a = offset(P, 10_000, 0);
    expect(straightLineMeters([P, a, P, a])).toBeCloseTo(30_000, 0);
  });

  it('skips within the radius, inclusive, of any point', () => {
    const pts = [P, offset(P, 5000, 90)];
    expect(withinRadiusOfAny(offset(pts[1], 49.9, 10), pts, 50)).toBe(true);
    expect(withinRadiusOfAny(offset(pts[1], 50.1, 10), pts, 50)).toBe(false);
  });
});
