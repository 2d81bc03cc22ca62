import type { Map as MapLibreMap, GeoJSONSource } from 'maplibre-gl';
import { useEffect, useState } from 'preact/hooks';
import { Message, PageHeading } from '../components';
import { BaseMap, featureCollection, fitTo, point, type MapLib } from '../map/base-map';
import { listAll, loadPois, PoiFilterFields, type Attribute, type Category, type Poi, type PoiFilterState } from './pois';

/** The POI's details as DOM text nodes (never HTML: names are user text). */
export function poiDetails(p: Poi): HTMLElement {
  const box = document.createElement('div');
  box.className = 'popup';
  const add = (tag: string, text: string) => {
    const el = document.createElement(tag);
    el.textContent = text;
    box.append(el);
  };
  add('strong', p.name);
  add('div', `${p.latitude.toFixed(5)}, ${p.longitude.toFixed(5)}`);
  if (p.category) add('div', `Category: ${p.category.name}`);
  for (const [k, v] of Object.entries(p.attributes)) add('div', `${k}: ${String(v)}`);
  if (p.address?.display_name) add('div', p.address.display_name);
  return box;
}

export const poiFeatures = (pois: Poi[]) => featureCollection(pois.map((p) => point(p.longitude, p.latitude, { id: p.id, name: p.name })));

export function MapPage() {
  const [attrs, setAttrs] = useState<Attribute[]>([]);
  const [cats, setCats] = useState<Category[]>([]);
  const [filter, setFilter] = useState<PoiFilterState>({ name: '', category_id: '', attribute: '', value: '' });
  const [applied, setApplied] = useState(filter);
  const [result, setResult] = useState<{ pois: Poi[]; more: boolean }>();
  const [error, setError] = useState<unknown>();
  const [map, setMap] = useState<{ map: MapLibreMap; lib: MapLib }>();

  useEffect(() => {
    listAll<Attribute>('/v1/attributes').then(setAttrs, setError);
    listAll<Category>('/v1/categories').then(setCats, setError);
  }, []);
  useEffect(() => {
    loadPois(applied).then((r) => {
      setResult(r);
      setError(undefined);
    }, setError);
  }, [applied]);

  useEffect(() => {
    if (!map || !result) return;
    const { map: m, lib } = map;
    const byId = new Map(result.pois.map((p) => [p.id, p]));
    const data = poiFeatures(result.pois);
    const source = m.getSource('pois') as GeoJSONSource | undefined;
    if (source) source.setData(data);
    else {
      m.addSource('pois', { type: 'geojson', data, cluster: true, clusterRadius: 45, clusterMaxZoom: 15 });
      m.addLayer({
        id: 'poi-clusters',
        type: 'circle',
        source: 'pois',
        filter: ['has', 'point_count'],
        paint: {
          'circle-color': '#1d4ed8',
          'circle-stroke-color': '#fff',
          'circle-stroke-width': 2,
          'circle-radius': ['step', ['get', 'point_count'], 14, 10, 18, 50, 24],
        },
      });
      m.addLayer({
        id: 'poi-cluster-count',
        type: 'symbol',
        source: 'pois',
        filter: ['has', 'point_count'],
        layout: { 'text-field': ['get', 'point_count_abbreviated'], 'text-font': ['Noto Sans Bold'], 'text-size': 12 },
        paint: { 'text-color': '#ffffff' },
      });
      m.addLayer({
        id: 'poi-points',
        type: 'circle',
        source: 'pois',
        filter: ['!', ['has', 'point_count']],
        paint: { 'circle-color': '#d62728', 'circle-radius': 7, 'circle-stroke-color': '#fff', 'circle-stroke-width': 2 },
      });
      m.on('click', 'poi-clusters', async (e) => {
        const f = e.features![0];
        const zoom = await (m.getSource('pois') as GeoJSONSource).getClusterExpansionZoom(f.properties.cluster_id);
        m.easeTo({ center: (f.geometry as GeoJSON.Point).coordinates as [number, number], zoom });
      });
      m.on('click', 'poi-points', (e) => {
        const poi = byIdRef.current.get(e.features![0].properties.id);
        if (poi) new lib.Popup({ maxWidth: '280px' }).setLngLat([poi.longitude, poi.latitude]).setDOMContent(poiDetails(poi)).addTo(m);
      });
      for (const layer of ['poi-clusters', 'poi-points']) {
        m.on('mouseenter', layer, () => {
          m.getCanvas().style.cursor = 'pointer';
        });
        m.on('mouseleave', layer, () => {
          m.getCanvas().style.cursor = '';
        });
      }
    }
    byIdRef.current = byId;
    fitTo(
      m,
      lib,
      result.pois.map((p) => [p.longitude, p.latitude]),
    );
  }, [map, result]);

  return (
    <>
      <PageHeading>POI map</PageHeading>
      <Message error={error} />
      <form
        class="filters card"
        aria-label="Filter POIs on the map"
        onSubmit={(e) => {
          e.preventDefault();
          setApplied({ ...filter });
        }}
      >
        <PoiFilterFields filter={filter} setFilter={setFilter} attrs={attrs} cats={cats} />
        <button type="submit">Apply filters</button>
      </form>
      <p role="status" class="map-status">
        {!result
          ? 'Loading POIs…'
          : `${result.pois.length} POI${result.pois.length === 1 ? '' : 's'} on the map${result.more ? ' (the first 2,000; narrow the filter to see the others)' : ''}. Click a group to zoom in, a point for its details.`}
      </p>
      <BaseMap label="Map of the team's POIs" onReady={(m, lib) => setMap({ map: m, lib })} />
    </>
  );
}

/** The latest POIs by id for the click handler (registered once, data replaced on each filter). */
const byIdRef: { current: Map<string, Poi> } = { current: new Map() };
