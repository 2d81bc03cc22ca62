// `avoid.polygons` of POST /v1/routes and /v1/matrix: areas to keep out of (a closed bridge, a festival, a
// low-emission zone), a GeoJSON Polygon or MultiPolygon, bounded in vertices and area.
import area from '@turf/area';
import { z } from 'zod';
import type { FieldErrors } from '../../http/errors.js';
import { polygonAt, type AvoidPolygon } from '../../engine/avoid.js';

export const MAX_POLYGON_VERTICES = 1_000;
export const MAX_POLYGON_AREA_KM2 = 1_000;

type Issue = { path: Array<string | number>; message: string };

/** The problems of a Polygon's (or one MultiPolygon member's) rings, at their paths under `at`. */
function ringIssues(rings: unknown, at: Array<string | number>, out: Issue[]): number {
  if (!Array.isArray(rings) || rings.length === 0) {
    out.push({ path: at, message: 'must be an array of linear rings (the outer ring, then holes)' });
    return 0;
  }
  let vertices = 0;
  rings.forEach((ring: unknown, r) => {
    const ringAt = [...at, r];
    if (!Array.isArray(ring) || ring.length < 4) {
      out.push({ path: ringAt, message: 'must be a closed ring of at least 4 [longitude, latitude] positions' });
      return;
    }
    vertices += ring.length;
    let bad = false;
    ring.forEach((p: unknown, i) => {
      const ok = Array.isArray(p) && p.length === 2 && typeof p[0] === 'number' && typeof p[1] === 'number' && Math.abs(p[0]) <= 180 && Math.abs(p[1]) <= 90;
      if (!ok) {
        out.push({ path: [...ringAt, i], message: 'must be a [longitude, latitude] position (-180..180, -90..90)' });
        bad = true;
      }
    });
    const first = ring[0] as number[],
      last = ring[ring.length - 1] as number[];
    if (!bad && (first[0] !== last[0] || first[1] !== last[1])) out.push({ path: ringAt, message: 'must be closed: its last position equal to its first' });
  });
  return vertices;
}

const GEOMETRY_ERROR = 'must be a GeoJSON Polygon or MultiPolygon ({"type", "coordinates"})';

export const avoidPolygonsSchema = z
  .strictObject(
    {
      type: z.enum(['Polygon', 'MultiPolygon'], { error: 'must be Polygon or MultiPolygon' }),
      coordinates: z.array(z.unknown(), { error: 'must be an array' }),
    },
    { error: GEOMETRY_ERROR },
  )
  .superRefine((g, ctx) => {
    const issues: Issue[] = [];
    let vertices = 0;
    if (g.type === 'Polygon') vertices = ringIssues(g.coordinates, ['coordinates'], issues);
    else if (g.coordinates.length === 0) issues.push({ path: ['coordinates'], message: 'must have at least one polygon' });
    else g.coordinates.forEach((rings, k) => (vertices += ringIssues(rings, ['coordinates', k], issues)));
    for (const i of issues) ctx.addIssue({ code: 'custom', path: i.path, message: i.message, input: g });
    if (issues.length) return;
    if (vertices > MAX_POLYGON_VERTICES) {
      ctx.addIssue({ code: 'custom', message: `may have at most ${MAX_POLYGON_VERTICES} positions in all; it has ${vertices}`, input: g });
      return;
    }
    const km2 = area({ type: g.type, coordinates: g.coordinates } as Parameters<typeof area>[0]) / 1e6;
    if (km2 > MAX_POLYGON_AREA_KM2) {
      ctx.addIssue({ code: 'custom', message: `may cover at most ${MAX_POLYGON_AREA_KM2} km² in all; it covers ${km2.toFixed(1)} km²`, input: g });
    }
  })
  .meta({
    description:
      `Extension (not in the service contract): areas to keep out of, a GeoJSON Polygon or MultiPolygon ([longitude, latitude] positions, closed rings, holes after the outer ring; at most ${MAX_POLYGON_VERTICES} positions and ${MAX_POLYGON_AREA_KM2} km² in all). ` +
      'The route is the fastest one with no point inside a polygon or on its edge; a waypoint inside one is a 422 at its field, and so is a waypoint that every way to is cut off. ' +
      'With `polygons` alone, no POI is avoided; with any other field of `avoid` (or `radius`), the POIs it selects are avoided too.',
    examples: [
      {
        type: 'Polygon',
        coordinates: [
          [
            [9.515, 47.15],
            [9.525, 47.15],
            [9.525, 47.156],
            [9.515, 47.156],
            [9.515, 47.15],
          ],
        ],
      },
    ],
  });

/** The engine's polygons of a raw `avoid` (one list of rings per polygon); none when its `polygons` are not
 *  valid (the body's 422 says why). Read from the raw body, so that a waypoint inside one joins the 422
 *  of a body with other problems. */
export function enginePolygons(rawAvoid: unknown): AvoidPolygon[] {
  const raw = rawAvoid !== null && typeof rawAvoid === 'object' ? (rawAvoid as { polygons?: unknown }).polygons : undefined;
  if (raw === undefined) return [];
  const g = avoidPolygonsSchema.safeParse(raw);
  if (!g.success) return [];
  return g.data.type === 'Polygon' ? [g.data.coordinates as AvoidPolygon[number][]] : (g.data.coordinates as AvoidPolygon[]);
}

/** A problem at `field.<i>` for every location inside (or on the edge of) a polygon: no route can start,
 *  stop or end there. */
export function locationsInside(
  polygons: readonly AvoidPolygon[],
  locations: ReadonlyArray<{ latitude: number; longitude: number } | null>,
  field: string,
  errors: FieldErrors,
): void {
  if (!polygons.length) return;
  locations.forEach((l, i) => {
    const k = l ? polygonAt(l.longitude, l.latitude, polygons) : -1;
    if (k >= 0) (errors[`${field}.${i}`] ??= []).push(`lies inside avoid.polygons${polygons.length > 1 ? ` (polygon ${k})` : ''}: a route cannot reach it`);
  });
}

/** Whether a raw `avoid` selects POIs: anything but `{polygons}` alone (`{}` selects all the team's). */
export const selectsPois = (avoid: unknown): boolean => {
  if (avoid === undefined) return false;
  if (avoid === null || typeof avoid !== 'object' || Array.isArray(avoid)) return true;
  const keys = Object.keys(avoid);
  return !(keys.length === 1 && keys[0] === 'polygons');
};
