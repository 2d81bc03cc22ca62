// Access, direction and speed rules of the four routing profiles, read from OSM way tags.
export type ProfileName = 'driving-car' | 'driving-hgv' | 'cycling-regular' | 'foot-walking';
export const PROFILES: readonly ProfileName[] = ['driving-car', 'driving-hgv', 'cycling-regular', 'foot-walking'];

type Tags = Record<string, string>;

/** Speeds in km/h for travel along (forward) and against (backward) the way's node order; 0 = not allowed. */
export interface WayAccess { forward: number; backward: number }

interface Profile {
  /** Default speed per usable highway class. */
  speeds: Record<string, number>;
  /** Access tags from general to specific; the most specific one present decides. */
  accessKeys: string[];
  /** Classes usable only when the profile's own access tag explicitly allows them. */
  explicitOnly?: Set<string>;
  oneway: 'respect' | 'bicycle' | 'ignore';
  usesMaxspeed: boolean;
  maxSpeed: number;
  /** Which restriction tags apply (`restriction:<vehicle>` before `restriction`), and `except` values that exempt us. */
  restrictionVehicle?: string;
  exceptValues?: string[];
}

const CAR_SPEEDS: Record<string, number> = {
  motorway: 120, motorway_link: 60, trunk: 100, trunk_link: 50, primary: 80, primary_link: 50,
  secondary: 70, secondary_link: 50, tertiary: 60, tertiary_link: 40, unclassified: 50, residential: 40,
  living_street: 10, service: 20, road: 30,
};

const PROFILE_RULES: Record<ProfileName, Profile> = {
  'driving-car': {
    speeds: CAR_SPEEDS,
    accessKeys: ['access', 'vehicle', 'motor_vehicle', 'motorcar'],
    oneway: 'respect', usesMaxspeed: true, maxSpeed: 130,
    restrictionVehicle: 'motorcar', exceptValues: ['motorcar', 'motor_vehicle', 'vehicle'],
  },
  'driving-hgv': {
    speeds: CAR_SPEEDS,
    accessKeys: ['access', 'vehicle', 'motor_vehicle', 'hgv'],
    oneway: 'respect', usesMaxspeed: true, maxSpeed: 80,
    restrictionVehicle: 'hgv', exceptValues: ['hgv', 'motor_vehicle', 'vehicle'],
  },
  'cycling-regular': {
    speeds: {
      trunk: 18, trunk_link: 18, primary: 18, primary_link: 18, secondary: 18, secondary_link: 18,
      tertiary: 18, tertiary_link: 18, unclassified: 16, residential: 16, living_street: 10, service: 14,
      road: 14, cycleway: 18, track: 12, path: 12, footway: 8, pedestrian: 8, bridleway: 8,
    },
    accessKeys: ['access', 'vehicle', 'bicycle'],
    explicitOnly: new Set(['footway', 'pedestrian', 'bridleway']),
    oneway: 'bicycle', usesMaxspeed: false, maxSpeed: 30,
  },
  'foot-walking': {
    speeds: {
      trunk: 5, trunk_link: 5, primary: 5, primary_link: 5, secondary: 5, secondary_link: 5, tertiary: 5,
      tertiary_link: 5, unclassified: 5, residential: 5, living_street: 5, service: 5, road: 5, track: 5,
      path: 5, footway: 5, pedestrian: 5, steps: 3, cycleway: 5, bridleway: 5, corridor: 5, platform: 5,
    },
    accessKeys: ['access', 'foot'],
    oneway: 'ignore', usesMaxspeed: false, maxSpeed: 5,
  },
};

const DENY = new Set(['no', 'private', 'agricultural', 'forestry', 'emergency', 'military', 'use_sidepath', 'restricted']);
const ALLOW_EXPLICIT = new Set(['yes', 'designated', 'permissive', 'official']);

