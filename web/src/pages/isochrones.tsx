import type { Map as MapLibreMap, MapMouseEvent } from 'maplibre-gl';
import { useEffect, useRef, useState } from 'preact/hooks';
import { call } from '../api';
import { described, Field, fieldErrorsOf, Message, PageHeading, TableHead, useRequest } from '../components';
import { BaseMap, featureCollection, fitTo, overlay, point, type MapLib } from '../map/base-map';
import { poiFeatures } from './map';
import type { IsochroneResult, Poi } from '../api-types';
import { loadPois } from './pois';
import { PROFILES } from './routing';

/** Band colours from the nearest (green) to the farthest (red); the legend's swatches use the same
 *  (`.band[data-band]` in the CSS). */
const BAND_COLOURS = ['#1a9850', '#66bd63', '#a6d96a', '#d9ef8b', '#ffe08a', '#fdae61', '#f46d43', '#d73027', '#a50026', '#67001f'];

type RangeType = 'time' | 'distance';

/** A number where the text reads as one (so that the API names a bad field), else the text itself. */
const numberOr = (s: string): number | string => (s.trim() !== '' && Number.isFinite(Number(s)) ? Number(s) : s.trim());
/** Minutes or kilometres typed on the page as the API's seconds or meters. */
const toApi = (s: string, type: RangeType): number | string => {
  const v = numberOr(s);
  return typeof v === 'number' ? Math.round(v * (type === 'time' ? 60 : 1000) * 10) / 10 : v;
};
/** A band's value as the legend says it. */
const bandValue = (value: number, type: RangeType) => (type === 'time' ? `${Number((value / 60).toFixed(1))} min` : `${Number((value / 1000).toFixed(2))} km`);
const squareKm = (m2: number) => `${(m2 / 1e6).toLocaleString('en-GB', { minimumFractionDigits: 2, maximumFractionDigits: 2 })} km²`;

/** The colour index and opacity of each distinct value: the smallest band green and most opaque, the
 *  largest red and faintest (bands are cumulative: the inner ones are drawn over the outer ones). */
function bandStyles(values: number[]): Map<number, { colour: number; opacity: number }> {
  const distinct = [...new Set(values)].sort((a, b) => a - b);
  const n = distinct.length;
  return new Map(
    distinct.map((v, i) => [
      v,
      { colour: n === 1 ? 0 : Math.round((i * (BAND_COLOURS.length - 1)) / (n - 1)), opacity: n === 1 ? 0.35 : 0.45 - (0.3 * i) / (n - 1) },
    ]),
  );
}

