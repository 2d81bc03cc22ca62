// `exclude`: classes of ways a route, matrix or plan keeps off (toll, motorway, ferry, unpaved), shared by
// POST /v1/routes, /v1/matrix, /v1/routes/optimize and /v1/optimizations.
import { z } from 'zod';
import type { FieldErrors } from '../../http/errors.js';
import { EXCLUDABLE, EXCLUDE_BIT, EXCLUDE_CLASSES, type ExcludeClass, type ProfileName } from '../../map/graphs/profiles.js';

export const EXCLUDE_DESCRIPTION =
  'Extension (not in the service contract): classes of ways to keep off — `toll` (`toll=yes`; for a lorry `toll:hgv`, for a car ' +
  '`toll:motorcar` first), `motorway` (`highway=motorway` and `motorway_link`), `ferry` (`route=ferry`), `unpaved` (an unpaved ' +
  '`surface`, or a `highway=track` without a surface that is not `tracktype=grade1`). `driving-car` and `driving-hgv` accept all ' +
  'four; `cycling-regular` and `foot-walking` only `ferry` and `unpaved` (they never take motorways or pay tolls). Waypoints snap ' +
  'to roads of the other classes; when only excluded ways connect two waypoints the 422 names the one cut off.';

export const excludeSchema = z
  .array(z.enum(EXCLUDE_CLASSES, { error: `must be one of ${EXCLUDE_CLASSES.join(', ')}` }), {
    error: `must be an array of classes out of ${EXCLUDE_CLASSES.join(', ')}`,
  })
  .max(EXCLUDE_CLASSES.length, `may name at most ${EXCLUDE_CLASSES.length} classes`)
  .optional()
  .describe(EXCLUDE_DESCRIPTION);

/**
 * The engine's class bits for `exclude` (0 for none), with a problem at `exclude.<i>` for every class the
 * profile does not take (a cyclist's `motorway`): a 422 rather than a silent no-op. Reads the raw body's
 * list (`profile` undefined when the body's is not one), so that these join the 422 of a body with other
 * problems; entries that are no class at all are the schema's to report.
 */
export function excludeBits(profile: ProfileName | undefined, list: unknown, errors: FieldErrors): number {
  let bits = 0;
  if (!profile || !Array.isArray(list)) return 0;
  list.forEach((c: unknown, i) => {
    if (!EXCLUDE_CLASSES.includes(c as ExcludeClass)) return;
    if (EXCLUDABLE[profile].includes(c as ExcludeClass)) bits |= EXCLUDE_BIT[c as ExcludeClass];
    else (errors[`exclude.${i}`] ??= []).push(`is not a class the ${profile} profile uses; it may exclude ${EXCLUDABLE[profile].join(', ')}`);
  });
  return bits;
}
