// The layouts the kernels and their TypeScript sides share, held to their one description
// (solver-as/layouts.json): the kernels' reads are read from their source, the TypeScript side's writes
// from the memory it fills or from its source, so neither side can move a field without this test naming it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { placeGraph } from '../../src/engine/graph-memory.js';
import { projectRoot } from '../../src/lib/paths.js';
import { ARRAY_TYPES, GRAPH_ARRAYS, type RoadGraph } from '../../src/map/graphs/road-graph.js';

interface FieldRecord {
  bytes: number;
  fields: { name: string; at: number; kernel?: string; ts?: string }[];
}
interface Layouts {
  profileDescriptor: { bytes: number; boundAt: number; words: { name: string; kernel?: string }[] };
  scratchHeader: { capacityAt: number; arraysAt: number };
  nodeRecord: { bytes: number; durationAt: number; centimetersAt: number };
  seed: { bytes: number; nodeAt: number; costAt: number; maxPerSide: number };
  bucketEntry: { bytes: number };
  contractionCost: { bytes: number; centimetersWord: number; durationWord: number };
  vrp: { vehicle: FieldRecord; vehicleHours: FieldRecord; vehicleLimits: FieldRecord; job: FieldRecord; window: FieldRecord; params: FieldRecord };
}
const layouts = JSON.parse(readFileSync(join(projectRoot, 'solver-as', 'layouts.json'), 'utf8')) as Layouts;
const source = (...path: string[]) => readFileSync(join(projectRoot, ...path), 'utf8');
const kernel = source('solver-as', 'assembly', 'route.ts');
const kernelTs = source('src', 'engine', 'route-kernel.ts');
/** `, 8` for a load or store at offset 8 from its pointer; nothing at 0. */
const offsetArg = (at: number) => (at ? `, ${at}` : '');

describe('profile descriptor', () => {
  const words = layouts.profileDescriptor.words;

  it('the kernel reads each word at 4 x its index', () => {
    const read = Object.fromEntries([...kernel.matchAll(/(\w+) = (?:<usize>)?load<u32>\(desc(?: \+ (\d+))?\);/g)].map((m) => [m[1], Number(m[2] ?? 0)]));
    const expected = Object.fromEntries(words.flatMap((w, i) => (w.kernel ? [[w.kernel, 4 * i]] : [])));
    expect(read).toEqual(expected);
  });

  it('graph memory writes each word: the counts, and the byte offset of each array', () => {
    // Arrays of distinct lengths, so that every offset differs.
    const arrays = Object.fromEntries(GRAPH_ARRAYS.map(([key, type], i) => [key, new ARRAY_TYPES[type](i + 1)]));
    const g = { nodeCount: 7, edgeCount: 11, geomCount: 3, ...arrays } as unknown as RoadGraph;
    const { memory, layout } = placeGraph('layout-test', g);
    const written = Array.from(new Uint32Array(memory.buffer, layout.desc, words.length));
    const counts: Record<string, number> = { nodeCount: 7, edgeCount: 11, upEdgeCount: layout.arrays.upHead.length };
    const expected = words.map((w) => counts[w.name] ?? layout.arrays[w.name as keyof typeof layout.arrays].offset);
    expect(written).toEqual(expected);
    expect(layout.arrays[GRAPH_ARRAYS[0][0]].offset).toBe(layout.desc + layouts.profileDescriptor.bytes);
    expect(words.length * 4).toBeLessThanOrEqual(layouts.profileDescriptor.boundAt);
    expect(layout.boundDesc).toBe(0); // no bound hierarchy (lbUpFirst is not one entry per node and one more)
  });

  it('a graph with a bound hierarchy gets a second descriptor: its arrays in the hierarchy words, no unpacking pairs', () => {
    const arrays = Object.fromEntries(GRAPH_ARRAYS.map(([key, type], i) => [key, new ARRAY_TYPES[type](key === 'lbUpFirst' ? 8 : i + 1)]));
    const g = { nodeCount: 7, edgeCount: 11, geomCount: 3, ...arrays } as unknown as RoadGraph;
    const { memory, layout } = placeGraph('layout-test', g);
    expect(layout.boundDesc).toBe(layout.desc + layouts.profileDescriptor.boundAt);
    const written = Array.from(new Uint32Array(memory.buffer, layout.boundDesc, words.length));
    const bound = (name: string) => (name === 'chA' || name === 'chB' ? 0 : `lb${name[0].toUpperCase()}${name.slice(1)}`);
    const counts: Record<string, number> = { nodeCount: 7, edgeCount: 11, upEdgeCount: layout.arrays.lbUpHead.length };
    const expected = words.map((w, i) => {
      if (w.name in counts) return counts[w.name];
      const name = i >= 7 && i < 18 ? bound(w.name) : w.name;
      return name === 0 ? 0 : layout.arrays[name as keyof typeof layout.arrays].offset;
    });
    expect(written).toEqual(expected);
  });
});

