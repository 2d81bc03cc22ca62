import { resolveAttribute, type AttributeRow } from '../attributes/definitions.js';
import type { Sql } from '../../db/client.js';
import { foldedContains } from '../../db/like.js';
import type { FieldErrors } from '../../http/errors.js';
import { boxesAround, type Box } from '../../lib/geo/search-box.js';
import { charLength } from '../../http/validate.js';
import { isUlid, isUuid } from '../../lib/ids.js';
import { typedTextValue, type AttributeValue } from './values.js';

/** A validated POI selection, shared by the POI list, route avoidance and cluster selection. */
export interface PoiFilter {
  attributes: Array<{ id: string; value: AttributeValue }>;
  categoryId?: string;
  categoryName?: string;
  near?: { latitude: number; longitude: number; distance: number };
  countryId?: string;
  cityId?: string;
  zipcodeId?: string;
  poiIds?: string[];
  /** Names containing this text, ignoring case and Latin diacritics (nameMatchSql); never ''. */
  nameContains?: string;
}

/** The raw selection: strings from a query string, or JSON values from a body. */
export interface RawPoiFilter {
  attributes?: unknown;
  category_id?: unknown;
  category_name?: unknown;
  latitude?: unknown;
  longitude?: unknown;
  distance?: unknown;
  country_id?: unknown;
  city_id?: unknown;
  zipcode_id?: unknown;
  poi_ids?: unknown;
  /** Text the name contains (the list's `q`); '' is no filter. */
  q?: unknown;
}

const asNumber = (v: unknown): number | undefined => {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return undefined;
};

/** Validates a selection; field errors go into `errors` under `prefix` (e.g. `avoid.`). */
export function parsePoiFilter(raw: RawPoiFilter, attrs: AttributeRow[], errors: FieldErrors, prefix = '', maxPoiIds = 500): PoiFilter {
  const add = (field: string, msg: string) => (errors[prefix + field] ??= []).push(msg);
  const filter: PoiFilter = { attributes: [] };

  if (raw.attributes !== undefined) {
    if (raw.attributes === null || typeof raw.attributes !== 'object' || Array.isArray(raw.attributes))
      add('attributes', 'must be an object of attribute values');
    else {
      for (const [key, value] of Object.entries(raw.attributes)) {
        const attr = resolveAttribute(attrs, key);
        if (!attr) {
          add(`attributes.${key}`, 'is not an attribute of this team');
          continue;
        }
        const typed = typedTextValue(attr, value);
        if ('error' in typed) add(`attributes.${key}`, typed.error);
        else filter.attributes.push({ id: attr.id, value: typed.value });
      }
    }
  }

  if (raw.category_id !== undefined && raw.category_name !== undefined) {
    add('category_id', 'cannot be combined with category_name');
  } else if (raw.category_id !== undefined) {
    if (typeof raw.category_id !== 'string' || !isUlid(raw.category_id)) add('category_id', 'must be a category id (ULID)');
    else filter.categoryId = raw.category_id.toUpperCase();
  } else if (raw.category_name !== undefined) {
    if (typeof raw.category_name !== 'string' || charLength(raw.category_name) > 255 || raw.category_name.includes('\u0000')) {
      add('category_name', 'must be a string of at most 255 characters, without NUL');
    } else filter.categoryName = raw.category_name;
  }

  if (raw.latitude !== undefined || raw.longitude !== undefined || raw.distance !== undefined) {
    const latitude = asNumber(raw.latitude);
    const longitude = asNumber(raw.longitude);
    const distance = raw.distance === undefined ? 1000 : asNumber(raw.distance);
    if (raw.latitude === undefined) add('latitude', 'is required with longitude or distance');
    else if (latitude === undefined || latitude < -90 || latitude > 90) add('latitude', 'must be a number between -90 and 90');
    if (raw.longitude === undefined) add('longitude', 'is required with latitude or distance');
    else if (longitude === undefined || longitude < -180 || longitude > 180) add('longitude', 'must be a number between -180 and 180');
    if (distance === undefined || !Number.isInteger(distance) || distance < 1 || distance > 100_000) add('distance', 'must be an integer between 1 and 100000');
    if (latitude !== undefined && longitude !== undefined && distance !== undefined) filter.near = { latitude, longitude, distance };
  }

  for (const [field, key] of [
    ['country_id', 'countryId'],
    ['city_id', 'cityId'],
    ['zipcode_id', 'zipcodeId'],
  ] as const) {
    const v = raw[field];
    if (v === undefined) continue;
    if (typeof v !== 'string' || !isUuid(v)) add(field, 'must be a UUID');
    else filter[key] = v.toLowerCase();
  }

  if (raw.q !== undefined) {
    if (typeof raw.q !== 'string' || charLength(raw.q) > 255 || raw.q.includes('\u0000')) add('q', 'must be a string of at most 255 characters, without NUL');
    else if (raw.q !== '') filter.nameContains = raw.q;
  }

  if (raw.poi_ids !== undefined) {
    if (!Array.isArray(raw.poi_ids)) add('poi_ids', 'must be an array of POI ids');
    else if (raw.poi_ids.length > maxPoiIds) add('poi_ids', `may contain at most ${maxPoiIds} ids`);
    else {
      raw.poi_ids.forEach((id, i) => {
        if (typeof id !== 'string' || !isUlid(id)) add(`poi_ids.${i}`, 'must be a POI id (ULID)');
      });
      filter.poiIds = [...new Set((raw.poi_ids as string[]).filter((id) => typeof id === 'string').map((id) => id.toUpperCase()))];
    }
  }
  return filter;
}

