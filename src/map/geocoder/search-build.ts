// Builds the forward-search index from what the reverse geocoder's index is made of (index-build.ts):
// streets (a name in a city: its ways and the address points that carry the name, their numbers
// sorted), places (place nodes and municipalities), postcodes, and the folded words of each. Address
// points get no words of their own: a query reaches them through their street, and the house number is
// looked up among the street's points, which keeps an address point at 16 bytes. Country names are no
// words of the index either (every object would carry them): a query matches them against its country.
import KDBush from 'kdbush';
import type { DegreeRings } from './areas.js';
import { SCALE } from './areas.js';
import { POSTCODE_NEAR_M } from './index-format.js';
import { METERS_PER_DEGREE } from '../../lib/geo/sphere.js';
import { interiorPoint, nearestCentre } from './geometry.js';
import { KIND_PLACE, KIND_POSTCODE, KIND_STREET, type SearchArrays } from './search-format.js';
import { houseNumbers, nameVariants, shortForm, words } from './search-text.js';

export interface SearchSource {
  /** Texts the fields below refer to. */
  strings: readonly string[];
  countries: ReadonlyArray<{ name: string; alpha2: string | null }>;
  /** `city`: the city an address point's addr:city names (-1: the city where it lies). */
  addresses: { coords: Int32Array; street: Int32Array; number: Int32Array; postcode: Int32Array; country: Int32Array; city: Int32Array };
  /** The texts `others` below refer to: a street's or a place's other names (`name:xx`, alt_name…), `;`-separated. */
  otherNames: readonly string[];
  /** `city`: the city a street's addr:city names (-1: the city where it lies); `postcode`: its own. */
  streets: { coords: Int32Array; starts: Uint32Array; names: Int32Array; others: Int32Array; city: Int32Array; postcode: Int32Array };
  places: { coords: Int32Array; name: Int32Array; others: Int32Array; country: Int32Array };
  /** Hamlets, localities, suburbs…: found by name, never a city. */
  minorPlaces: { coords: Int32Array; name: Int32Array; others: Int32Array; country: Int32Array };
  municipalities: ReadonlyArray<{ rings: DegreeRings; name: string; country: number; center: [number, number] }>;
  postalAreas: ReadonlyArray<{ rings: DegreeRings; code: string; country: number }>;
  /** The country at a point (degrees × 1e7), -1 when none. */
  countryAt(lat: number, lon: number): number;
  /** Indices into `municipalities` of those containing a point (degrees × 1e7). */
  municipalitiesAt(lat: number, lon: number): number[];
  /** The postcode of the smallest postal area containing a point (degrees × 1e7), or null. */
  postalAt(lat: number, lon: number, country: number): string | null;
}

/** How far apart the points of a long street segment are where its city is looked up again. */
const CITY_SAMPLE_M = 500;
/** How far from the box of a street's houses a way of that name still belongs to them. */
const HOUSES_NEAR_M = 300;
/** How far from a place node a point without a municipality still takes the place's name as its city (as the reverse geocoder). */
const PLACE_RADIUS_E7 = 0.1 * SCALE;
/** Half the side of the box of a place known only as a node. */
const PLACE_HALF_BOX_E7 = 0.01 * SCALE;

class Texts {
  readonly list: string[] = [];
  private readonly ids = new Map<string, number>();
  id(s: string | null | undefined): number {
    if (s == null || s === '') return -1;
    let id = this.ids.get(s);
    if (id === undefined) {
      id = this.list.push(s) - 1;
      this.ids.set(s, id);
    }
    return id;
  }
}

class Box {
  minLat = Infinity;
  minLon = Infinity;
  maxLat = -Infinity;
  maxLon = -Infinity;
  add(lat: number, lon: number): void {
    if (lat < this.minLat) this.minLat = lat;
    if (lat > this.maxLat) this.maxLat = lat;
    if (lon < this.minLon) this.minLon = lon;
    if (lon > this.maxLon) this.maxLon = lon;
  }
  get empty(): boolean {
    return this.minLat > this.maxLat;
  }
}

