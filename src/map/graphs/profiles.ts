// Access, direction and speed rules of the four routing profiles, read from OSM way and node tags. The
// rules follow OSRM's car, bicycle and foot profiles (whose feature files `npm run peer:osrm` runs against
// these), except where docs/decisions.md says Waymark differs on purpose. They read the tags the OSM stage
// keeps (osm/road-tags.ts) and nothing else.
import type { RoadGraph } from './road-graph.js';

export type ProfileName = 'driving-car' | 'driving-hgv' | 'cycling-regular' | 'foot-walking';
export const PROFILES: readonly ProfileName[] = ['driving-car', 'driving-hgv', 'cycling-regular', 'foot-walking'];

type Tags = Record<string, string>;

/** Speeds in km/h for travel along (forward) and against (backward) the way's node order; 0 = not allowed. */
export interface WayAccess {
  forward: number;
  backward: number;
  /** Bicycle: the bike is pushed that way (a footway, against a oneway), at walking speed: OSRM's mode `pushing bike`. */
  pushedForward?: boolean;
  pushedBackward?: boolean;
}

/** The size of the vehicle a motor profile routes; ways and barriers below these limits are closed to it. */
export interface VehicleSize {
  heightM: number;
  widthM: number;
  lengthM: number;
  weightT: number;
}

interface Profile {
  /** Default speed per usable highway class. */
  speeds: Record<string, number>;
  /** Access keys from the most specific to the most general; the first present decides (per direction). */
  accessKeys: string[];
  /** Access values that close a way or node to the profile (a list closes it only if every value does). */
  deny: ReadonlySet<string>;
  /** Values that open any way, even of a class the profile does not use (a runway with motorcar=yes). */
  allow: ReadonlySet<string>;
  /** Values allowed only on the profile's own classes and slowed down: through traffic avoids them. */
  restricted: ReadonlySet<string>;
  /** km/h on a way of another class that the access tags open. */
  openedSpeed: number;
  /** Classes never used, whatever the access tags say. */
  never: ReadonlySet<string>;
  /** oneway keys from specific to general; null: oneways do not apply (only `oneway:foot` for walking). */
  onewayKeys: string[];
  /** Motorways and roundabouts are oneway without a tag (not for walking). */
  impliedOneway: boolean;
  /** Steps show a oneway road's destination signs: OSRM's car.lua and foot.lua run its destinations
   *  handler, bicycle.lua does not. */
  showsDestinations: boolean;
  usesMaxspeed: boolean;
  maxSpeed: number;
  /** Motor vehicles: the size checked against physical limits of ways and barriers. */
  vehicle?: VehicleSize;
  /** Which restriction tags apply (`restriction:<vehicle>` before `restriction`), and `except` values that exempt us. */
  restrictionVehicle?: string;
  exceptValues?: string[];
}

/**
 * Ferries and car trains are ways of their own pseudo-class (`route=ferry` before any `highway`), at OSRM's
 * route speeds unless the way's `duration` sets the time of the whole crossing (the map build turns it into
 * a speed once the way's length is known).
 */
export const FERRY = 'route=ferry',
  SHUTTLE_TRAIN = 'route=shuttle_train';
const ROUTE_CLASSES: Record<string, string> = { ferry: FERRY, shuttle_train: SHUTTLE_TRAIN };

const CAR_SPEEDS: Record<string, number> = {
  [FERRY]: 5,
  [SHUTTLE_TRAIN]: 10,
  motorway: 120,
  motorway_link: 60,
  trunk: 100,
  trunk_link: 50,
  primary: 80,
  primary_link: 50,
  secondary: 70,
  secondary_link: 50,
  tertiary: 60,
  tertiary_link: 40,
  unclassified: 50,
  residential: 40,
  living_street: 10,
  service: 20,
  road: 30,
  winter_road: 30,
  ice_road: 30,
};
const WALK = 5;
/** km/h on ways with restricted access (private, delivery, customers). */
const RESTRICTED_KMH = 10;
/** Classes where a cyclist pushes the bike, at walking speed. */
const PUSH_CLASSES = new Set(['footway', 'pedestrian', 'steps', 'platform', 'corridor']);
/** Classes pedestrians cannot use, so a cyclist cannot push there either (against a oneway). */
const NO_PEDESTRIANS = new Set(['motorway', 'motorway_link', 'trunk', 'trunk_link']);
const NEVER_MOTOR = new Set(['steps', 'construction', 'proposed', 'abandoned', 'platform', 'via_ferrata']);
const NEVER = new Set(['construction', 'proposed', 'abandoned', 'razed']);
const ALLOW = new Set(['yes', 'designated', 'permissive']);
const COMMON_DENY = ['no', 'agricultural', 'forestry', 'emergency', 'military', 'use_sidepath', 'restricted'];

