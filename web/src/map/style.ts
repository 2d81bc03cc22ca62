import type { StyleSpecification } from 'maplibre-gl';

/** The base map's style: the server's own tiles (src/tiles; classes from src/tiles/classify.ts), labels
 *  drawn from the Noto Sans files the dashboard serves (MapLibre's `font-faces`: no glyph server). */
const FONT = ['Noto Sans Regular'];
const BOLD = ['Noto Sans Bold'];
const asset = (f: string) => `${location.origin}/dashboard/assets/${f}`;
const faces = (weight: number) => [
  { url: asset(`noto-sans-latin-${weight}-normal.woff2`), 'unicode-range': ['U+0000-00FF', 'U+0131', 'U+0152-0153', 'U+02BB-02BC', 'U+02C6', 'U+02DA', 'U+02DC', 'U+2000-206F', 'U+20AC', 'U+2122', 'U+2212'] },
  { url: asset(`noto-sans-latin-ext-${weight}-normal.woff2`), 'unicode-range': ['U+0100-02AF', 'U+1E00-1EFF', 'U+2020', 'U+20A0-20CF', 'U+2C60-2C7F', 'U+A720-A7FF'] },
];

const ROAD_COLOR: any = ['match', ['get', 'class'],
  'motorway', '#e8927c', 'trunk', '#f0a58f', 'primary', '#f7c98b', 'secondary', '#fbe3a1', 'tertiary', '#ffffff',
  '#ffffff'];
const ROAD_WIDTH: any = ['interpolate', ['exponential', 1.6], ['zoom'],
  8, ['match', ['get', 'class'], ['motorway', 'trunk'], 1.6, 'primary', 1.2, 0.6],
  12, ['match', ['get', 'class'], ['motorway', 'trunk'], 4, 'primary', 3.5, ['secondary', 'tertiary'], 3, ['minor'], 1.8, 1],
  16, ['match', ['get', 'class'], ['motorway', 'trunk'], 14, 'primary', 12, ['secondary', 'tertiary'], 11, ['minor'], 8, ['path', 'track'], 2, 5]];

export function baseStyle(): StyleSpecification {
  return {
    version: 8,
    name: 'Waymark',
    'font-faces': { 'Noto Sans Regular': faces(400), 'Noto Sans Bold': faces(700) },
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
        paint: { 'line-color': '#c4b9ad', 'line-width': ['+', ROAD_WIDTH, 1.5] },
      },
      {
        id: 'roads', type: 'line', source: 'base', 'source-layer': 'roads',
        layout: { 'line-cap': 'round', 'line-join': 'round' },
        paint: { 'line-color': ['match', ['get', 'class'], ['path', 'track'], '#b08f6a', ROAD_COLOR], 'line-width': ROAD_WIDTH,
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
