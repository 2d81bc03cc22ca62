// Forward geocoding and autocomplete over a map's search index (map/geocoder/search-format.ts), read
// in place: a query's words are looked up in the sorted dictionary (exact, short form, prefix for the
// word being typed, one edit for a longer word nothing else matches), the rarest word's postings give
// the candidates, and each candidate's own word list says which query words it has in its name or
// context. House numbers are looked up among a street's address points. No step scans the map.
import { SCALE } from '../../map/geocoder/areas.js';
import { METERS_PER_DEGREE } from '../../lib/geo/sphere.js';
import { KIND_PLACE, KIND_POSTCODE, SEARCH_FILE, searchArraysOf, type SearchArrays } from '../../map/geocoder/search-format.js';
import { readGeocoderDir, type GeocoderFiles } from '../../map/map-dir.js';
import { fold, houseNumberKey, looksLikeHouseNumber, queryWords as splitQuery, shortForm, words } from '../../map/geocoder/search-text.js';
import type { Address } from './reverse.js';

export type SearchLayer = 'address' | 'street' | 'place' | 'postcode';
export const SEARCH_LAYERS: readonly SearchLayer[] = ['address', 'street', 'place', 'postcode'];

export interface StructuredQuery {
  street?: string;
  housenumber?: string;
  postcode?: string;
  city?: string;
  country?: string;
}

export interface SearchQuery {
  /** Free text; with `structured`, ignored. */
  text?: string;
  structured?: StructuredQuery;
  near?: { lat: number; lon: number } | null;
  /** ISO 3166-1 alpha-2 codes, any case; null = all. */
  countries?: readonly string[] | null;
  layers?: readonly SearchLayer[];
  limit: number;
  /** The last word is still being typed: it matches words it begins (autocomplete). */
  prefix?: boolean;
}

export interface SearchHit {
  kind: SearchLayer;
  /** What was found: "Städtle 38", "Städtle", "Vaduz", "9490". */
  name: string;
  lat: number;
  lon: number;
  /** minLat, minLon, maxLat, maxLon in degrees. */
  box: [number, number, number, number];
  address: Address;
  /** 0–1: how much of the query the result matches, and how well. */
  score: number;
  /** Every word of the query matched (else it came because nothing matched them all). */
  complete: boolean;
}

type Role = 'any' | 'name' | 'context' | 'number';

interface Scored {
  hit: Omit<SearchHit, 'complete' | 'address'>;
  address: () => Address;
  missing: number;
  weight: number;
}

interface QueryWord {
  word: string;
  role: Role;
  /** Dictionary word ids it matches, as [from, to) runs. */
  runs: number[];
  /** Runs found only by allowing one edit. */
  typo: boolean;
  houseNumber: boolean;
  /** The word being typed: a house number it begins also matches. */
  prefix: boolean;
  /** Countries whose name has this word, or whose code it is ("Vaduz, Liechtenstein", "Schaan LI"). */
  countries?: Set<number>;
  /** The house numbers this word makes with the next one or two ("2 a", "45 bis", "501-H 1"), longest first, tried before it alone. */
  joined: string[];
  /** `word` as UTF-8, made once for the house numbers of every candidate street. */
  bytes?: Uint8Array;
}

/** Candidates looked at per query: the postings of the rarest word, heaviest first. */
const MAX_CANDIDATES = 4000;
/** Result names folded for preferAsWritten, kept across queries: the keystrokes of one address ask for the
 *  same thousands of names ("Join 88") again and again. */
const foldedNames = new Map<string, string>();
const MAX_FOLDED_NAMES = 100_000;
/** Words of the dictionary a prefix may stand for before it counts as too short to narrow anything. */
const MIN_TYPO_LENGTH = 5;
const NEAR_SCALE_M = 20_000;
/** Points of one number on one street closer than this (degrees × 1e7, |Δlat| + |Δlon|, about 100 m) are one house. */
const SAME_HOUSE_E7 = 10_000;
/** Less than a typo or a missing word costs: it only orders names that fold alike. */
const LITERAL_BONUS = 0.01;

const literal = (text: string) =>
  ` ${text
    .normalize('NFC')
    .toLowerCase()
    .replace(/[\s,]+/g, ' ')
    .trim()} `;

const enc = new TextEncoder();
const dec = new TextDecoder();