/** Car and lorry: the same rules but for their own access and oneway key, top speed and size. */
function motorProfile(own: string, other: string, maxSpeed: number, vehicle: VehicleSize): Profile {
  return {
    speeds: CAR_SPEEDS,
    accessKeys: [own, 'motor_vehicle', 'vehicle', 'access'],
    deny: new Set([...COMMON_DENY, 'psv', 'bus', 'taxi', 'share_taxi', 'minibus', 'foot', 'bicycle', 'official', 'emergency_vehicle', other]),
    allow: new Set([...ALLOW, own, 'motor_vehicle', 'vehicle']),
    restricted: new Set(['private', 'delivery', 'destination', 'customers']),
    openedSpeed: 10,
    never: NEVER_MOTOR,
    onewayKeys: [`oneway:${own}`, 'oneway:motor_vehicle', 'oneway:vehicle', 'oneway'],
    impliedOneway: true,
    showsDestinations: true,
    usesMaxspeed: true,
    maxSpeed,
    vehicle,
    restrictionVehicle: own,
    exceptValues: [own, 'motor_vehicle', 'vehicle'],
  };
}

const PROFILE_RULES: Record<ProfileName, Profile> = {
  'driving-car': motorProfile('motorcar', 'hgv', 130, { heightM: 2.0, widthM: 1.9, lengthM: 4.8, weightT: 2.0 }),
  'driving-hgv': motorProfile('hgv', 'motorcar', 80, { heightM: 4.0, widthM: 2.55, lengthM: 16.5, weightT: 40 }),
  'cycling-regular': {
    speeds: {
      [FERRY]: 5,
      primary: 18,
      primary_link: 18,
      secondary: 18,
      secondary_link: 18,
      tertiary: 18,
      tertiary_link: 18,
      unclassified: 16,
      residential: 16,
      living_street: 10,
      service: 14,
      cycleway: 18,
      track: 12,
      path: 12,
    },
    accessKeys: ['bicycle', 'vehicle', 'access'],
    deny: new Set([...COMMON_DENY, 'private', 'delivery', 'customers']),
    allow: ALLOW,
    restricted: new Set(),
    openedSpeed: 12,
    never: NEVER,
    onewayKeys: ['oneway:bicycle', 'oneway'],
    impliedOneway: true,
    showsDestinations: false,
    usesMaxspeed: false,
    maxSpeed: 30,
  },
  'foot-walking': {
    speeds: {
      [FERRY]: 5,
      primary: 5,
      primary_link: 5,
      secondary: 5,
      secondary_link: 5,
      tertiary: 5,
      tertiary_link: 5,
      unclassified: 5,
      residential: 5,
      living_street: 5,
      service: 5,
      track: 5,
      path: 5,
      footway: 5,
      pedestrian: 5,
      steps: 3,
      corridor: 5,
      platform: 5,
      pier: 5,
    },
    accessKeys: ['foot', 'access'],
    deny: new Set([...COMMON_DENY, 'private', 'delivery', 'customers']),
    allow: ALLOW,
    restricted: new Set(),
    openedSpeed: 5,
    never: NEVER,
    onewayKeys: ['oneway:foot'],
    impliedOneway: false,
    showsDestinations: true,
    usesMaxspeed: false,
    maxSpeed: 5,
  },
};

/** km/h for zone values such as "CH:urban" (the country prefix varies, the zones mostly do not). */
const ZONE_SPEEDS: Record<string, number> = {
  urban: 50,
  rural: 80,
  motorway: 120,
  trunk: 100,
  living_street: 20,
  walk: 7,
  zone30: 30,
  zone20: 20,
  bicycle_road: 30,
};

/** Parses `maxspeed` values: "50", "30 mph", "50 km/h", "CH:urban", "walk"; null when unusable ("none", "signals"). */
export function parseMaxspeed(value: string | undefined): number | null {
  if (!value) return null;
  const v = value.trim().toLowerCase();
  const m = /^(\d+(?:\.\d+)?)\s*(mph|km\/h|kmh|kph|knots)?$/.exec(v);
  if (m) {
    const n = Number(m[1]);
    if (n <= 0) return null;
    return m[2] === 'mph' ? n * 1.609344 : m[2] === 'knots' ? n * 1.852 : n;
  }
  if (v === 'walk') return ZONE_SPEEDS.walk;
  const zone = /^[a-z]{2}:(.+)$/.exec(v);
  if (zone) {
    const name = zone[1].replace(/^zone:?/, 'zone');
    return ZONE_SPEEDS[name] ?? null;
  }
  return null;
}

