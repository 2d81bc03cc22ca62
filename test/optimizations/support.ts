// Shared by the batch optimization suites (each runs on a database of its own, faults/support.ts
// freshDatabase: apps of other test files run job runners with a map and would take these jobs): a
// request of `stops` stops and `vehicles` vehicles on the Liechtenstein roads with windows, service
// times, capacities and skills.
import { expect } from 'vitest';
import type { At } from '../optimize-api/support.js';
import { api } from '../support/app.js';
import { waitFor } from '../geo-api/support.js';

const DAY = '2031-03-04';
export const at = (time: string) => `${DAY}T${time}+01:00`;

/** Depots on the first points, stops on the rest; every third stop has a window, every tenth needs a skill. */
export function fleetRequest(points: At[], vehicles: number, stops: number, timeBudget: number) {
  return {
    time_budget: timeBudget,
    vehicles: Array.from({ length: vehicles }, (_, i) => ({
      id: `van-${i}`,
      start: points[i % 3],
      end: points[i % 3],
      capacity: 60,
      time_window: [at('07:00:00'), at('19:00:00')],
      ...(i % 2 === 0 ? { skills: ['cooled'] } : {}),
    })),
    stops: points.slice(3, 3 + stops).map((p, i) => ({
      ...p,
      id: `stop-${i}`,
      service: 120 + (i % 5) * 60,
      demand: 1 + (i % 4),
      ...(i % 3 === 0 ? { time_windows: [i % 2 ? [at('08:00:00'), at('12:00:00')] : [at('13:00:00'), at('18:00:00')]] } : {}),
      ...(i % 10 === 0 ? { skills: ['cooled'] } : {}),
    })),
  };
}

/** Submits a batch body with `key` and waits for its plan; fails the test on anything but a completed job. */
export async function completedPlan(app: { url: string }, key: string, body: unknown): Promise<any> {
  const res = await api(app, 'POST', '/v1/optimizations', { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  const done = await waitFor(
    async () => {
      const d = (await api(app, 'GET', `/v1/optimizations/${res.body.data.id}`, { key })).body.data;
      return ['completed', 'failed', 'cancelled'].includes(d.status) ? d : undefined;
    },
    'the optimization to finish',
    60_000,
    100,
  );
  expect(done.status, JSON.stringify(done.error)).toBe('completed');
  return done.result;
}
