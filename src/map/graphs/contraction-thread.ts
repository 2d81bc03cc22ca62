// Runs one contraction in a worker thread, so the map build contracts two profiles at once on two cores
// while the main thread assembles the next graph. Input and output arrays are transferred, not copied.
import { parentPort } from 'node:worker_threads';
import { contractGraph, type ContractionInput } from './contraction.js';

parentPort!.on('message', (input: ContractionInput) => {
  const release = (): void => {
    // The kernel has its own copy now: these can go while it works (hundreds of MB on a country).
    input.firstOut = input.head = input.weight = input.orig = new Uint32Array(0);
    input.geomCm = new Uint32Array(0);
  };
  const ch = contractGraph(input, input, (done, total) => parentPort!.postMessage({ progress: [done, total] }), release);
  const arrays = Object.values(ch).filter((v): v is Uint32Array => ArrayBuffer.isView(v));
  parentPort!.postMessage(
    { done: ch },
    arrays.map((a) => a.buffer as ArrayBuffer),
  );
});
