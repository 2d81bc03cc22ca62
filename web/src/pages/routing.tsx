import type { Map as MapLibreMap, MapMouseEvent } from 'maplibre-gl';
import { useEffect, useRef, useState } from 'preact/hooks';
import { call } from '../api';
import { described, Field, fieldErrorsOf, Message, PageHeading, useRequest, TableHead } from '../components';
import { BaseMap, circle, featureCollection, fitTo, km, minutes, overlay, point, type MapLib } from '../map/base-map';
import { poiFeatures } from './map';
import type { Category, Poi, RouteResult } from '../api-types';
import { listAll, loadPois } from './pois';

export const PROFILES = [
  { value: 'driving-car', label: 'Car' },
  { value: 'driving-hgv', label: 'Truck (HGV)' },
  { value: 'cycling-regular', label: 'Bicycle' },
  { value: 'foot-walking', label: 'On foot' },
];

/** The lorry's size fields of a `driving-hgv` route (the API's `vehicle` extension), each optional. */
const LORRY_FIELDS = [
  { key: 'height', label: 'Height (meters)' },
  { key: 'width', label: 'Width (meters)' },
  { key: 'length', label: 'Length (meters)' },
  { key: 'weight', label: 'Weight (tonnes)' },
] as const;
type LorrySize = Record<(typeof LORRY_FIELDS)[number]['key'], string>;
const NO_LORRY: LorrySize = { height: '', width: '', length: '', weight: '' };

/** The filled lorry fields as the API's `vehicle` (numbers where they read as one, so that the API names a bad field); undefined when none is. */
function vehicleOf(lorry: LorrySize): Record<string, number | string> | undefined {
  const filled = LORRY_FIELDS.filter((f) => lorry[f.key].trim() !== '');
  if (!filled.length) return undefined;
  return Object.fromEntries(filled.map((f) => [f.key, Number.isFinite(Number(lorry[f.key])) ? Number(lorry[f.key]) : lorry[f.key]]));
}

type Waypoint = { latitude: number; longitude: number; poi?: Poi };

/** The classes of ways a route may keep off (the API's `exclude`), and the profiles that take each. */
const EXCLUSIONS = [
  { value: 'toll', label: 'toll roads', motorOnly: true },
  { value: 'motorway', label: 'motorways', motorOnly: true },
  { value: 'ferry', label: 'ferries', motorOnly: false },
  { value: 'unpaved', label: 'unpaved ways', motorOnly: false },
];
const isMotor = (profile: string) => profile === 'driving-car' || profile === 'driving-hgv';
/** The languages the steps' instructions are offered in here (the API accepts more). */
const LANGUAGES = [
  { value: 'en', label: 'English' },
  { value: 'de', label: 'Deutsch' },
  { value: 'fr', label: 'Français' },
  { value: 'it', label: 'Italiano' },
  { value: 'es', label: 'Español' },
];
const NO_FILTER = { name: '', category_id: '', attribute: '', value: '' };

