// Route texts cross from the compute threads to the main thread in slots of one shared buffer instead of
// as a copy per reply. Every copy was a new ArrayBuffer on the main thread, and V8 counts those bytes
// toward a limit that starts a full garbage collection when crossed: with 2–5 MB per 10-waypoint route
// across a country, one started every request or two (2–13 ms pauses each, seen with --trace-gc), and
// they made the p95 of such routes three times their p50. A slot is read in place and given back once
// its reply is sent.

/** Slots in the arena: more than the routes in flight at once on any pool size we run. */
const SLOTS = 16;
/** A slot holds a line of up to ~570,000 points (a longer one is copied as before). */
export const SLOT_BYTES = 8 << 20;
/** The slot states come first: 0 free, otherwise the token of the thread that holds it. */
const HEADER_BYTES = 64;
/** A route's text starts this far into its slot: the main thread writes the reply's JSON before it there
 *  (and the rest after it), and sends the slot's bytes as they are (framedText) instead of copying the
 *  text out into a reply of its own, 0.5–0.9 ms of its time for a far route. */
export const HEAD_ROOM = 4096;

export interface ReplyArena {
  states: Int32Array;
  bytes: Uint8Array;
}

/** A new arena's memory (pages are committed as slots are first written). */
export function createArenaBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(HEADER_BYTES + SLOTS * SLOT_BYTES);
}

export function arenaOf(buffer: SharedArrayBuffer): ReplyArena {
  return { states: new Int32Array(buffer, 0, SLOTS), bytes: new Uint8Array(buffer, HEADER_BYTES) };
}

/** Where a slot's text is: [slot, token, length], and where in the slot it starts when not at its start
 *  (a route's alternatives follow the route's own text in its slot). */
export type SlotRef = [slot: number, token: number, length: number, start?: number];

let lastToken = 0;

/**
 * A free slot, held under a token of this thread's own (so that a late release of the slot's previous
 * holder cannot free it again); null when every slot is held.
 */
export function takeSlot(arena: ReplyArena, threadId: number): { slot: number; token: number; bytes: Uint8Array } | null {
  // Thread ids in the high bits, a counter in the low ones: unique among the threads, never 0.
  lastToken = (lastToken + 1) & 0xfffff;
  const token = ((threadId & 0x3ff) << 20) | lastToken || 1;
  for (let slot = 0; slot < arena.states.length; slot++) {
    if (Atomics.compareExchange(arena.states, slot, 0, token) === 0) {
      return { slot, token, bytes: arena.bytes.subarray(slot * SLOT_BYTES, (slot + 1) * SLOT_BYTES) };
    }
  }
  return null;
}

/** The text in a slot, in place. */
export function slotText(arena: ReplyArena, [slot, , length, start = 0]: SlotRef): Uint8Array {
  return arena.bytes.subarray(slot * SLOT_BYTES + start, slot * SLOT_BYTES + start + length);
}

/**
 * The text at `ref` with `before` and `after` (UTF-8) written around it in its slot, as one view of it:
 * null when the slot has no room there (a text at its slot's start, or one reaching its end).
 */
export function framedText(arena: ReplyArena, [slot, , length, start = 0]: SlotRef, before: string, after: string): Uint8Array | null {
  const head = Buffer.byteLength(before),
    tail = Buffer.byteLength(after);
  if (head > start || start + length + tail > SLOT_BYTES) return null;
  const whole = Buffer.from(arena.bytes.buffer, arena.bytes.byteOffset + slot * SLOT_BYTES + start - head, head + length + tail);
  whole.write(before, 0);
  whole.write(after, head + length);
  return whole;
}

/** Gives a slot back, if it is still held under this token (a second release does nothing). */
export function releaseSlot(arena: ReplyArena, [slot, token]: SlotRef): void {
  Atomics.compareExchange(arena.states, slot, token, 0);
}

/** Slots held now (for tests). */
export function heldSlots(arena: ReplyArena): number {
  let n = 0;
  for (let slot = 0; slot < arena.states.length; slot++) if (Atomics.load(arena.states, slot) !== 0) n++;
  return n;
}
