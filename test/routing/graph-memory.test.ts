// The profile descriptors graph memory writes for the route kernel (solver-as/layouts.json
// profileDescriptor, generated into KERNEL_LAYOUTS): each word the count or the array's byte offset it names.
import { describe, expect, it } from 'vitest';
import { claimReverse, ensureReverse, loadGraph, placeGraph, type ProfileMemory } from '../../src/engine/graph-memory.js';
import { KERNEL_LAYOUTS } from '../../src/lib/kernel-records.js';
import { MapDir } from '../../src/map/map-dir.js';
import { ARRAY_TYPES, GRAPH_ARRAYS, type RoadGraph } from '../../src/map/graphs/road-graph.js';
import { testMap } from './helpers.js';

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

describe('reverse graph', () => {
  const reverseArrays = (pm: ProfileMemory) =>
    (['rFirst', 'rTail', 'rEdge'] as const).map((key) =>
      Array.from(new Uint32Array(pm.memory.buffer, pm.layout.arrays[key].offset, pm.layout.arrays[key].length)),
    );

  it('a loaded graph gets it from the first thread that needs it, the same as a placed graph made at once', async () => {
    const map = await testMap();
    const files = await MapDir.open(map.dir);
    const meta = files.manifest.profiles['driving-car']!;
    const loaded = await loadGraph('driving-car', files, { nodeCount: meta.nodes, edgeCount: meta.edges, geomCount: meta.geometries });
    await files.verified();
    const placed = placeGraph('driving-car', map.graphs['driving-car']);
    const made = reverseArrays(placed);
    // In-edges of every node: as many as there are edges, each the edge's own tail and id.
    expect(made[1].length).toBe(meta.edges);
    const { firstOut, head } = map.graphs['driving-car'];
    for (const v of [0, 1, Math.floor(meta.nodes / 2), meta.nodes - 1]) {
      for (let i = made[0][v]; i < made[0][v + 1]; i++) {
        const e = made[2][i];
        expect(head[e]).toBe(v);
        expect(firstOut[made[1][i]] <= e && e < firstOut[made[1][i] + 1]).toBe(true);
      }
    }
    // Not made at load: the arrays are still zero pages.
    expect(reverseArrays(loaded)[0].every((x) => x === 0)).toBe(true);
    expect(claimReverse(placed)).toBe(false);
    expect(claimReverse(loaded)).toBe(true);
    expect(claimReverse(loaded)).toBe(false);
    ensureReverse(loaded);
    expect(reverseArrays(loaded)).toEqual(made);
  });
});
