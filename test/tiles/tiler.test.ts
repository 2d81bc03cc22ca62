import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { describe, expect, it } from 'vitest';
import { classifyPlace, classifyWay } from '../../src/map/tiles/classify.js';
import { E7, type TileSource } from '../../src/map/tiles/source.js';
import { walkTiles } from '../../src/map/tiles/tiler.js';

/** A hand-made source: a road zigzagging east over ~4 km, a building across a z14 tile edge, a country's label. */
function source(): TileSource {
  const coords: Array<[number, number]> = [];
  for (let i = 0; i <= 200; i++) coords.push([9.5 + i * 0.00025, 47.14 + (i % 2) * 0.00002]); // 2 m zigzag
  // Zoom-14 tile edges near here fall every 360/2^14 = 0.02197 degrees of longitude: x = 8623 ends at 9.514.
  const edge = (8624 / 2 ** 14) * 360 - 180;
  const building: Array<[number, number]> = [
    [edge - 0.002, 47.141],
    [edge + 0.002, 47.141],
    [edge + 0.002, 47.1413],
    [edge - 0.002, 47.1413],
    [edge - 0.002, 47.141],
  ];
  const all = [...coords, ...building];
  const lon = Int32Array.from(all.map((c) => Math.round(c[0] / E7))),
    lat = Int32Array.from(all.map((c) => Math.round(c[1] / E7)));
  const nodes = Int32Array.from(all.map((_, i) => i));
  const kinds = [classifyWay({ highway: 'primary', name: 'Landstrasse' })!, classifyWay({ building: 'yes' })!];
  const box = (from: number, to: number) => {
    const xs = all.slice(from, to).map((c) => c[0]),
      ys = all.slice(from, to).map((c) => c[1]);
    return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
  };
  return {
    ways: 2,
    kinds,
    wayKind: Int32Array.of(0, 1),
    wayStart: Int32Array.of(0, 201),
    wayEnd: Int32Array.of(201, 206),
    wayBox: Float32Array.from([...box(0, 201), ...box(201, 206)]),
    others: [{ kind: classifyPlace({ place: 'country', name: 'Liechtenstein' })!, bbox: [9.52, 47.141, 9.52, 47.141], point: [9.52, 47.141] }],
    nodes,
    lon,
    lat,
  };
}

const made = () => [
  ...(function* () {
    const tiles: Array<{ z: number; x: number; y: number; tile: VectorTile }> = [];
    walkTiles(source(), (z, x, y, mvt) => tiles.push({ z, x, y, tile: new VectorTile(new PbfReader(mvt)) }));
    yield* tiles;
  })(),
];
const lonOf = (x: number, z: number, tx: number) => ((tx + x / 4096) / 2 ** z) * 360 - 180;

describe('hierarchical tiler', () => {
  const tiles = made();
  const at = (z: number) => tiles.filter((t) => t.z === z);

  it("reports progress up to the features' places at their minzoom, never past it", () => {
    const reports: Array<[number, number]> = [];
    walkTiles(
      source(),
      () => {},
      (entered, placed) => reports.push([entered, placed]),
    );
    const placed = reports[0][1];
    // The building crosses a tile edge at its minzoom: it enters both tiles, so three features have four places.
    expect(placed).toBe(4);
    expect(reports.every(([entered, p]) => p === placed && entered <= placed)).toBe(true);
    expect(reports.at(-1)![0]).toBe(placed);
  });

  it('makes each tile once, from zoom 0 to 14, with features only from their minzoom', () => {
    expect(new Set(tiles.map((t) => `${t.z}/${t.x}/${t.y}`)).size).toBe(tiles.length);
    expect(at(0)).toHaveLength(1);
    expect(Object.keys(at(0)[0].tile.layers)).toEqual(['places']);
    expect(at(8).some((t) => t.tile.layers.roads)).toBe(true);
    expect(at(12).some((t) => t.tile.layers.buildings)).toBe(false);
    expect(at(13).some((t) => t.tile.layers.buildings)).toBe(true);
    expect(at(14).length).toBeGreaterThan(2);
  });

  it('cuts an area across a tile edge into closed rings on both sides, within its own box', () => {
    const withBuilding = at(14).filter((t) => t.tile.layers.buildings);
    expect(withBuilding).toHaveLength(2);
    const edge = (8624 / 2 ** 14) * 360 - 180;
    for (const { x, tile } of withBuilding) {
      const f = tile.layers.buildings.feature(0);
      expect(f.type).toBe(3);
      const [ring] = f.loadGeometry();
      expect(ring[0]).toEqual(ring[ring.length - 1]);
      const lons = ring.map((p) => lonOf(p.x, 14, x));
      // Clipped at the edge plus the 8-pixel buffer (8/256 of a tile), on the side it goes past the edge.
      const buffer = (8 / 256) * (360 / 2 ** 14);
      if (x === 8623) {
        expect(Math.min(...lons)).toBeCloseTo(edge - 0.002, 5);
        expect(Math.max(...lons)).toBeCloseTo(edge + buffer, 5);
      } else {
        expect(x).toBe(8624);
        expect(Math.min(...lons)).toBeCloseTo(edge - buffer, 5);
        expect(Math.max(...lons)).toBeCloseTo(edge + 0.002, 5);
      }
      // MVT winding: an exterior ring, so one polygon.
      expect(f.toGeoJSON(x, withBuilding[0].y, 14).geometry.type).toBe('Polygon');
    }
  });

  it('simplifies lines per zoom and keeps the detail at zoom 14', () => {
    const points = (z: number) =>
      at(z).reduce((n, t) => {
        const l = t.tile.layers.roads;
        return n + (l ? Array.from({ length: l.length }, (_, i) => l.feature(i).loadGeometry().flat().length).reduce((a, b) => a + b, 0) : 0);
      }, 0);
    expect(points(10)).toBeLessThan(10); // a 2 m zigzag is a straight line at zoom 10
    expect(points(14)).toBeGreaterThan(150); // and 2 m is ~ 6 units of a zoom-14 tile: kept
    const names = at(14).flatMap((t) => (t.tile.layers.roads ? [t.tile.layers.roads.feature(0).properties.name] : []));
    expect(names.length).toBeGreaterThan(0);
    expect(names.every((n) => n === 'Landstrasse')).toBe(true);
  });
});
