import type { StyleSpecification } from 'maplibre-gl';

/** The base map's style: the server's own tiles (src/tiles; classes from src/tiles/classify.ts). It has no
 *  `glyphs` URL: MapLibre draws the labels itself from a font the page has (TinySDF on a canvas), and the
 *  page has Noto Sans, shipped with the dashboard and declared in styles.css (see BaseMap). */
const FONT = ['Noto Sans Regular'];
const BOLD = ['Noto Sans Bold'];
const ROAD_COLOR: any = ['match', ['get', 'class'],
  'motorway', '#e8927c', 'trunk', '#f0a58f', 'primary', '#f7c98b', 'secondary', '#fbe3a1', 'tertiary', '#ffffff',
  '#ffffff'];
/** Road widths by class and zoom; `extra` pixels more for the casing drawn under them. */
const roadWidth = (extra: number): any => ['interpolate', ['exponential', 1.6], ['zoom'],
  8, ['match', ['get', 'class'], ['motorway', 'trunk'], 1.6 + extra, 'primary', 1.2 + extra, 0.6 + extra],
  12, ['match', ['get', 'class'], ['motorway', 'trunk'], 4 + extra, 'primary', 3.5 + extra, ['secondary', 'tertiary'], 3 + extra, ['minor'], 1.8 + extra, 1 + extra],
  16, ['match', ['get', 'class'], ['motorway', 'trunk'], 14 + extra, 'primary', 12 + extra, ['secondary', 'tertiary'], 11 + extra, ['minor'], 8 + extra, ['path', 'track'], 2 + extra, 5 + extra]];

export function baseStyle(): StyleSpecification {
  return {
    version: 8,
    name: 'Waymark',
    sources: {
      base: { type: 'vector', tiles: [`${location.origin}/tiles/{z}/{x}/{y}.mvt`], minzoom: 0, maxzoom: 14, attribution: '© OpenStreetMap contributors' },
    },
    layers: [
      { id: 'background', type: 'background', paint: { 'background-color': '#f3f0ea' } },
      {
        id: 'landuse', type: 'fill', source: 'base', 'source-layer': 'landuse',
        paint: {
          'fill-color': ['match', ['get', 'class'], 'wood', '#cfe3bf', 'grass', '#dcebc8', 'park', '#c8e6b4', 'farmland', '#ece9d2',
            'scrub', '#d5e5c3', 'residential', '#e9e4de', 'commercial', '#efdfe0', 'industrial', '#e6dde9', 'cemetery', '#d6e2cf',
            'glacier', '#f4fbff', 'rock', '#e4e0da', '#e8e4dd'],
        },
      },
      { id: 'water-area', type: 'fill', source: 'base', 'source-layer': 'water', filter: ['==', ['geometry-type'], 'Polygon'], paint: { 'fill-color': '#a9cbe6' } },
      {
        id: 'water-line', type: 'line', source: 'base', 'source-layer': 'water', filter: ['==', ['geometry-type'], 'LineString'],
        paint: { 'line-color': '#a9cbe6', 'line-width': ['interpolate', ['linear'], ['zoom'], 8, ['match', ['get', 'class'], 'stream', 0.5, 1.2], 15, ['match', ['get', 'class'], 'stream', 2, 6]] },
      },
      { id: 'buildings', type: 'fill', source: 'base', 'source-layer': 'buildings', minzoom: 13, paint: { 'fill-color': '#ddd3ca', 'fill-outline-color': '#c9bdb2' } },
      {
        id: 'boundaries', type: 'line', source: 'base', 'source-layer': 'boundaries',
        paint: { 'line-color': '#9b7fb3', 'line-dasharray': [3, 2], 'line-width': ['match', ['get', 'admin_level'], 2, 1.8, 1] },
      },
      {
        id: 'road-casing', type: 'line', source: 'base', 'source-layer': 'roads', filter: ['!=', ['get', 'class'], 'path'],
        layout: { 'line-cap': 'round', 'line-join': 'round' },
        paint: { 'line-color': '#c4b9ad', 'line-width': roadWidth(1.5) },
      },
      {
        id: 'roads', type: 'line', source: 'base', 'source-layer': 'roads',
        layout: { 'line-cap': 'round', 'line-join': 'round' },
        paint: { 'line-color': ['match', ['get', 'class'], ['path', 'track'], '#b08f6a', ROAD_COLOR], 'line-width': roadWidth(0),
          'line-dasharray': ['match', ['get', 'class'], ['path', 'track'], ['literal', [2, 1]], ['literal', [1, 0]]] },
      },
      {
        id: 'road-names', type: 'symbol', source: 'base', 'source-layer': 'roads', minzoom: 13, filter: ['has', 'name'],
        layout: { 'symbol-placement': 'line', 'text-field': ['get', 'name'], 'text-font': FONT, 'text-size': 11 },
        paint: { 'text-color': '#4a4540', 'text-halo-color': '#ffffff', 'text-halo-width': 1.4 },
      },
      {
        id: 'places', type: 'symbol', source: 'base', 'source-layer': 'places',
        layout: {
          'text-field': ['get', 'name'], 'text-font': ['step', ['get', 'rank'], ['literal', BOLD], 6, ['literal', FONT]],
          'text-size': ['match', ['get', 'rank'], [1, 2, 3], 17, 4, 15, 5, 13, 12], 'symbol-sort-key': ['get', 'rank'],
        },
        paint: { 'text-color': '#2f2b28', 'text-halo-color': '#ffffff', 'text-halo-width': 1.6 },
      },
    ],
  } as StyleSpecification;
}
