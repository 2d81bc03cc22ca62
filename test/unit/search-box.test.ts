import { describe, expect, it } from 'vitest';
import { boxesAround } from '../../src/lib/geo/search-box.js';

const R = 6_371_008.8;
const rad = (d: number) => (d * Math.PI) / 180;
function haversine(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const a = Math.sin(rad(lat2 - lat1) / 2) ** 2 + Math.cos(rad(lat1)) * Math.cos(rad(lat2)) * Math.sin(rad(lon2 - lon1) / 2) ** 2;
  return 2 * R * Math.asin(Math.min(1, Math.sqrt(a)));
}
const inside = (boxes: ReturnType<typeof boxesAround>, lat: number, lon: number) =>
  boxes.some((b) => lon >= b.west && lon <= b.east && lat >= b.south && lat <= b.north);

describe('boxesAround', () => {
  it.each([
    [47.14, 9.52, 1000],
    [0, 0, 100_000],
    [64.9, -20, 50_000],
    [-33.9, 151.2, 100_000],
    [10, 179.9, 50_000],
    [-10, -179.95, 20_000],
    [89.5, 10, 100_000],
  ])('contains every point of the circle around (%f, %f) r=%i m', (lat, lon, r) => {
    const boxes = boxesAround(lat, lon, r);
    for (let i = 0; i < 360; i += 5) {
      // Walk the circle's edge (just inside it) by bearing.
      const d = (r * 0.999) / R;
      const b = rad(i);
      const lat2 = Math.asin(Math.sin(rad(lat)) * Math.cos(d) + Math.cos(rad(lat)) * Math.sin(d) * Math.cos(b));
      let lon2 = rad(lon) + Math.atan2(Math.sin(b) * Math.sin(d) * Math.cos(rad(lat)), Math.cos(d) - Math.sin(rad(lat)) * Math.sin(lat2));
      lon2 = (((lon2 * 180) / Math.PI + 540) % 360) - 180;
      const latDeg = (lat2 * 180) / Math.PI;
      expect(haversine(lat, lon, latDeg, lon2)).toBeLessThanOrEqual(r);
      expect(inside(boxes, latDeg, lon2)).toBe(true);
    }
  });

  it('splits at the antimeridian', () => {
    expect(boxesAround(0, 179.99, 10_000)).toHaveLength(2);
    expect(boxesAround(0, 0, 10_000)).toHaveLength(1);
  });
});
