import type { Map as MapLibreMap, GeoJSONSource, MapMouseEvent } from 'maplibre-gl';
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, qs } from '../api';
import { described, Field, fieldErrorsOf, Message, PageHeading, TableHead, useRequest } from '../components';
import { BaseMap, featureCollection, fitTo, overlay, point, type MapLib } from '../map/base-map';
import type { Attribute, Category, Poi } from '../api-types';
import { listAll, loadPois, PoiFilterFields, poiQuery, type PoiFilterState } from './pois';
import { PROFILES } from './routing';

/** A POI of the list by travel time: seconds and meters from the chosen point. */
type ReachablePoi = Poi & Required<Pick<Poi, 'travel_time' | 'travel_distance'>>;
interface DriveResult {
  origin: { latitude: number; longitude: number };
  pois: ReachablePoi[];
  more: boolean;
}

/** The team's POIs reachable from a point within a travel time, nearest by time first: GET /v1/pois's
 *  list by travel time through the session, every page up to `max`. The name search is the page's own
 *  (the API's list has none), applied to what comes back, which keeps the order. */
async function loadReachable(f: PoiFilterState, params: Record<string, string | undefined>, max = 2000): Promise<{ pois: ReachablePoi[]; more: boolean }> {
  const pois: ReachablePoi[] = [];
  let cursor: string | null = null;
  const { name, ...filters } = poiQuery(f);
  do {
    const r: { data: ReachablePoi[]; next: string | null } = await call(
      'GET',
      `/v1/pois${qs({ ...filters, ...params, limit: '100', cursor: cursor ?? undefined })}`,
    );
    pois.push(...r.data);
    cursor = r.next;
  } while (cursor && pois.length < max);
  const needle = (name ?? '').toLowerCase();
  return { pois: needle ? pois.filter((p) => p.name.toLowerCase().includes(needle)) : pois, more: cursor !== null };
}

