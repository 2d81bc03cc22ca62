// How engine failures become HTTP answers (the ones the running service cannot be made to produce on demand).
import { describe, expect, it } from 'vitest';
import { PoolBusyError } from '../../src/compute/pool.js';
import { MapNotLoadedError, NoRouteError, UnknownProfileError, WaypointTooFarError } from '../../src/engine/engine.js';
import { engineHttpError } from '../../src/api/engine-errors.js';

describe('engineHttpError', () => {
  it('waypoints too far from a road: 422 at the path of every one of them', () => {
    const e = engineHttpError(new WaypointTooFarError([3]), 'foot-walking');
    expect(e.status).toBe(422);
    expect(e.body().errors).toEqual({ 'waypoints.3': ['is more than 500 m from a road usable by the foot-walking profile'] });
    const all = engineHttpError(new WaypointTooFarError([0, 2, 5]), 'driving-car', 'stops');
    expect(Object.keys(all.body().errors as object)).toEqual(['stops.0', 'stops.2', 'stops.5']);
  });

  it('no route: 422 at the waypoint that cannot be reached, the message telling blocked from not connected', () => {
    const blocked = engineHttpError(new NoRouteError('blocked', 0), 'driving-car');
    expect(blocked.status).toBe(422);
    expect(Object.keys(blocked.body().errors as object)).toEqual(['waypoints.1']);
    expect(blocked.message).toMatch(/avoided POIs block every way/);
    const unreachable = engineHttpError(new NoRouteError('unreachable', 2), 'driving-car');
    expect(Object.keys(unreachable.body().errors as object)).toEqual(['waypoints.3']);
    expect(unreachable.message).toMatch(/does not connect/);
    expect(unreachable.message).not.toMatch(/block/);
  });

  it('no map or a full queue: 503; a profile missing from the map: 422', () => {
    expect(engineHttpError(new MapNotLoadedError(), 'driving-car').status).toBe(503);
    const busy = engineHttpError(new PoolBusyError(), 'driving-car');
    expect([busy.status, busy.headers['Retry-After']]).toEqual([503, '1']);
    expect(engineHttpError(new UnknownProfileError('driving-car'), 'driving-car').body().errors).toHaveProperty('profile');
  });

  it('anything else (a crashed worker, a kernel trap): 502 without internals', () => {
    for (const err of [new Error('Worker exited with code 1'), new WebAssembly.RuntimeError('unreachable'), 'odd']) {
      const e = engineHttpError(err, 'driving-car');
      expect(e.status).toBe(502);
      expect(e.body()).toEqual({ message: 'The routing service failed to answer. Retry shortly.' });
    }
  });
});
