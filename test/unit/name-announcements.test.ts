// When a change of road is a "new name": OSRM's requiresNameAnnounced (util/guidance/name_announcements.hpp)
// case by case, with car.lua's suffix list; the guidance feature files check it in whole routes.
import { describe, expect, it } from 'vitest';
import { nameAnnounced } from '../../src/engine/guidance/names.js';

describe('nameAnnounced (OSRM requiresNameAnnounced)', () => {
  it('announces another name, and a name after none', () => {
    expect(nameAnnounced('Landstrasse', '', 'Herrengasse', '')).toBe(true);
    expect(nameAnnounced('', '', 'Herrengasse', '')).toBe(true);
    expect(nameAnnounced('', '', '', '28')).toBe(true);
  });

  it('says nothing for the same name, a name that begins the other, or a name dropped', () => {
    expect(nameAnnounced('Landstrasse', '28', 'Landstrasse', '28')).toBe(false);
    expect(nameAnnounced('Landstrasse', '', 'Landstrasse Nord', '')).toBe(false);
    expect(nameAnnounced('Landstrasse Nord', '', 'Landstrasse', '')).toBe(false);
    expect(nameAnnounced('Landstrasse', '', '', '')).toBe(false);
  });

  it('says nothing when only a suffix-list word around the shared part changes, with or without spaces', () => {
    expect(nameAnnounced('42 N', '', '42 S', '')).toBe(false);
    expect(nameAnnounced('North Central Expressway', '', 'Central Expressway', '')).toBe(false);
    expect(nameAnnounced('42N', '', '42S', '')).toBe(false);
    // "Street" is no suffix of the list: another name.
    expect(nameAnnounced('Main Street', '', 'Main Avenue', '')).toBe(true);
  });

  it('reads refs as lists one of which may hold the other', () => {
    expect(nameAnnounced('', 'US 64; US 412; OK 151', '', 'US 64; US 412')).toBe(false);
    expect(nameAnnounced('', 'A 13', '', 'A 14')).toBe(true);
    expect(nameAnnounced('Rheinstrasse', 'A 13', 'Rheinstrasse', '')).toBe(false);
  });

  it('announces a ref alone onto a name alone, and the reverse', () => {
    expect(nameAnnounced('', 'A 13', 'Rheinstrasse', '')).toBe(true);
    expect(nameAnnounced('Rheinstrasse', '', '', 'A 13')).toBe(true);
  });

  it('announces other exit numbers on the same road, but not a ramp that only loses its number', () => {
    expect(nameAnnounced('A100', '', 'A100', '', '', '1A')).toBe(true);
    expect(nameAnnounced('A100', '', 'A100', '', '1A', '1B')).toBe(true);
    expect(nameAnnounced('A100', '', 'A100', '', '1A', '1A')).toBe(false);
    // OSRM numbers only the first way of a ramp ("ExitRamp" be with junction:ref=3, then ef without).
    expect(nameAnnounced('ExitRamp', '', 'ExitRamp', '', '3', '')).toBe(false);
    expect(nameAnnounced('ExitRamp', '', 'Other', '', '3', '')).toBe(true);
  });
});