/** Meters from "2.5", "2.5 m", "3m", "6'", "6'2\"", "12 ft"; null for "default", "none", "unsigned" and other words. */
export function parseMeters(value: string | undefined): number | null {
  if (!value) return null;
  const v = value.trim().toLowerCase();
  let m = /^(\d+(?:\.\d+)?)\s*(m)?$/.exec(v);
  if (m) return Number(m[1]);
  m = /^(\d+(?:\.\d+)?)\s*(?:'|ft)\s*(?:(\d+(?:\.\d+)?)\s*(?:"|in)?)?$/.exec(v);
  if (m) return Number(m[1]) * 0.3048 + (m[2] ? Number(m[2]) * 0.0254 : 0);
  return null;
}

/** Tonnes from "3.5", "8.9t", "35000 kg", "0.1 lbs", "5 st" (short tons); null for words. */
export function parseTonnes(value: string | undefined): number | null {
  if (!value) return null;
  const m = /^(\d+(?:\.\d+)?)\s*(t|kg|lbs?|st)?$/.exec(value.trim().toLowerCase());
  if (!m) return null;
  const n = Number(m[1]);
  return m[2] === 'kg' ? n / 1000 : m[2] === 'lb' || m[2] === 'lbs' ? n * 0.00045359237 : m[2] === 'st' ? n * 0.90718474 : n;
}

type Verdict = 'allow' | 'restricted' | 'deny' | 'neutral';

/**
 * What an access value means to a profile. A list ("destination;agricultural") takes its most permissive
 * part: an allowing value wins, then a restricted one; it denies only if every part denies.
 */
function verdict(value: string | undefined, rules: Profile): Verdict | null {
  if (value === undefined) return null;
  const parts = value.split(';').map((s) => s.trim());
  if (parts.some((p) => rules.allow.has(p))) return 'allow';
  if (parts.some((p) => rules.restricted.has(p))) return 'restricted';
  if (parts.every((p) => rules.deny.has(p))) return 'deny';
  return 'neutral';
}

/**
 * The value a `…:conditional` tag gives now, when we can tell: rules "value @ (condition)" separated by
 * `;`, the last that applies winning (OSM's convention). A condition on the vehicle (`weight>7.5`,
 * `height>3`, `length>12`, `width>2.2`, joined by `AND`) is checked against the profile's vehicle; a
 * condition we cannot evaluate (times, days, seasons, `wet`, occupants) leaves that rule out, because a
 * route has no departure time: the unconditional tag decides, as in OSRM, which reads no access condition.
 */
export function conditionalValue(value: string | undefined, vehicle: VehicleSize | undefined): string | undefined {
  if (!value) return undefined;
  let out: string | undefined;
  // Split at ";" outside parentheses: opening hours inside a condition use ";" too.
  const rules: string[] = [];
  let depth = 0,
    start = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (c === ';' && depth === 0) {
      rules.push(value.slice(start, i));
      start = i + 1;
    }
  }
  rules.push(value.slice(start));
  for (const rule of rules) {
    const at = rule.indexOf('@');
    if (at < 0) continue;
    const v = rule.slice(0, at).trim();
    const cond = rule
      .slice(at + 1)
      .trim()
      .replace(/^\((.*)\)$/s, '$1')
      .trim();
    if (!v || !cond) continue;
    const parts = cond.split(/\s+AND\s+/i);
    if (parts.every((c) => vehicleCondition(c, vehicle) === true)) out = v;
  }
  return out;
}

/** Whether a vehicle condition ("weight>7.5", "height >= 3 m") holds; null when it is not one or there is no vehicle. */
function vehicleCondition(cond: string, vehicle: VehicleSize | undefined): boolean | null {
  const m = /^(weight|maxweight|height|length|width)\s*(<=|>=|<|>|=)\s*(.+)$/i.exec(cond.trim());
  if (!m || !vehicle) return null;
  const what = m[1].toLowerCase();
  const limit = what.endsWith('weight') ? parseTonnes(m[3]) : parseMeters(m[3]);
  if (limit === null) return null;
  const ours = what.endsWith('weight') ? vehicle.weightT : what === 'height' ? vehicle.heightM : what === 'length' ? vehicle.lengthM : vehicle.widthM;
  switch (m[2]) {
    case '<':
      return ours < limit;
    case '<=':
      return ours <= limit;
    case '>':
      return ours > limit;
    case '>=':
      return ours >= limit;
    default:
      return ours === limit;
  }
}

