// The reverse geocoder's spatial trees, built once per loaded map and read by every compute thread in
// place. They are made from the map's geocoder index when it loads (not stored in the map: at 32x32
// they take 75 MB, and the map directory is at its size target). Each compute thread used to build its
// own (with two more trees of address points, for the lookups that now filter the one): 2.3 s of CPU per
// thread before the warm-up ended on the 32x32 country, on a 2-core host most of the wait for ready.
// Now the main thread sets shared memory aside for them (`treeRoom`, sized by the trees' own
// constructors, which only allocate), and the first compute thread to need a tree builds it in place
// while the others wait for it or build another (lib/built-once.ts).
import Flatbush from 'flatbush';
import KDBush from 'kdbush';
import type { GeocoderArrays } from '../../map/geocoder/index-format.js';
import { streetTree } from '../../map/geocoder/street-index.js';
import { buildStates, claimBuild, whenBuilt } from '../../lib/built-once.js';

/** The trees a reverse lookup searches: the streets' boxes (null without streets), every address point,
 *  every place. Item i of each is street, address point or place i. */
export interface GeocoderTrees {
  streets: Flatbush | null;
  points: KDBush;
  places: KDBush;
}

type TreeArrays = Pick<GeocoderArrays, 'streetCoords' | 'streetStarts' | 'addrCoords' | 'placeCoords'>;

const TREES = ['streets', 'points', 'places'] as const;
type TreeName = (typeof TREES)[number];
type AnyBuffer = ArrayBufferConstructor | SharedArrayBufferConstructor;

/** Shared memory for a map's trees: their bytes, and per tree a state word (lib/built-once.ts). */
export interface TreeRoom {
  state: Int32Array;
  bytes: { streets: SharedArrayBuffer | null; points: SharedArrayBuffer; places: SharedArrayBuffer };
}

/** Lat, lon pairs as a KDBush of lon, lat (item i: point i); a far-away stand-in when there are none
 *  (KDBush needs one item), never within any search radius. */
function pointTree(coords: Int32Array, BufferType: AnyBuffer): KDBush {
  const count = coords.length / 2;
  const tree = new KDBush(Math.max(1, count), 64, Int32Array, BufferType);
  for (let i = 0; i < count; i++) tree.add(coords[2 * i + 1], coords[2 * i]);
  if (count === 0) tree.add(2_000_000_000, 2_000_000_000);
  return tree.finish();
}

const build = (a: TreeArrays, name: TreeName, BufferType: AnyBuffer): Flatbush | KDBush | null =>
  name === 'streets' ? streetTree(a.streetCoords, a.streetStarts, BufferType) : pointTree(name === 'points' ? a.addrCoords : a.placeCoords, BufferType);

/** The trees built here, for this thread alone (tools and tests: a geocoder without a loaded map). */
export const ownTrees = (a: TreeArrays): GeocoderTrees => ({
  streets: build(a, 'streets', ArrayBuffer) as Flatbush | null,
  points: build(a, 'points', ArrayBuffer) as KDBush,
  places: build(a, 'places', ArrayBuffer) as KDBush,
});

/** Room for `a`'s trees in shared memory, on the main thread. Flatbush and KDBush size their buffer
 *  in their constructors; the empty trees made here to read it are zero pages never written. */
export function treeRoom(a: TreeArrays): TreeRoom {
  const streets = a.streetStarts.length > 1 ? new Flatbush(a.streetStarts.length - 1, 16, Int32Array).data.byteLength : 0;
  const points = (coords: Int32Array) => new KDBush(Math.max(1, coords.length / 2), 64, Int32Array).data.byteLength;
  return {
    state: buildStates(TREES.length),
    bytes: {
      streets: streets ? new SharedArrayBuffer(streets) : null,
      points: new SharedArrayBuffer(points(a.addrCoords)),
      places: new SharedArrayBuffer(points(a.placeCoords)),
    },
  };
}

/** A buffer "constructor" that hands Flatbush or KDBush (which make their buffer with `new BufferType(bytes)`)
 *  the room set aside for them, so that a tree is built in place. */
function roomOf(room: SharedArrayBuffer | null): AnyBuffer {
  return function (this: unknown, bytes: number) {
    if (!room || room.byteLength !== bytes) throw new Error(`geocoder tree room of ${room?.byteLength ?? 0} bytes for a tree of ${bytes}`);
    return room;
  } as unknown as AnyBuffer;
}

/** Builds tree `i` in its room (all of it: a build that failed is written anew by the next). */
const builder = (room: TreeRoom, a: TreeArrays, i: number) => () => {
  build(a, TREES[i], roomOf(room.bytes[TREES[i]]));
};

/** The building of the trees, one task per tree, for threads to take in turn (warm-up.ts). */
export const treeBuilds = (room: TreeRoom, a: TreeArrays): Array<() => boolean> => TREES.map((_, i) => () => claimBuild(room.state, i, builder(room, a, i)));

/** The trees in `room`, each built here when no thread has, else waited for. */
export function sharedTrees(room: TreeRoom, a: TreeArrays): GeocoderTrees {
  for (let i = 0; i < TREES.length; i++) whenBuilt(room.state, i, builder(room, a, i));
  const { streets, points, places } = room.bytes;
  return { streets: streets && Flatbush.from(streets), points: KDBush.from(points), places: KDBush.from(places) };
}