export class SearchIndex {
  private readonly a: SearchArrays;
  private readonly streets: number;
  private readonly places: number;
  private readonly words: number;

  constructor(arrays: SearchArrays) {
    this.a = arrays;
    this.streets = arrays.stName.length;
    this.places = arrays.plName.length;
    this.words = arrays.tokOffsets.length - 1;
  }

  /** Streets, places and postcodes: every object a query could look at. */
  get objectCount(): number {
    return this.a.fwdFirst.length - 1;
  }

  get byteLength(): number {
    return Object.values(this.a).reduce((n, v) => n + v.byteLength, 0);
  }

  /** Objects looked at so far (their word lists read, to filter or to score): what a query costs, counted
   *  where a clock would measure the machine's load too (test/geo/search.test.ts). */
  looked = 0;

  /** Names met again and again (a name thousands of streets share, the countries' names), decoded once. */
  private readonly names = new Map<number, { name: string; text: string | null; wordCount: number }>();

  private nameOf(id: number): { name: string; text: string | null; wordCount: number } {
    let n = this.names.get(id);
    if (!n) {
      const text = this.text(id);
      n = { name: text ?? '', text, wordCount: words(text ?? '').length };
      // Bounded: a country's names would otherwise all stay.
      if (this.names.size >= 50_000) this.names.clear();
      this.names.set(id, n);
    }
    return n;
  }

  private text(id: number): string | null {
    if (id < 0) return null;
    return dec.decode(this.a.strBytes.subarray(this.a.strOffsets[id], this.a.strOffsets[id + 1]));
  }

  search(q: SearchQuery): SearchHit[] {
    const layers = new Set(q.layers ?? SEARCH_LAYERS);
    const qwords = this.queryWords(q);
    if (qwords.length === 0 || q.limit <= 0) return [];
    let countries = this.countryFilter(q.countries ?? null);
    if (q.structured?.country) {
      const wanted = this.countryFilter([q.structured.country], true);
      countries = countries ? new Set([...countries].filter((c) => wanted?.has(c))) : wanted;
    }

    const candidates = this.candidates(qwords);
    let fewestMissing = Number.POSITIVE_INFINITY;
    const scored: Scored[] = [];
    const evaluate = (ids: Iterable<number>) => {
      for (const id of ids) {
        for (const r of this.evaluate(id, qwords, layers, countries, q)) {
          fewestMissing = Math.min(fewestMissing, r.missing);
          scored.push(r);
        }
      }
    };
    // Candidates holding every word of the query first: a common street name ("Hauptstrasse", a country's
    // thousands of them) with a city makes thousands of candidates of which a handful have both. One
    // without a word misses at least 1 and one with them all at most 0.5 (one house number not found), so
    // the others are looked at only when none of these gave a result: the same results, found sooner.
    // Structured queries (a word's place decides), and those where a word may join a house number ("12 b")
    // or name a country, are evaluated whole.
    const words = qwords.filter((w) => !w.houseNumber && w.runs.length > 0);
    const simple = qwords.filter((w) => w.houseNumber).length <= 1 && qwords.every((w) => w.role === 'any' && w.joined.length === 0 && !w.countries);
    if (simple && words.length >= 2) {
      const rest: number[] = [];
      evaluate([...candidates].filter((id) => this.holdsAll(id, words) || (rest.push(id), false)));
      if (scored.length === 0) evaluate(rest);
    } else evaluate(candidates);
    // Results that leave a word unmatched only when none matches every word; only the ones answered are
    // copied into results (a common street name scores thousands).
    const kept = scored.filter((r) => r.missing === fewestMissing);
    this.preferAsWritten(
      kept.map((r) => r.hit),
      q,
    );
    // Stable: a street's house numbers stay in their order.
    kept.sort((x, y) => y.hit.score - x.hit.score || y.weight - x.weight);
    return kept.slice(0, q.limit).map(({ hit: h, address, missing }) => ({
      kind: h.kind,
      name: h.name,
      lat: h.lat,
      lon: h.lon,
      box: h.box,
      address: address(),
      score: h.score,
      complete: missing === 0,
    }));
  }

