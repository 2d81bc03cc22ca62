// A route's legs as its reply writes them: the edge for a plain route (api/routes/routes.ts), the compute
// thread around each leg's steps (route-task.ts), so that a route with steps is one text in its arena slot
// and sent from there as it is. One definition, so that both write the same bytes.

/** Distances and durations in a reply: to a tenth. */
export const tenths = (x: number): number => Math.round(x * 10) / 10;

/** A leg's object in a reply, its distance and duration to a tenth. */
export const legJson = (i: number, leg: { distance: number; duration: number }) => ({
  from: i,
  to: i + 1,
  distance: tenths(leg.distance),
  duration: tenths(leg.duration),
});

/** The text before leg `i`'s steps: `[` or `,`, then its object up to `"steps":` (the steps and `}` follow). */
export const legOpening = (i: number, leg: { distance: number; duration: number }): string =>
  `${i ? ',' : '['}${JSON.stringify(legJson(i, leg)).slice(0, -1)},"steps":`;
