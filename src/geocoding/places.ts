// The shared country, city and zip code rows (DECISIONS.md, "Address and geolocation"): created on first
// sight, their ids never change once assigned, so a process may cache them for its whole life.
import { type Sql, retryable } from '../db/client.js';
import type { Address } from '../engine/geocoder/reverse.js';

export interface PlaceIds {
  countryId: string | null;
  cityId: string | null;
  zipcodeId: string | null;
}

/** A city is unique by (country, name), a zip code by (country, code); the country may be unknown. */
const placeKey = (countryId: string | null, name: string) => `${countryId ?? ''}\u0000${name}`;
const MAX_CACHED = 200_000;

export class PlaceRegistry {
  private readonly countries = new Map<string, string>();
  private readonly cities = new Map<string, string>();
  private readonly zipcodes = new Map<string, string>();

  constructor(private readonly sql: Sql) {}

  /** The place ids of each address, creating the rows seen for the first time. */
  async resolve(addresses: Address[]): Promise<PlaceIds[]> {
    if (this.countries.size + this.cities.size + this.zipcodes.size > MAX_CACHED) {
      this.countries.clear();
      this.cities.clear();
      this.zipcodes.clear();
    }
    const newCountries = new Set<string>();
    for (const a of addresses) if (a.country !== null && !this.countries.has(a.country)) newCountries.add(a.country);
    if (newCountries.size) await this.upsertCountries([...newCountries].sort());

    const countryOf = (a: Address) => (a.country === null ? null : this.countries.get(a.country)!);
    const newCities = new Map<string, [string | null, string]>();
    const newZipcodes = new Map<string, [string | null, string]>();
    for (const a of addresses) {
      const country = countryOf(a);
      if (a.city !== null && !this.cities.has(placeKey(country, a.city))) newCities.set(placeKey(country, a.city), [country, a.city]);
      if (a.zipcode !== null && !this.zipcodes.has(placeKey(country, a.zipcode))) newZipcodes.set(placeKey(country, a.zipcode), [country, a.zipcode]);
    }
    if (newCities.size) await this.upsertNamed('cities', 'name', newCities, this.cities);
    if (newZipcodes.size) await this.upsertNamed('zipcodes', 'code', newZipcodes, this.zipcodes);

    return addresses.map((a) => {
      const countryId = countryOf(a);
      return {
        countryId,
        cityId: a.city === null ? null : this.cities.get(placeKey(countryId, a.city))!,
        zipcodeId: a.zipcode === null ? null : this.zipcodes.get(placeKey(countryId, a.zipcode))!,
      };
    });
  }

  // Insert-or-nothing, then read back: safe with several processes inserting the same names at once (keys
  // go in sorted order so two inserters cannot wait on each other), and an existing row keeps its id.
  private async upsertCountries(names: string[]): Promise<void> {
    await this.sql`INSERT INTO countries (name) SELECT unnest(${names}::text[]) ON CONFLICT DO NOTHING`;
    const rows = await retryable(this.sql<{ id: string; name: string }[]>`SELECT id, name FROM countries WHERE name = ANY(${names}::text[])`);
    for (const r of rows) this.countries.set(r.name, r.id);
  }

  private async upsertNamed(
    table: 'cities' | 'zipcodes',
    column: 'name' | 'code',
    wanted: Map<string, [string | null, string]>,
    cache: Map<string, string>,
  ): Promise<void> {
    const entries = [...wanted.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
    const countryIds = entries.map(([c]) => c);
    const names = entries.map(([, n]) => n);
    await this.sql`
      INSERT INTO ${this.sql(table)} (country_id, ${this.sql(column)})
      SELECT * FROM unnest(${countryIds}::uuid[], ${names}::text[]) ON CONFLICT DO NOTHING`;
    const rows = await retryable(this.sql<{ id: string; country_id: string | null; value: string }[]>`
      SELECT id, country_id, ${this.sql(column)} AS value FROM ${this.sql(table)} WHERE ${this.sql(column)} = ANY(${names}::text[])`);
    for (const r of rows) {
      const key = placeKey(r.country_id, r.value);
      if (wanted.has(key)) cache.set(key, r.id);
    }
  }
}
