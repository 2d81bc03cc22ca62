// Shared by the batch optimization suites: a database of their own (apps of other test files run job
// runners with a map and would otherwise take these jobs), and a request of `stops` stops and `vehicles`
// vehicles on the Liechtenstein roads with windows, service times, capacities and skills.
import postgres from 'postgres';
import { TEST_DATABASE_URL } from '../support/app.js';
import type { At } from '../optimize-api/support.js';

export async function privateDatabase(suffix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const url = `${TEST_DATABASE_URL}_${suffix}`;
  const name = new URL(url).pathname.slice(1);
  const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  return {
    url,
    drop: async () => {
      const a = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
      await a.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}

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