interface StreetGroup {
  name: string;
  city: string | null;
  country: number;
  /** Address points and the house number each gives (a point tagged with a list gives several). */
  addresses: Array<[number, string]>;
  /** Vertices of its ways: lat, lon. */
  vertices: number[];
  /** Its ways' own postcodes (`strings`). */
  ownPostcodes: number[];
  /** Its ways' other names (`otherNames`). */
  others: Set<number>;
  /** The cities its ways lie in other than its own (a road from one village to the next). */
  wayCities: Set<string>;
  box: Box;
}

interface Obj {
  kind: number;
  /** Per-kind index. */
  index: number;
  name: string[];
  context: string[];
  weight: number;
}

/** Natural order of house numbers: 2 < 10 < 10a < 11. */
function compareNumbers(a: string, b: string): number {
  const na = Number.parseInt(a, 10),
    nb = Number.parseInt(b, 10);
  if (na !== nb) return Number.isNaN(na) ? 1 : Number.isNaN(nb) ? -1 : na - nb;
  return a < b ? -1 : a > b ? 1 : 0;
}

function mostCommon<T>(values: Iterable<T>): T | null {
  const n = new Map<T, number>();
  let best: T | null = null;
  for (const v of values) {
    const c = (n.get(v) ?? 0) + 1;
    n.set(v, c);
    if (best === null || c > n.get(best)!) best = v;
  }
  return best;
}

const ringsBox = (rings: DegreeRings): Box => {
  const b = new Box();
  for (const r of rings) for (const [lat, lon] of r) b.add(Math.round(lat * SCALE), Math.round(lon * SCALE));
  return b;
};

