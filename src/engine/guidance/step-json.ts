// A leg's steps as the JSON the reply carries, OSRM's RouteStep: maneuver, name, ref, distance, duration,
// geometry in the route's form, mode, the maneuver's intersection and, with a language, the sentence
// osrm-text-instructions makes of the step (the same model, so its phrases fit as they are). Written in
// the compute thread with the route.
import osrmTextInstructions from 'osrm-text-instructions';
import { labelTexts } from '../../map/graphs/road-labels.js';
import type { Shapes } from '../../map/graphs/road-graph.js';
import { lineStringBytes, microOfE7, writeLineString } from '../line-json.js';
import { polylineBytes, writePolyline } from '../polyline.js';
import type { RawStep } from './steps.js';

const compiler = osrmTextInstructions('v5');
const latin1 = new TextDecoder('latin1');
let scratch = new Uint8Array(1 << 16);

/** OSRM's travel mode per profile. */
const MODES: Record<string, string> = { 'driving-car': 'driving', 'driving-hgv': 'driving', 'cycling-regular': 'cycling', 'foot-walking': 'walking' };

export interface StepOptions {
  profile: string;
  format: 'geojson' | 'polyline' | 'polyline6';
  language?: string;
  legIndex: number;
  legCount: number;
  /** The leg's meters and seconds: the steps' rounded values add up to the leg's rounded ones. */
  distance: number;
  duration: number;
}

const location = (line: Int32Array, p: number): [number, number] => [microOfE7(line[2 * p]) / 1e6, microOfE7(line[2 * p + 1]) / 1e6];

function geometryText(line: Int32Array, from: number, to: number, format: StepOptions['format']): string {
  // A step of one point (arrive) repeats it, as a LineString needs two positions and OSRM sends two.
  const part = line.subarray(2 * from, 2 * to + 2);
  // Written into this thread's scratch and decoded from there: the text is the only copy made.
  const need = format === 'geojson' ? lineStringBytes(part) : polylineBytes(part);
  if (scratch.length < need) scratch = new Uint8Array(Math.max(need, 2 * scratch.length));
  const length = format === 'geojson' ? writeLineString(part, scratch) : writePolyline(part, format === 'polyline' ? 5 : 6, scratch);
  return latin1.decode(scratch.subarray(0, length));
}

/** The objects of a leg's steps, geometry left out (the runner of OSRM's features compares these). */
export function stepObjects(steps: RawStep[], shapes: Shapes, line: Int32Array, o: StepOptions): Array<Record<string, unknown>> {
  const tenths = (x: number) => Math.round(x * 10) / 10;
  let meters = 0,
    seconds = 0,
    shownM = 0,
    shownS = 0;
  return steps.map((s, i) => {
    meters += s.meters;
    seconds += s.tenths / 10;
    // Each step shows the change of the rounded running totals: the steps add up to the leg exactly.
    const last = i === steps.length - 1;
    const upToM = last ? tenths(o.distance) : tenths(meters),
      upToS = last ? tenths(o.duration) : tenths(seconds);
    const distance = tenths(upToM - shownM),
      duration = tenths(upToS - shownS);
    shownM = upToM;
    shownS = upToS;
    const label = s.label >= 0 ? labelTexts(shapes, s.label) : { name: null, ref: null };
    const x = s.intersection;
    const step: Record<string, unknown> = {
      maneuver: {
        type: s.type,
        ...(s.modifier ? { modifier: s.modifier } : {}),
        location: location(line, s.from),
        bearing_before: s.bearingBefore,
        bearing_after: s.bearingAfter,
        ...(s.exit !== undefined ? { exit: s.exit } : {}),
      },
      name: label.name ?? '',
      ...(label.ref ? { ref: label.ref } : {}),
      ...(s.ring !== undefined && s.ring >= 0 && labelTexts(shapes, s.ring).name ? { rotary_name: labelTexts(shapes, s.ring).name } : {}),
      distance,
      duration,
      mode: MODES[o.profile] ?? 'driving',
      intersections: [x, ...(s.passed ?? [])].map((y) => ({
        location: location(line, y.at),
        bearings: y.bearings,
        entry: y.entry,
        ...(y.in !== undefined ? { in: y.in } : {}),
        ...(y.out !== undefined ? { out: y.out } : {}),
      })),
    };
    if (o.language) step.instruction = compiler.compile(o.language, step, { legCount: o.legCount, legIndex: o.legIndex });
    return step;
  });
}

/** The JSON array of a leg's steps, each with its geometry. */
export function stepsJson(steps: RawStep[], shapes: Shapes, line: Int32Array, o: StepOptions): string {
  const objects = stepObjects(steps, shapes, line, o);
  const parts = objects.map((obj, i) => {
    const text = JSON.stringify(obj);
    return `{"geometry":${geometryText(line, steps[i].from, steps[i].to, o.format)},${text.slice(1)}`;
  });
  return `[${parts.join(',')}]`;
}
