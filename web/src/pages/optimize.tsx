import type { Map as MapLibreMap, MapMouseEvent } from 'maplibre-gl';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, call } from '../api';
import { described, Field, fieldErrorsOf, listMessage, ListErrors, Message, PageHeading, useRequest } from '../components';
import { BaseMap, featureCollection, fitTo, km, minutes, overlay, PALETTE, point, type MapLib } from '../map/base-map';
import { colour } from './clusters';
import type { Attribute, Category, Optimization, OptimizeResult } from '../api-types';
import { listAll, loadPois } from './pois';
import { PROFILES } from './routing';

interface Vehicle {
  id: string;
  lat: string;
  lon: string;
  roundTrip: boolean;
  capacity: string;
  from: string;
  to: string;
  /** A driver's break (a batch plan): when it may start, and how many minutes. */
  breakFrom: string;
  breakTo: string;
  breakMinutes: string;
}
type Step = OptimizeResult['routes'][number]['steps'][number];

/** Seconds of search a batch plan gets: the dashboard waits for it. */
const BATCH_PLAN_BUDGET_S = 3;

/**
 * A plan of the team's POIs, or one with breaks or shipments, runs as a batch optimization (POST
 * /v1/optimizations; with `stops: {pois}` any number of POIs, stop ids = POI ids, and a POI that cannot
 * be served is listed with why instead of failing the plan). Polled until it is done.
 */
async function planBatch(body: Record<string, unknown>): Promise<OptimizeResult> {
  let job = (await call<{ data: Optimization }>('POST', '/v1/optimizations', { ...body, time_budget: BATCH_PLAN_BUDGET_S })).data;
  while (job.status === 'queued' || job.status === 'running') {
    await new Promise((r) => setTimeout(r, 400));
    job = (await call<{ data: Optimization }>('GET', `/v1/optimizations/${job.id}`)).data;
  }
  if (job.status !== 'completed' || !job.result) {
    throw new ApiError(422, job.error?.message ?? `The optimization ${job.status === 'cancelled' ? 'was cancelled' : 'failed'}.`, job.error?.errors ?? {});
  }
  return job.result;
}

/** Stops from text, one a line: `latitude,longitude[,id[,window start,window end]]` (ISO datetimes). */
export function parseOptimizeStops(text: string): Array<Record<string, unknown>> {
  const stops: Array<Record<string, unknown>> = [];
  for (const line of text.split(/\r?\n/)) {
    const c = line.split(',').map((s) => s.trim());
    if (c.length < 2 || c[0] === '' || /^lat/i.test(c[0])) continue;
    const num = (s: string) => (s !== '' && Number.isFinite(Number(s)) ? Number(s) : s);
    const stop: Record<string, unknown> = { latitude: num(c[0]), longitude: num(c[1]) };
    if (c[2]) stop.id = c[2];
    if (c[3] || c[4]) stop.time_windows = [[c[3], c[4]]];
    stops.push(stop);
  }
  return stops;
}

/**
 * Shipments from text, one a line: `pickup latitude,pickup longitude,delivery latitude,delivery
 * longitude[,id[,amount]]`: picked up at the first place and delivered at the second by one vehicle.
 */
export function parseShipments(text: string): Array<Record<string, unknown>> {
  const shipments: Array<Record<string, unknown>> = [];
  for (const line of text.split(/\r?\n/)) {
    const c = line.split(',').map((s) => s.trim());
    if (c.length < 2 || c[0] === '' || /^(lat|pick)/i.test(c[0])) continue;
    const num = (s: string | undefined) => (s !== undefined && s !== '' && Number.isFinite(Number(s)) ? Number(s) : s);
    const shipment: Record<string, unknown> = {
      pickup: { latitude: num(c[0]), longitude: num(c[1]) },
      delivery: { latitude: num(c[2]), longitude: num(c[3]) },
    };
    if (c[4]) shipment.id = c[4];
    if (c[5]) shipment.amount = num(c[5]);
    shipments.push(shipment);
  }
  return shipments;
}

const newVehicle = (n: number): Vehicle => ({
  id: `vehicle-${n}`,
  lat: '',
  lon: '',
  roundTrip: true,
  capacity: '',
  from: '',
  to: '',
  breakFrom: '',
  breakTo: '',
  breakMinutes: '',
});
const time = (iso: string) => iso.slice(11, 16);

