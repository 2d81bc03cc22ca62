// The tags of the transport network that the OSM stage keeps for the stages after it: per road (a way
// with `highway`, a ferry or car train, a pier) its access, direction, speed, size, surface and toll
// tags, per barrier node its access and size tags, in OSM's own terms. The routing profiles
// (graphs/profiles.ts) read nothing else; test/map/osm-data.test.ts holds them to that on a real extract.

type Tags = Record<string, string>;

/** Access keys, from the vehicle-specific to the general (OSM's access hierarchy, as far as routing goes). */
const ACCESS_KEYS = ['motorcar', 'hgv', 'motor_vehicle', 'vehicle', 'bicycle', 'foot', 'access'];
const SIZE_KEYS = ['maxheight', 'maxheight:physical', 'maxwidth', 'maxwidth:physical'];

/** The keys kept per road: each access key also per direction and with its `:conditional` rules. */
export const ROAD_KEYS: ReadonlySet<string> = new Set([
  ...ACCESS_KEYS.flatMap((k) => [k, `${k}:forward`, `${k}:backward`, `${k}:conditional`, `${k}:forward:conditional`, `${k}:backward:conditional`]),
  ...['oneway', 'oneway:motorcar', 'oneway:hgv', 'oneway:motor_vehicle', 'oneway:vehicle', 'oneway:bicycle', 'oneway:foot'],
  ...['highway', 'route', 'man_made', 'junction', 'area', 'construction', 'service', 'motorroad', 'duration'],
  ...['maxspeed', 'maxspeed:forward', 'maxspeed:backward'],
  ...SIZE_KEYS,
  ...['width', 'est_width', 'maxlength', 'maxweight', 'maxweightrating'],
  ...['sidewalk', 'sidewalk:both', 'sidewalk:left', 'sidewalk:right', 'cycleway', 'cycleway:both', 'cycleway:left', 'cycleway:right'],
  ...['surface', 'tracktype', 'toll', 'toll:hgv', 'toll:motorcar'],
  ...['lanes', 'lanes:forward', 'lanes:backward'],
]);

/** Whether a way is part of the transport network: a road or path, a ferry or car train, a pier. */
export const isRoad = (tags: Tags): boolean =>
  tags.highway !== undefined || tags.route === 'ferry' || tags.route === 'shuttle_train' || tags.man_made === 'pier';

/** The keys kept per barrier node (`highway`, `kerb`, `bollard` and `sensory` say what kind of barrier it is). */
export const BARRIER_KEYS: ReadonlySet<string> = new Set([...ACCESS_KEYS, ...SIZE_KEYS, 'barrier', 'highway', 'kerb', 'bollard', 'sensory']);
const CLOSING_KEYS = [...ACCESS_KEYS, ...SIZE_KEYS, 'barrier'];

/** Whether a node may close a road through it: a barrier, or access or size tags of its own. */
export const mayClose = (tags: Tags): boolean => CLOSING_KEYS.some((k) => tags[k] !== undefined);

/** The keys kept per turn restriction: what it forbids or prescribes (per vehicle too), and whom it spares. */
export const RESTRICTION_KEYS = { has: (k: string): boolean => k === 'type' || k === 'restriction' || k === 'except' || k.startsWith('restriction:') };

/** A restriction's members that matter (`from`, `via`, `to`), each as a code: its role × 3 + its type. */
export const MEMBER_ROLES = ['from', 'via', 'to'] as const;
export const MEMBER_TYPES = ['node', 'way', 'relation'] as const;

/**
 * Distinct sets of kept tags, each stored once (a way has an index, 4 bytes, instead of its tags):
 * Liechtenstein's 6,848 roads share 956 sets, the 6x6 synthetic country's 127,652 share 1,179 (its tiles
 * repeat three extracts). Set 0 is the empty one. The sets are prototype-less: the profile
 * rules probe many keys of each, and such objects answer those probes faster.
 */
export class TagSets {
  readonly list: Array<Readonly<Tags>> = [Object.create(null)];
  private readonly ids = new Map<string, number>();
  constructor(private readonly keys: { has(key: string): boolean }) {}

  /** The index of `tags`' set of kept keys. */
  id(tags: Tags): number {
    let key = '';
    for (const k in tags) if (this.keys.has(k)) key += `${k}\u0000${tags[k]}\u0000`;
    if (key === '') return 0;
    let id = this.ids.get(key);
    if (id === undefined) {
      const kept: Tags = Object.create(null);
      for (const k in tags) if (this.keys.has(k)) kept[k] = tags[k];
      id = this.list.push(kept) - 1;
      this.ids.set(key, id);
    }
    return id;
  }
}
