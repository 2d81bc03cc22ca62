// The route geometry writer prints exactly what JSON.stringify prints for the rounded coordinates.
import { describe, expect, it } from 'vitest';
import { lineStringBytes, lineStringJson, microOfE7, writeLineString, writeLineStringBeside } from '../../src/engine/line-json.js';
import { rng } from './helpers.js';

const text = (bytes: Uint8Array): string => Buffer.from(bytes).toString('utf8');

/** Degrees rounded to 1e-6° from 1e-7° integers, computed otherwise than the writer does. */
const rounded = (e7: number): number => Math.round(e7 / 10) / 1e6;

const reference = (values: number[]): string => {
  const coordinates: number[][] = [];
  for (let i = 0; i < values.length; i += 2) coordinates.push([rounded(values[i]), rounded(values[i + 1])]);
  if (coordinates.length === 1) coordinates.push([...coordinates[0]]);
  return JSON.stringify({ type: 'LineString', coordinates });
};

describe('lineStringJson', () => {
  it('rounds 1e-7° integers half up, as Math.round rounds degrees', () => {
    expect([15, 14, -15, -16, -14, 0, -5, 5].map(microOfE7)).toEqual([2, 1, -1, -2, -1, 0, 0, 1]);
    // The int32 ends, as Math.floor((e7 + 5) / 10) has them (microOfE7 divides in integers).
    expect([-(2 ** 31), 2 ** 31 - 1, -1, -6].map(microOfE7)).toEqual([-214748365, 214748365, 0, -1]);
    expect(Object.is(microOfE7(-3), 0)).toBe(true);
  });

  it('equals JSON.stringify of the 1e-6° rounded pairs, negative, whole, tiny and half-way numbers included', () => {
    const rand = rng(5);
    const values = [
      0, 0, -4, 5, 1_800_000_000, -900_000_000, -1_799_999_995, 899_999_995, 95_000_000, 471_000_000, -10, 120_001_000, -15, 25, -95_209_125, 471_412_345,
    ];
    for (let i = 0; i < 20000; i++) values.push(Math.round((rand() - 0.5) * 3.6e9), Math.round((rand() - 0.5) * 1.8e9));
    const json = text(lineStringJson(Int32Array.from(values)));
    expect(json).toBe(reference(values));
    expect(JSON.parse(json).coordinates).toHaveLength(values.length / 2);
  });

  it('copies out of the reused buffer: a shorter line written later leaves an earlier one intact', () => {
    const long = lineStringJson(Int32Array.from({ length: 2000 }, (_, i) => 90_000_000 + i * 1000));
    const before = text(long);
    const short = lineStringJson(Int32Array.of(10_000_000, 20_000_000, 30_000_000, 40_000_000));
    expect(text(long)).toBe(before);
    expect(text(short)).toBe('{"type":"LineString","coordinates":[[1,2],[3,4]]}');
    expect(long.buffer.byteLength).toBe(long.length);
  });

  it('repeats a single point: a LineString needs two positions', () => {
    expect(text(lineStringJson(Int32Array.of(95_200_000, 471_400_000)))).toBe('{"type":"LineString","coordinates":[[9.52,47.14],[9.52,47.14]]}');
  });

  it('writes a line beside another (alternatives beside their route) as it writes it alone, whatever they share', () => {
    const rand = rng(36);
    const point = () => [Math.round((rand() - 0.5) * 3.6e9), Math.round((rand() - 0.5) * 1.8e9)];
    const base = Array.from({ length: 300 }, point).flat();
    const written = new Uint8Array(lineStringBytes(Int32Array.from(base)));
    const offsets = new Int32Array(base.length / 2 + 1);
    const end = writeLineString(Int32Array.from(base), written, offsets);
    const baseText = written.slice(0, end);
    const lines: number[][] = [
      base,
      base.slice(0, 40),
      base.slice(-40),
      [...base.slice(0, 100), ...Array.from({ length: 50 }, point).flat(), ...base.slice(-120)],
      [...base.slice(0, 101), ...base.slice(-121)], // a longitude alike, its latitude not: written
      [...Array.from({ length: 3 }, point).flat(), ...base.slice(6)],
      [...base.slice(0, -2), ...point()],
      [...base, ...base.slice(-4)],
      Array.from({ length: 2 }, point).flat(),
      base.slice(0, 2),
    ];
    for (const values of lines) {
      const line = Int32Array.from(values);
      const buf = new Uint8Array(lineStringBytes(line));
      const n = writeLineStringBeside(line, buf, Int32Array.from(base), baseText, offsets);
      expect(text(buf.subarray(0, n))).toBe(reference(values));
    }
  });
});
