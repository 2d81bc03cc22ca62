import { describe, expect, it } from 'vitest';
import {
  arenaOf,
  createArenaBuffer,
  framedText,
  HEAD_ROOM,
  heldSlots,
  releaseSlot,
  SLOT_BYTES,
  slotText,
  takeSlot,
  type SlotRef,
} from '../../src/engine/reply-arena.js';

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

  it('frames a text in place: the head in the room before it, the tail after it, one view of the slot', () => {
    const arena = arenaOf(createArenaBuffer());
    const held = takeSlot(arena, 3)!;
    const text = Buffer.from('[[9.5,47.1],[9.6,47.2]]');
    held.bytes.set(text, HEAD_ROOM);
    const ref: SlotRef = [held.slot, held.token, text.length, HEAD_ROOM];
    // A head with a character of several bytes: room is counted in bytes.
    const whole = framedText(arena, ref, '{"data":{"name":"Zürich","geometry":', ',"legs":[]}}')!;
    expect(whole.buffer).toBe(arena.bytes.buffer);
    expect(JSON.parse(Buffer.from(whole).toString())).toEqual({
      data: {
        name: 'Zürich',
        geometry: [
          [9.5, 47.1],
          [9.6, 47.2],
        ],
        legs: [],
      },
    });
    // The text itself is where it was: the frame is written around it, not over it.
    expect(Buffer.from(slotText(arena, ref)).toString()).toBe(text.toString());

    // No room: a head longer than the room before the text, a tail past the slot's end.
    expect(framedText(arena, ref, 'x'.repeat(HEAD_ROOM + 1), '')).toBeNull();
    expect(framedText(arena, [held.slot, held.token, 3, 0], '{', '}')).toBeNull();
    expect(framedText(arena, [held.slot, held.token, SLOT_BYTES - HEAD_ROOM - 2, HEAD_ROOM], '', '}}}')).toBeNull();
    expect(framedText(arena, [held.slot, held.token, SLOT_BYTES - HEAD_ROOM - 2, HEAD_ROOM], '', '}}')).not.toBeNull();
    releaseSlot(arena, ref);
  });
});
