// Bearings at a junction (degrees clockwise from north), as turn guidance compares them: the way back,
// the deviation from straight on, and OSRM's turn angle. Shared by the steps, the lanes and the carriageway merge.

/** (b + 180) % 360 without the remainder's call for a bearing in [0, 360] (taking 360 off is exact there). */
export const reverse = (b: number): number => {
  const r = b + 180;
  if (r >= 0 && r < 360) return r;
  return r >= 360 && r < 720 ? r - 360 : r % 360;
};

/** Signed deviation from straight on, degrees in (-180, 180]: positive to the right. */
export const deviation = (before: number, after: number): number => {
  // ((after - before) % 360 + 540) % 360 - 180, without the two remainders (a call each, and this runs
  // for every road at every junction): for bearings in [0, 360] the first is the difference itself, and
  // the second takes 360 off once or twice, which is exact (Sterbenz) as the remainder is.
  let x = after - before;
  if (!(x > -360 && x < 360)) x %= 360;
  const y = x + 540;
  const d = (y >= 720 ? y - 720 : y >= 360 ? y - 360 : y) - 180;
  return d === -180 ? 180 : d;
};

/** OSRM's turn angle between two bearings (angleBetween): 180 straight on, below it to the right. */
export const angleBetween = (before: number, after: number): number => {
  const a = 180 - deviation(before, after);
  return a < 0 ? a + 360 : a;
};

/** OSRM's FUZZY_ANGLE_DIFFERENCE: roads whose bearings differ by less are the same way. */
export const FUZZY_DEG = 25;
/** OSRM's GROUP_ANGLE: the widest bend its turn rules still take as close to straight on. */
export const GROUP_DEG = 60;
