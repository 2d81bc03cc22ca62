import { describe, expect, it } from 'vitest';
import { hilbertIndex, hilbertNumbering } from '../../src/map/graphs/node-order.js';

describe('graph node numbering along the Hilbert curve', () => {
  it('walks an 8 × 8 corner in 64 steps, each to a neighbouring cell', () => {
    const cellAt: Array<[number, number]> = [];
    for (let x = 0; x < 8; x++) for (let y = 0; y < 8; y++) cellAt[hilbertIndex(x, y)] = [x, y];
    expect(Object.keys(cellAt).map(Number)).toEqual(Array.from({ length: 64 }, (_, i) => i));
    for (let d = 1; d < 64; d++) {
      const [[x0, y0], [x1, y1]] = [cellAt[d - 1], cellAt[d]];
      expect(Math.abs(x1 - x0) + Math.abs(y1 - y0)).toBe(1);
    }
  });

  it('is a permutation that puts nodes near each other on the ground near each other in number', () => {
    // A 60 × 60 grid of nodes listed in a scrambled order, as OSM ids list a country's junctions.
    const side = 60,
      n = side * side;
    const order = Array.from({ length: n }, (_, i) => (i * 1_103) % n); // 1,103 is prime to 3,600
    const coords = new Float64Array(2 * n);
    order.forEach((cell, v) => {
      coords[2 * v] = 47 + Math.floor(cell / side) * 0.001;
      coords[2 * v + 1] = 9.5 + (cell % side) * 0.001;
    });
    const numberOf = hilbertNumbering(coords, n);
    expect([...numberOf].sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, i) => i));
    // Mean gap in number between grid neighbours, before and after.
    const vOf = new Array<number>(n);
    order.forEach((cell, v) => (vOf[cell] = v));
    let before = 0,
      after = 0,
      pairs = 0;
    for (let r = 0; r < side; r++)
      for (let c = 0; c + 1 < side; c++) {
        for (const [a, b] of [
          [r * side + c, r * side + c + 1],
          [c * side + r, (c + 1) * side + r],
        ]) {
          before += Math.abs(vOf[a] - vOf[b]);
          after += Math.abs(numberOf[vOf[a]] - numberOf[vOf[b]]);
          pairs++;
        }
      }
    expect(before / pairs).toBeGreaterThan(500);
    expect(after / pairs).toBeLessThan(50);
  });

  it('numbers nodes in one place (or a single node) without failing', () => {
    expect([...hilbertNumbering(new Float64Array([47, 9, 47, 9, 47, 9]), 3)]).toEqual([0, 1, 2]);
    expect([...hilbertNumbering(new Float64Array([47, 9]), 1)]).toEqual([0]);
  });
});
