// What the in-process A/B benches of bench/routing share: two built trees' RouteCore over one placed graph
// of a map's profile, its main-network nodes as waypoints with their extent, and quantiles to the
// microsecond (bench/scale's stats round to 0.1 ms, a plain route's whole time here).
import { join, resolve } from 'node:path';

export const microStats = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  const q = (p) => +s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)].toFixed(3);
  return { n: s.length, p50: q(0.5), p95: q(0.95), max: q(1), mean: +(s.reduce((a, x) => a + x, 0) / s.length).toFixed(3) };
};

/** Each tree's dist modules the benches use (`extra`: more, by name → path under dist). */
async function loadTree(tree, extra) {
  const from = (path) => import(join(resolve(tree), 'dist', path));
  const side = {
    files: await from('map/map-dir.js'),
    roads: await from('map/graphs/road-graph.js'),
    memory: await from('engine/graph-memory.js'),
    core: await from('engine/route-core.js'),
  };
  for (const [name, path] of Object.entries(extra)) side[name] = await from(path);
  return side;
}

/**
 * Trees A and B's modules, and a RouteCore of each over one graph of `profile` in memory, placed by A (the
 * layout is the map's; each core has its own scratch); the graph's main-network nodes as waypoints (`at`),
 * `meters` between two waypoints, and the diagonal of their box.
 */
export async function twoCores({ map, a, b, profile, extra = {} }) {
  const sides = { A: await loadTree(a, extra), B: await loadTree(b, extra) };
  const { files, roads, memory } = sides.A;
  const manifest = await files.readManifest(map);
  const g = await files.readGraphFiles(map, profile, manifest.profiles[profile], await files.readShapeFiles(map));
  const coords = roads.toDegrees(roads.nodePositionsE7(g));
  const placed = memory.placeGraphs({ [profile]: g });
  const cores = { A: new sides.A.core.RouteCore(placed), B: new sides.B.core.RouteCore(placed) };
  const nodes = [];
  for (let v = 0; v < g.nodeCount; v++) if (g.mainNet[v] === 1) nodes.push(v);
  const at = (v) => ({ lat: coords[2 * v], lon: coords[2 * v + 1] });
  const meters = (p, q) => Math.hypot((p.lat - q.lat) * 111_320, (p.lon - q.lon) * 111_320 * Math.cos((((p.lat + q.lat) / 2) * Math.PI) / 180));
  let south = Infinity,
    north = -Infinity,
    west = Infinity,
    east = -Infinity;
  for (const v of nodes) {
    const p = at(v);
    [south, north, west, east] = [Math.min(south, p.lat), Math.max(north, p.lat), Math.min(west, p.lon), Math.max(east, p.lon)];
  }
  return { sides, g, cores, nodes, at, meters, diagonal: meters({ lat: south, lon: west }, { lat: north, lon: east }) };
}

/** The modules `writeWithSteps` needs, as `twoCores`' `extra`. */
export const STEP_MODULES = { stepJson: 'engine/guidance/step-json.js', lineJson: 'engine/line-json.js' };

/**
 * Route `v` (a RouteCore `routeE7` value of `profile`, asked with steps or not) written as a reply writes
 * it: the line's GeoJSON into `buffer` (its points' offsets in `offsets`), then each leg's steps
 * (planSteps, writeSteps) with `side`'s modules (STEP_MODULES). Returns the text's end.
 */
export function writeWithSteps(side, core, profile, v, buffer, offsets) {
  const { stepJson, lineJson } = side;
  let end = lineJson.writeLineString(v.geometryE7, buffer, offsets);
  for (const [i, leg] of (v.legSteps ?? []).entries()) {
    const planned = stepJson.planSteps(leg, core.shapes, {
      profile,
      format: 'geojson',
      legIndex: i,
      legCount: v.legSteps.length,
      distance: v.legs[i].distance,
      duration: v.legs[i].duration,
    });
    end = stepJson.writeSteps(planned, v.geometryE7, { bytes: buffer, offsets }, buffer, end);
  }
  return end;
}
