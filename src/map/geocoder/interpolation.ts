// House numbers along `addr:interpolation` ways: the OSM stage keeps the ways, their steps and the
// addresses of their nodes as the extract gives them (osm-data.ts GeocoderSource), and the index build
// numbers the houses in between from those.
import type { AddressFields } from '../osm/address-tags.js';
import type { OsmData } from '../osm/osm-data.js';
import { greatCircleMeters } from '../../lib/geo/sphere.js';

/** More numbers than this between two address nodes is a tagging error, not a street (Nominatim caps too). */
const MAX_INTERPOLATED = 1000;

/** A house number interpolated along a way: its [lat, lon] and its address. */
export interface InterpolatedAddress {
  point: [number, number];
  fields: AddressFields;
}

/**
 * House numbers along `addr:interpolation` ways, as Nominatim makes them: between each two nodes of the
 * way that have a numeric house number, the numbers in between (odd, even, every one, or every n-th),
 * spaced evenly by length along the way. Their street is the way's `addr:street`, else the one both
 * ends agree on (else none, and the index gives them the nearest named street); the same for postcodes.
 * Ways in file order, each from its first node on.
 */
export function interpolatedAddresses(osm: OsmData): InterpolatedAddress[] {
  const { interpolations, interpolationNodes } = osm.geocoder;
  const text = (id: number): string | null => osm.strings[id] ?? null;
  // Kept node → its address (the last one, should the extract repeat a node).
  const addresses = new Map<number, AddressFields>();
  for (let i = 0; i < interpolationNodes.count; i++) {
    const f = interpolationNodes.fields;
    addresses.set(interpolationNodes.node[i], { street: text(f[4 * i]), number: text(f[4 * i + 1]), postcode: text(f[4 * i + 2]), city: text(f[4 * i + 3]) });
  }
  const coords = osm.nodeCoords,
    out: InterpolatedAddress[] = [];
  for (let j = 0; j < interpolations.count; j++) {
    const way = interpolations.way[j],
      step = interpolations.step[j],
      street = text(interpolations.street[j]),
      postcode = text(interpolations.postcode[j]);
    let prev: { at: number; number: number; address: AddressFields } | null = null;
    // Meters along the way at each of its nodes (those the extract lacks are skipped).
    const along: number[] = [],
      points: number[] = [];
    let meters = 0,
      last = -1;
    for (let k = osm.wayFirst[way]; k < osm.wayFirst[way + 1]; k++) {
      const n = osm.wayNodes[k];
      if (n < 0) continue;
      if (last >= 0) meters += greatCircleMeters(coords[2 * last], coords[2 * last + 1], coords[2 * n], coords[2 * n + 1]);
      last = n;
      along.push(meters);
      points.push(n);
      const address = addresses.get(n);
      const number = address && /^\d+$/.test(address.number!) ? Number(address.number) : NaN;
      if (!address || Number.isNaN(number)) continue;
      const here = { at: along.length - 1, number, address };
      if (prev && Math.abs(number - prev.number) > step && Math.abs(number - prev.number) / step <= MAX_INTERPOLATED) {
        const dir = number > prev.number ? 1 : -1;
        const fields: AddressFields = {
          street: street ?? (prev.address.street === address.street ? address.street : null),
          number: null,
          postcode: postcode ?? (prev.address.postcode === address.postcode ? address.postcode : null),
          city: prev.address.city === address.city ? address.city : null,
        };
        const from = along[prev.at],
          span = along[here.at] - from;
        for (let h = prev.number + dir * step; dir * (number - h) > 0; h += dir * step) {
          const target = from + (span * Math.abs(h - prev.number)) / Math.abs(number - prev.number);
          let i = prev.at;
          while (i + 1 < here.at && along[i + 1] < target) i++;
          const a = points[i],
            b = points[i + 1];
          const t = along[i + 1] > along[i] ? (target - along[i]) / (along[i + 1] - along[i]) : 0;
          out.push({
            point: [coords[2 * a] + t * (coords[2 * b] - coords[2 * a]), coords[2 * a + 1] + t * (coords[2 * b + 1] - coords[2 * a + 1])],
            fields: { ...fields, number: String(h) },
          });
        }
      }
      prev = here;
    }
  }
  return out;
}
