import { describe, expect, it } from 'vitest';
import { arenaOf, createArenaBuffer, heldSlots, releaseSlot, slotText, takeSlot, type SlotRef } from '../../src/engine/reply-arena.js';

describe('reply arena', () => {
  it('hands out each slot once, and a late second release cannot free a slot taken again', () => {
    const arena = arenaOf(createArenaBuffer());
    const taken: SlotRef[] = [];
    for (;;) {
      const held = takeSlot(arena, 3);
      if (!held) break;
      held.bytes.set([65 + taken.length], 0);
      taken.push([held.slot, held.token, 1]);
    }
    expect(taken.length).toBeGreaterThan(2);
    expect(new Set(taken.map(([slot]) => slot)).size).toBe(taken.length);
    expect(heldSlots(arena)).toBe(taken.length);
    expect(Buffer.from(slotText(arena, taken[1])).toString()).toBe('B');

    releaseSlot(arena, taken[0]);
    const again = takeSlot(arena, 4)!;
    expect(again.slot).toBe(taken[0][0]);
    // The first holder's release, late (a reply released twice): the new holder keeps the slot.
    releaseSlot(arena, taken[0]);
    expect(heldSlots(arena)).toBe(taken.length);
    releaseSlot(arena, [again.slot, again.token, 0]);
    for (const ref of taken.slice(1)) releaseSlot(arena, ref);
    expect(heldSlots(arena)).toBe(0);
  });
});