/**
 * The deciding access value in one direction: per key from specific to general, `key:<dir>` before `key`,
 * and at each key a conditional value that applies (see conditionalValue) before the plain one.
 */
function accessIn(tags: Tags, keys: string[], dir: 'forward' | 'backward', vehicle?: VehicleSize): string | undefined {
  for (const k of keys) {
    const n = keyNames(k, dir);
    const cond = tags[n.dirConditional] ?? tags[n.conditional];
    const v = (cond === undefined ? undefined : conditionalValue(cond, vehicle)) ?? tags[n.dir] ?? tags[k];
    if (v !== undefined) return v;
  }
  return undefined;
}

/** The derived key names of an access key, made once (the map build asks for them per way and profile). */
interface KeyNames {
  dir: string;
  dirConditional: string;
  conditional: string;
}
const KEY_NAMES = { forward: new Map<string, KeyNames>(), backward: new Map<string, KeyNames>() };
function keyNames(k: string, dir: 'forward' | 'backward'): KeyNames {
  let n = KEY_NAMES[dir].get(k);
  if (!n) KEY_NAMES[dir].set(k, (n = { dir: `${k}:${dir}`, dirConditional: `${k}:${dir}:conditional`, conditional: `${k}:conditional` }));
  return n;
}

type Direction = 'both' | 'forward' | 'backward' | 'none';

const ONEWAY_YES = new Set(['yes', '1', 'true']);
const ONEWAY_NO = new Set(['no', '0', 'false', 'alternating']);

function onewayOf(tags: Tags, highway: string, rules: Profile): Direction {
  for (const key of rules.onewayKeys) {
    const v = tags[key];
    if (v === undefined) continue;
    if (ONEWAY_YES.has(v)) return 'forward';
    if (v === '-1' || v === 'reverse') return 'backward';
    if (v === 'reversible') return 'none';
    if (ONEWAY_NO.has(v)) return 'both';
  }
  if (!rules.impliedOneway) return 'both';
  if (tags.junction === 'roundabout' || tags.junction === 'circular') return 'forward';
  if (highway === 'motorway') return 'forward';
  return 'both';
}

/**
 * Which way along a road a profile reads its destination signs (road-signs.ts `destinationsOf`): the way it
 * may go on a road that is oneway for it (OSRM's destinations handler); none on a two-way road, where
 * OSRM takes the signs for mis-tagged, nor for a profile that shows none.
 */
export function signsDirection(profile: ProfileName, tags: Tags): 'forward' | 'backward' | null {
  const rules = PROFILE_RULES[profile];
  if (!rules.showsDestinations) return null;
  const dir = onewayOf(tags, tags.highway ?? '', rules);
  return dir === 'forward' || dir === 'backward' ? dir : null;
}

const CYCLEWAY_KEYS = ['cycleway', 'cycleway:both', 'cycleway:left', 'cycleway:right'];
const CYCLEWAY_VALUES = new Set([
  'track',
  'lane',
  'shared',
  'share_busway',
  'sharrow',
  'shared_lane',
  'opposite',
  'opposite_lane',
  'opposite_track',
  'opposite_share_busway',
]);

/** The smallest physical limit among `keys` (in the unit `parse` gives), or null. */
function limit(tags: Tags, keys: string[], parse: (v: string | undefined) => number | null): number | null {
  let min: number | null = null;
  for (const k of keys) {
    const v = parse(tags[k]);
    if (v !== null && (min === null || v < min)) min = v;
  }
  return min;
}

/** A way's physical limits; Infinity where it has none. */
export interface WayLimits {
  heightM: number;
  widthM: number;
  lengthM: number;
  weightT: number;
}

/** The way's width, height, length and weight limits, or null when it has none. */
export function wayLimits(tags: Tags): WayLimits | null {
  const width = limit(tags, ['maxwidth:physical', 'maxwidth', 'width', 'est_width'], parseMeters);
  const height = limit(tags, ['maxheight:physical', 'maxheight'], parseMeters);
  const length = limit(tags, ['maxlength'], parseMeters);
  const weight = limit(tags, ['maxweight', 'maxweightrating'], parseTonnes);
  if (width === null && height === null && length === null && weight === null) return null;
  return { heightM: height ?? Infinity, widthM: width ?? Infinity, lengthM: length ?? Infinity, weightT: weight ?? Infinity };
}