export function buildSearchArrays(src: SearchSource): SearchArrays {
  // The words of a name and of its other names ("Sentier Nietzsche" for the Chemin Friedrich Nietzsche,
  // "Вадуц" for Vaduz), each once: a result is found by any of them and shown by its name.
  // Each name's joined and parted forms with it ("Vorarlberger Strasse" → vorarlbergerstrasse), as wordIndex
  // makes them of the list's last words.
  const nameWords = (name: string, others: Iterable<number>): string[] => {
    const out = new Set<string>();
    const add = (text: string) => {
      const ws = words(text);
      for (const w of [...ws, ...nameVariants(ws)]) out.add(w);
    };
    add(name);
    for (const o of others) for (const other of src.otherNames[o].split(';')) add(other);
    return [...out];
  };
  const texts = new Texts();
  const a = src.addresses;
  const str = (id: number) => (id < 0 ? null : src.strings[id]);

  // The city of a point: its municipality, else the nearest place node of its country (as reverse geocoding).
  const placeTree = new KDBush(Math.max(1, src.places.name.length), 64, Int32Array);
  for (let i = 0; i < src.places.name.length; i++) placeTree.add(src.places.coords[2 * i + 1], src.places.coords[2 * i]);
  if (src.places.name.length === 0) placeTree.add(2e9, 2e9);
  placeTree.finish();
  const nearestPlace = (lat: number, lon: number, country: number): string | null => {
    let best = -1,
      bestD = Infinity;
    const k = Math.cos((lat / SCALE) * (Math.PI / 180));
    for (const i of placeTree.range(lon - PLACE_RADIUS_E7 / k, lat - PLACE_RADIUS_E7, lon + PLACE_RADIUS_E7 / k, lat + PLACE_RADIUS_E7)) {
      if (i >= src.places.name.length || src.places.country[i] !== country) continue;
      const dy = src.places.coords[2 * i] - lat,
        dx = (src.places.coords[2 * i + 1] - lon) * k;
      const d = dx * dx + dy * dy;
      if (d < bestD && d <= PLACE_RADIUS_E7 * PLACE_RADIUS_E7) (bestD = d), (best = i);
    }
    return best < 0 ? null : src.strings[src.places.name[best]];
  };
  const cityAt = (lat: number, lon: number, country: number): string | null => {
    const inside = src.municipalitiesAt(lat, lon);
    const m = nearestCentre(inside, (i) => src.municipalities[i], country, lat / SCALE, lon / SCALE);
    return m >= 0 ? src.municipalities[m].name : nearestPlace(lat, lon, country);
  };

  // The postcode tagged nearest a point, within POSTCODE_NEAR_M (as the reverse geocoder's last resort).
  const coded: number[] = [];
  for (let i = 0; i < a.postcode.length; i++) if (a.postcode[i] >= 0) coded.push(i);
  const codeTree = new KDBush(Math.max(1, coded.length), 64, Int32Array);
  for (const i of coded) codeTree.add(a.coords[2 * i + 1], a.coords[2 * i]);
  if (coded.length === 0) codeTree.add(2e9, 2e9);
  codeTree.finish();
  const postcodeNear = (lat: number, lon: number): string | null => {
    const r = (POSTCODE_NEAR_M / METERS_PER_DEGREE) * SCALE;
    const k = Math.cos((lat / SCALE) * (Math.PI / 180));
    let best: string | null = null,
      bestD = r * r;
    for (const j of codeTree.range(lon - r / k, lat - r, lon + r / k, lat + r)) {
      if (j >= coded.length) continue;
      const i = coded[j];
      const d = (a.coords[2 * i] - lat) ** 2 + ((a.coords[2 * i + 1] - lon) * k) ** 2;
      if (d <= bestD) (bestD = d), (best = src.strings[a.postcode[i]]);
    }
    return best;
  };

  // Streets: address points by (street, city, country), then the ways of the same name joining them.
  const groups = new Map<string, StreetGroup>();
  const groupOf = (name: string, city: string | null, country: number) => {
    const key = `${name}\u0000${city ?? ''}\u0000${country}`;
    let g = groups.get(key);
    if (!g)
      groups.set(key, (g = { name, city, country, addresses: [], vertices: [], ownPostcodes: [], others: new Set(), wayCities: new Set(), box: new Box() }));
    return g;
  };
  const addressCity: (string | null)[] = [];
  const count = a.street.length;
  for (let i = 0; i < count; i++) {
    const lat = a.coords[2 * i],
      lon = a.coords[2 * i + 1];
    const city = a.city[i] >= 0 ? src.strings[a.city[i]] : cityAt(lat, lon, a.country[i]);
    addressCity.push(city);
    const street = str(a.street[i]);
    if (street === null || a.number[i] < 0) continue;
    const numbers = houseNumbers(src.strings[a.number[i]]);
    if (!numbers.length) continue;
    const g = groupOf(street, city, a.country[i]);
    for (const n of numbers) g.addresses.push([i, n]);
    g.box.add(lat, lon);
  }
  // The groups of houses by street name, for ways whose houses name another city than theirs.
  const byName = new Map<string, StreetGroup[]>();
  for (const g of groups.values()) byName.set(`${g.name}\u0000${g.country}`, [...(byName.get(`${g.name}\u0000${g.country}`) ?? []), g]);
  const housesNear = (name: string, country: number, lat: number, lon: number): StreetGroup | undefined => {
    const dLat = (HOUSES_NEAR_M / METERS_PER_DEGREE) * SCALE;
    const dLon = dLat / Math.cos((lat / SCALE) * (Math.PI / 180));
    return byName
      .get(`${name}\u0000${country}`)
      ?.find((g) => lat >= g.box.minLat - dLat && lat <= g.box.maxLat + dLat && lon >= g.box.minLon - dLon && lon <= g.box.maxLon + dLon);
  };
  const s = src.streets;
  for (let c = 0; c + 1 < s.starts.length; c++) {
    const name = str(s.names[c]);
    if (name === null) continue;
    const mid = (s.starts[c] + s.starts[c + 1]) >> 1;
    const lat = s.coords[2 * mid],
      lon = s.coords[2 * mid + 1];
    const country = src.countryAt(lat, lon);
    if (country < 0) continue;
    // A way joins the houses of its name and city; where their addr:city names another city than the
    // one the way lies in (a village inside its municipality), it joins the houses of its name near it.
    const city = s.city[c] >= 0 ? src.strings[s.city[c]] : cityAt(lat, lon, country);
    let g = groups.get(`${name}\u0000${city ?? ''}\u0000${country}`);
    if (!g?.addresses.length) g = housesNear(name, country, lat, lon) ?? groupOf(name, city, country);
    if (s.postcode[c] >= 0) g.ownPostcodes.push(s.postcode[c]);
    if (s.others[c] >= 0) g.others.add(s.others[c]);
    if (city !== null && city !== g.city) g.wayCities.add(city);
    if (s.city[c] < 0) {
      // Where else along it a point gets another city from reverse geocoding, so that the address a POI
      // beside it gets finds it: its ends, and every CITY_SAMPLE_M of a long segment (a road from one
      // village to the next).
      const other = (la: number, lo: number) => {
        const at = cityAt(la, lo, country);
        if (at !== null && at !== g.city) g.wayCities.add(at);
      };
      const first = s.starts[c],
        last = s.starts[c + 1] - 1;
      other(s.coords[2 * first], s.coords[2 * first + 1]);
      other(s.coords[2 * last], s.coords[2 * last + 1]);
      const kx = Math.cos((lat / SCALE) * (Math.PI / 180));
      for (let v = first; v < last; v++) {
        const la = s.coords[2 * v],
          lo = s.coords[2 * v + 1],
          dLat = s.coords[2 * v + 2] - la,
          dLon = s.coords[2 * v + 3] - lo;
        const steps = Math.floor((Math.hypot(dLat, dLon * kx) / SCALE) * (METERS_PER_DEGREE / CITY_SAMPLE_M));
        for (let k = 1; k <= steps; k++) other(la + Math.round((dLat * k) / (steps + 1)), lo + Math.round((dLon * k) / (steps + 1)));
      }
    }
    for (let v = s.starts[c]; v < s.starts[c + 1]; v++) {
      g.vertices.push(s.coords[2 * v], s.coords[2 * v + 1]);
      g.box.add(s.coords[2 * v], s.coords[2 * v + 1]);
    }
  }

  const streets = [...groups.values()];
  const S = streets.length;
  const out = {
    stName: new Int32Array(S),
    stCity: new Int32Array(S),
    stPostcode: new Int32Array(S),
    stCountry: new Int16Array(S),
    stCenter: new Int32Array(2 * S),
    stBox: new Int32Array(4 * S),
    stAddrFirst: new Uint32Array(S + 1),
    adCoords: new Int32Array(2 * streets.reduce((n, g) => n + g.addresses.length, 0)),
    adNumber: new Int32Array(streets.reduce((n, g) => n + g.addresses.length, 0)),
    adPostcode: new Int32Array(streets.reduce((n, g) => n + g.addresses.length, 0)),
  };
  const objects: Obj[] = [];
  let next = 0;
  streets.forEach((g, k) => {
    g.addresses.sort((x, y) => compareNumbers(x[1], y[1]));
    out.stAddrFirst[k] = next;
    for (const [i, number] of g.addresses) {
      out.adCoords[2 * next] = a.coords[2 * i];
      out.adCoords[2 * next + 1] = a.coords[2 * i + 1];
      out.adNumber[next] = texts.id(number);
      out.adPostcode[next] = texts.id(str(a.postcode[i]));
      next++;
    }
    const postcode = mostCommon(g.addresses.map(([i]) => a.postcode[i]).filter((p) => p >= 0));
    out.stName[k] = texts.id(g.name);
    out.stCity[k] = texts.id(g.city);
    out.stCountry[k] = g.country;
    out.stBox.set([g.box.minLat, g.box.minLon, g.box.maxLat, g.box.maxLon], 4 * k);
    // The point of the street nearest the middle of its box: on the street, unlike the box's centre.
    const midLat = (g.box.minLat + g.box.maxLat) / 2,
      midLon = (g.box.minLon + g.box.maxLon) / 2;
    const candidates = g.vertices.length ? g.vertices : g.addresses.flatMap(([i]) => [a.coords[2 * i], a.coords[2 * i + 1]]);
    let best = 0,
      bestD = Infinity;
    for (let v = 0; v < candidates.length; v += 2) {
      const d = (candidates[v] - midLat) ** 2 + (candidates[v + 1] - midLon) ** 2;
      if (d < bestD) (bestD = d), (best = v);
    }
    out.stCenter[2 * k] = candidates[best];
    out.stCenter[2 * k + 1] = candidates[best + 1];
    // The street's postcode in the reverse geocoder's order: its own, its houses' (most of them), the
    // smallest postal area's at its middle, the nearest tagged around.
    const own = mostCommon(g.ownPostcodes);
    out.stPostcode[k] = texts.id(
      own !== null
        ? src.strings[own]
        : postcode !== null
          ? src.strings[postcode]
          : (src.postalAt(candidates[best], candidates[best + 1], g.country) ?? postcodeNear(candidates[best], candidates[best + 1])),
    );
    // The village the street is in, when the city is its municipality ("Churer Strasse, Nendeln" in Eschen).
    const village = nearestPlace(out.stCenter[2 * k], out.stCenter[2 * k + 1], g.country);
    // And the municipality it lies in, where its houses' addr:city names a village of it ("Churer Strasse 1, Eschen" for Nendeln's).
    const municipality = cityAt(out.stCenter[2 * k], out.stCenter[2 * k + 1], g.country);
    objects.push({
      kind: KIND_STREET,
      index: k,
      name: nameWords(g.name, g.others),
      // Its city, the village nearest its middle, the municipality there, the cities its ways pass through
      // (where reverse geocoding a point of it gives another city) and its postcode.
      context: [
        ...new Set([
          ...words(g.city ?? ''),
          ...(village !== null && village !== g.city ? words(village) : []),
          ...(municipality !== null && municipality !== g.city && municipality !== village ? words(municipality) : []),
          ...[...g.wayCities].flatMap((c) => words(c)),
          ...(postcode === null ? [] : words(src.strings[postcode])),
        ]),
      ],
      weight: g.addresses.length,
    });
  });
  out.stAddrFirst[S] = next;

  // Places: the place nodes, then the municipalities no node of the same name lies in.
  const places: Array<{ name: string; others: number; country: number; lat: number; lon: number; box: Box }> = [];
  const municipalityBox = src.municipalities.map((m) => ringsBox(m.rings));
  const named = new Set<number>();
  for (let i = 0; i < src.places.name.length; i++) {
    const lat = src.places.coords[2 * i],
      lon = src.places.coords[2 * i + 1];
    const name = src.strings[src.places.name[i]];
    const m = src.municipalitiesAt(lat, lon).find((k) => src.municipalities[k].name === name);
    let box = m === undefined ? null : municipalityBox[m];
    if (m !== undefined) named.add(m);
    if (!box) {
      box = new Box();
      box.add(lat - PLACE_HALF_BOX_E7, lon - PLACE_HALF_BOX_E7);
      box.add(lat + PLACE_HALF_BOX_E7, lon + PLACE_HALF_BOX_E7);
    }
    places.push({ name, others: src.places.others[i], country: src.places.country[i], lat, lon, box });
  }
  for (let i = 0; i < src.minorPlaces.name.length; i++) {
    const lat = src.minorPlaces.coords[2 * i],
      lon = src.minorPlaces.coords[2 * i + 1];
    const box = new Box();
    box.add(lat - PLACE_HALF_BOX_E7 / 4, lon - PLACE_HALF_BOX_E7 / 4);
    box.add(lat + PLACE_HALF_BOX_E7 / 4, lon + PLACE_HALF_BOX_E7 / 4);
    places.push({ name: src.strings[src.minorPlaces.name[i]], others: src.minorPlaces.others[i], country: src.minorPlaces.country[i], lat, lon, box });
  }
  src.municipalities.forEach((m, k) => {
    const p = named.has(k) ? null : interiorPoint(m.rings);
    if (p) places.push({ name: m.name, others: -1, country: m.country, lat: Math.round(p[0] * SCALE), lon: Math.round(p[1] * SCALE), box: municipalityBox[k] });
  });
  const cityWeight = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    const key = `${addressCity[i]}\u0000${a.country[i]}`;
    cityWeight.set(key, (cityWeight.get(key) ?? 0) + 1);
  }
  const P = places.length;
  const pl = {
    plName: new Int32Array(P),
    plCountry: new Int16Array(P),
    plCenter: new Int32Array(2 * P),
    plBox: new Int32Array(4 * P),
    plWeight: new Uint32Array(P),
  };
  places.forEach((p, k) => {
    pl.plName[k] = texts.id(p.name);
    pl.plCountry[k] = p.country;
    pl.plCenter.set([p.lat, p.lon], 2 * k);
    pl.plBox.set([p.box.minLat, p.box.minLon, p.box.maxLat, p.box.maxLon], 4 * k);
    pl.plWeight[k] = cityWeight.get(`${p.name}\u0000${p.country}`) ?? 0;
    objects.push({ kind: KIND_PLACE, index: k, name: nameWords(p.name, p.others < 0 ? [] : [p.others]), context: [], weight: pl.plWeight[k] });
  });

  // Postcodes: those of address points (their centre and box), then postal areas with a code no point carries.
  const codes = new Map<string, { code: string; country: number; box: Box; lat: number; lon: number; n: number; cities: (string | null)[] }>();
  for (let i = 0; i < count; i++) {
    const code = str(a.postcode[i]);
    if (code === null) continue;
    const key = `${code}\u0000${a.country[i]}`;
    let c = codes.get(key);
    if (!c) codes.set(key, (c = { code, country: a.country[i], box: new Box(), lat: 0, lon: 0, n: 0, cities: [] }));
    c.box.add(a.coords[2 * i], a.coords[2 * i + 1]);
    c.lat += a.coords[2 * i];
    c.lon += a.coords[2 * i + 1];
    c.n++;
    c.cities.push(addressCity[i]);
  }
  for (const area of src.postalAreas) {
    const key = `${area.code}\u0000${area.country}`;
    const p = codes.has(key) ? null : interiorPoint(area.rings);
    if (!p) continue;
    const lat = Math.round(p[0] * SCALE),
      lon = Math.round(p[1] * SCALE);
    codes.set(key, { code: area.code, country: area.country, box: ringsBox(area.rings), lat, lon, n: 1, cities: [cityAt(lat, lon, area.country)] });
  }
  const postcodes = [...codes.values()];
  const C = postcodes.length;
  const pc = {
    pcCode: new Int32Array(C),
    pcCity: new Int32Array(C),
    pcCountry: new Int16Array(C),
    pcCenter: new Int32Array(2 * C),
    pcBox: new Int32Array(4 * C),
  };
  postcodes.forEach((c, k) => {
    const city = mostCommon(c.cities.filter((x) => x !== null));
    pc.pcCode[k] = texts.id(c.code);
    pc.pcCity[k] = texts.id(city);
    pc.pcCountry[k] = c.country;
    pc.pcCenter.set([Math.round(c.lat / c.n), Math.round(c.lon / c.n)], 2 * k);
    pc.pcBox.set([c.box.minLat, c.box.minLon, c.box.maxLat, c.box.maxLon], 4 * k);
    objects.push({
      kind: KIND_POSTCODE,
      index: k,
      name: words(c.code),
      context: [...words(city ?? ''), ...words(src.countries[c.country]?.name ?? '')],
      weight: c.n,
    });
  });

  const countryName = new Int32Array(src.countries.length);
  const countryCode = new Int32Array(src.countries.length);
  src.countries.forEach((c, k) => {
    countryName[k] = texts.id(c.name);
    countryCode[k] = texts.id(c.alpha2?.toLowerCase() ?? null);
  });

  return { ...wordIndex(objects), ...packTexts(texts.list), countryName, countryCode, ...out, ...pl, ...pc };
}

