// The profile descriptors graph memory writes for the route kernel (solver-as/layouts.json
// profileDescriptor, generated into KERNEL_LAYOUTS): each word the count or the array's byte offset it names.
import { describe, expect, it } from 'vitest';
import { placeGraph } from '../../src/engine/graph-memory.js';
import { KERNEL_LAYOUTS } from '../../src/lib/kernel-records.js';
import { ARRAY_TYPES, GRAPH_ARRAYS, type RoadGraph } from '../../src/map/graphs/road-graph.js';

const DESCRIPTOR = KERNEL_LAYOUTS.profileDescriptor;
const words = Object.entries(DESCRIPTOR.words).sort((a, b) => a[1] - b[1]);

describe('profile descriptor', () => {
  it('graph memory writes each word: the counts, and the byte offset of each array', () => {
    // Arrays of distinct lengths, so that every offset differs.
    const arrays = Object.fromEntries(GRAPH_ARRAYS.map(([key, type], i) => [key, new ARRAY_TYPES[type](i + 1)]));
    const g = { nodeCount: 7, edgeCount: 11, geomCount: 3, ...arrays } as unknown as RoadGraph;
    const { memory, layout } = placeGraph('layout-test', g);
    const written = Array.from(new Uint32Array(memory.buffer, layout.desc, words.length));
    const counts: Record<string, number> = { nodeCount: 7, edgeCount: 11, upEdgeCount: layout.arrays.upHead.length };
    const expected = words.map(([name]) => counts[name] ?? layout.arrays[name as keyof typeof layout.arrays].offset);
    expect(written).toEqual(expected);
    expect(layout.arrays[GRAPH_ARRAYS[0][0]].offset).toBe(layout.desc + DESCRIPTOR.bytes);
    expect(words.length * 4).toBeLessThanOrEqual(DESCRIPTOR.boundAt);
    expect(layout.boundDesc).toBe(0); // no bound hierarchy (lbUpFirst is not one entry per node and one more)
  });

  it('a graph with a bound hierarchy gets a second descriptor: its arrays in the hierarchy words, no unpacking pairs', () => {
    const arrays = Object.fromEntries(GRAPH_ARRAYS.map(([key, type], i) => [key, new ARRAY_TYPES[type](key === 'lbUpFirst' ? 8 : i + 1)]));
    const g = { nodeCount: 7, edgeCount: 11, geomCount: 3, ...arrays } as unknown as RoadGraph;
    const { memory, layout } = placeGraph('layout-test', g);
    expect(layout.boundDesc).toBe(layout.desc + DESCRIPTOR.boundAt);
    const written = Array.from(new Uint32Array(memory.buffer, layout.boundDesc, words.length));
    const bound = (name: string) => (name === 'chA' || name === 'chB' ? 0 : `lb${name[0].toUpperCase()}${name.slice(1)}`);
    const counts: Record<string, number> = { nodeCount: 7, edgeCount: 11, upEdgeCount: layout.arrays.lbUpHead.length };
    // The hierarchy's words (upEdgeCount to chB) name the bound hierarchy's arrays.
    const hierarchy = (i: number) => i >= DESCRIPTOR.words.upEdgeCount && i <= DESCRIPTOR.words.chB;
    const expected = words.map(([name, i]) => {
      if (name in counts) return counts[name];
      const array = hierarchy(i) ? bound(name) : name;
      return array === 0 ? 0 : layout.arrays[array as keyof typeof layout.arrays].offset;
    });
    expect(written).toEqual(expected);
  });
});