/** Whether limits keep the vehicle out: a width at or below the vehicle's (it needs room), any other below. */
export function exceeds(v: VehicleSize, l: WayLimits): boolean {
  return l.widthM <= v.widthM || l.heightM < v.heightM || l.lengthM < v.lengthM || l.weightT < v.weightT;
}

/** Whether a way's width, height, length or weight limit keeps the vehicle out. */
function tooSmall(tags: Tags, v: VehicleSize): boolean {
  const l = wayLimits(tags);
  return l !== null && exceeds(v, l);
}

/** The smallest lorry a route request may describe: the `driving-hgv` graph holds every way it fits. */
export const SMALLEST_LORRY: Readonly<VehicleSize> = Object.freeze({ heightM: 1, widthM: 1, lengthM: 1, weightT: 0.5 });

/** The geometries of a graph whose physical limits keep the vehicle out, ascending. */
export function geometriesClosedTo(g: Pick<RoadGraph, 'limitGeom' | 'limitValue'>, v: VehicleSize): Uint32Array {
  const out: number[] = [];
  const lv = g.limitValue;
  for (let i = 0; i < g.limitGeom.length; i++)
    if (exceeds(v, { heightM: lv[4 * i], widthM: lv[4 * i + 1], lengthM: lv[4 * i + 2], weightT: lv[4 * i + 3] })) out.push(g.limitGeom[i]);
  return Uint32Array.from(out);
}

/**
 * Whether a profile's graph carries turn guidance's record per geometry (`geomGuide`, road-guide.ts): the
 * driving graphs, whose far routes pass thousands of junctions. 12 bytes a geometry: all four graphs of the
 * 32x32 country would add ~0.24 GB to a map of 4.37 GB (its target is 4.5), the two driving ones ~0.09 GB;
 * the bicycle and foot graphs' steps read the shapes as before.
 */
export const guided = (profile: ProfileName): boolean => profile === 'driving-car' || profile === 'driving-hgv';

/** The lorry the `driving-hgv` hierarchy is built for, and the size a route request gets when it sets none. */
export function defaultVehicle(profile: ProfileName): VehicleSize | undefined {
  const v = PROFILE_RULES[profile].vehicle;
  return v && { ...v };
}

/**
 * Per direction: the km/h a profile may use a way at (0 when closed that way), and whether the access is
 * restricted (private, delivery, customers, destination: slowed down later, so that only trips that start
 * or end there use the way, as OSRM's penalty for entering such a way keeps through traffic out); for the
 * bicycle, whether the bike is pushed there.
 */
function directionSpeed(profile: ProfileName, rules: Profile, tags: Tags, highway: string, dir: 'forward' | 'backward'): [number, boolean, boolean?] {
  const value = accessIn(tags, rules.accessKeys, dir, rules.vehicle);
  const v = verdict(value, rules);
  if (v === 'deny') return [0, false];
  const classSpeed = rules.speeds[highway];
  if (classSpeed !== undefined) return [classSpeed, v === 'restricted'];
  if (v === 'allow') return [rules.openedSpeed, false];
  if (profile === 'cycling-regular') {
    if (CYCLEWAY_KEYS.some((k) => CYCLEWAY_VALUES.has(tags[k]))) return [rules.openedSpeed, false];
    // Where cycling is not allowed but walking is, the cyclist pushes the bike.
    const pedestrians = verdict(tags.foot, PROFILE_RULES['foot-walking']);
    if (pedestrians === 'deny') return [0, false];
    if (PUSH_CLASSES.has(highway) || (highway === 'bridleway' && pedestrians === 'allow')) return [WALK, false, true];
    if (highway === 'pier' && tags.highway === undefined) return [WALK, false, true];
  }
  return [0, false];
}

/** The pseudo-class of a ferry or car train way, or undefined. */
function routeClass(tags: Tags): string | undefined {
  const r = tags.route;
  return r === undefined ? undefined : ROUTE_CLASSES[r];
}

/**
 * Seconds from a `duration` value as OSRM reads it: "H:MM" / "HH:MM:SS" (hours first), "MM" (minutes) or
 * ISO 8601 ("PT1H30M", "P1DT2H"); null for anything else or zero.
 */
