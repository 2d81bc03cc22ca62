// Shared memory that the threads of a pool need the same contents in, filled once by whichever thread gets
// to it first: a state word per part (in a SharedArrayBuffer the main thread made with the room) says
// whether it is unbuilt, being built or built. A thread that finds a part being built waits for it
// (Atomics.wait: compute threads only, never the main thread). What each thread built for itself before
// cost every thread the same CPU and memory (engine/geocoder/trees.ts); what the main thread built held up
// its other work (the profiles' reverse graphs, engine/graph-memory.ts). The driving profiles' turn rules
// (engine/turn-back.ts, ~0.2 s a profile and thread on 32x32) were tried this way too: restarts showed no
// gain (ready 1.03 ×, warm-up 0.95 × over 6 rounds each), so each thread still finds them for itself.

const UNBUILT = 0;
const BUILDING = 1;
const BUILT = 2;

/** `parts` state words, all unbuilt. */
export const buildStates = (parts: number): Int32Array => new Int32Array(new SharedArrayBuffer(4 * parts));

/** Builds part `i` (`build` fills its room) unless another thread has it or is at it; true when this
 *  thread built it. A build that throws leaves the part to the next thread that needs it. */
export function claimBuild(state: Int32Array, i: number, build: () => void): boolean {
  if (Atomics.compareExchange(state, i, UNBUILT, BUILDING) !== UNBUILT) return false;
  let done = UNBUILT;
  try {
    build();
    done = BUILT;
  } finally {
    Atomics.store(state, i, done);
    Atomics.notify(state, i);
  }
  return true;
}

/** Returns once part `i` is built: by this thread when no other has it, else by the one at it. */
export function whenBuilt(state: Int32Array, i: number, build: () => void): void {
  while (Atomics.load(state, i) !== BUILT) {
    if (!claimBuild(state, i, build)) Atomics.wait(state, i, BUILDING);
  }
}