// Both read `p.location`, not latitude and longitude, so that the spatial index alone answers them.

/** POIs of alias `p` inside a lon/lat box. */
export const insideBox = (sql: Sql, b: Box) =>
  sql`p.location <@ box(point(${b.west}::float8, ${b.south}::float8), point(${b.east}::float8, ${b.north}::float8))`;

/** Great-circle meters from a point to the POI of alias `p`. */
export const distanceSql = (sql: Sql, from: { latitude: number; longitude: number }) =>
  sql`great_circle_m(${from.latitude}::float8, ${from.longitude}::float8, p.location[1], p.location[0])`;

/** The WHERE clause for alias `p` (pois), always scoped to the team. */
export function poiFilterSql(sql: Sql, teamId: string, f: PoiFilter) {
  const parts = [sql`p.team_id = ${teamId}`];
  for (const a of f.attributes) parts.push(sql`p.attrs @> ${sql.json({ [a.id]: a.value })}::jsonb`);
  if (f.categoryId) parts.push(sql`p.category_id = ${f.categoryId}`);
  if (f.categoryName !== undefined) {
    parts.push(sql`p.category_id IN (SELECT id FROM categories WHERE team_id = ${teamId} AND name = ${f.categoryName})`);
  }
  if (f.near) {
    const boxes = boxesAround(f.near.latitude, f.near.longitude, f.near.distance).map((b) => insideBox(sql, b));
    parts.push(sql`(${boxes.reduce((acc, b) => sql`${acc} OR ${b}`)})`);
    parts.push(sql`${distanceSql(sql, f.near)} <= ${f.near.distance}`);
  }
  if (f.countryId) parts.push(sql`p.country_id = ${f.countryId}`);
  if (f.cityId) parts.push(sql`p.city_id = ${f.cityId}`);
  if (f.zipcodeId) parts.push(sql`p.zipcode_id = ${f.zipcodeId}`);
  if (f.poiIds) parts.push(sql`p.id = ANY(${f.poiIds}::text[])`);
  if (f.nameContains !== undefined) parts.push(nameMatchSql(sql, f.nameContains));
  return parts.reduce((acc, part) => sql`${acc} AND ${part}`);
}

/**
 * `p.name` contains `text`, ignoring case and the diacritics of Latin letters ("stadtle" finds "Städtle",
 * "STRASSE" finds "Hauptstraße"). Both sides are folded by the same SQL expression (db/like.ts), so a
 * letter the fold does not know still matches itself. No index helps a contains-match without an extension
 * (pg_trgm, which the project does not use), so nothing is stored for it: the team's rows are scanned, as
 * the dashboard's ILIKE did.
 */
const nameMatchSql = (sql: Sql, text: string) => foldedContains(sql, sql`p.name`, text);