const travelMinutes = (s: number) => `${(s / 60).toFixed(1)} min`;
const travelKm = (m: number) => `${(m / 1000).toFixed(2)} km`;
const POI_LAYERS = ['poi-clusters', 'poi-cluster-count', 'poi-points'];

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
  const [mode, setMode] = useState<'all' | 'drive'>('all');
  const [lat, setLat] = useState('');
  const [lon, setLon] = useState('');
  const [profile, setProfile] = useState('driving-car');
  const [maxMinutes, setMaxMinutes] = useState('10');
  const drive = useRequest<DriveResult>();
  const driveErrors = fieldErrorsOf(drive.error);
  const modeRef = useRef(mode);
  modeRef.current = mode;

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
    if (modeRef.current === 'all')
      fitTo(
        m,
        lib,
        result.pois.map((p) => [p.longitude, p.latitude]),
      );
  }, [map, result]);

  // By drive time: a click on the map picks the point to start from.
  useEffect(() => {
    if (!map || mode !== 'drive') return;
    const onClick = (e: MapMouseEvent) => {
      setLat(e.lngLat.lat.toFixed(5));
      setLon(e.lngLat.lng.toFixed(5));
    };
    map.map.on('click', onClick);
    return () => {
      map.map.off('click', onClick);
    };
  }, [map, mode]);

  // The clustered POIs in the plain mode; by drive time, the start and the reachable POIs numbered in
  // travel-time order.
  useEffect(() => {
    if (!map) return;
    const { map: m } = map;
    for (const id of POI_LAYERS) if (m.getLayer(id)) m.setLayoutProperty(id, 'visibility', mode === 'all' ? 'visible' : 'none');
    const shown = mode === 'drive' ? (drive.result?.pois ?? []) : [];
    const start =
      mode === 'drive' && Number.isFinite(Number.parseFloat(lat)) && Number.isFinite(Number.parseFloat(lon)) ? [point(Number(lon), Number(lat))] : [];
    // The start under the POIs: one may stand on it.
    overlay(m, 'drive-start', featureCollection(start), [
      { id: 'drive-start', type: 'circle', paint: { 'circle-color': '#111827', 'circle-radius': 8, 'circle-stroke-color': '#fff', 'circle-stroke-width': 3 } },
    ]);
    overlay(m, 'reachable', featureCollection(shown.map((p, i) => point(p.longitude, p.latitude, { id: p.id, n: String(i + 1) }))), [
      { id: 'reachable', type: 'circle', paint: { 'circle-color': '#7c3aed', 'circle-radius': 10, 'circle-stroke-color': '#fff', 'circle-stroke-width': 2 } },
      {
        id: 'reachable-rank',
        type: 'symbol',
        layout: { 'text-field': ['get', 'n'], 'text-font': ['Noto Sans Bold'], 'text-size': 11, 'text-allow-overlap': true },
        paint: { 'text-color': '#fff' },
      },
    ]);
  }, [map, mode, result, drive.result, lat, lon]);

  const findReachable = async (e: Event) => {
    e.preventDefault();
    const minutes = maxMinutes.trim();
    const seconds = minutes !== '' && Number.isFinite(Number(minutes)) ? String(Math.round(Number(minutes) * 60)) : minutes;
    const params = { latitude: lat.trim(), longitude: lon.trim(), profile, max_travel_time: seconds };
    const r = await drive.run(async () => ({ origin: { latitude: Number(lat), longitude: Number(lon) }, ...(await loadReachable(filter, params)) }));
    if (r && map) fitTo(map.map, map.lib, [[r.origin.longitude, r.origin.latitude], ...r.pois.map((p) => [p.longitude, p.latitude])]);
  };

  const driving = mode === 'drive';
  const reachable = drive.result;
  return (
    <>
      <PageHeading>POI map</PageHeading>
      <Message error={error ?? (driving ? drive.error : undefined)} />
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
      <div class="mode card" role="radiogroup" aria-labelledby="map-mode-label">
        <span id="map-mode-label" class="label">
          Show
        </span>
        <label class="check">
          <input type="radio" name="map-mode" checked={!driving} onChange={() => setMode('all')} /> all POIs matching the filter
        </label>
        <label class="check">
          <input type="radio" name="map-mode" checked={driving} onChange={() => setMode('drive')} /> POIs by drive time
        </label>
      </div>
      {driving && (
        <form class="filters card" aria-label="POIs by drive time" onSubmit={findReachable} noValidate>
          <p class="hint whole">Click the map to pick the start, or type it. The filter above applies too.</p>
          <Field id="drive-lat" label="Start latitude" errors={driveErrors.latitude}>
            <input {...described('drive-lat', driveErrors.latitude)} inputMode="decimal" value={lat} onInput={(e) => setLat(e.currentTarget.value)} />
          </Field>
          <Field id="drive-lon" label="Start longitude" errors={driveErrors.longitude}>
            <input {...described('drive-lon', driveErrors.longitude)} inputMode="decimal" value={lon} onInput={(e) => setLon(e.currentTarget.value)} />
          </Field>
          <Field id="drive-profile" label="Profile" errors={driveErrors.profile}>
            <select {...described('drive-profile', driveErrors.profile)} value={profile} onChange={(e) => setProfile(e.currentTarget.value)}>
              {PROFILES.map((p) => (
                <option key={p.value} value={p.value}>
                  {p.label}
                </option>
              ))}
            </select>
          </Field>
          <Field id="drive-max" label="Max travel time (minutes)" errors={driveErrors.max_travel_time}>
            <input
              {...described('drive-max', driveErrors.max_travel_time)}
              inputMode="decimal"
              value={maxMinutes}
              onInput={(e) => setMaxMinutes(e.currentTarget.value)}
            />
          </Field>
          <button type="submit" class="primary" disabled={drive.busy}>
            {drive.busy ? 'Searching…' : 'Find reachable POIs'}
          </button>
        </form>
      )}
      <p role="status" class="map-status">
        {driving
          ? !reachable
            ? 'Pick a start and a travel time.'
            : `${reachable.pois.length} POI${reachable.pois.length === 1 ? '' : 's'} reachable within ${maxMinutes.trim()} min${reachable.more ? ' (the first 2,000)' : ''}, nearest by time first.`
          : !result
            ? 'Loading POIs…'
            : `${result.pois.length} POI${result.pois.length === 1 ? '' : 's'} on the map${result.more ? ' (the first 2,000; narrow the filter to see the others)' : ''}. Click a group to zoom in, a point for its details.`}
      </p>
      <BaseMap label="Map of the team's POIs" onReady={(m, lib) => setMap({ map: m, lib })} />
      {driving && reachable && (
        <section class="card" aria-labelledby="reachable-title">
          <h2 id="reachable-title">Reachable POIs by travel time</h2>
          <table class="reachable">
            <TableHead columns={['#', 'Name', 'Travel time', 'Road distance']} numeric={['#', 'Travel time', 'Road distance']} />
            <tbody>
              {reachable.pois.map((p, i) => (
                <tr key={p.id}>
                  <td class="num">{i + 1}</td>
                  <td>{p.name}</td>
                  <td class="num">{travelMinutes(p.travel_time)}</td>
                  <td class="num">{travelKm(p.travel_distance)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </>
  );
}

/** The latest POIs by id for the click handler (registered once, data replaced on each filter). */
const byIdRef: { current: Map<string, Poi> } = { current: new Map() };
