// The kernels' shared layouts are generated from solver-as/layouts.json for both sides
// (solver-as/layouts.mjs): the generated files must be what the description makes, the generator must
// refuse a description two sides could read differently, and a record must be written where it says.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { KERNEL_LAYOUTS, writeRecord } from '../../src/lib/kernel-records.js';
import { generate } from '../../solver-as/layouts.mjs';

describe('kernel layouts generated from layouts.json', () => {
  it('the AssemblyScript and TypeScript files are what layouts.json makes now', () => {
    const files = Object.entries(generate());
    expect(files).toHaveLength(2);
    for (const [file, text] of files) expect(readFileSync(file, 'utf8'), file).toBe(text);
  });

  it('refuses a record whose fields leave it, are misaligned or overlap', () => {
    const record = (fields: { name: string; at: number; type: string }[]) => ({ r: { bytes: 16, fields } });
    expect(() => generate(record([{ name: 'a', at: 12, type: 'f64' }]))).toThrow(/r\.a: ends past the record's 16 bytes/);
    expect(() => generate(record([{ name: 'a', at: 4, type: 'f64' }]))).toThrow(/r\.a: offset 4 is not a multiple of its type's 8 bytes/);
    expect(() =>
      generate(
        record([
          { name: 'a', at: 0, type: 'f64' },
          { name: 'b', at: 4, type: 'i32' },
        ]),
      ),
    ).toThrow(/r\.b: overlaps another field at byte 4/);
    expect(() => generate(record([{ name: 'a', at: 0, type: 'i64' }]))).toThrow(/r\.a: type must be one of/);
  });

  it('writes each field of a record at its offset, in its type, little-endian', () => {
    const { vehicleLimits, job } = KERNEL_LAYOUTS.vrp;
    const buf = new ArrayBuffer(8 + 2 * vehicleLimits.bytes);
    const values = {
      maxJobs: 1,
      maxTravel: 2.5,
      maxDistance: 3,
      fixed: 4,
      speedFactor: 1.25,
      costPerSecond: 6,
      costPerMeter: 7,
      firstBreak: 0,
      breakCount: 0,
    };
    writeRecord(new DataView(buf), 8, 1, vehicleLimits, values);
    const f64 = new Float64Array(buf, 8 + vehicleLimits.bytes, vehicleLimits.bytes / 8);
    for (const [name, field] of Object.entries(vehicleLimits.fields)) expect(f64[field.at / 8], name).toBe(values[name as keyof typeof values]);
    const jobs = new ArrayBuffer(job.bytes * 3);
    writeRecord(new DataView(jobs), 0, 2, job, { location: -5, firstWindow: 7, windowCount: 1 });
    const i32 = new Int32Array(jobs, 2 * job.bytes, 3);
    expect([i32[job.fields.location.at / 4], i32[job.fields.firstWindow.at / 4], i32[job.fields.windowCount.at / 4]]).toEqual([-5, 7, 1]);
  });
});
