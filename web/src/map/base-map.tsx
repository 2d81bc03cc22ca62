import type { GeoJSONSource, LayerSpecification, Map as MapLibreMap } from 'maplibre-gl';
import { useEffect, useRef, useState } from 'preact/hooks';
import { METERS_PER_DEGREE } from '../../../src/lib/geo/sphere';
import { baseStyle } from './style';

export type MapLib = typeof import('maplibre-gl');

/** The base map in a box: MapLibre (loaded with the first map page), fitted to the tiles' bounds. */
export function BaseMap({ label, onReady }: { label: string; onReady: (map: MapLibreMap, lib: MapLib) => void }) {
  const box = useRef<HTMLDivElement>(null);
  const [error, setError] = useState<string>();
  useEffect(() => {
    let map: MapLibreMap | undefined;
    let gone = false;
    (async () => {
      const lib = await import('maplibre-gl');
      // The labels' font must be loaded before MapLibre draws with it (a canvas does not wait for fonts).
      await Promise.all(['400 16px "Noto Sans"', '700 16px "Noto Sans"'].map((f) => document.fonts.load(f, 'Vaduz Städtle ÄÖÜäöüß')));
      const res = await fetch('/tiles/tiles.json');
      const tiles = res.ok ? ((await res.json()) as { bounds: [number, number, number, number] }) : undefined;
      if (gone) return;
      map = new lib.Map({
        container: box.current!,
        style: baseStyle(),
        bounds: tiles?.bounds ?? [9.47, 47.04, 9.64, 47.27],
        fitBoundsOptions: { padding: 20 },
        maxZoom: 18,
        // The view in the address (#zoom/lat/lon): a view can be shared, and a link opens it.
        hash: true,
        // Kept so the page (and its tests) can read what is drawn.
        canvasContextAttributes: { preserveDrawingBuffer: true },
        attributionControl: { compact: true },
      });
      // The map on its box too, so that a test can read a source's data.
      (box.current as HTMLDivElement & { maplibre?: MapLibreMap }).maplibre = map;
      map.addControl(new lib.NavigationControl({ showCompass: false }), 'top-right');
      map.getCanvas().setAttribute('aria-label', label);
      map.on('load', () => {
        if (!gone) onReady(map!, lib);
      });
      if (!tiles) setError('The server has no base map: routes and points are drawn without one.');
    })().catch((err) => setError(`The map could not be shown: ${err instanceof Error ? err.message : String(err)}`));
    return () => {
      gone = true;
      map?.remove();
    };
  }, []);
  return (
    <div class="map-wrap">
      {error && (
        <p class="message error" role="alert">
          {error}
        </p>
      )}
      <div ref={box} class="map" data-testid="map" />
    </div>
  );
}

/** Sets a GeoJSON overlay's data, adding its source and layers the first time. */
export function overlay(
  map: MapLibreMap,
  id: string,
  data: GeoJSON.FeatureCollection,
  layers: Array<Omit<LayerSpecification, 'source'>>,
  options: Record<string, unknown> = {},
): void {
  const source = map.getSource(id) as GeoJSONSource | undefined;
  if (source) {
    source.setData(data);
    return;
  }
  map.addSource(id, { type: 'geojson', data, ...options });
  for (const layer of layers) map.addLayer({ ...layer, source: id } as LayerSpecification);
}

export const featureCollection = (features: GeoJSON.Feature[]): GeoJSON.FeatureCollection => ({ type: 'FeatureCollection', features });

export const point = (lon: number, lat: number, properties: Record<string, unknown> = {}): GeoJSON.Feature => ({
  type: 'Feature',
  geometry: { type: 'Point', coordinates: [lon, lat] },
  properties,
});

/** A circle of `radius` meters as a polygon (64 sides), for the avoided POIs. */
export function circle(lon: number, lat: number, radius: number, properties: Record<string, unknown> = {}): GeoJSON.Feature {
  const ring: number[][] = [];
  const dLat = radius / METERS_PER_DEGREE,
    dLon = radius / (METERS_PER_DEGREE * Math.cos((lat * Math.PI) / 180));
  for (let i = 0; i <= 64; i++) {
    const a = (i / 64) * 2 * Math.PI;
    ring.push([lon + dLon * Math.cos(a), lat + dLat * Math.sin(a)]);
  }
  return { type: 'Feature', geometry: { type: 'Polygon', coordinates: [ring] }, properties };
}

/** Colours told apart well (clusters, vehicles). */
export const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22'];

export const km = (m: number) => (m >= 1000 ? `${(m / 1000).toFixed(2)} km` : `${Math.round(m)} m`);
export const minutes = (s: number) => (s >= 3600 ? `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min` : `${Math.max(1, Math.round(s / 60))} min`);

/** Fits the map to the points given (lon, lat). */
export function fitTo(map: MapLibreMap, lib: MapLib, coords: number[][]): void {
  if (!coords.length) return;
  const b = new lib.LngLatBounds(coords[0] as [number, number], coords[0] as [number, number]);
  for (const c of coords) b.extend(c as [number, number]);
  map.fitBounds(b, { padding: 60, maxZoom: 15, duration: 0 });
}
