// The folding both the search index and its queries use (src/map/geocoder/search-text.ts). Plain ASCII
// takes a shortcut (its case is all there is to fold); here it must give what the whole folding gives,
// written out again from Unicode's own rules, for every printable ASCII character and random names.
import { describe, expect, it } from 'vitest';
import { fold, words } from '../../src/map/geocoder/search-text.js';

/** The general folding for text without the special letters, Cyrillic or non-ASCII digits. */
const reference = (text: string) => text.toLowerCase().normalize('NFKD').replace(/\p{M}/gu, '');
const referenceWords = (text: string) => reference(text).match(/[\p{L}\p{N}]+/gu) ?? [];

describe('search text folding', () => {
  it('folds plain ASCII as the general rules do', () => {
    const printable = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('');
    expect(fold(printable)).toBe(reference(printable));
    expect(words(printable)).toEqual(referenceWords(printable));
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
    for (let n = 0; n < 500; n++) {
      const text = Array.from({ length: 1 + Math.floor(rand() * 30) }, () => printable[Math.floor(rand() * printable.length)]).join('');
      expect(fold(text)).toBe(reference(text));
      expect(words(text)).toEqual(referenceWords(text));
    }
  });

  it('still folds what is not ASCII', () => {
    expect(fold('Städtle')).toBe('stadtle');
    expect(words('Große Straße 3')).toEqual(['grosse', 'strasse', '3']);
    expect(words('Kirchstrasse 72, Vaduz')).toEqual(['kirchstrasse', '72', 'vaduz']);
  });
});
