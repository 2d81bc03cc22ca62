// The route geometry writer prints exactly what JSON.stringify prints for the rounded coordinates.
import { describe, expect, it } from 'vitest';
import { lineStringJson, micro } from '../../src/routing/line-json.js';
import { rng } from './helpers.js';

const text = (bytes: Uint8Array): string => Buffer.from(bytes).toString('utf8');

const reference = (values: number[]): string => {
  const coordinates: number[][] = [];
  for (let i = 0; i < values.length; i += 2) coordinates.push([micro(values[i]), micro(values[i + 1])]);
  if (coordinates.length === 1) coordinates.push([...coordinates[0]]);
  return JSON.stringify({ type: 'LineString', coordinates });
};

describe('lineStringJson', () => {
  it('equals JSON.stringify of the 1e-6° rounded pairs, negative, whole and tiny numbers included', () => {
    const rand = rng(5);
    const values = [0, 0, -0.0000004, 0.0000005, 180, -90, -179.9999995, 89.99999949, 9.5, 47.1, -0.000001, 12.000100];
    for (let i = 0; i < 20000; i++) values.push((rand() - 0.5) * 360, (rand() - 0.5) * 180);
    const json = text(lineStringJson(Float64Array.from(values)));
    expect(json).toBe(reference(values));
    expect(JSON.parse(json).coordinates).toHaveLength(values.length / 2);
  });

  it('copies out of the reused buffer: a shorter line written later leaves an earlier one intact', () => {
    const long = lineStringJson(Float64Array.from({ length: 2000 }, (_, i) => 9 + i / 1e4));
    const before = text(long);
    const short = lineStringJson(Float64Array.of(1, 2, 3, 4));
    expect(text(long)).toBe(before);
    expect(text(short)).toBe('{"type":"LineString","coordinates":[[1,2],[3,4]]}');
    expect(long.buffer.byteLength).toBe(long.length);
  });

  it('repeats a single point: a LineString needs two positions', () => {
    expect(text(lineStringJson(Float64Array.of(9.52, 47.14)))).toBe('{"type":"LineString","coordinates":[[9.52,47.14],[9.52,47.14]]}');
  });
});