export function IsochronesPage() {
  const [pois, setPois] = useState<Poi[]>([]);
  const [lat, setLat] = useState('');
  const [lon, setLon] = useState('');
  const [poiId, setPoiId] = useState('');
  const [profile, setProfile] = useState('driving-car');
  const [rangeType, setRangeType] = useState<RangeType>('time');
  const [ranges, setRanges] = useState('5, 10, 15');
  const [interval, setStep] = useState('');
  const { result, setResult, error, setError, busy, run } = useRequest<IsochroneResult>();
  const [map, setMap] = useState<{ map: MapLibreMap; lib: MapLib }>();
  const errors = fieldErrorsOf(error);

  // The map's click handler is registered once: it reads the POIs through this.
  const poisRef = useRef(pois);
  poisRef.current = pois;

  useEffect(() => {
    loadPois({ name: '', category_id: '', attribute: '', value: '' }).then((r) => setPois(r.pois), setError);
  }, []);

  const chosenPoi = poiId ? pois.find((p) => p.id === poiId) : undefined;
  const centre = chosenPoi
    ? { latitude: chosenPoi.latitude, longitude: chosenPoi.longitude }
    : Number.isFinite(Number.parseFloat(lat)) && Number.isFinite(Number.parseFloat(lon))
      ? { latitude: Number(lat), longitude: Number(lon) }
      : undefined;

  useEffect(() => {
    if (!map) return;
    const { map: m } = map;
    overlay(m, 'iso-pois', poiFeatures(pois), [
      { id: 'iso-pois', type: 'circle', paint: { 'circle-color': '#6b7280', 'circle-radius': 5, 'circle-stroke-color': '#fff', 'circle-stroke-width': 1.5 } },
    ]);
    const onClick = (e: MapMouseEvent) => {
      const hit = m.queryRenderedFeatures(e.point, { layers: ['iso-pois'] })[0];
      const poi = hit ? poisRef.current.find((p) => p.id === hit.properties.id) : undefined;
      if (poi) {
        setPoiId(poi.id);
        setLat(poi.latitude.toFixed(5));
        setLon(poi.longitude.toFixed(5));
      } else {
        setPoiId('');
        setLat(e.lngLat.lat.toFixed(5));
        setLon(e.lngLat.lng.toFixed(5));
      }
    };
    m.on('click', onClick);
    return () => {
      m.off('click', onClick);
    };
  }, [map, pois]);

  // The bands, largest first (so the smaller ones lie on top), and the centre.
  useEffect(() => {
    if (!map) return;
    const { map: m } = map;
    const features = [...(result?.features ?? [])].sort((a, b) => b.properties.value - a.properties.value);
    const styles = bandStyles(features.map((f) => f.properties.value));
    overlay(
      m,
      'isochrones',
      featureCollection(
        features.map((f) => {
          const s = styles.get(f.properties.value)!;
          return {
            type: 'Feature',
            geometry: f.geometry,
            properties: { value: f.properties.value, area: f.properties.area, colour: BAND_COLOURS[s.colour], opacity: s.opacity },
          };
        }),
      ),
      [
        {
          id: 'isochrone-fill',
          type: 'fill',
          layout: { 'fill-sort-key': ['-', 0, ['get', 'value']] },
          paint: { 'fill-color': ['get', 'colour'], 'fill-opacity': ['get', 'opacity'] },
        },
        { id: 'isochrone-line', type: 'line', layout: { 'line-join': 'round' }, paint: { 'line-color': ['get', 'colour'], 'line-width': 1.5 } },
      ],
    );
    // The team's POIs stay clickable above the bands.
    if (m.getLayer('iso-pois')) m.moveLayer('iso-pois');
    overlay(m, 'iso-centre', featureCollection(centre ? [point(centre.longitude, centre.latitude)] : []), [
      { id: 'iso-centre', type: 'circle', paint: { 'circle-color': '#111827', 'circle-radius': 8, 'circle-stroke-color': '#fff', 'circle-stroke-width': 3 } },
    ]);
  }, [map, result, centre?.latitude, centre?.longitude]);

  const submit = async (e: Event) => {
    e.preventDefault();
    const values = ranges
      .split(/[,;\s]+/)
      .filter((s) => s !== '')
      .map((s) => toApi(s, rangeType));
    const body: Record<string, unknown> = {
      profile,
      locations: [poiId ? { poi_id: poiId } : { latitude: numberOr(lat), longitude: numberOr(lon) }],
      range_type: rangeType,
      range: values,
    };
    if (interval.trim() !== '') body.interval = toApi(interval, rangeType);
    const r = await run(async () => (await call<{ data: IsochroneResult }>('POST', '/v1/isochrones', body)).data);
    if (r && map) {
      const b = r.bbox;
      if (b && b.length >= 4)
        fitTo(map.map, map.lib, [
          [b[0], b[1]],
          [b[2], b[3]],
        ]);
    }
  };

  const unit = rangeType === 'time' ? 'minutes' : 'km';
  // The range's errors (`range`, `range.0`, …) under its field, each with the value it is about.
  const rangeErrors = Object.entries(errors)
    .filter(([k]) => k === 'range' || k.startsWith('range.'))
    .flatMap(([k, msgs]) => {
      const i = Number(k.split('.')[1]);
      const typed = ranges.split(/[,;\s]+/).filter((s) => s !== '')[i];
      return msgs.map((m) => (k === 'range' ? m : `${typed ?? `value ${i + 1}`}: ${m}`));
    });
  const locationErrors = [...(errors.locations ?? []), ...(errors['locations.0'] ?? [])];
  const legend = [...(result?.features ?? [])].sort((a, b) => a.properties.group_index - b.properties.group_index || a.properties.value - b.properties.value);
  const styles = bandStyles(legend.map((f) => f.properties.value));
  return (
    <>
      <PageHeading>Isochrones</PageHeading>
      <p class="hint">
        What can be reached from a point within a time or a road distance. Requests made here go through your dashboard session: they do not count towards the
        team's quota.
      </p>
      <Message error={error} />
      <div class="map-layout">
        <form class="card side" onSubmit={submit} aria-label="Request isochrones" noValidate>
          <fieldset>
            <legend>Centre</legend>
            <p class="hint">Click the map to pick it (a POI when one is clicked), type it, or choose one of the team's POIs.</p>
            {locationErrors.length > 0 && <p class="field-error">{locationErrors.join('; ')}</p>}
            <div class="pair">
              <Field id="iso-lat" label="Latitude" errors={errors['locations.0.latitude']}>
                <input
                  {...described('iso-lat', errors['locations.0.latitude'])}
                  inputMode="decimal"
                  value={lat}
                  onInput={(e) => {
                    setLat(e.currentTarget.value);
                    setPoiId('');
                  }}
                />
              </Field>
              <Field id="iso-lon" label="Longitude" errors={errors['locations.0.longitude']}>
                <input
                  {...described('iso-lon', errors['locations.0.longitude'])}
                  inputMode="decimal"
                  value={lon}
                  onInput={(e) => {
                    setLon(e.currentTarget.value);
                    setPoiId('');
                  }}
                />
              </Field>
            </div>
            <Field id="iso-poi" label="Or a POI" errors={errors['locations.0.poi_id']}>
              <select
                {...described('iso-poi', errors['locations.0.poi_id'])}
                value={poiId}
                onChange={(e) => {
                  const p = pois.find((x) => x.id === e.currentTarget.value);
                  setPoiId(p?.id ?? '');
                  if (p) {
                    setLat(p.latitude.toFixed(5));
                    setLon(p.longitude.toFixed(5));
                  }
                }}
              >
                <option value="">None (the point above)</option>
                {pois.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.name}
                  </option>
                ))}
              </select>
            </Field>
          </fieldset>
          <Field id="iso-profile" label="Profile" errors={errors.profile}>
            <select {...described('iso-profile', errors.profile)} value={profile} onChange={(e) => setProfile(e.currentTarget.value)}>
              {PROFILES.map((p) => (
                <option key={p.value} value={p.value}>
                  {p.label}
                </option>
              ))}
            </select>
          </Field>
          <fieldset>
            <legend>Range</legend>
            {errors.range_type && <p class="field-error">{errors.range_type.join('; ')}</p>}
            <label class="check">
              <input type="radio" name="range-type" checked={rangeType === 'time'} onChange={() => setRangeType('time')} /> travel time
            </label>
            <label class="check">
              <input type="radio" name="range-type" checked={rangeType === 'distance'} onChange={() => setRangeType('distance')} /> road distance
            </label>
            <Field id="iso-ranges" label={`Ranges (${unit}, comma-separated)`} errors={rangeErrors}>
              <input {...described('iso-ranges', rangeErrors)} value={ranges} onInput={(e) => setRanges(e.currentTarget.value)} />
            </Field>
            <Field
              id="iso-interval"
              label={`Interval (${unit}, optional)`}
              errors={errors.interval}
              hint="With a single range: a band every interval up to it (at most 10)."
            >
              <input
                {...described('iso-interval', errors.interval, 'hint')}
                inputMode="decimal"
                value={interval}
                onInput={(e) => setStep(e.currentTarget.value)}
              />
            </Field>
          </fieldset>
          <div class="actions">
            <button
              type="button"
              onClick={() => {
                setResult(undefined);
                setError(undefined);
              }}
            >
              Clear
            </button>
            <button type="submit" class="primary" disabled={busy}>
              {busy ? 'Computing…' : 'Show isochrones'}
            </button>
          </div>
        </form>
        <div class="map-column">
          <BaseMap label="Isochrone map: click to pick the centre" onReady={(m, lib) => setMap({ map: m, lib })} />
          {result && (
            <section class="card" aria-labelledby="iso-title">
              <h2 id="iso-title">
                {legend.length} band{legend.length === 1 ? '' : 's'} from{' '}
                {chosenPoi ? chosenPoi.name : centre ? `${centre.latitude.toFixed(5)}, ${centre.longitude.toFixed(5)}` : 'the centre'}
              </h2>
              <table class="legend">
                <TableHead columns={['Band', rangeType === 'time' ? 'Within' : 'Within (road)', 'Area']} numeric={['Area']} />
                <tbody>
                  {legend.map((f, i) => (
                    <tr key={i}>
                      <td>
                        <span class="band" data-band={styles.get(f.properties.value)?.colour ?? 0} aria-hidden="true" /> {i + 1}
                      </td>
                      <td>{bandValue(f.properties.value, f.properties.range_type)}</td>
                      <td class="num">{squareKm(f.properties.area)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <p class="hint">Bands are cumulative: each holds everything reachable within its value.</p>
            </section>
          )}
        </div>
      </div>
    </>
  );
}