describe('scratch header and seeds', () => {
  it('the kernel reads the capacity word and starts its arrays where the description says', () => {
    expect(kernel).toMatch(
      new RegExp(`cap = <usize>load<u32>\\(scratch${layouts.scratchHeader.capacityAt ? ` \\+ ${layouts.scratchHeader.capacityAt}` : ''}\\);`),
    );
    expect(kernel).toContain(`let p = (scratch + ${layouts.scratchHeader.arraysAt} + 63) & ~(<usize>63);`);
  });

  it('the TypeScript side writes the capacity word', () => {
    expect(kernelTs).toContain(
      `new Uint32Array(shared.memory.buffer, this.scratch${layouts.scratchHeader.capacityAt ? ` + ${layouts.scratchHeader.capacityAt}` : ''}, 1)[0] = capacity;`,
    );
  });

  it('both sides agree on the node record the labels of a reach are read from', () => {
    const { bytes, durationAt, centimetersAt } = layouts.nodeRecord;
    expect(kernel).toContain(`const NODE_RECORD_SHIFT: usize = ${Math.log2(bytes)};`);
    expect(kernel).toContain(`sDistF = p + ${durationAt}; sCm = p + ${centimetersAt};`);
    expect(kernel).toMatch(/export function labelRecords\(\): usize \{\n {2}return sStampF;/);
    expect(kernelTs).toContain(`const RECORD_F64 = ${bytes / 8};`);
    expect(kernelTs).toContain(`const DURATION_F64 = ${durationAt / 8};`);
    expect(kernelTs).toContain(`const CENTIMETERS_F64 = ${centimetersAt / 8};`);
  });

  it('both sides agree on the seed record', () => {
    const { bytes, nodeAt, costAt } = layouts.seed;
    // Kernel: records at i << log2(bytes), the node a u32 and the cost an f64 at their offsets.
    expect(kernel).toContain(`seeds + (<usize>i << ${Math.log2(bytes)});`);
    expect(kernel).toContain(`const v = load<u32>(rec${nodeAt ? ` + ${nodeAt}` : ''}); const c = load<f64>(rec + ${costAt});`);
    // TypeScript: the same record through a u32 and an f64 view of the same bytes.
    expect(kernelTs).toContain(`u[${bytes / 4} * i${nodeAt ? ` + ${nodeAt / 4}` : ''}] = seeds[i].node;`);
    expect(kernelTs).toContain(`f[${bytes / 8} * i + ${costAt / 8}] = seeds[i].cost;`);
  });
});

describe('route kernel: seed count, blocked geometries, buckets', () => {
  it('both sides allow the same number of seeds per side', () => {
    expect(kernel).toContain(`const MAX_SEEDS: i32 = ${layouts.seed.maxPerSide};`);
    expect(kernelTs).toContain(`export const MAX_SEEDS = ${layouts.seed.maxPerSide};`);
  });

  it('the kernel reads the blocked bit where the one writer sets it', () => {
    expect(kernel).toContain('(load<u8>(gBlocked + (<usize>g >> 3)) & (<u8>1 << <u8>(g & 7))) != 0');
    expect(kernelTs).toContain('const i = g >> 3;');
    expect(kernelTs).toContain('bits[i] |= 1 << (g & 7);');
    for (const file of ['avoid.ts', 'route-core.ts']) expect(source('src', 'engine', file)).not.toMatch(/bits\[/);
  });

  it('the TypeScript side claims bucket room in entries of the size the kernel writes', () => {
    const { bytes } = layouts.bucketEntry;
    expect(kernel).toContain(`const rec = entries + <usize>count * ${bytes};`);
    expect(kernel).toContain(`const rec = bucketEntries + <usize>k * ${bytes};`);
    expect(kernelTs).toContain(`const BUCKET_ENTRY_BYTES = ${bytes};`);
  });
});

describe('contraction kernel: the packed edge cost', () => {
  const contract = source('solver-as', 'assembly', 'contract.ts');
  const contractionTs = source('src', 'map', 'graphs', 'contraction.ts');
  const { bytes, centimetersWord, durationWord } = layouts.contractionCost;

  it('the kernel packs the duration in the high word and the centimeters in the low one, a u64 per edge', () => {
    expect(bytes).toBe(8);
    expect([durationWord, centimetersWord]).toEqual([1, 0]); // little-endian: the high word is the second
    expect(contract).toContain('addEdge(v, w, (<u64>u32At(weight, e) << 32) | <u64>u32At(geomCm, u32At(orig, e) >> 1), e, NONE);');
    expect(contract).toContain('setU64(pC, e, c);');
  });

  it('the TypeScript side reads each word from the same place', () => {
    expect(contractionTs).toContain(`cost: new Uint32Array(buffer, k.poolCost() >>> 0, ${bytes / 4} * K),`);
    for (const side of ['up', 'dn']) {
      expect(contractionTs).toContain(`${side}Weight[i] = pool.cost[${bytes / 4} * e + ${durationWord}];`);
      expect(contractionTs).toContain(`${side}Cm[i] = pool.cost[${bytes / 4} * e${centimetersWord ? ` + ${centimetersWord}` : ''}];`);
    }
  });
});

describe('VRP kernel: input records', () => {
  const vrp = source('solver-as', 'assembly', 'vrp.ts');
  const solverTs = source('src', 'engine', 'vrp', 'solver.ts');
  const { vehicle, vehicleHours, vehicleLimits, job, window, params } = layouts.vrp;
  /** Fields of one type one after another from 0: what a TypeScript `set([...], i * bytes / size)` writes. */
  const packed = (r: FieldRecord, size: number) => expect(r.fields.map((f) => f.at)).toEqual(r.fields.map((_, i) => i * size));

  it('vehicles: start and end (i32), working hours (f64 pair)', () => {
    expect(vrp).toContain(`const p = vehI + (<usize>r << ${Math.log2(vehicle.bytes)});`);
    expect(vrp).toContain(`unchecked(vStart[r] = load<i32>(p${offsetArg(vehicle.fields[0].at)}));`);
    expect(vrp).toContain(`unchecked(vEnd[r] = load<i32>(p${offsetArg(vehicle.fields[1].at)}));`);
    expect(vrp).toContain(`unchecked(vTwS[r] = load<f64>(vehT + (<usize>r << ${Math.log2(vehicleHours.bytes)})${offsetArg(vehicleHours.fields[0].at)}));`);
    expect(vrp).toContain(`unchecked(vTwE[r] = load<f64>(vehT + (<usize>r << ${Math.log2(vehicleHours.bytes)})${offsetArg(vehicleHours.fields[1].at)}));`);
    packed(vehicle, 4);
    packed(vehicleHours, 8);
    expect(solverTs).toContain(`vehI: k.alloc(V * ${vehicle.bytes}),`);
    expect(solverTs).toContain(`vehT: k.alloc(V * ${vehicleHours.bytes}),`);
    expect(solverTs).toContain(`vehI.set([v.start, isOpen(v) ? -1 : (v.end as number)], r * ${vehicle.bytes / 4});`);
    expect(solverTs).toContain(`vehT.set(hoursOf(v), r * ${vehicleHours.bytes / 8});`);
  });

  it('vehicles: the most jobs, travel time and meters of a route, the fixed cost, speed factor, cost per second and per meter, and the break the search plans (f64 each)', () => {
    const at = (i: number) => offsetArg(vehicleLimits.fields[i].at);
    expect(vrp).toContain(`const lim = limP + <usize>r * ${vehicleLimits.bytes};`);
    expect(vrp).toContain(`const maxTasks = load<f64>(lim${at(0)});`);
    for (const [i, into] of [
      [1, 'vMaxTravel'],
      [2, 'vMaxDist'],
      [3, 'vFixed'],
      [4, 'vSpeed'],
      [5, 'vPerSec'],
      [7, 'vBrkS'],
      [8, 'vBrkE'],
      [9, 'vBrkD'],
    ] as const) {
      expect(vrp).toContain(`unchecked(${into}[r] = load<f64>(lim${at(i)}));`);
    }
    // Meters are priced only when the matrix has them.
    expect(vrp).toContain(`unchecked(vPerM[r] = hasDist ? load<f64>(lim${at(6)}) : 0.0);`);
    packed(vehicleLimits, 8);
    expect(solverTs).toContain(`lim: k.alloc(V * ${vehicleLimits.bytes}),`);
    // The writer's values, in the record's order, then the record's offset in f64s.
    const write = solverTs.slice(solverTs.indexOf('lim.set('), solverTs.indexOf('cap.set('));
    const order = [
      'v.maxJobs',
      'v.maxTravel',
      'v.maxDistance',
      'v.fixed',
      'v.speedFactor',
      'v.perHour',
      'v.perKm',
      'brk?.windows[0]?.[0]',
      'brk?.windows[0]?.[1]',
      'brk.service',
    ];
    expect(order.map((x) => write.indexOf(x))).toEqual(order.map((x) => write.indexOf(x)).toSorted((a, b) => a - b));
    expect(order.every((x) => write.includes(x))).toBe(true);
    expect(order).toHaveLength(vehicleLimits.fields.length);
    expect(write).toContain(`r * ${vehicleLimits.bytes / 8},`);
  });

  it('jobs: location, first window, window count (i32); windows: start and end (f64)', () => {
    expect(vrp).toContain(`const p = jobI + (<usize>j * ${job.bytes});`);
    for (const [field, into] of [
      [0, 'jLoc'],
      [1, 'jTwOff'],
      [2, 'jTwCnt'],
    ] as const) {
      expect(vrp).toContain(`unchecked(${into}[j] = load<i32>(p${offsetArg(job.fields[field].at)}));`);
    }
    packed(job, 4);
    expect(solverTs).toContain(`jobI: k.alloc(J * ${job.bytes}),`);
    expect(solverTs).toContain(`jobI.set([job.location, off, windows[j].length], j * ${job.bytes / 4});`);
    expect(vrp).toContain(`let p = twP + (<usize>unchecked(jTwOff[j]) << ${Math.log2(window.bytes)});`);
    expect(vrp).toContain(`if (load<f64>(p${offsetArg(window.fields[1].at)}) >= a) {`);
    expect(vrp).toContain(`const s = load<f64>(p${offsetArg(window.fields[0].at)});`);
    packed(window, 8);
    expect(solverTs).toContain(`tw: k.alloc(Math.max(1, twCount) * ${window.bytes}),`);
  });

  it('parameters: each f64 read where the TypeScript side writes it', () => {
    packed(params, 8);
    expect(solverTs).toContain(`params: k.alloc(${params.bytes}),`);
    const written = solverTs.match(/new Float64Array\(buf, ptr\.params, (\d+)\)\.set\(\[(.*)\]\);/);
    expect(written).not.toBeNull();
    expect(Number(written![1])).toBe(params.fields.length);
    expect(params.fields.length * 8).toBe(params.bytes);
    const values = written![2].split(', ');
    for (const [i, f] of params.fields.entries()) {
      expect(values[i], f.name).toContain(f.ts!);
      const line = vrp.split('\n').find((l) => l.includes(`load<f64>(params${offsetArg(f.at)})`));
      expect(line, f.name).toContain(f.kernel!);
    }
  });
});
