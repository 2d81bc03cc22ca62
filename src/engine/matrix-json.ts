// A matrix's cells as JSON text, written by the compute thread straight into bytes (an arena slot): the
// main thread then sends them as they are instead of printing thousands of numbers itself, and no arrays
// of cells cross between threads.

/** Bytes per cell at most: 17 digits, the point, a tenth and the comma. */
const CELL_BYTES = 20;

/** The most bytes `writeCellRows` can take for these rows. */
export const cellRowsBound = (rows: number, cols: number): number => rows * (cols * CELL_BYTES + 3);

const COMMA = 44,
  OPEN = 91,
  CLOSE = 93,
  POINT = 46,
  ZERO = 48;
const NULL = [110, 117, 108, 108];

/**
 * Rows `[a,b,…],[…]` (without the enclosing brackets, so that rows written by several threads join with a
 * comma) of `cells` (row-major, `cols` a row): seconds or meters in whole tenths, `null` where NaN (no
 * route). The text of a number is what String() gives its value rounded to tenths. Returns the end offset.
 */
export function writeCellRows(cells: Float64Array, rows: number, cols: number, out: Uint8Array, at: number): number {
  for (let i = 0; i < rows; i++) {
    if (i) out[at++] = COMMA;
    out[at++] = OPEN;
    for (let j = 0; j < cols; j++) {
      if (j) out[at++] = COMMA;
      const x = cells[i * cols + j];
      if (Number.isNaN(x)) {
        for (const b of NULL) out[at++] = b;
        continue;
      }
      const t = Math.round(x * 10);
      let whole = Math.floor(t / 10);
      const tenth = t - whole * 10;
      // Digits of the whole part, written backwards into place.
      let digits = 1;
      for (let w = whole; w >= 10; w = Math.floor(w / 10)) digits++;
      for (let k = digits - 1; k >= 0; k--) {
        const next = Math.floor(whole / 10);
        out[at + k] = ZERO + (whole - next * 10);
        whole = next;
      }
      at += digits;
      if (tenth) {
        out[at++] = POINT;
        out[at++] = ZERO + tenth;
      }
    }
    out[at++] = CLOSE;
  }
  return at;
}