export function parseDuration(value: string | undefined): number | null {
  if (!value) return null;
  const v = value.trim();
  let s: number | null = null;
  let m = /^(\d+):(\d{1,2})(?::(\d{1,2}))?$/.exec(v);
  if (m) s = Number(m[1]) * 3600 + Number(m[2]) * 60 + (m[3] ? Number(m[3]) : 0);
  else if ((m = /^(\d+)$/.exec(v))) s = Number(m[1]) * 60;
  else if ((m = /^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i.exec(v)) && v.length > 1 && !/T$/i.test(v)) {
    s = Number(m[1] ?? 0) * 86400 + Number(m[2] ?? 0) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0);
  }
  return s !== null && s > 0 ? s : null;
}

/** Seconds a ferry or car train takes end to end by its `duration` tag (at least 1, as OSRM), or null. */
export function routeDuration(tags: Tags): number | null {
  if (routeClass(tags) === undefined) return null;
  const s = parseDuration(tags.duration);
  return s === null ? null : Math.max(1, s);
}

/** How a profile may use a way; null when it may not use it at all. */
export function wayAccess(profile: ProfileName, tags: Tags): WayAccess | null {
  const rules = PROFILE_RULES[profile];
  const route = routeClass(tags);
  const highway = route ?? tags.highway ?? (profile === 'cycling-regular' && tags.man_made === 'pier' ? 'pier' : undefined);
  if (!highway || rules.never.has(highway)) return null;
  // A profile without a speed for the route (walkers and cyclists on a car train) does not take it.
  if (route !== undefined && rules.speeds[route] === undefined) return null;
  if (tags.area === 'yes') return null;
  if (tags.construction !== undefined && !['no', 'widening', 'minor'].includes(tags.construction)) return null;
  if (profile === 'driving-car' || profile === 'driving-hgv') {
    if (tags.service === 'emergency_access') return null;
    // The lorry graph keeps the ways below the default lorry's size for smaller lorries (its hierarchy
    // keeps the default lorry off them); only those too small for any lorry a request may describe are out.
    const vehicle = profile === 'driving-hgv' ? SMALLEST_LORRY : rules.vehicle;
    if (vehicle && tooSmall(tags, vehicle)) return null;
  } else {
    if (tags.motorroad === 'yes') return null;
    // The road has its sidewalk or cycle track drawn as a way of its own: that way is the one to use.
    const own = profile === 'foot-walking' ? 'foot' : 'bicycle';
    const sideKeys = profile === 'foot-walking' ? ['sidewalk', 'sidewalk:both', 'sidewalk:left', 'sidewalk:right'] : CYCLEWAY_KEYS;
    if (tags[own] === undefined && sideKeys.some((k) => tags[k] === 'separate')) return null;
  }
  // A private service road is a driveway or a company's yard, not a way to anywhere else.
  if ((profile === 'driving-car' || profile === 'driving-hgv') && highway === 'service' && tags.access === 'private') return null;

  let [forward, slowForward, pushedForward = false] = directionSpeed(profile, rules, tags, highway, 'forward');
  let [backward, slowBackward, pushedBackward = false] = directionSpeed(profile, rules, tags, highway, 'backward');
  if (rules.usesMaxspeed && route === undefined) {
    const tagged = parseMaxspeed(tags.maxspeed);
    const f = parseMaxspeed(tags['maxspeed:forward']) ?? tagged;
    const b = parseMaxspeed(tags['maxspeed:backward']) ?? tagged;
    if (forward > 0 && f !== null) forward = f;
    if (backward > 0 && b !== null) backward = b;
  }
  forward = Math.min(forward, rules.maxSpeed);
  backward = Math.min(backward, rules.maxSpeed);
  if (slowForward) forward = Math.min(forward, RESTRICTED_KMH);
  if (slowBackward) backward = Math.min(backward, RESTRICTED_KMH);

  let dir = onewayOf(tags, highway, rules);
  if (profile === 'cycling-regular') {
    // Contraflow cycle lanes and tracks, and oneway:bicycle=no, open the way both ways.
    if (tags['oneway:bicycle'] === undefined && CYCLEWAY_KEYS.some((k) => /^opposite/.test(tags[k] ?? ''))) dir = 'both';
    if (dir === 'none') return null;
    // Against the oneway a cyclist pushes the bike where pedestrians may walk, but never round a roundabout
    // the wrong way (bicycle.lua's bike_push_handler: no push against an implied oneway).
    const implied = tags.junction === 'roundabout' || tags.junction === 'circular' || highway === 'motorway';
    const push = route === undefined && !implied && verdict(tags.foot, PROFILE_RULES['foot-walking']) !== 'deny' && !NO_PEDESTRIANS.has(highway) ? WALK : 0;
    if (dir === 'forward') {
      backward = backward > 0 ? push : 0;
      pushedBackward = backward > 0;
    }
    if (dir === 'backward') {
      forward = forward > 0 ? push : 0;
      pushedForward = forward > 0;
    }
  } else {
    if (dir === 'none') return null;
    if (dir === 'forward') backward = 0;
    if (dir === 'backward') forward = 0;
  }
  if (forward === 0 && backward === 0) return null;
  return pushedForward || pushedBackward
    ? { forward, backward, pushedForward: pushedForward && forward > 0, pushedBackward: pushedBackward && backward > 0 }
    : { forward, backward };
}

