import { instantiate } from './wasm.js';

interface Geodesy extends WebAssembly.Exports {
  memory: WebAssembly.Memory;
  scratch(bytes: number): number;
  distancesFrom(lat: number, lon: number, coords: number, n: number, out: number): void;
}

let kernel: Geodesy | undefined;

/** Great-circle distances from one point to many, in meters, computed by the WASM kernel. */
export function distancesTask(input: { from: [number, number]; points: Array<[number, number]> }): number[] {
  kernel ??= instantiate<Geodesy>('geodesy');
  const n = input.points.length;
  const base = kernel.scratch(n * 24);
  const coords = new Float64Array(kernel.memory.buffer, base, n * 2);
  input.points.forEach(([lat, lon], i) => {
    coords[i * 2] = lat;
    coords[i * 2 + 1] = lon;
  });
  const outPtr = base + n * 16;
  kernel.distancesFrom(input.from[0], input.from[1], base, n, outPtr);
  return Array.from(new Float64Array(kernel.memory.buffer, outPtr, n));
}