  /**
   * Of streets and addresses whose names fold alike but are written otherwise ("Bödastrasse 4" and a
   * mistyped "Bodastrasse 4", house "3-7" and "37"), the ones written as asked get a little more score.
   * Only then: a name with no such twin scores the same however it is written ("Landstr. 1", "Landstrasse 1").
   */
  private preferAsWritten(hits: Array<Pick<SearchHit, 'kind' | 'name' | 'score'>>, q: SearchQuery): void {
    const asked = literal(q.structured ? [q.structured.street, q.structured.housenumber].filter(Boolean).join(' ') : (q.text ?? ''));
    // A common name ("Hauptstrasse", the synthetic country's "Join") comes back thousands of times, each
    // house its own name ("Join 88"): one pass notes the folded names written more than one way, and
    // only then is anything else looked at.
    const keys: Array<string | null> = new Array(hits.length).fill(null);
    const firstName = new Map<string, string>();
    const mixed = new Set<string>();
    hits.forEach((h, i) => {
      if (h.kind !== 'street' && h.kind !== 'address') return;
      let f = foldedNames.get(h.name);
      if (f === undefined) {
        if (foldedNames.size >= MAX_FOLDED_NAMES) foldedNames.clear();
        foldedNames.set(h.name, (f = words(h.name).join('')));
      }
      const key = (keys[i] = `${h.kind} ${f}`);
      const seen = firstName.get(key);
      if (seen === undefined) firstName.set(key, h.name);
      else if (seen !== h.name) mixed.add(key);
    });
    if (mixed.size === 0) return;
    hits.forEach((h, i) => {
      const key = keys[i];
      if (key !== null && mixed.has(key) && asked.includes(literal(h.name))) h.score = Math.min(1, Math.round((h.score + LITERAL_BONUS) * 1000) / 1000);
    });
  }

  /**
   * Objects that may match: the smaller of the postings of the rarest word (every object that has all
   * words has it) and the objects with any word in their name (a result needs one).
   */
  private candidates(qwords: QueryWord[]): Iterable<number> {
    const { postFirst, postContext, postings } = this.a;
    // A number being typed begins many words ("1" → every postcode from 1000) and no street's name.
    const typedNumber = (w: QueryWord) => w.houseNumber && w.prefix;
    const words = qwords.some((w) => w.runs.length && !typedNumber(w)) ? qwords.filter((w) => !typedNumber(w)) : qwords;
    // A house number is in no street's postings: only a query of numbers alone may take its rarest word from them.
    const plainWords = words.some((w) => w.runs.length && !w.houseNumber) ? words.filter((w) => !w.houseNumber) : words;
    let rarest: QueryWord | null = null;
    let rarestCount = Number.POSITIVE_INFINITY;
    for (const w of plainWords) {
      if (w.runs.length === 0) continue;
      const n = this.postingCount(w.runs);
      if (n < rarestCount) (rarest = w), (rarestCount = n);
    }
    let named = 0;
    for (const w of words) {
      for (let r = 0; r < w.runs.length; r += 2) for (let t = w.runs[r]; t < w.runs[r + 1]; t++) named += postContext[t] - postFirst[t];
    }
    const out = new Set<number>();
    if (!rarest) return out;
    const take = (from: number, to: number) => {
      for (let p = from; p < to && out.size < MAX_CANDIDATES; p++) out.add(postings[p]);
    };
    // Even the rarest word is too common to take whole ("Join 27, La Turbie": thousands of streets are
    // called Join, thousands lie in a La Turbie): the objects of its postings that hold the other words
    // too come first, so that the cap below cannot leave out the one asked for behind heavier namesakes.
    const others = plainWords.filter((w) => w !== rarest && w.runs.length > 0);
    if (rarestCount > MAX_CANDIDATES && others.length) {
      for (let r = 0; r < rarest.runs.length; r += 2) {
        for (let p = postFirst[rarest.runs[r]]; p < postFirst[rarest.runs[r + 1]] && out.size < MAX_CANDIDATES; p++) {
          if (this.holdsAll(postings[p], others)) out.add(postings[p]);
        }
      }
    }
    if (rarestCount <= named) {
      for (let r = 0; r < rarest.runs.length; r += 2) take(postFirst[rarest.runs[r]], postFirst[rarest.runs[r + 1]]);
    } else {
      for (const w of words) for (let r = 0; r < w.runs.length; r += 2) for (let t = w.runs[r]; t < w.runs[r + 1]; t++) take(postFirst[t], postContext[t]);
    }
    return out;
  }