const isTask = (type: Step['type']) => type === 'stop' || type === 'pickup' || type === 'delivery';

export function OptimizePage() {
  const [vehicles, setVehicles] = useState<Vehicle[]>([newVehicle(1)]);
  const [picking, setPicking] = useState<number | null>(null);
  const [stops, setStops] = useState('');
  const [shipments, setShipments] = useState('');
  const [source, setSource] = useState<'list' | 'pois'>('list');
  const [cats, setCats] = useState<Category[]>([]);
  const [textAttrs, setTextAttrs] = useState<Attribute[]>([]);
  const [category, setCategory] = useState('');
  const [hoursFrom, setHoursFrom] = useState('');
  /** POI names by id, to name the stops of a plan of the team's POIs. */
  const [poiNames, setPoiNames] = useState<Map<string, string>>(new Map());
  const [profile, setProfile] = useState('driving-car');
  const { result, error, setError, busy, run: request } = useRequest<OptimizeResult>();
  const [map, setMap] = useState<{ map: MapLibreMap; lib: MapLib }>();
  const errors = fieldErrorsOf(error);
  const picker = useRef(picking);
  picker.current = picking;

  // A click on the map sets the start of the vehicle being picked for.
  useEffect(() => {
    if (!map) return;
    const onClick = (e: MapMouseEvent) => {
      const i = picker.current;
      if (i === null) return;
      setVehicles((vs) => vs.map((v, j) => (j === i ? { ...v, lat: e.lngLat.lat.toFixed(6), lon: e.lngLat.lng.toFixed(6) } : v)));
      setPicking(null);
    };
    map.map.on('click', onClick);
    return () => {
      map.map.off('click', onClick);
    };
  }, [map]);

  useEffect(() => {
    if (!map) return;
    const m = map.map;
    const routes = result?.routes ?? [];
    const starts = vehicles.flatMap((v, i) =>
      v.lat && v.lon && Number.isFinite(Number(v.lat)) ? [point(Number(v.lon), Number(v.lat), { colour: colour(i), n: 'S' })] : [],
    );
    const planned = parseOptimizeStops(stops).filter((s) => typeof s.latitude === 'number' && typeof s.longitude === 'number');
    overlay(m, 'tours', featureCollection(routes.map((r, i) => ({ type: 'Feature', geometry: r.geometry, properties: { colour: colour(i) } }))), [
      { id: 'tours', type: 'line', layout: { 'line-join': 'round', 'line-cap': 'round' }, paint: { 'line-color': ['get', 'colour'], 'line-width': 5 } },
    ]);
    // Stops and shipment ends numbered in the order served.
    const visits = routes.flatMap((r, i) =>
      r.steps.filter((s) => isTask(s.type)).map((s, k) => point(s.longitude, s.latitude, { colour: colour(i), n: String(k + 1) })),
    );
    const unassigned = (result?.unassigned ?? []).map((u) => point(u.longitude, u.latitude, { n: '!' }));
    const waiting = result ? [] : planned.map((s) => point(s.longitude as number, s.latitude as number, { n: '' }));
    overlay(m, 'tour-stops', featureCollection([...visits, ...starts]), [
      {
        id: 'tour-stops',
        type: 'circle',
        paint: { 'circle-color': ['get', 'colour'], 'circle-radius': 10, 'circle-stroke-color': '#fff', 'circle-stroke-width': 2 },
      },
      {
        id: 'tour-stop-numbers',
        type: 'symbol',
        layout: { 'text-field': ['get', 'n'], 'text-font': ['Noto Sans Bold'], 'text-size': 11, 'text-allow-overlap': true },
        paint: { 'text-color': '#fff' },
      },
    ]);
    overlay(m, 'other-stops', featureCollection([...unassigned, ...waiting]), [
      {
        id: 'other-stops',
        type: 'circle',
        paint: { 'circle-color': '#9ca3af', 'circle-radius': 8, 'circle-stroke-color': '#111827', 'circle-stroke-width': 2 },
      },
      {
        id: 'other-stop-marks',
        type: 'symbol',
        layout: { 'text-field': ['get', 'n'], 'text-font': ['Noto Sans Bold'], 'text-size': 12, 'text-allow-overlap': true },
        paint: { 'text-color': '#111827' },
      },
    ]);
  }, [map, result, vehicles, stops]);

  // The team's POIs are planned by id on the server: the page only needs their names and the choices.
  const useTeamPois = async () => {
    setSource('pois');
    try {
      const [{ pois }, categories, attrs] = await Promise.all([
        loadPois({ name: '', category_id: '', attribute: '', value: '' }),
        listAll<Category>('/v1/categories'),
        listAll<Attribute>('/v1/attributes'),
      ]);
      setPoiNames(new Map(pois.map((p) => [p.id, p.name])));
      setCats(categories);
      setTextAttrs(attrs.filter((a) => a.type === 'string'));
    } catch (err) {
      setError(err);
    }
  };
  const stopName = (id: string | null | undefined, index: number) => (id ? (poiNames.get(id) ?? id) : `#${index + 1}`);
  const stepName = (s: Step) =>
    s.type === 'start'
      ? 'Start'
      : s.type === 'end'
        ? 'End'
        : s.type === 'break'
          ? 'Break'
          : s.type === 'stop'
            ? `Stop ${stopName(s.id, s.index ?? 0)}`
            : `${s.type === 'pickup' ? 'Pickup' : 'Delivery'} ${s.id ?? `#${(s.index ?? 0) + 1}`}`;

  const run = async (e: Event) => {
    e.preventDefault();
    const num = (s: string) => (s.trim() !== '' && Number.isFinite(Number(s)) ? Number(s) : s);
    const body = {
      profile,
      vehicles: vehicles.map((v) => {
        const start = { latitude: num(v.lat), longitude: num(v.lon) };
        const out: Record<string, unknown> = { id: v.id, start };
        if (v.roundTrip) out.end = start;
        if (v.capacity.trim()) out.capacity = num(v.capacity);
        if (v.from || v.to) out.time_window = [v.from, v.to];
        // A break makes the plan a batch one (the contract's endpoint has none).
        if (v.breakMinutes.trim()) {
          out.breaks = [
            {
              id: 'break',
              service: Math.round(Number(v.breakMinutes) * 60),
              ...(v.breakFrom || v.breakTo ? { time_windows: [[v.breakFrom, v.breakTo]] } : {}),
            },
          ];
        }
        return out;
      }),
      stops:
        source === 'pois'
          ? { pois: category ? { category_id: category } : {}, ...(hoursFrom ? { time_windows_from: hoursFrom } : {}) }
          : parseOptimizeStops(stops),
      ...(shipments.trim() ? { shipments: parseShipments(shipments) } : {}),
    };
    const batch = source === 'pois' || 'shipments' in body || body.vehicles.some((v) => 'breaks' in v);
    const r = await request(async () => (batch ? planBatch(body) : (await call<{ data: OptimizeResult }>('POST', '/v1/routes/optimize', body)).data));
    if (r && map) fitTo(map.map, map.lib, [...r.routes.flatMap((t) => t.geometry.coordinates), ...r.unassigned.map((u) => [u.longitude, u.latitude])]);
  };
  const set = (i: number, patch: Partial<Vehicle>) => setVehicles(vehicles.map((v, j) => (j === i ? { ...v, ...patch } : v)));

  return (
    <>
      <PageHeading>Optimize deliveries</PageHeading>
      <Message error={listMessage(error, 'stops')} />
      <div class="map-layout">
        <form class="card side" onSubmit={run} aria-label="Optimize deliveries" noValidate>
          <Field id="opt-profile" label="Profile" errors={errors.profile}>
            <select {...described('opt-profile', errors.profile)} value={profile} onChange={(e) => setProfile(e.currentTarget.value)}>
              {PROFILES.map((p) => (
                <option key={p.value} value={p.value}>
                  {p.label}
                </option>
              ))}
            </select>
          </Field>
          {vehicles.map((v, i) => {
            const f = (name: string) => errors[`vehicles.${i}.${name}`];
            const startErr = [...(f('start') ?? []), ...(f('start.latitude') ?? []), ...(f('start.longitude') ?? [])];
            return (
              <fieldset key={i} class="vehicle">
                <legend>
                  <span class="swatch" data-colour={i % PALETTE.length} aria-hidden="true" /> Vehicle {i + 1}
                </legend>
                <Field id={`veh-${i}-id`} label="Name" errors={f('id')}>
                  <input {...described(`veh-${i}-id`, f('id'))} value={v.id} onInput={(e) => set(i, { id: e.currentTarget.value })} />
                </Field>
                <div class="pair">
                  <Field id={`veh-${i}-lat`} label="Start latitude" errors={startErr.length ? startErr : undefined}>
                    <input {...described(`veh-${i}-lat`, startErr)} inputMode="decimal" value={v.lat} onInput={(e) => set(i, { lat: e.currentTarget.value })} />
                  </Field>
                  <Field id={`veh-${i}-lon`} label="Start longitude">
                    <input id={`veh-${i}-lon`} inputMode="decimal" value={v.lon} onInput={(e) => set(i, { lon: e.currentTarget.value })} />
                  </Field>
                </div>
                <button type="button" aria-pressed={picking === i} onClick={() => setPicking(picking === i ? null : i)}>
                  {picking === i ? 'Click the map for the start…' : 'Pick the start on the map'}
                </button>
                <label class="check">
                  <input type="checkbox" checked={v.roundTrip} onChange={(e) => set(i, { roundTrip: e.currentTarget.checked })} /> back to the start
                </label>
                <Field id={`veh-${i}-cap`} label="Capacity (optional)" errors={f('capacity')}>
                  <input
                    {...described(`veh-${i}-cap`, f('capacity'))}
                    inputMode="numeric"
                    value={v.capacity}
                    onInput={(e) => set(i, { capacity: e.currentTarget.value })}
                  />
                </Field>
                <div class="pair">
                  <Field id={`veh-${i}-from`} label="Works from" errors={f('time_window')} hint="e.g. 2026-06-01T08:00:00Z">
                    <input {...described(`veh-${i}-from`, f('time_window'), 'hint')} value={v.from} onInput={(e) => set(i, { from: e.currentTarget.value })} />
                  </Field>
                  <Field id={`veh-${i}-to`} label="Works until">
                    <input id={`veh-${i}-to`} value={v.to} onInput={(e) => set(i, { to: e.currentTarget.value })} />
                  </Field>
                </div>
                <Field id={`veh-${i}-break`} label="Break minutes (optional)" errors={f('breaks.0.service')}>
                  <input
                    {...described(`veh-${i}-break`, f('breaks.0.service'))}
                    inputMode="numeric"
                    value={v.breakMinutes}
                    onInput={(e) => set(i, { breakMinutes: e.currentTarget.value })}
                  />
                </Field>
                <div class="pair">
                  <Field id={`veh-${i}-break-from`} label="Break from" errors={f('breaks.0.time_windows.0')}>
                    <input
                      {...described(`veh-${i}-break-from`, f('breaks.0.time_windows.0'))}
                      value={v.breakFrom}
                      onInput={(e) => set(i, { breakFrom: e.currentTarget.value })}
                    />
                  </Field>
                  <Field id={`veh-${i}-break-to`} label="Break until">
                    <input id={`veh-${i}-break-to`} value={v.breakTo} onInput={(e) => set(i, { breakTo: e.currentTarget.value })} />
                  </Field>
                </div>
                {vehicles.length > 1 && (
                  <button type="button" class="danger" onClick={() => setVehicles(vehicles.filter((_, j) => j !== i))}>
                    Remove vehicle {i + 1}
                  </button>
                )}
              </fieldset>
            );
          })}
          {vehicles.length < 3 && (
            <button type="button" onClick={() => setVehicles([...vehicles, newVehicle(vehicles.length + 1)])}>
              Add a vehicle
            </button>
          )}
          {source === 'pois' ? (
            <fieldset>
              <legend>Stops: the team's POIs</legend>
              <Field id="opt-category" label="Only POIs of category" errors={errors['stops.pois.category_id']}>
                <select {...described('opt-category', errors['stops.pois.category_id'])} value={category} onChange={(e) => setCategory(e.currentTarget.value)}>
                  <option value="">Any category</option>
                  {cats.map((c) => (
                    <option key={c.id} value={c.id}>
                      {c.name}
                    </option>
                  ))}
                </select>
              </Field>
              <Field
                id="opt-hours"
                label="Opening hours from attribute"
                errors={errors['stops.time_windows_from']}
                hint="OpenStreetMap opening_hours, e.g. Mo-Fr 08:00-12:00; read for the vehicles' day"
              >
                <select
                  {...described('opt-hours', errors['stops.time_windows_from'], 'hint')}
                  value={hoursFrom}
                  onChange={(e) => setHoursFrom(e.currentTarget.value)}
                >
                  <option value="">None: any time</option>
                  {textAttrs.map((a) => (
                    <option key={a.id} value={a.name}>
                      {a.name}
                    </option>
                  ))}
                </select>
              </Field>
              <p class="hint">
                {poiNames.size} POIs; each is a stop by its id. One that cannot be served (off the roads, closed that day) is listed below with why.
              </p>
              <button type="button" onClick={() => setSource('list')}>
                Type the stops instead
              </button>
            </fieldset>
          ) : (
            <Field id="opt-stops" label="Stops, one a line: latitude,longitude[,id[,window start,window end]]" errors={errors.stops}>
              <textarea {...described('opt-stops', errors.stops)} rows={8} value={stops} onInput={(e) => setStops(e.currentTarget.value)} />
            </Field>
          )}
          {source === 'pois' ? (
            Object.entries(errors)
              .filter(([k]) => k.startsWith('stops.'))
              .slice(0, 5)
              .map(([k, m]) => (
                <p key={k} class="field-error">
                  {k}: {m.join('; ')}
                </p>
              ))
          ) : (
            <ListErrors errors={errors} field="stops" text={stops} />
          )}
          <Field
            id="opt-shipments"
            label="Shipments (optional), one a line: pickup latitude,pickup longitude,delivery latitude,delivery longitude[,id[,amount]]"
            errors={errors.shipments}
            hint="Picked up at the first place, delivered at the second by the same vehicle"
          >
            <textarea
              {...described('opt-shipments', errors.shipments, 'hint')}
              rows={3}
              value={shipments}
              onInput={(e) => setShipments(e.currentTarget.value)}
            />
          </Field>
          <ListErrors errors={errors} field="shipments" text={shipments} />
          <div class="actions">
            {source === 'list' && (
              <button type="button" onClick={useTeamPois}>
                Use the team's POIs
              </button>
            )}
            <button type="submit" class="primary" disabled={busy}>
              {busy ? 'Optimizing…' : 'Optimize'}
            </button>
          </div>
        </form>
        <div class="map-column">
          <BaseMap label="Delivery tours map" onReady={(m, lib) => setMap({ map: m, lib })} />
          {result && (
            <section class="card" aria-labelledby="tours-title">
              <h2 id="tours-title">
                {result.summary.assigned} of {result.summary.stops} stops on {result.summary.vehicles} tour{result.summary.vehicles === 1 ? '' : 's'}:{' '}
                {km(result.summary.distance)}, {minutes(result.summary.duration)} driving
              </h2>
              {result.routes.map((r, i) => (
                <div key={r.vehicle} class="tour">
                  <h3>
                    <span class="swatch" data-colour={i % PALETTE.length} aria-hidden="true" /> {r.vehicle}: {r.stops} stops, {km(r.distance)},{' '}
                    {minutes(r.duration)}
                  </h3>
                  <ol>
                    {r.steps.map((s, k) => (
                      <li key={k}>
                        {stepName(s)} — arrives {time(s.arrival)}, leaves {time(s.departure)}
                      </li>
                    ))}
                  </ol>
                </div>
              ))}
              {result.unassigned.length > 0 && (
                <>
                  <h3>Unassigned</h3>
                  <ul class="unassigned">
                    {result.unassigned.map((u) => {
                      // Only a batch plan's carry a type (it has shipments): a plan of /v1/routes/optimize's are stops.
                      const kind = 'type' in u ? u.type : 'stop';
                      return (
                        <li key={`${kind} ${u.index}`}>
                          {kind === 'shipment' ? `Shipment ${u.id ?? `#${u.index + 1}`}` : u.id ? stopName(u.id, u.index) : `Stop ${u.index + 1}`}: {u.reason}
                        </li>
                      );
                    })}
                  </ul>
                </>
              )}
            </section>
          )}
        </div>
      </div>
    </>
  );
}