/** km/h for zone values such as "CH:urban" (the country prefix varies, the zones mostly do not). */
const ZONE_SPEEDS: Record<string, number> = {
  urban: 50, rural: 80, motorway: 120, trunk: 100, living_street: 20, walk: 7, zone30: 30, zone20: 20, bicycle_road: 30,
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

function accessAllowed(tags: Tags, rules: Profile, highway: string): boolean {
  let decided: string | undefined;
  for (const key of rules.accessKeys) if (tags[key] !== undefined) decided = tags[key];
  const own = tags[rules.accessKeys[rules.accessKeys.length - 1]];
  if (rules.explicitOnly?.has(highway)) return own !== undefined && ALLOW_EXPLICIT.has(own);
  return decided === undefined || !DENY.has(decided);
}

function onewayOf(tags: Tags, highway: string, rules: Profile): 'both' | 'forward' | 'backward' {
  if (rules.oneway === 'ignore') return 'both';
  if (rules.oneway === 'bicycle') {
    const ob = tags['oneway:bicycle'];
    if (ob === 'no' || /^opposite/.test(tags.cycleway ?? '') || /^opposite/.test(tags['cycleway:left'] ?? '') || /^opposite/.test(tags['cycleway:right'] ?? '')) return 'both';
    if (ob === 'yes') return 'forward';
    if (ob === '-1') return 'backward';
  }
  const ow = tags.oneway;
  if (ow === 'yes' || ow === '1' || ow === 'true') return 'forward';
  if (ow === '-1' || ow === 'reverse') return 'backward';
  if (ow === 'no' || ow === 'false' || ow === '0') return 'both';
  const junction = tags.junction;
  if (junction === 'roundabout' || junction === 'circular') return 'forward';
  if (rules.oneway === 'respect' && (highway === 'motorway' || highway === 'motorway_link')) return 'forward';
  return 'both';
}

/** How a profile may use a way; null when it may not use it at all. */
export function wayAccess(profile: ProfileName, tags: Tags): WayAccess | null {
  const rules = PROFILE_RULES[profile];
  const highway = tags.highway;
  if (!highway) return null;
  const classSpeed = rules.speeds[highway];
  if (classSpeed === undefined) return null;
  if (tags.area === 'yes' || tags.construction !== undefined && highway === 'construction') return null;
  if ((profile === 'cycling-regular' || profile === 'foot-walking') && tags.motorroad === 'yes') return null;
  if (!accessAllowed(tags, rules, highway)) return null;

  let speed = classSpeed;
  if (rules.usesMaxspeed) {
    const tagged = parseMaxspeed(tags.maxspeed);
    if (tagged !== null) speed = tagged;
  }
  speed = Math.min(speed, rules.maxSpeed);
  let forward = speed, backward = speed;
  if (rules.usesMaxspeed) {
    const f = parseMaxspeed(tags['maxspeed:forward']);
    const b = parseMaxspeed(tags['maxspeed:backward']);
    if (f !== null) forward = Math.min(f, rules.maxSpeed);
    if (b !== null) backward = Math.min(b, rules.maxSpeed);
  }
  const dir = onewayOf(tags, highway, rules);
  if (dir === 'forward') backward = 0;
  if (dir === 'backward') forward = 0;
  return { forward, backward };
}

export interface TurnRestriction { fromWay: number; viaNode: number; toWay: number; only: boolean }

/** The turn restriction a relation imposes on the profile, or null (other profiles, via-way, malformed). */
export function turnRestriction(profile: ProfileName, tags: Tags, members: Array<{ type: string; ref: number; role: string }>): TurnRestriction | null {
  const rules = PROFILE_RULES[profile];
  if (!rules.restrictionVehicle || tags.type !== 'restriction') return null;
  const value = tags[`restriction:${rules.restrictionVehicle}`] ?? tags.restriction;
  if (!value) return null;
  const except = (tags.except ?? '').split(';').map((s) => s.trim());
  if (rules.exceptValues?.some((v) => except.includes(v))) return null;
  const only = value.startsWith('only_');
  if (!only && !value.startsWith('no_')) return null;
  const from = members.filter((m) => m.role === 'from' && m.type === 'way');
  const via = members.filter((m) => m.role === 'via');
  const to = members.filter((m) => m.role === 'to' && m.type === 'way');
  if (from.length !== 1 || to.length !== 1 || via.length !== 1 || via[0].type !== 'node') return null;
  return { fromWay: from[0].ref, viaNode: via[0].ref, toWay: to[0].ref, only };
}
