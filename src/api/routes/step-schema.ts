// The RouteStep of `steps: true` (POST /v1/routes), OSRM's model field for field (docs/directions.md).
import { z } from 'zod';
import { lineStringSchema } from '../../engine/line-json.js';

const position = z.tuple([z.number(), z.number()]).describe('[longitude, latitude].');

export const routeStepSchema = z
  .object({
    geometry: z.union([lineStringSchema, z.string()]).describe("The step's part of the route, from its maneuver to the next one, in `geometry_format`."),
    maneuver: z.object({
      type: z
        .enum([
          'depart',
          'turn',
          'new name',
          'continue',
          'merge',
          'on ramp',
          'off ramp',
          'fork',
          'end of road',
          'roundabout',
          'roundabout turn',
          'rotary',
          'exit roundabout',
          'exit rotary',
          'notification',
          'arrive',
        ])
        .describe("OSRM's maneuver types that Waymark announces."),
      modifier: z
        .enum(['uturn', 'sharp right', 'right', 'slight right', 'straight', 'slight left', 'left', 'sharp left'])
        .optional()
        .describe(
          'The direction of the maneuver; on depart and arrive (left, straight or right) the side of the road the point asked for lies on, where it is 5–300 m from the road, else none.',
        ),
      location: position,
      bearing_before: z.int().describe('Degrees clockwise from north, arriving at the maneuver (0 on depart).'),
      bearing_after: z.int().describe('Degrees clockwise from north, leaving it (0 on arrive).'),
      exit: z
        .int()
        .optional()
        .describe('roundabout and rotary, on the step onto the ring and on its exit step: the number of the exit taken, counted from the entry.'),
    }),
    name: z.string().describe("The road's `name` after the maneuver; empty when it has none."),
    ref: z.string().optional().describe("The road's `ref`, when it has one."),
    destinations: z
      .string()
      .optional()
      .describe(
        "Driving and walking, on a road that is oneway for the profile: its destination signs in the direction of travel, as OSRM writes them, `destination:ref` before `destination` (else `destination:street`): `A1, A2: Berlin, Hamburg`. None on a two-way road and for cycling, as OSRM's profiles.",
      ),
    exits: z.string().optional().describe("The road's exit numbers (`junction:ref`), `; ` between them, when it has any."),
    rotary_name: z.string().optional().describe('rotary (`junction=circular`): the name of the circle, when it has one.'),
    distance: z.number().describe('Meters to the next maneuver.'),
    duration: z.number().describe('Seconds to the next maneuver.'),
    mode: z
      .enum(['driving', 'cycling', 'walking', 'ferry', 'pushing bike'])
      .describe(
        "The profile's travel mode; `ferry` on a ferry (`route=ferry`), `pushing bike` where a bicycle is walked (a footway, against a oneway). A `notification` step says where the mode changes and no turn does.",
      ),
    intersections: z
      .array(
        z.object({
          location: position,
          bearings: z.array(z.int()).describe('Every road at the node, degrees clockwise from north, ascending.'),
          entry: z.array(z.boolean()).describe('Per bearing, whether the route could leave along that road.'),
          in: z.int().optional().describe('The index of the bearing the route arrives from (none on depart).'),
          out: z.int().optional().describe('The index of the bearing the route leaves along (none on arrive).'),
          lanes: z
            .array(
              z.object({
                indications: z
                  .array(z.string())
                  .describe(
                    "The lane's arrows: `none`, `straight`, `sharp left`, `left`, `slight left`, `slight right`, `right`, `sharp right`, `uturn`, `merge to left`, `merge to right`.",
                  ),
                valid: z.boolean().describe('Whether the lane serves the turn the route takes here.'),
              }),
            )
            .optional()
            .describe(
              "Driving: the lanes of the road arriving here, left to right, from its `turn:lanes` (`:forward` / `:backward`; lanes `vehicle:lanes` closes and bus lanes at the side left out), where OSRM's lane handler matches them to this intersection's turns. None elsewhere, on roundabouts, and for cycling and walking.",
            ),
        }),
      )
      .describe("The maneuver's intersection (OSRM lists every intersection the step passes; Waymark the first)."),
    instruction: z.string().optional().describe('With `language`: the step as a sentence (osrm-text-instructions).'),
  })
  .meta({ id: 'RouteStep' });