export function RoutingPage() {
  const [pois, setPois] = useState<Poi[]>([]);
  const [cats, setCats] = useState<Category[]>([]);
  const [waypoints, setWaypoints] = useState<Waypoint[]>([]);
  const [profile, setProfile] = useState('driving-car');
  const [lorry, setLorry] = useState<LorrySize>(NO_LORRY);
  const [clickMode, setClickMode] = useState<'waypoint' | 'avoid' | 'area'>('waypoint');
  const [exclude, setExclude] = useState<string[]>([]);
  /** The corners of the area to keep out of, [lon, lat], in the order clicked. */
  const [area, setArea] = useState<Array<[number, number]>>([]);
  const [alternatives, setAlternatives] = useState('0');
  const [curb, setCurb] = useState(false);
  const [avoidOn, setAvoidOn] = useState(false);
  const [avoidCategory, setAvoidCategory] = useState('');
  const [radius, setRadius] = useState('50');
  const [picked, setPicked] = useState<string[]>([]);
  const [language, setLanguage] = useState('en');
  /** The step highlighted on the map: [leg, step]. */
  const [chosen, setChosen] = useState<[number, number]>();
  const { result: route, setResult: setRoute, error, setError, busy, run } = useRequest<RouteResult>();
  const [map, setMap] = useState<{ map: MapLibreMap; lib: MapLib }>();
  const errors = fieldErrorsOf(error);

  // The map's click handler is registered once: it reads the page's state through this.
  const state = useRef({ clickMode, pois });
  state.current = { clickMode, pois };

  useEffect(() => {
    loadPois(NO_FILTER).then((r) => setPois(r.pois), setError);
    listAll<Category>('/v1/categories').then(setCats, setError);
  }, []);

  useEffect(() => {
    if (!map) return;
    const { map: m } = map;
    overlay(m, 'route-pois', poiFeatures(pois), [
      {
        id: 'route-pois',
        type: 'circle',
        paint: {
          'circle-color': ['case', ['boolean', ['get', 'picked'], false], '#b91c1c', '#6b7280'],
          'circle-radius': 6,
          'circle-stroke-color': '#fff',
          'circle-stroke-width': 2,
        },
      },
    ]);
    const onClick = (e: MapMouseEvent) => {
      const hit = m.queryRenderedFeatures(e.point, { layers: ['route-pois'] })[0];
      const poi = hit ? state.current.pois.find((p) => p.id === hit.properties.id) : undefined;
      if (state.current.clickMode === 'avoid') {
        if (poi) setPicked((ids) => (ids.includes(poi.id) ? ids.filter((i) => i !== poi.id) : [...ids, poi.id]));
        return;
      }
      if (state.current.clickMode === 'area') {
        setArea((a) => (a.length >= 50 ? a : [...a, [e.lngLat.lng, e.lngLat.lat]]));
        return;
      }
      setWaypoints((w) =>
        w.length >= 50 ? w : [...w, poi ? { latitude: poi.latitude, longitude: poi.longitude, poi } : { latitude: e.lngLat.lat, longitude: e.lngLat.lng }],
      );
    };
    m.on('click', onClick);
    return () => {
      m.off('click', onClick);
    };
  }, [map, pois]);

  // What the map shows: the POIs (picked ones in red), the waypoints, the route and the avoided circles.
  useEffect(() => {
    if (!map) return;
    const { map: m } = map;
    overlay(
      m,
      'route-pois',
      featureCollection(poiFeatures(pois).features.map((f) => ({ ...f, properties: { ...f.properties, picked: picked.includes(f.properties!.id) } }))),
      [],
    );
    const byId = new Map(pois.map((p) => [p.id, p]));
    const circles = route?.avoided
      ? route.avoided.poi_ids.flatMap((id) => {
          const p = byId.get(id);
          return p ? [circle(p.longitude, p.latitude, route.avoided!.radius)] : [];
        })
      : [];
    overlay(m, 'avoided', featureCollection(circles), [
      { id: 'avoided-fill', type: 'fill', paint: { 'fill-color': '#b91c1c', 'fill-opacity': 0.18 } },
      { id: 'avoided-line', type: 'line', paint: { 'line-color': '#b91c1c', 'line-width': 1.5 } },
    ]);
    // The area to keep out of: its outline while it has fewer than 3 corners, filled from then on.
    const ring = area.length >= 3 ? [...area, area[0]] : area;
    overlay(
      m,
      'avoid-area',
      featureCollection(
        area.length >= 3
          ? [{ type: 'Feature', geometry: { type: 'Polygon', coordinates: [ring] }, properties: {} }]
          : area.length
            ? [{ type: 'Feature', geometry: { type: 'LineString', coordinates: area.length === 1 ? [area[0], area[0]] : ring }, properties: {} }]
            : [],
      ),
      [
        { id: 'avoid-area-fill', type: 'fill', paint: { 'fill-color': '#b91c1c', 'fill-opacity': 0.15 } },
        { id: 'avoid-area-line', type: 'line', paint: { 'line-color': '#b91c1c', 'line-width': 2, 'line-dasharray': [2, 1] } },
      ],
    );
    // Alternatives in a second colour, under the main route.
    overlay(m, 'route-alternatives', featureCollection((route?.alternatives ?? []).map((a) => ({ type: 'Feature', geometry: a.geometry, properties: {} }))), [
      { id: 'route-alt-casing', type: 'line', layout: { 'line-join': 'round', 'line-cap': 'round' }, paint: { 'line-color': '#ffffff', 'line-width': 7 } },
      { id: 'route-alt-line', type: 'line', layout: { 'line-join': 'round', 'line-cap': 'round' }, paint: { 'line-color': '#7c3aed', 'line-width': 4 } },
    ]);
    overlay(m, 'route', featureCollection(route ? [{ type: 'Feature', geometry: route.geometry, properties: {} }] : []), [
      { id: 'route-casing', type: 'line', layout: { 'line-join': 'round', 'line-cap': 'round' }, paint: { 'line-color': '#ffffff', 'line-width': 8 } },
      { id: 'route-line', type: 'line', layout: { 'line-join': 'round', 'line-cap': 'round' }, paint: { 'line-color': '#1d4ed8', 'line-width': 5 } },
    ]);
    // The chosen step's stretch of the route, over the route's line.
    const step = chosen && route?.legs[chosen[0]]?.steps?.[chosen[1]];
    overlay(m, 'route-step', featureCollection(step ? [{ type: 'Feature', geometry: step.geometry, properties: {} }] : []), [
      { id: 'route-step', type: 'line', layout: { 'line-join': 'round', 'line-cap': 'round' }, paint: { 'line-color': '#f59e0b', 'line-width': 7 } },
    ]);
    overlay(m, 'waypoints', featureCollection(waypoints.map((w, i) => point(w.longitude, w.latitude, { n: String(i + 1) }))), [
      { id: 'waypoints', type: 'circle', paint: { 'circle-color': '#111827', 'circle-radius': 10, 'circle-stroke-color': '#fff', 'circle-stroke-width': 2 } },
      {
        id: 'waypoint-numbers',
        type: 'symbol',
        layout: { 'text-field': ['get', 'n'], 'text-font': ['Noto Sans Bold'], 'text-size': 12, 'text-allow-overlap': true },
        paint: { 'text-color': '#fff' },
      },
    ]);
  }, [map, pois, picked, route, waypoints, chosen, area]);

  const plan = async (e: Event) => {
    e.preventDefault();
    const body: Record<string, unknown> = {
      profile,
      waypoints: waypoints.map((w) => (w.poi ? { poi_id: w.poi.id } : { latitude: w.latitude, longitude: w.longitude })),
      steps: true,
      language,
    };
    const vehicle = profile === 'driving-hgv' ? vehicleOf(lorry) : undefined;
    if (vehicle) body.vehicle = vehicle;
    const classes = exclude.filter((c) => isMotor(profile) || !EXCLUSIONS.find((x) => x.value === c)?.motorOnly);
    if (classes.length) body.exclude = classes;
    const avoid: Record<string, unknown> = {};
    if (avoidOn || picked.length) {
      avoid.radius = Number(radius) || radius;
      if (avoidCategory) avoid.category_id = avoidCategory;
      if (picked.length) avoid.poi_ids = picked;
    }
    if (area.length >= 3) avoid.polygons = { type: 'Polygon', coordinates: [[...area, area[0]]] };
    if (Object.keys(avoid).length) body.avoid = avoid;
    if (alternatives !== '0' && waypoints.length === 2) body.alternatives = Number(alternatives);
    if (curb) {
      const w = body.waypoints as Array<Record<string, unknown>>;
      w[w.length - 1] = { ...w[w.length - 1], approach: 'curb' };
    }
    setChosen(undefined);
    const r = await run(async () => (await call<{ data: RouteResult }>('POST', '/v1/routes', body)).data);
    if (r && map) fitTo(map.map, map.lib, r.geometry.coordinates);
  };

  /** Highlights a step's stretch and brings it into view. */
  const choose = (leg: number, i: number) => {
    setChosen([leg, i]);
    const step = route?.legs[leg]?.steps?.[i];
    if (step && map && step.distance > 0) fitTo(map.map, map.lib, step.geometry.coordinates);
  };

  const hasSteps = route?.legs.some((l) => l.steps?.length) ?? false;
  // The map shares its row with the directions once there are some: it is told of its new width.
  useEffect(() => {
    map?.map.resize();
  }, [map, hasSteps]);

  const label = (w: Waypoint) => (w.poi ? w.poi.name : `${w.latitude.toFixed(5)}, ${w.longitude.toFixed(5)}`);
  return (
    <>
      <PageHeading>Routing</PageHeading>
      <p class="hint">Routes planned here go through your dashboard session: they do not count towards the team's quota.</p>
      <Message error={error} />
      <div class="map-layout">
        <form class="card side" onSubmit={plan} aria-label="Plan a route" noValidate>
          <fieldset>
            <legend>Clicking the map</legend>
            <label class="check">
              <input type="radio" name="click-mode" checked={clickMode === 'waypoint'} onChange={() => setClickMode('waypoint')} /> adds a waypoint (a POI when
              one is clicked)
            </label>
            <label class="check">
              <input type="radio" name="click-mode" checked={clickMode === 'avoid'} onChange={() => setClickMode('avoid')} /> picks a POI to avoid
            </label>
            <label class="check">
              <input type="radio" name="click-mode" checked={clickMode === 'area'} onChange={() => setClickMode('area')} /> draws an area to avoid (click its
              corners)
            </label>
          </fieldset>
          <h2>Waypoints</h2>
          {errors.waypoints && <p class="field-error">{errors.waypoints.join('; ')}</p>}
          {waypoints.length === 0 ? (
            <p>Click the map to add the start, then the next stops.</p>
          ) : (
            <ol class="waypoints">
              {waypoints.map((w, i) => (
                <li key={i}>
                  <span>{label(w)}</span>
                  {(errors[`waypoints.${i}`] ?? []).map((m) => (
                    <small key={m} class="field-error">
                      {' '}
                      {m}
                    </small>
                  ))}
                  <button type="button" class="link" aria-label={`Remove waypoint ${i + 1}`} onClick={() => setWaypoints(waypoints.filter((_, j) => j !== i))}>
                    Remove
                  </button>
                </li>
              ))}
            </ol>
          )}
          <Field id="route-language" label="Directions in" errors={errors.language}>
            <select {...described('route-language', errors.language)} value={language} onChange={(e) => setLanguage(e.currentTarget.value)}>
              {LANGUAGES.map((l) => (
                <option key={l.value} value={l.value}>
                  {l.label}
                </option>
              ))}
            </select>
          </Field>
          <Field id="route-profile" label="Profile" errors={errors.profile}>
            <select {...described('route-profile', errors.profile)} value={profile} onChange={(e) => setProfile(e.currentTarget.value)}>
              {PROFILES.map((p) => (
                <option key={p.value} value={p.value}>
                  {p.label}
                </option>
              ))}
            </select>
          </Field>
          {profile === 'driving-hgv' && (
            <fieldset>
              <legend>Lorry size</legend>
              <p class="hint">Empty fields take the default lorry's size. A smaller lorry may take ways the default one is too big for.</p>
              {errors.vehicle && <p class="field-error">{errors.vehicle.join('; ')}</p>}
              {LORRY_FIELDS.map((f) => (
                <Field key={f.key} id={`lorry-${f.key}`} label={f.label} errors={errors[`vehicle.${f.key}`]}>
                  <input
                    {...described(`lorry-${f.key}`, errors[`vehicle.${f.key}`])}
                    inputMode="decimal"
                    value={lorry[f.key]}
                    onInput={(e) => setLorry({ ...lorry, [f.key]: e.currentTarget.value })}
                  />
                </Field>
              ))}
            </fieldset>
          )}
          <fieldset>
            <legend>Keep off</legend>
            {EXCLUSIONS.filter((x) => isMotor(profile) || !x.motorOnly).map((x, i) => (
              <label key={x.value} class="check">
                <input
                  type="checkbox"
                  checked={exclude.includes(x.value)}
                  onChange={(e) => setExclude(e.currentTarget.checked ? [...exclude, x.value] : exclude.filter((c) => c !== x.value))}
                />{' '}
                {x.label}
                {(errors[`exclude.${i}`] ?? []).map((m) => (
                  <small key={m} class="field-error">
                    {' '}
                    {m}
                  </small>
                ))}
              </label>
            ))}
            <p class="hint">
              {area.length === 0
                ? 'No area drawn.'
                : area.length < 3
                  ? `${area.length} corner${area.length === 1 ? '' : 's'} of an area: click at least 3.`
                  : `An area of ${area.length} corners is avoided.`}
            </p>
            {errors['avoid.polygons'] && <p class="field-error">{errors['avoid.polygons'].join('; ')}</p>}
            {area.length > 0 && (
              <button type="button" onClick={() => setArea([])}>
                Clear area
              </button>
            )}
          </fieldset>
          <fieldset>
            <legend>Arrival</legend>
            <label class="check">
              <input type="checkbox" checked={curb} onChange={(e) => setCurb(e.currentTarget.checked)} /> arrive with the destination on the right side of the
              street (curbside)
            </label>
            <Field id="route-alternatives" label="Alternative routes (2 waypoints)" errors={errors.alternatives}>
              <select {...described('route-alternatives', errors.alternatives)} value={alternatives} onChange={(e) => setAlternatives(e.currentTarget.value)}>
                {['0', '1', '2', '3'].map((n) => (
                  <option key={n} value={n}>
                    {n === '0' ? 'None' : n}
                  </option>
                ))}
              </select>
            </Field>
          </fieldset>
          <fieldset>
            <legend>Avoid POIs</legend>
            <label class="check">
              <input type="checkbox" checked={avoidOn} onChange={(e) => setAvoidOn(e.currentTarget.checked)} /> avoid the team's POIs around the route
            </label>
            <Field id="avoid-category" label="Only POIs of category" errors={errors['avoid.category_id']}>
              <select
                {...described('avoid-category', errors['avoid.category_id'])}
                value={avoidCategory}
                onChange={(e) => setAvoidCategory(e.currentTarget.value)}
              >
                <option value="">Any category</option>
                {cats.map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.name}
                  </option>
                ))}
              </select>
            </Field>
            <Field id="avoid-radius" label="Radius (meters, 10 to 500)" errors={errors['avoid.radius']}>
              <input
                {...described('avoid-radius', errors['avoid.radius'])}
                inputMode="numeric"
                value={radius}
                onInput={(e) => setRadius(e.currentTarget.value)}
              />
            </Field>
            <p class="hint">
              {picked.length
                ? `${picked.length} POI${picked.length === 1 ? '' : 's'} picked on the map: only ${picked.length === 1 ? 'it is' : 'they are'} avoided.`
                : 'No POI picked on the map.'}
            </p>
            {picked.length > 0 && (
              <button type="button" onClick={() => setPicked([])}>
                Clear picked POIs
              </button>
            )}
          </fieldset>
          <div class="actions">
            <button
              type="button"
              onClick={() => {
                setWaypoints([]);
                setRoute(undefined);
                setError(undefined);
              }}
            >
              Clear
            </button>
            <button type="submit" class="primary" disabled={busy || waypoints.length < 2}>
              {busy ? 'Planning…' : 'Plan route'}
            </button>
          </div>
        </form>
        <div class="map-column">
          <div class={hasSteps ? 'map-with-steps' : undefined}>
            <BaseMap label="Routing map: click to add waypoints" onReady={(m, lib) => setMap({ map: m, lib })} />
            {route && hasSteps && (
              <aside class="card steps-panel" aria-labelledby="steps-title">
                <h2 id="steps-title">Directions</h2>
                <p class="hint">Click a step to see its stretch on the map.</p>
                {route.legs.map((l, leg) => (
                  <ol key={leg} class="steps" aria-label={route.legs.length > 1 ? `Leg ${leg + 1}` : 'Steps'}>
                    {(l.steps ?? []).map((st, i) => (
                      <li key={i} class={chosen && chosen[0] === leg && chosen[1] === i ? 'chosen' : undefined}>
                        <button
                          type="button"
                          class="link"
                          aria-pressed={chosen !== undefined && chosen[0] === leg && chosen[1] === i}
                          onClick={() => choose(leg, i)}
                        >
                          {st.instruction ?? `${st.maneuver.type} ${st.maneuver.modifier ?? ''} ${st.name}`}
                        </button>
                        {st.distance > 0 && <small> {km(st.distance)}</small>}
                      </li>
                    ))}
                  </ol>
                ))}
              </aside>
            )}
          </div>
          {route && (
            <section class="card" aria-labelledby="route-title">
              <h2 id="route-title">
                Route: {km(route.distance)}, {minutes(route.duration)}
              </h2>
              {route.alternatives && route.alternatives.length > 0 && (
                <p class="alternatives">
                  Alternatives (violet on the map): {route.alternatives.map((a, i) => `${i ? ', ' : ''}${km(a.distance)} in ${minutes(a.duration)}`).join('')}.
                </p>
              )}
              {route.alternatives && route.alternatives.length === 0 && <p>No alternative route differs enough from this one.</p>}
              {route.avoided?.polygons ? <p>Kept out of the area drawn{route.avoided.polygons > 1 ? `s (${route.avoided.polygons})` : ''}.</p> : null}
              {route.avoided && (route.avoided.count > 0 || !route.avoided.polygons) && (
                <p>
                  Avoided {route.avoided.count} POI{route.avoided.count === 1 ? '' : 's'} by {route.avoided.radius} m
                  {route.avoided.skipped_poi_ids.length ? ` (${route.avoided.skipped_poi_ids.length} skipped: within the radius of a waypoint)` : ''}.
                </p>
              )}
              <table>
                <TableHead columns={['Leg', 'From', 'To', 'Distance', 'Duration']} />
                <tbody>
                  {route.legs.map((l, i) => (
                    <tr key={i}>
                      <td>{i + 1}</td>
                      <td>{label(waypoints[l.from] ?? { latitude: 0, longitude: 0 })}</td>
                      <td>{label(waypoints[l.to] ?? { latitude: 0, longitude: 0 })}</td>
                      <td class="num">{km(l.distance)}</td>
                      <td class="num">{minutes(l.duration)}</td>
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
