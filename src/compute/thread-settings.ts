// What every compute thread is told of the service's configuration: pool.ts puts it in each thread's worker
// data, from the validated configuration (a thread reads no environment).
import { workerData } from 'piscina';

export interface ThreadSettings {
  /** Whether routes price their turns (WAYMARK_TURN_PRICES). */
  turnPrices: boolean;
}

/** This thread's settings; outside a pool's thread (a script's or a test's own RouteCore), the defaults. */
export function threadSettings(): ThreadSettings {
  return (workerData as { settings?: ThreadSettings } | null | undefined)?.settings ?? { turnPrices: true };
}