  /** Whether object `id`'s own word list (name or context) has a word of each of `words`' runs. */
  private holdsAll(id: number, words: QueryWord[]): boolean {
    this.looked++;
    const { fwd, fwdFirst } = this.a;
    const from = fwdFirst[id],
      to = fwdFirst[id + 1];
    return words.every((w) => {
      for (let f = from; f < to; f++) {
        const word = fwd[f] >>> 1;
        for (let r = 0; r < w.runs.length; r += 2) if (word >= w.runs[r] && word < w.runs[r + 1]) return true;
      }
      return false;
    });
  }

  /** The query's words with their dictionary runs; structured fields give their words a role. */
  private queryWords(q: SearchQuery): QueryWord[] {
    const out: QueryWord[] = [];
    const add = (text: string | undefined, role: Role, prefixLast: boolean) => {
      if (!text) return;
      const ws = splitQuery(text);
      ws.forEach(({ word, joined }, i) => {
        const prefix = prefixLast && i === ws.length - 1 && !/[\s,.]$/.test(text);
        out.push({ ...this.lookup(word, role, prefix), joined: role === 'any' ? joined : [] });
      });
    };
    const s = q.structured;
    if (s && (s.street || s.housenumber || s.postcode || s.city)) {
      add(s.street, 'name', false);
      if (s.housenumber) {
        const key = houseNumberKey(s.housenumber);
        if (key) out.push({ word: key, role: 'number', runs: [], typo: false, houseNumber: true, prefix: false, joined: [] });
      }
      add(s.postcode, s.street ? 'context' : 'any', false);
      add(s.city, s.street || s.postcode ? 'context' : 'any', false);
    } else {
      add(q.text, 'any', q.prefix === true);
    }
    return out;
  }

  private lookup(word: string, role: Role, prefix: boolean): QueryWord {
    const runs: number[] = [];
    const addExact = (w: string) => {
      const id = this.find(w);
      if (id >= 0 && !runs.some((_, i) => i % 2 === 0 && runs[i] === id)) runs.push(id, id + 1);
    };
    if (prefix) {
      const [from, to] = this.prefixRange(enc.encode(word));
      if (to > from) runs.push(from, to);
    } else addExact(word);
    const short = shortForm(word);
    if (short) addExact(short);
    // "str." typed for "strasse": the short form the index holds under every such street.
    if (!prefix && word === 'str') addExact('str');
    const countries = role === 'any' || role === 'context' ? this.countriesNamed(word) : undefined;
    let typo = false;
    if (runs.length === 0 && !countries && !prefix && word.length >= MIN_TYPO_LENGTH && !/^\d+$/.test(word)) {
      for (const id of this.oneEditAway(enc.encode(word))) runs.push(id, id + 1);
      typo = runs.length > 0;
    }
    return { word, role, runs, typo, houseNumber: looksLikeHouseNumber(word), prefix, countries, joined: [] };
  }

  private postingCount(runs: number[]): number {
    let n = 0;
    for (let r = 0; r < runs.length; r += 2) n += this.a.postFirst[runs[r + 1]] - this.a.postFirst[runs[r]];
    return n;
  }

  /** Compares dictionary word `id` with `bytes`, looking at no more than `limit` bytes of the word. */
  private compare(id: number, bytes: Uint8Array, limit = Infinity): number {
    const { tokBytes, tokOffsets } = this.a;
    const from = tokOffsets[id];
    const len = Math.min(tokOffsets[id + 1] - from, limit);
    const n = Math.min(len, bytes.length);
    for (let i = 0; i < n; i++) {
      const d = tokBytes[from + i] - bytes[i];
      if (d !== 0) return d;
    }
    return len - Math.min(bytes.length, limit);
  }

