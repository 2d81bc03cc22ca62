// A road's destination signs and exit numbers as OSRM's car profile writes them into a step
// (profiles/lib/destination.lua, way_handlers.lua, canonicalizeStringList), tag by tag; the guidance
// feature files check them in whole routes (test/routing/osrm-guidance.test.ts).
import { describe, expect, it } from 'vitest';
import { canonicalList, destinationsOf, exitsOf, turnLanesOf } from '../../src/map/osm/road-signs.js';

describe('road signs', () => {
  it('lists as canonicalizeStringList writes them: a space after each delimiter, runs of spaces as one', () => {
    expect(canonicalList('aaa;bbb; ccc;  d;dd', ';')).toBe('aaa; bbb; ccc; d; dd');
    expect(canonicalList('Great America Parkway, Bowers Avenue', ',')).toBe('Great America Parkway, Bowers Avenue');
    // Only the C locale's white space: a no-break space is a character like any other.
    expect(canonicalList('a,\u00a0b', ',')).toBe('a, \u00a0b');
  });

  it('assembles refs, then the destinations, each list by ", " (destination-signs.feature)', () => {
    expect(destinationsOf({ destination: 'Berlin' }, true)).toBe('Berlin');
    expect(destinationsOf({ destination: 'Berlin', 'destination:ref': 'A1' }, true)).toBe('A1: Berlin');
    expect(destinationsOf({ destination: 'Berlin;Hamburg', 'destination:ref': 'A1;A2' }, true)).toBe('A1, A2: Berlin, Hamburg');
    expect(destinationsOf({ 'destination:ref': 'A1;A2' }, true)).toBe('A1, A2');
    expect(destinationsOf({ 'destination:street': 'St Street' }, true)).toBe('St Street');
    // The destination before the street; a ref alone before the street too.
    expect(destinationsOf({ destination: 'Berlin', 'destination:street': 'St Street' }, true)).toBe('Berlin');
    expect(destinationsOf({ 'destination:ref': 'A1', 'destination:street': 'St Street' }, true)).toBe('A1');
    expect(destinationsOf({ highway: 'primary', name: 'AB' }, true)).toBeNull();
  });

  it('reads the :forward and :backward variants before the plain tag, per direction of travel', () => {
    const tags = { destination: 'Berlin', 'destination:ref': 'A1', 'destination:ref:backward': 'A2', 'destination:backward': 'Hamburg' };
    expect(destinationsOf(tags, true)).toBe('A1: Berlin');
    expect(destinationsOf(tags, false)).toBe('A2: Hamburg');
    expect(destinationsOf({ 'destination:forward': 'Berlin' }, false)).toBeNull();
  });

  it('writes exit numbers with "; " between them', () => {
    expect(exitsOf({ 'junction:ref': '10;12' })).toBe('10; 12');
    expect(exitsOf({ 'junction:ref': '393' })).toBe('393');
    expect(exitsOf({ ref: '393' })).toBeNull();
  });

  it('reads turn lanes per direction as guidance.lua get_turn_lanes: the :forward / :backward tag first, vehicle:lanes and lanes:psv applied', () => {
    expect(turnLanesOf({ 'turn:lanes': 'left|through' }, true)).toBe('left|through');
    expect(turnLanesOf({ 'turn:lanes': 'left|through' }, false)).toBe('left|through');
    expect(turnLanesOf({ 'turn:lanes:forward': 'through|right', 'turn:lanes:backward': 'left|' }, false)).toBe('left|');
    expect(turnLanesOf({ 'turn:lanes:forward': 'through|right' }, false)).toBeNull();
    // turn-lanes.feature's designated lane: the lane vehicles may not use is left out.
    expect(turnLanesOf({ 'turn:lanes:forward': 'through|through|right', 'vehicle:lanes:forward': 'yes|no|yes' }, true)).toBe('through|right');
    // A bus lane on the right with no indication of its own.
    expect(turnLanesOf({ 'turn:lanes:forward': 'through|right|', 'lanes:psv:forward': '1' }, true)).toBe('through|right');
    expect(turnLanesOf({ 'turn:lanes:forward': '|through|right', 'lanes:psv:backward': '1' }, true)).toBe('through|right');
  });
});