/** Each object's words (a word with a short form also under it) into the sorted dictionary, postings and forward lists. */
function wordIndex(objects: Obj[]) {
  const wordIds = new Map<string, number>();
  const wordList: string[] = [];
  const idOf = (w: string) => {
    let id = wordIds.get(w);
    if (id === undefined) wordIds.set(w, (id = wordList.push(w) - 1));
    return id;
  };
  const entries: number[][] = objects.map((o) => {
    const own = new Map<number, number>();
    const add = (w: string, context: number) => {
      const id = idOf(w);
      if (!own.has(id) || own.get(id) === 1) own.set(id, context);
    };
    for (const w of [...o.name, ...nameVariants(o.name)]) {
      add(w, 0);
      const short = shortForm(w);
      if (short) add(short, 0);
    }
    for (const w of o.context) {
      add(w, 1);
      const short = shortForm(w);
      if (short) add(short, 1);
    }
    return [...own].map(([id, ctx]) => id * 2 + ctx);
  });
  // Dictionary order: UTF-8 bytes, so a prefix's words are one run that a binary search over bytes finds.
  const enc = new TextEncoder();
  const encoded = wordList.map((w) => enc.encode(w));
  const order = wordList.map((_, i) => i).sort((x, y) => Buffer.compare(encoded[x], encoded[y]));
  const rank = new Uint32Array(wordList.length);
  order.forEach((old, r) => {
    rank[old] = r;
  });
  const tokOffsets = new Uint32Array(wordList.length + 1);
  const tokBytes = new Uint8Array(encoded.reduce((n, b) => n + b.length, 0));
  let at = 0;
  order.forEach((old, r) => {
    tokOffsets[r] = at;
    tokBytes.set(encoded[old], at);
    at += encoded[old].length;
  });
  tokOffsets[wordList.length] = at;

  // Object ids follow the order of `objects` (streets, places, postcodes).
  const lists: number[][] = wordList.map(() => []);
  const contextLists: number[][] = wordList.map(() => []);
  const fwdFirst = new Uint32Array(objects.length + 1);
  const fwd = new Uint32Array(entries.reduce((n, e) => n + e.length, 0));
  let f = 0;
  entries.forEach((e, id) => {
    fwdFirst[id] = f;
    for (const entry of e) {
      const word = rank[entry >>> 1];
      fwd[f++] = word * 2 + (entry & 1);
      (entry & 1 ? contextLists : lists)[word].push(id);
    }
  });
  fwdFirst[objects.length] = f;
  // Places before postcodes before streets, then the heavier first: a capped walk over a word's postings keeps the likely ones.
  const KIND_ORDER = [2, 0, 1];
  const order2 = (x: number, y: number) => KIND_ORDER[objects[x].kind] - KIND_ORDER[objects[y].kind] || objects[y].weight - objects[x].weight || x - y;
  const postFirst = new Uint32Array(wordList.length + 1);
  const postContext = new Uint32Array(wordList.length);
  const postings = new Uint32Array(f);
  let p = 0;
  lists.forEach((list, w) => {
    postFirst[w] = p;
    postings.set(list.sort(order2), p);
    p += list.length;
    postContext[w] = p;
    postings.set(contextLists[w].sort(order2), p);
    p += contextLists[w].length;
  });
  postFirst[wordList.length] = p;
  return { tokBytes, tokOffsets, postFirst, postContext, postings, fwdFirst, fwd };
}

function packTexts(list: string[]) {
  const enc = new TextEncoder();
  const encoded = list.map((t) => enc.encode(t));
  const strOffsets = new Uint32Array(list.length + 1);
  const strBytes = new Uint8Array(encoded.reduce((n, b) => n + b.length, 0));
  let at = 0;
  encoded.forEach((b, i) => {
    strOffsets[i] = at;
    strBytes.set(b, at);
    at += b.length;
  });
  strOffsets[list.length] = at;
  return { strBytes, strOffsets };
}