  /** First word ≥ `bytes` (looking at `limit` bytes of each word). */
  private lowerBound(bytes: Uint8Array, limit = Infinity, upper = false): number {
    let lo = 0,
      hi = this.words;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = this.compare(mid, bytes, limit);
      if (c < 0 || (upper && c === 0)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private find(word: string): number {
    const bytes = enc.encode(word);
    const i = this.lowerBound(bytes);
    return i < this.words && this.compare(i, bytes) === 0 ? i : -1;
  }

  /** The run of words that begin with `bytes`. */
  private prefixRange(bytes: Uint8Array): [number, number] {
    return [this.lowerBound(bytes, bytes.length), this.lowerBound(bytes, bytes.length, true)];
  }

  /** Dictionary words one insertion, deletion or substitution away (over bytes: a non-ASCII letter is two). */
  private oneEditAway(q: Uint8Array): number[] {
    const { tokBytes, tokOffsets } = this.a;
    const out: number[] = [];
    for (let id = 0; id < this.words; id++) {
      const from = tokOffsets[id];
      const len = tokOffsets[id + 1] - from;
      if (Math.abs(len - q.length) > 1) continue;
      let i = 0;
      while (i < len && i < q.length && tokBytes[from + i] === q[i]) i++;
      if (i === len && len === q.length) continue;
      // After the first difference, skip one byte of the longer side (both when equally long): the rest must agree.
      const wi = len >= q.length ? i + 1 : i;
      const qi = q.length >= len ? i + 1 : i;
      let same = len - wi === q.length - qi;
      for (let k = 0; same && k < len - wi; k++) same = tokBytes[from + wi + k] === q[qi + k];
      // Two neighbours swapped ("stadtel" for "stadtle") is one slip of the fingers too.
      if (!same && len === q.length && i + 1 < len && tokBytes[from + i] === q[i + 1] && tokBytes[from + i + 1] === q[i]) {
        same = true;
        for (let k = i + 2; same && k < len; k++) same = tokBytes[from + k] === q[k];
      }
      if (same) out.push(id);
    }
    return out;
  }

  private countriesNamed(word: string): Set<number> | undefined {
    let out: Set<number> | undefined;
    for (let c = 0; c < this.a.countryName.length; c++) {
      if (words(this.text(this.a.countryName[c]) ?? '').includes(word) || this.text(this.a.countryCode[c]) === word) (out ??= new Set()).add(c);
    }
    return out;
  }

  private countryFilter(codes: readonly string[] | null, byName = false): Set<number> | null {
    if (!codes) return null;
    const wanted = new Set(codes.map((c) => fold(c.trim())));
    const out = new Set<number>();
    for (let c = 0; c < this.a.countryCode.length; c++) {
      const code = this.text(this.a.countryCode[c]);
      const name = this.text(this.a.countryName[c]);
      if ((code !== null && wanted.has(code)) || (byName && name !== null && wanted.has(fold(name)))) out.add(c);
    }
    return out;
  }

  /** The hits object `id` gives: none, one, or (a street whose number is being typed) several addresses. */
  private evaluate(id: number, qwords: QueryWord[], layers: Set<SearchLayer>, countries: Set<number> | null, q: SearchQuery): Scored[] {
    this.looked++;
    const a = this.a;
    const kind = id < this.streets ? 0 : id < this.streets + this.places ? KIND_PLACE : KIND_POSTCODE;
    const k = kind === 0 ? id : kind === KIND_PLACE ? id - this.streets : id - this.streets - this.places;
    const country = kind === 0 ? a.stCountry[k] : kind === KIND_PLACE ? a.plCountry[k] : a.pcCountry[k];
    if (countries && !countries.has(country)) return [];
    if (kind === KIND_PLACE && !layers.has('place')) return [];
    if (kind === KIND_POSTCODE && !layers.has('postcode')) return [];
    if (kind === 0 && !layers.has('street') && !layers.has('address')) return [];
    if (kind !== 0 && qwords.some((w) => w.role === 'number' || w.role === 'name')) return [];

    let missing = 0,
      nameHits = 0,
      typos = 0;
    let numberWord: QueryWord | null = null;
    const from = a.fwdFirst[id],
      to = a.fwdFirst[id + 1];
    for (let wi = 0; wi < qwords.length; wi++) {
      const w = qwords[wi];
      if (kind === 0 && numberWord === null) {
        const span = w.joined.findIndex((key, j) => {
          const last = qwords[wi + w.joined.length - j];
          return last !== undefined && this.houseNumbers(k, { ...w, word: key, prefix: last.prefix }).length > 0;
        });
        if (span >= 0) {
          const words = w.joined.length - span;
          numberWord = { ...w, word: w.joined[span], prefix: qwords[wi + words].prefix };
          wi += words;
          continue;
        }
      }
      let found = 0; // 2 name, 1 context
      for (let f = from; f < to && found < 2; f++) {
        const word = a.fwd[f] >>> 1;
        for (let r = 0; r < w.runs.length; r += 2) {
          if (word >= w.runs[r] && word < w.runs[r + 1]) {
            found = Math.max(found, a.fwd[f] & 1 ? 1 : 2);
            break;
          }
        }
      }
      if (found === 0 && w.countries?.has(country)) found = 1;
      if (w.role === 'name' && found !== 2) found = 0;
      if (w.role === 'number') found = 0;
      if (kind === 0 && w.houseNumber && numberWord === null && found < 2 && (w.role === 'number' || w.role === 'any')) {
        // A number after a street is its house number before it is anything else.
        if (this.houseNumbers(k, w).length) {
          numberWord = w;
          continue;
        }
      }
      // A house number the street lacks costs less than a word of the name or the city.
      if (found === 0) missing += w.houseNumber ? 0.5 : 1;
      else {
        if (found === 2) nameHits++;
        if (w.typo) typos++;
      }
    }
    // A street found by its city alone is not what was asked for.
    if (nameHits === 0) return [];

    const nameId = kind === 0 ? a.stName[k] : kind === KIND_PLACE ? a.plName[k] : a.pcCode[k];
    const { name, wordCount } = this.nameOf(nameId);
    const coverage = Math.min(1, nameHits / Math.max(1, wordCount));
    const matched = Math.max(0, (qwords.length - missing) / qwords.length);
    const weight = kind === 0 ? a.stAddrFirst[k + 1] - a.stAddrFirst[k] : kind === KIND_PLACE ? a.plWeight[k] : 0;
    const importance = Math.min(1, Math.log10(1 + weight) / 4);
    // Addresses are written only for the results answered: a common name has thousands of candidates and
    // ten results.
    const countryName = (): string | null => (country < 0 ? null : this.nameOf(a.countryName[country]).text);
    const score = (lat: number, lon: number, exactNumber: boolean) => {
      let s = matched * (0.55 + 0.25 * coverage + (exactNumber ? 0.1 : 0) + 0.05 * importance + (kind === KIND_PLACE ? 0.05 : 0)) - 0.05 * typos;
      if (q.near) {
        const kx = Math.cos((q.near.lat * Math.PI) / 180);
        const d = Math.hypot((lat / SCALE - q.near.lat) * METERS_PER_DEGREE, (lon / SCALE - q.near.lon) * METERS_PER_DEGREE * kx);
        s *= 0.8 + 0.2 * Math.exp(-d / NEAR_SCALE_M);
      }
      return Math.round(Math.max(0, Math.min(1, s)) * 1000) / 1000;
    };
    const box = (arr: Int32Array, i: number): [number, number, number, number] => [
      arr[4 * i] / SCALE,
      arr[4 * i + 1] / SCALE,
      arr[4 * i + 2] / SCALE,
      arr[4 * i + 3] / SCALE,
    ];

    if (kind === KIND_PLACE) {
      const lat = a.plCenter[2 * k],
        lon = a.plCenter[2 * k + 1];
      const hit: Scored['hit'] = {
        kind: 'place',
        name,
        lat: lat / SCALE,
        lon: lon / SCALE,
        box: box(a.plBox, k),
        score: score(lat, lon, false),
      };
      return [{ hit, address: () => addressOf(null, null, name, null, countryName()), missing, weight }];
    }
    if (kind === KIND_POSTCODE) {
      const lat = a.pcCenter[2 * k],
        lon = a.pcCenter[2 * k + 1];
      const cityOf = () => this.text(a.pcCity[k]);
      const hit: Scored['hit'] = {
        kind: 'postcode',
        name,
        lat: lat / SCALE,
        lon: lon / SCALE,
        box: box(a.pcBox, k),
        score: score(lat, lon, false),
      };
      return [{ hit, address: () => addressOf(null, null, cityOf(), name, countryName()), missing, weight }];
    }
    const city = () => this.text(a.stCity[k]);
    const streetZip = () => this.text(a.stPostcode[k]);
    if (numberWord && layers.has('address')) {
      return this.houseNumbers(k, numberWord).map((i) => {
        const number = this.text(a.adNumber[i])!;
        const lat = a.adCoords[2 * i],
          lon = a.adCoords[2 * i + 1];
        const exact = houseNumberKey(number) === numberWord.word;
        // Of two houses with the number on the street, the one whose own postcode the query names comes
        // first (a fraction of the weight, which otherwise is a count: it orders no other results).
        const own = this.text(a.adPostcode[i]);
        const postcode = () => own ?? streetZip();
        const postcodeAsked = own !== null && words(own).every((p) => qwords.some((w) => w.word === p));
        const hit: Scored['hit'] = {
          kind: 'address',
          name: `${name} ${number}`,
          lat: lat / SCALE,
          lon: lon / SCALE,
          box: [lat / SCALE, lon / SCALE, lat / SCALE, lon / SCALE],
          score: score(lat, lon, exact) - (exact ? 0 : 0.001),
        };
        return { hit, address: () => addressOf(name, number, city(), postcode(), countryName()), missing, weight: weight + (postcodeAsked ? 0.5 : 0) };
      });
    }
    if (!layers.has('street')) return [];
    if (numberWord) missing += 0.5;
    const lat = a.stCenter[2 * k],
      lon = a.stCenter[2 * k + 1];
    const hit: Scored['hit'] = {
      kind: 'street',
      name,
      lat: lat / SCALE,
      lon: lon / SCALE,
      box: box(a.stBox, k),
      score: score(lat, lon, false),
    };
    return [{ hit, address: () => addressOf(name, null, city(), streetZip(), countryName()), missing, weight }];
  }

  /** Address points of street `k` whose number is the word (or, being typed, begins with it): the exact one first. */
  private houseNumbers(k: number, w: QueryWord): number[] {
    const a = this.a;
    const exact: number[] = [],
      begun: number[] = [];
    // One point per number and place: a house mapped as a node and as a building is one address, two
    // buildings of one number far apart (one tagged, one given the street as the nearest) are two.
    const seen = new Map<string, number[]>();
    const near = (key: string, i: number) =>
      seen.get(key)?.some((j) => Math.abs(a.adCoords[2 * j] - a.adCoords[2 * i]) + Math.abs(a.adCoords[2 * j + 1] - a.adCoords[2 * i + 1]) < SAME_HOUSE_E7) ??
      false;
    const keep = (key: string, i: number) => seen.set(key, [...(seen.get(key) ?? []), i]);
    const want = (w.bytes ??= enc.encode(w.word));
    for (let i = a.stAddrFirst[k]; i < a.stAddrFirst[k + 1]; i++) {
      // Most numbers are plain ASCII digits and lower-case letters, their own key: compared as bytes, and a
      // number that can neither be the word nor begin with it is passed over without being decoded (a
      // street of thousands of numbers is read for every keystroke).
      const id = a.adNumber[i];
      const from = id < 0 ? 0 : a.strOffsets[id],
        len = id < 0 ? 0 : a.strOffsets[id + 1] - from;
      let plain = len > 0,
        same = 0;
      for (let b = 0; b < len && plain; b++) {
        const c = a.strBytes[from + b];
        plain = (c >= 48 && c <= 57) || (c >= 97 && c <= 122);
        if (plain && b === same && b < want.length && c === want[b]) same++;
      }
      if (plain && same < Math.min(len, want.length)) continue;
      if (plain && len !== want.length && !(w.prefix && len > want.length)) continue;
      const key = plain ? (len === want.length ? w.word : dec.decode(a.strBytes.subarray(from, from + len))) : houseNumberKey(this.text(id) ?? '');
      if (near(key, i)) continue;
      if (key === w.word) exact.push(i), keep(key, i);
      else if (w.prefix && key.startsWith(w.word)) begun.push(i), keep(key, i);
    }
    return [...exact, ...begun].slice(0, 10);
  }
}

/** An address as the reverse geocoder gives one: the street carries the house number. */
function addressOf(street: string | null, number: string | null, city: string | null, zipcode: string | null, country: string | null): Address {
  const line = street === null ? null : number === null ? street : `${street} ${number}`;
  const locality = [zipcode, city].filter((s) => s !== null).join(' ');
  const display = [line, locality || null, country].filter((s) => s !== null).join(', ');
  return { street: line, housenumber: number, city, zipcode, country, display_name: display || null };
}

/** The search index over an index's files (map-dir.ts), in place. */
export const searchIndexFromFiles = (files: GeocoderFiles): SearchIndex => new SearchIndex(searchArraysOf(files[SEARCH_FILE].buffer, SEARCH_FILE));

/** The search index of a directory holding only a geocoder index (written by buildGeocoderIndex: tests, tools). */
export const loadSearchIndex = async (dir: string): Promise<SearchIndex> => searchIndexFromFiles(await readGeocoderDir(dir));
