import type { Map as MapLibreMap } from 'maplibre-gl';
import { useEffect, useState } from 'preact/hooks';
import { call } from '../api';
import { described, Field, fieldErrorsOf, listMessage, ListErrors, Message, PageHeading, useRequest, TableHead } from '../components';
import { BaseMap, featureCollection, fitTo, km, overlay, PALETTE, point, type MapLib } from '../map/base-map';
import type { Category } from '../api-types';
import { listAll } from './pois';
import type { ClusterResult } from '../api-types';

/** Stops from text: one a line, `latitude,longitude[,id]`; a header line and blank lines are skipped. */
export function parseStops(text: string): Array<Record<string, unknown>> {
  const stops: Array<Record<string, unknown>> = [];
  for (const line of text.split(/\r?\n/)) {
    const cells = line.split(',').map((c) => c.trim());
    if (cells.length < 2 || cells[0] === '' || /^lat/i.test(cells[0])) continue;
    const num = (s: string) => (Number.isFinite(Number(s)) && s !== '' ? Number(s) : s);
    const stop: Record<string, unknown> = { latitude: num(cells[0]), longitude: num(cells[1]) };
    if (cells[2]) stop.id = cells[2];
    stops.push(stop);
  }
  return stops;
}

export const colour = (i: number) => PALETTE[i % PALETTE.length];

export function ClustersPage() {
  const [cats, setCats] = useState<Category[]>([]);
  const [source, setSource] = useState<'pois' | 'csv'>('pois');
  const [category, setCategory] = useState('');
  const [csv, setCsv] = useState('');
  const [sizing, setSizing] = useState<'clusters' | 'max_stops'>('clusters');
  const [k, setK] = useState('3');
  const [balanced, setBalanced] = useState(false);
  const { result, error, setError, busy, run: request } = useRequest<ClusterResult>();
  const [map, setMap] = useState<{ map: MapLibreMap; lib: MapLib }>();
  const errors = fieldErrorsOf(error);

  useEffect(() => {
    listAll<Category>('/v1/categories').then(setCats, setError);
  }, []);

  useEffect(() => {
    if (!map) return;
    const clusters = result?.clusters ?? [];
    overlay(
      map.map,
      'cluster-stops',
      featureCollection(clusters.flatMap((c, i) => c.stops.map((s) => point(s.longitude, s.latitude, { colour: colour(i) })))),
      [
        {
          id: 'cluster-stops',
          type: 'circle',
          paint: { 'circle-color': ['get', 'colour'], 'circle-radius': 6, 'circle-stroke-color': '#fff', 'circle-stroke-width': 1.5 },
        },
      ],
    );
    overlay(
      map.map,
      'cluster-centroids',
      featureCollection(clusters.map((c, i) => point(c.centroid.longitude, c.centroid.latitude, { colour: colour(i), n: String(c.id) }))),
      [
        {
          id: 'cluster-centroids',
          type: 'circle',
          paint: { 'circle-color': ['get', 'colour'], 'circle-radius': 12, 'circle-opacity': 0.9, 'circle-stroke-color': '#111827', 'circle-stroke-width': 2 },
        },
        {
          id: 'cluster-ids',
          type: 'symbol',
          layout: { 'text-field': ['get', 'n'], 'text-font': ['Noto Sans Bold'], 'text-size': 12, 'text-allow-overlap': true },
          paint: { 'text-color': '#fff' },
        },
      ],
    );
    fitTo(
      map.map,
      map.lib,
      clusters.flatMap((c) => c.stops.map((s) => [s.longitude, s.latitude])),
    );
  }, [map, result]);

  const run = async (e: Event) => {
    e.preventDefault();
    const body: Record<string, unknown> = source === 'pois' ? { pois: category ? { category_id: category } : {} } : { stops: parseStops(csv) };
    body[sizing] = Number.isFinite(Number(k)) && k.trim() !== '' ? Number(k) : k;
    if (balanced) body.balanced = true;
    await request(async () => (await call<{ data: ClusterResult }>('POST', '/v1/routes/clusters', body)).data);
  };

  return (
    <>
      <PageHeading>Clusters</PageHeading>
      <Message error={listMessage(error, 'stops')} />
      <div class="map-layout">
        <form class="card side" onSubmit={run} aria-label="Cluster stops" noValidate>
          <fieldset>
            <legend>Stops</legend>
            <label class="check">
              <input type="radio" name="stops-source" checked={source === 'pois'} onChange={() => setSource('pois')} /> the team's POIs
            </label>
            <label class="check">
              <input type="radio" name="stops-source" checked={source === 'csv'} onChange={() => setSource('csv')} /> a list (CSV)
            </label>
            {source === 'pois' ? (
              <Field id="clusters-category" label="Only POIs of category" errors={errors['pois.category_id']}>
                <select {...described('clusters-category', errors['pois.category_id'])} value={category} onChange={(e) => setCategory(e.currentTarget.value)}>
                  <option value="">Any category</option>
                  {cats.map((c) => (
                    <option key={c.id} value={c.id}>
                      {c.name}
                    </option>
                  ))}
                </select>
              </Field>
            ) : (
              <>
                <Field id="clusters-csv" label="Stops, one a line: latitude,longitude[,id]" errors={errors.stops}>
                  <textarea {...described('clusters-csv', errors.stops)} rows={8} value={csv} onInput={(e) => setCsv(e.currentTarget.value)} />
                </Field>
                <ListErrors errors={errors} field="stops" text={csv} />
              </>
            )}
          </fieldset>
          <fieldset>
            <legend>How many</legend>
            <label class="check">
              <input type="radio" name="sizing" checked={sizing === 'clusters'} onChange={() => setSizing('clusters')} /> number of clusters (k)
            </label>
            <label class="check">
              <input type="radio" name="sizing" checked={sizing === 'max_stops'} onChange={() => setSizing('max_stops')} /> most stops per cluster
            </label>
            <Field id="clusters-k" label={sizing === 'clusters' ? 'Clusters' : 'Most stops per cluster'} errors={errors[sizing]}>
              <input {...described('clusters-k', errors[sizing])} inputMode="numeric" value={k} onInput={(e) => setK(e.currentTarget.value)} />
            </Field>
            <label class="check">
              <input type="checkbox" checked={balanced} onChange={(e) => setBalanced(e.currentTarget.checked)} /> balanced sizes
            </label>
          </fieldset>
          <button type="submit" class="primary" disabled={busy}>
            {busy ? 'Clustering…' : 'Make clusters'}
          </button>
        </form>
        <div class="map-column">
          <BaseMap label="Clusters map" onReady={(m, lib) => setMap({ map: m, lib })} />
          {result && (
            <section class="card" aria-labelledby="clusters-title">
              <h2 id="clusters-title">
                {result.summary.clusters} clusters of {result.summary.stops} stops
              </h2>
              <table>
                <TableHead columns={['Cluster', 'Stops', 'Radius', 'Centre']} />
                <tbody>
                  {result.clusters.map((c, i) => (
                    <tr key={c.id}>
                      <td>
                        <span class="swatch" data-colour={i % PALETTE.length} aria-hidden="true" /> {c.id}
                      </td>
                      <td class="num">{c.count}</td>
                      <td class="num">{km(c.radius)}</td>
                      <td class="num">
                        {c.centroid.latitude.toFixed(5)}, {c.centroid.longitude.toFixed(5)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
          )}
        </div>
      </div>
    </>
  );
}