/** Barriers a car or lorry passes (gates are opened); everything else blocks it, with the exceptions below. */
const MOTOR_BARRIERS_PASSED = new Set([
  'gate',
  'lift_gate',
  'cattle_grid',
  'border_control',
  'toll_booth',
  'sally_port',
  'entrance',
  'height_restrictor',
  'no',
  'swing_gate',
  'sliding_gate',
  'hampshire_gate',
  'arch',
]);
/** Barriers that stop cyclists and pedestrians too. */
const SOLID_BARRIERS = new Set(['wall', 'fence', 'retaining_wall', 'city_wall', 'ditch', 'hedge']);

/** A barrier node's height and width limits (length and weight Infinity), or null when it has none. */
export function nodeLimits(tags: Tags): WayLimits | null {
  const height = limit(tags, ['maxheight:physical', 'maxheight'], parseMeters);
  const width = limit(tags, ['maxwidth:physical', 'maxwidth'], parseMeters);
  if (height === null && width === null) return null;
  return { heightM: height ?? Infinity, widthM: width ?? Infinity, lengthM: Infinity, weightT: Infinity };
}

/**
 * Whether a node closes the way through it for the profile. Access tags on the node decide when present
 * (a gate with access=no, a wall with foot=yes); else the barrier type, with the exceptions OSRM makes
 * (rising bollards, lowered kerbs and crossings, audible fences), and a height or width below the vehicle's
 * (for the lorry graph, the smallest lorry's: the node's limits go to the geometries through it).
 */
export function nodeBlocks(profile: ProfileName, tags: Tags): boolean {
  const rules = PROFILE_RULES[profile];
  let access: string | undefined;
  for (const k of rules.accessKeys) if (access === undefined) access = tags[k];
  const v = verdict(access, rules);
  if (v === 'deny') return true;
  const vehicle = profile === 'driving-hgv' ? SMALLEST_LORRY : rules.vehicle;
  const limits = vehicle && nodeLimits(tags);
  if (vehicle && limits && exceeds(vehicle, limits)) return true;
  if (v !== null) return false;
  const barrier = tags.barrier;
  if (!barrier) return false;
  if (barrier === 'fence' && (tags.sensory === 'audible' || tags.sensory === 'audio')) return false;
  if (!vehicle) return SOLID_BARRIERS.has(barrier);
  if (MOTOR_BARRIERS_PASSED.has(barrier)) return false;
  if (barrier === 'bollard') return tags.bollard !== 'rising';
  if (barrier === 'kerb') return !(tags.highway === 'crossing' || tags.kerb === 'lowered' || tags.kerb === 'flush');
  return true;
}

/** Through a via node (viaWays empty), or along one or more via ways in order (viaNode 0). */
export interface TurnRestriction {
  fromWay: number;
  viaNode: number;
  viaWays: number[];
  toWay: number;
  only: boolean;
}

/**
 * The turn restrictions a relation imposes on the profile: one per from/to pair (`no_entry` may name
 * several from-ways, `no_exit` several to-ways) through a via node or along via ways (in member order);
 * none for other profiles, `*_on_red` and malformed relations (a via node beside via ways, say).
 */
