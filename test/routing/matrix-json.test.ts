// The matrix's cells as text (engine/matrix-json.ts) against JSON.stringify of the same values rounded to
// tenths: what the matrix endpoint answered before the compute threads wrote the text themselves.
import { describe, expect, it } from 'vitest';
import { cellRowsBound, writeCellRows } from '../../src/engine/matrix-json.js';
import { rng } from './helpers.js';

const text = (cells: Float64Array, rows: number, cols: number): string => {
  const out = new Uint8Array(cellRowsBound(rows, cols));
  return new TextDecoder().decode(out.subarray(0, writeCellRows(cells, rows, cols, out, 0)));
};
const reference = (cells: Float64Array, rows: number, cols: number): string =>
  JSON.stringify(
    Array.from({ length: rows }, (_, i) => Array.from(cells.subarray(i * cols, (i + 1) * cols), (x) => (Number.isNaN(x) ? null : Math.round(x * 10) / 10))),
  ).slice(1, -1);

describe('matrix cells as JSON text', () => {
  it('prints whole tenths, null for no route, rows joined by commas', () => {
    const edge = [0, 0.04, 0.05, 0.96, 9.95, 10, 99.99, 123456.789, 3_600_000, 2 ** 40 + 0.3, Number.NaN];
    const cells = Float64Array.from(edge);
    expect(text(cells, 1, edge.length)).toBe(reference(cells, 1, edge.length));
    expect(text(cells, 1, edge.length)).toBe('[0,0,0.1,1,10,10,100,123456.8,3600000,1099511627776.3,null]');
  });

  it('equals JSON.stringify on random matrices of every shape up to 100 × 100', () => {
    const rand = rng(5);
    for (let k = 0; k < 40; k++) {
      const rows = 1 + Math.floor(rand() * 100),
        cols = 1 + Math.floor(rand() * 100);
      const cells = Float64Array.from({ length: rows * cols }, () => (rand() < 0.05 ? Number.NaN : rand() * 10 ** Math.floor(rand() * 8)));
      expect(text(cells, rows, cols)).toBe(reference(cells, rows, cols));
    }
  });
});
