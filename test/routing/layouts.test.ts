// The layouts the route and contraction kernels and their TypeScript sides still spell out, held to their one
// description (solver-as/layouts.json): the kernels' reads are read from their source, the TypeScript side's
// writes from the memory it fills or from its source. The VRP and k-means kernels and their writers take
// theirs from the code generated from layouts.json (test/unit/kernel-layouts.test.ts, npm run check).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { placeGraph } from '../../src/engine/graph-memory.js';
import { projectRoot } from '../../src/lib/paths.js';
import { ARRAY_TYPES, GRAPH_ARRAYS, type RoadGraph } from '../../src/map/graphs/road-graph.js';

interface Layouts {
  profileDescriptor: { bytes: number; boundAt: number; words: { name: string; kernel?: string }[] };
  scratchHeader: { capacityAt: number; arraysAt: number };
  nodeRecord: { bytes: number; durationAt: number; centimetersAt: number };
  seed: { bytes: number; nodeAt: number; costAt: number; maxPerSide: number };
  bucketEntry: { bytes: number };
  contractionCost: { bytes: number; centimetersWord: number; durationWord: number };
}
const layouts = JSON.parse(readFileSync(join(projectRoot, 'solver-as', 'layouts.json'), 'utf8')) as Layouts;
const source = (...path: string[]) => readFileSync(join(projectRoot, ...path), 'utf8');
const kernel = source('solver-as', 'assembly', 'route.ts');
const kernelTs = source('src', 'engine', 'route-kernel.ts');

describe('profile descriptor', () => {
  const words = layouts.profileDescriptor.words;

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
  const { bytes, centimetersWord, durationWord } = layouts.contractionCost;

  it('the kernel packs the duration in the high word and the centimeters in the low one, a u64 per edge', () => {
    expect(bytes).toBe(8);
    expect([durationWord, centimetersWord]).toEqual([1, 0]); // little-endian: the high word is the second
    expect(contract).toContain('addEdge(v, w, (<u64>u32At(weight, e) << 32) | <u64>u32At(geomCm, u32At(orig, e) >> 1), e, NONE);');
    expect(contract).toContain('setU64(pC, e, c);');
  });
});
