// How the search index and its queries see text: one folding and tokenizing for both sides, so a name
// is found by what a user types ("stadtle" for "Städtle", "Landstr." for "Landstrasse").

const ASCII_RE = /^\p{ASCII}*$/u;
/** Letters NFD does not take apart; both sides fold them the same, so what is missing still matches itself. */
const SPECIAL: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', ł: 'l', đ: 'd', ħ: 'h', ı: 'i', ŀ: 'l', þ: 'th', ð: 'd' };
const SPECIAL_RE = new RegExp(`[${Object.keys(SPECIAL).join('')}]`, 'g');

// Cyrillic as Latin letters (a simple transliteration): a house number "55к3" is typed "55 k3" as often,
// and a street in Cyrillic is found by its Latin spelling too. Both sides fold alike, so the display keeps the script.
const CYRILLIC: Record<string, string> = {
  а: 'a',
  б: 'b',
  в: 'v',
  г: 'g',
  ґ: 'g',
  д: 'd',
  е: 'e',
  є: 'e',
  ж: 'zh',
  з: 'z',
  и: 'i',
  і: 'i',
  ї: 'i',
  к: 'k',
  л: 'l',
  м: 'm',
  н: 'n',
  о: 'o',
  п: 'p',
  р: 'r',
  с: 's',
  т: 't',
  у: 'u',
  ф: 'f',
  х: 'kh',
  ц: 'ts',
  ч: 'ch',
  ш: 'sh',
  щ: 'shch',
  ъ: '',
  ы: 'y',
  ь: '',
  э: 'e',
  ю: 'yu',
  я: 'ya',
};
const CYRILLIC_RE = /[\u0400-\u04ff]/g;
const DECIMAL_DIGIT = /\p{Nd}/u;

/** The value of a decimal digit of any script: Unicode keeps each script's digits 0–9 in a row. */
function digitValue(c: string): string {
  const cp = c.codePointAt(0)!;
  let zero = cp;
  while (cp - zero < 9 && DECIMAL_DIGIT.test(String.fromCodePoint(zero - 1))) zero--;
  return String(cp - zero);
}

/**
 * Lower case, without diacritics, compatibility forms as their plain letters and digits (④ → 4, ﬁ → fi),
 * digits of every script as 0–9 (𑁪𑁫 → 45), Cyrillic in Latin letters; anything but letters and digits separates words.
 */
export function fold(text: string): string {
  // Plain ASCII (most names and every query typed on a plain keyboard) has nothing to fold but its case.
  if (ASCII_RE.test(text)) return text.toLowerCase();
  return text
    .toLowerCase()
    .replace(SPECIAL_RE, (c) => SPECIAL[c])
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(CYRILLIC_RE, (c) => CYRILLIC[c] ?? c)
    .replace(/\P{ASCII}/gu, (c) => (DECIMAL_DIGIT.test(c) ? digitValue(c) : c));
}

/** The words of a text, folded. "Sankt Martins-Ring" → sankt, martins, ring; "d'Andorra" → d, andorra. */
export function words(text: string): string[] {
  if (ASCII_RE.test(text)) return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  return fold(text).match(/[\p{L}\p{N}]+/gu) ?? [];
}

// Street words the extracts' languages abbreviate, each to the short form. The index holds both forms
// of a word that has one, a query word matches either: "Landstr", "Landstr." and "Landstrasse" meet.
const SHORT: Record<string, string> = {
  strasse: 'str',
  street: 'st',
  sankt: 'st',
  saint: 'st',
  sainte: 'ste',
  avenue: 'av',
  avinguda: 'av',
  avenida: 'av',
  boulevard: 'bd',
  carrer: 'c',
  placa: 'pl',
  place: 'pl',
  plaza: 'pl',
  chemin: 'ch',
  route: 'rte',
  platz: 'pl',
  gasse: 'g',
};

/** The short form of a word (also of a German compound on -strasse: landstrasse → landstr), or null when it has none. */
export function shortForm(word: string): string | null {
  const short = SHORT[word];
  if (short !== undefined) return short;
  if (word.length > 8 && word.endsWith('strasse')) return word.slice(0, -4);
  return null;
}

/** Words that end a street's name, written apart or joined to it ("Feldkircher Strasse", "Feldkircherstrasse"). */
const STREET_ENDINGS = ['strasse', 'gasse', 'weg', 'platz', 'allee', 'ring'];

/**
 * More words under which a name is found: the joined form of a name written apart ("vorarlberger strasse"
 * → vorarlbergerstrasse) and the parts of one written joined (feldkircherstrasse → feldkircher, strasse).
 */
export function nameVariants(nameWords: string[]): string[] {
  const out: string[] = [];
  const n = nameWords.length;
  if (n >= 2 && STREET_ENDINGS.includes(nameWords[n - 1])) out.push(nameWords[n - 2] + nameWords[n - 1]);
  for (const w of nameWords) {
    const end = STREET_ENDINGS.find((e) => w.length >= e.length + 3 && w.endsWith(e));
    if (end) out.push(w.slice(0, -end.length), end);
  }
  return out;
}

/** A word that can be a house number: digits, maybe letters and digits after them ("38", "12a", "4bis", "501h1", "55k3"). */
export const looksLikeHouseNumber = (word: string): boolean => /^\d{1,5}([a-z]{1,3}\d{0,4})?$/.test(word);

/** A house number as compared: folded, without spaces or punctuation ("12 A", "12-a" → "12a"; "34-10" → "3410"). */
export const houseNumberKey = (number: string): string => words(number).join('');

/** The house numbers an `addr:housenumber` holds: a list ("2;4;12", "2, 4, 12") is several. */
export const houseNumbers = (value: string): string[] =>
  value
    .split(/[;,]/)
    .map((v) => v.trim())
    .filter((v) => houseNumberKey(v) !== '');

/**
 * The folded words of a query with, for a word that begins with a digit, the house numbers it makes with
 * the next one or two words when only a space, "-" or "/" parts them and they are short ("2 a", "45 bis",
 * "34-10", "501-H 1"), longest first; a comma ends a house number.
 */
export function queryWords(text: string): Array<{ word: string; joined: string[] }> {
  const folded = fold(text);
  const found = [...folded.matchAll(/[\p{L}\p{N}]+/gu)];
  return found.map((m, i) => {
    const joined: string[] = [];
    if (/^\d/.test(m[0])) {
      let key = m[0];
      for (let j = i + 1; j < found.length && j <= i + 2; j++) {
        const between = folded.slice(found[j - 1].index! + found[j - 1][0].length, found[j].index);
        if (!/^[\s/-]*$/.test(between) || !/^(\p{L}{1,3}|\p{L}?\d{1,4}\p{L}?)$/u.test(found[j][0])) break;
        key += found[j][0];
        joined.unshift(key);
      }
    }
    return { word: m[0], joined };
  });
}