export function turnRestrictions(profile: ProfileName, tags: Tags, members: Array<{ type: string; ref: number; role: string }>): TurnRestriction[] {
  const rules = PROFILE_RULES[profile];
  if (!rules.restrictionVehicle || tags.type !== 'restriction') return [];
  const value = tags[`restriction:${rules.restrictionVehicle}`] ?? tags.restriction;
  if (!value || value.endsWith('_on_red')) return [];
  const except = (tags.except ?? '').split(';').map((s) => s.trim());
  if (rules.exceptValues?.some((v) => except.includes(v))) return [];
  const only = value.startsWith('only_');
  if (!only && !value.startsWith('no_')) return [];
  const from = members.filter((m) => m.role === 'from' && m.type === 'way');
  const via = members.filter((m) => m.role === 'via');
  const to = members.filter((m) => m.role === 'to' && m.type === 'way');
  const viaNodeOnly = via.length === 1 && via[0].type === 'node';
  if (via.length === 0 || (!viaNodeOnly && via.some((m) => m.type !== 'way')) || from.length === 0 || to.length === 0) return [];
  const manyFrom = value === 'no_entry',
    manyTo = value === 'no_exit';
  if ((from.length > 1 && !manyFrom) || (to.length > 1 && !manyTo)) return [];
  const out: TurnRestriction[] = [];
  const viaNode = viaNodeOnly ? via[0].ref : 0,
    viaWays = viaNodeOnly ? [] : via.map((m) => m.ref);
  for (const f of from) for (const t of to) out.push({ fromWay: f.ref, viaNode, viaWays: [...viaWays], toWay: t.ref, only });
  return out;
}

/**
 * Classes of ways a route may be asked to keep off (`exclude`), one bit each in a geometry's class byte
 * (RoadGraph.geomClass). Read from the tags as OSRM's car profile reads its excludable classes (`toll=yes`,
 * `highway=motorway(_link)`, ferries), plus `unpaved` (GraphHopper's surface list, and tracks without a
 * surface that are not `tracktype=grade1`).
 */
export const EXCLUDE_CLASSES = ['toll', 'motorway', 'ferry', 'unpaved'] as const;
export type ExcludeClass = (typeof EXCLUDE_CLASSES)[number];
export const EXCLUDE_BIT: Record<ExcludeClass, number> = { toll: 1, motorway: 2, ferry: 4, unpaved: 8 };
/** Bits of a geometry's classes above the exclude classes, which no request excludes: the bicycle's bike
 *  pushed along the geometry's points (forward), and against them (WayAccess.pushedForward, pushedBackward). */
export const PUSHED_FORWARD = 16,
  PUSHED_BACKWARD = 32;

/** The classes each profile may be asked to exclude: walkers and cyclists never take motorways or pay tolls. */
export const EXCLUDABLE: Record<ProfileName, readonly ExcludeClass[]> = {
  'driving-car': EXCLUDE_CLASSES,
  'driving-hgv': EXCLUDE_CLASSES,
  'cycling-regular': ['ferry', 'unpaved'],
  'foot-walking': ['ferry', 'unpaved'],
};

const UNPAVED_SURFACES: ReadonlySet<string> = new Set([
  'unpaved',
  'compacted',
  'fine_gravel',
  'gravel',
  'pebblestone',
  'rock',
  'dirt',
  'earth',
  'grass',
  'grass_paver',
  'ground',
  'mud',
  'sand',
  'woodchips',
  'snow',
  'ice',
  'salt',
]);

/** The way's exclude classes for a profile (bits of EXCLUDE_BIT): a toll for the lorry is `toll:hgv`, for a
 *  car `toll:motorcar`, either more specific than `toll`. */
export function wayClasses(profile: ProfileName, tags: Tags): number {
  let bits = 0;
  const own = profile === 'driving-hgv' ? tags['toll:hgv'] : profile === 'driving-car' ? tags['toll:motorcar'] : undefined;
  if ((own ?? tags.toll) === 'yes') bits |= EXCLUDE_BIT.toll;
  if (tags.highway === 'motorway' || tags.highway === 'motorway_link') bits |= EXCLUDE_BIT.motorway;
  if (tags.route === 'ferry') bits |= EXCLUDE_BIT.ferry;
  const surface = tags.surface;
  if (surface !== undefined ? UNPAVED_SURFACES.has(surface) : tags.highway === 'track' && tags.tracktype !== 'grade1') bits |= EXCLUDE_BIT.unpaved;
  return bits;
}

/** The side of the road each profile keeps to (a curbside arrival puts the waypoint on this side): every
 *  map Waymark builds is taken to drive on the right, as the bundled extract does. */
export const DRIVING_SIDE: Record<ProfileName, 'right' | 'left'> = {
  'driving-car': 'right',
  'driving-hgv': 'right',
  'cycling-regular': 'right',
  'foot-walking': 'right',
};
