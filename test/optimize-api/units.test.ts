// The pure parts of the optimize endpoint: datetimes, the time frame and unreachable locations.
import { describe, expect, it } from 'vitest';
import { formatDatetime, parseDatetime } from '../../src/api/optimize/datetimes.js';
import { indexLocations, unreachableLocations } from '../../src/api/optimize/problem.js';
import { optimizeBodySchema } from '../../src/api/optimize/schema.js';
import { timeFrame } from '../../src/api/optimize/time-frame.js';

describe('datetimes', () => {
  it('parses the ISO 8601 forms, with and without offsets, to whole epoch seconds', () => {
    const base = Date.UTC(2031, 2, 4, 8) / 1000;
    expect(parseDatetime('2031-03-04T08:00:00Z')).toEqual({ epoch: base, offsetMinutes: 0 });
    expect(parseDatetime('2031-03-04T08:00:00')).toEqual({ epoch: base, offsetMinutes: null });
    expect(parseDatetime('2031-03-04T08:00')).toEqual({ epoch: base, offsetMinutes: null });
    expect(parseDatetime('2031-03-04T10:00:00+02:00')).toEqual({ epoch: base, offsetMinutes: 120 });
    expect(parseDatetime('2031-03-04T10:00:00+0200')).toEqual({ epoch: base, offsetMinutes: 120 });
    expect(parseDatetime('2031-03-04T10:00+02')).toEqual({ epoch: base, offsetMinutes: 120 });
    expect(parseDatetime('2031-03-04T04:30:00-03:30')).toEqual({ epoch: base, offsetMinutes: -210 });
    expect(parseDatetime('2031-03-04T08:00:00.6Z')).toEqual({ epoch: base + 1, offsetMinutes: 0 });
    expect(parseDatetime('2031-03-04T08:00:00,123456789Z')?.epoch).toBe(base);
    expect(parseDatetime('2028-02-29T00:00:00Z')).not.toBeNull();
    expect(parseDatetime('0050-01-01T00:00:00Z')?.epoch).toBe(Date.parse('0050-01-01T00:00:00Z') / 1000);
  });

  it('rejects what is not a valid datetime', () => {
    for (const text of [
      '2031-03-04',
      '2031-3-4T08:00:00Z',
      '2031-02-29T08:00:00Z',
      '2031-13-01T08:00:00Z',
      '2031-03-04T24:00:00Z',
      '2031-03-04T08:60:00Z',
      '2031-03-04T08:00:60Z',
      '2031-03-04T08:00:00+24:00',
      '2031-03-04 08:00:00Z',
      '2031-03-04T08:00:00 Z',
      'now',
      '',
    ]) {
      expect(parseDatetime(text), text).toBeNull();
    }
  });

  it('writes whole seconds in the given offset, Z for UTC', () => {
    const t = Date.UTC(2031, 2, 4, 8) / 1000;
    expect(formatDatetime(t, 0)).toBe('2031-03-04T08:00:00Z');
    expect(formatDatetime(t + 59, 120)).toBe('2031-03-04T10:00:59+02:00');
    expect(formatDatetime(t, -210)).toBe('2031-03-04T04:30:00-03:30');
    expect(formatDatetime(t, 345)).toBe('2031-03-04T13:45:00+05:45');
    expect(formatDatetime(Date.UTC(2031, 0, 1) / 1000, 60)).toBe('2031-01-01T01:00:00+01:00');
    expect(formatDatetime(Date.UTC(2031, 0, 1) / 1000, -60)).toBe('2030-12-31T23:00:00-01:00');
  });
});

describe('time frame', () => {
  const parse = (body: unknown) => optimizeBodySchema.parse(body);
  const at = { latitude: 47, longitude: 9 };

  it('origin: the earliest datetime; offset: the first one in the order of the JSON text', () => {
    const body = parse({
      vehicles: [{ start: at, time_window: ['2031-03-04T10:00:00+02:00', '2031-03-04T18:00:00+02:00'] }],
      stops: [
        { ...at, time_windows: [['2031-03-04T07:00:00-05:00', '2031-03-04T08:00:00-05:00']] },
        { ...at, time_windows: [['2031-03-04T06:00:00Z', '2031-03-04T07:00:00Z']] },
      ],
    });
    const earliest = Date.UTC(2031, 2, 4, 6) / 1000;
    expect(timeFrame(body, ['vehicles', 'stops'], 0)).toEqual({ origin: earliest, offsetMinutes: 120 });
    expect(timeFrame(body, ['stops', 'profile', 'vehicles'], 0)).toEqual({ origin: earliest, offsetMinutes: -300 });
  });

  it('without datetimes: now and UTC; a first datetime without offset: UTC', () => {
    expect(timeFrame(parse({ vehicles: [{ start: at }], stops: [at] }), ['vehicles', 'stops'], 1234)).toEqual({ origin: 1234, offsetMinutes: 0 });
    const body = parse({ vehicles: [{ start: at, time_window: ['2031-03-04T10:00:00', '2031-03-04T18:00:00+02:00'] }], stops: [at] });
    expect(timeFrame(body, ['vehicles', 'stops'], 0).offsetMinutes).toBe(0);
  });
});

describe('unreachable locations', () => {
  const p = (lat: number) => ({ poiId: null, latitude: lat, longitude: 9 });
  // Points: 0 = both vehicles' start, 1 = vehicle 1's end, 2..4 = stops (stop 2 twice).
  const ix = indexLocations(
    [
      { start: p(0), end: null },
      { start: p(0), end: p(1) },
    ],
    [p(2), p(3), p(4), p(3)],
  );

  it('deduplicates positions and keeps every field naming each', () => {
    expect(ix.points).toHaveLength(5);
    expect(ix.fields).toEqual([['vehicles.0.start', 'vehicles.1.start'], ['vehicles.1.end'], ['stops.0'], ['stops.1', 'stops.3'], ['stops.2']]);
    expect(ix.stop).toEqual([2, 3, 4, 3]);
  });

  const full = () => Array.from({ length: 5 }, (_, a) => Array.from({ length: 5 }, (_, b): number | null => (a === b ? 0 : 10)));

  it('a connected matrix has none; legs no plan drives may be missing', () => {
    const m = full();
    // Into a start and out of an end: never driven.
    for (let a = 0; a < 5; a++) m[a][0] = null;
    for (let b = 0; b < 5; b++) if (b !== 1) m[1][b] = null;
    expect(unreachableLocations(ix, (a, b) => m[a][b], 'driving-car')).toEqual({});
  });

  it('blames the location cut off, at every field naming it, not its neighbours', () => {
    const m = full();
    for (let a = 0; a < 5; a++) if (a !== 3) m[a][3] = null;
    const errors = unreachableLocations(ix, (a, b) => m[a][b], 'driving-car');
    expect(Object.keys(errors)).toEqual(['stops.1', 'stops.3']);
    const one = full();
    one[0][1] = null;
    one[2][1] = null;
    one[3][1] = null;
    one[4][1] = null;
    expect(Object.keys(unreachableLocations(ix, (a, b) => one[a][b], 'driving-car'))).toEqual(['vehicles.1.end']);
  });
});
