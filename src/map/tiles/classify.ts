// Which OSM objects the base map draws, in which layer, from which zoom, with which properties: pure
// functions of the tags, so the style (web/src/map/style.ts) and the tests can rely on the same classes.

export type LayerName = 'roads' | 'water' | 'landuse' | 'buildings' | 'places' | 'boundaries';

/** A kept object: its layer, the zoom it appears from, whether a closed way is an area, its properties. */
export interface Kind {
  layer: LayerName;
  minzoom: number;
  area: boolean;
  props: Record<string, string | number>;
}

/** Highway values → [class, minzoom]. Links take their road's class. */
const ROADS: Record<string, [string, number]> = {
  motorway: ['motorway', 5],
  trunk: ['trunk', 6],
  primary: ['primary', 8],
  secondary: ['secondary', 9],
  tertiary: ['tertiary', 10],
  unclassified: ['minor', 12],
  residential: ['minor', 12],
  living_street: ['minor', 12],
  road: ['minor', 12],
  service: ['service', 13],
  pedestrian: ['path', 13],
  track: ['track', 13],
  path: ['path', 13],
  footway: ['path', 13],
  cycleway: ['path', 13],
  bridleway: ['path', 13],
  steps: ['path', 14],
};

const LANDUSE: Record<string, [string, number]> = {
  forest: ['wood', 7],
  wood: ['wood', 7],
  residential: ['residential', 10],
  commercial: ['commercial', 11],
  retail: ['commercial', 11],
  industrial: ['industrial', 11],
  farmland: ['farmland', 10],
  meadow: ['grass', 10],
  grass: ['grass', 12],
  grassland: ['grass', 10],
  heath: ['grass', 10],
  scrub: ['scrub', 10],
  park: ['park', 11],
  orchard: ['farmland', 11],
  vineyard: ['farmland', 11],
  cemetery: ['cemetery', 12],
  bare_rock: ['rock', 10],
  glacier: ['glacier', 8],
};

/** Place values → [rank (1 = most important), minzoom]. */
const PLACES: Record<string, [number, number]> = {
  country: [1, 0],
  state: [2, 4],
  city: [3, 5],
  town: [4, 8],
  village: [5, 10],
  suburb: [6, 11],
  hamlet: [7, 12],
  neighbourhood: [8, 13],
  locality: [9, 14],
};

const named = (tags: Record<string, string>, props: Record<string, string | number>) => {
  if (tags.name) props.name = tags.name;
  return props;
};

/** What a way (or a multipolygon relation, `relation` true) is on the base map, or null. */
export function classifyWay(tags: Record<string, string>, relation = false): Kind | null {
  const hw = tags.highway;
  if (hw && !relation && tags.area !== 'yes') {
    const link = hw.endsWith('_link');
    const road = ROADS[link ? hw.slice(0, -5) : hw];
    if (road) {
      const props = named(tags, { class: road[0] });
      if (tags.ref) props.ref = tags.ref;
      if (tags.bridge && tags.bridge !== 'no') props.bridge = 1;
      if (tags.tunnel && tags.tunnel !== 'no') props.tunnel = 1;
      return { layer: 'roads', minzoom: link ? Math.max(road[1], 10) : road[1], area: false, props };
    }
  }
  const ww = tags.waterway;
  if (ww === 'riverbank' || tags.natural === 'water' || tags.landuse === 'reservoir' || tags.landuse === 'basin') {
    return { layer: 'water', minzoom: 6, area: true, props: named(tags, { class: 'lake' }) };
  }
  if (ww === 'river' || ww === 'canal') return { layer: 'water', minzoom: 8, area: false, props: named(tags, { class: ww }) };
  if (ww === 'stream' || ww === 'ditch' || ww === 'drain') return { layer: 'water', minzoom: 12, area: false, props: named(tags, { class: 'stream' }) };
  if (tags.building && tags.building !== 'no') return { layer: 'buildings', minzoom: 13, area: true, props: {} };
  const lu = LANDUSE[tags.landuse] ?? LANDUSE[tags.natural] ?? LANDUSE[tags.leisure];
  if (lu) return { layer: 'landuse', minzoom: lu[1], area: true, props: { class: lu[0] } };
  if (tags.boundary === 'administrative' && !relation) return boundary(tags.admin_level);
  return null;
}

/** A boundary line of an admin level (2 = country … 8 = municipality), or null for a finer one. */
export function boundary(level: string | undefined): Kind | null {
  const n = Number(level);
  if (!Number.isInteger(n) || n < 2 || n > 8) return null;
  return { layer: 'boundaries', minzoom: n <= 2 ? 0 : n <= 4 ? 5 : 9, area: false, props: { admin_level: n } };
}

/** A named place node, or null. */
export function classifyPlace(tags: Record<string, string>): Kind | null {
  const p = PLACES[tags.place];
  if (!p || !tags.name) return null;
  return { layer: 'places', minzoom: p[1], area: false, props: { name: tags.name, class: tags.place, rank: p[0] } };
}

/** Multipolygon relations the map draws as areas (their member ways are joined into rings). */
export const isAreaRelation = (tags: Record<string, string>): boolean => tags.type === 'multipolygon' && classifyWay(tags, true)?.area === true;

/** Boundary relations whose member ways are drawn as boundary lines. */
export const isBoundaryRelation = (tags: Record<string, string>): boolean =>
  tags.type === 'boundary' && tags.boundary === 'administrative' && boundary(tags.admin_level) !== null;

export const MAX_ZOOM = 14;
