import { resolveAttribute, teamAttributes } from '../attributes/store.js';
import type { Sql } from '../db/client.js';
import { isForeignKeyViolation } from '../db/errors.js';
import { notifyGeocoding } from '../geo/geocoding-worker.js';
import { forbidden, notFound, unprocessable, type FieldErrors } from '../http/errors.js';
import { pageOf, readPage, type Page } from '../http/pagination.js';
import type { RequestContext } from '../http/context.js';
import { RawJson, type Reply, type Route } from '../http/router.js';
import { parseInto } from '../http/validate.js';
import { isUlid, newId } from '../ids.js';
import { distanceSql, parsePoiFilter, poiFilterSql, type PoiFilter } from './filters.js';
import { NearbyIndex } from './nearby-index.js';
import { PoiReader } from './poi-reader.js';
import { createPoiSchema, poiDocs, updatePoiSchema } from './schema.js';
import { deletePoi, poiJoins, poiJsonColumns, reservePoiSlots, type PoiJsonRow } from './store.js';
import { typedBodyValue, type AttributeValue } from './values.js';

/** Checks attribute values against the team's attributes: set (by id) and removed (null) ones. */
async function resolveValues(sql: Sql, teamId: string, input: Record<string, unknown> | undefined, allowNull: boolean, errors: FieldErrors) {
  const set: Record<string, AttributeValue> = {};
  const remove: string[] = [];
  if (!input || Object.keys(input).length === 0) return { set, remove };
  const attrs = await teamAttributes(sql, teamId);
  for (const [key, value] of Object.entries(input)) {
    const attr = resolveAttribute(attrs, key);
    if (!attr) {
      (errors[`attributes.${key}`] ??= []).push('is not an attribute of this team');
      continue;
    }
    if (value === null) {
      if (allowNull) remove.push(attr.id);
      continue;
    }
    const typed = typedBodyValue(attr, value);
    if ('error' in typed) (errors[`attributes.${key}`] ??= []).push(typed.error);
    else set[attr.id] = typed.value;
  }
  return { set, remove };
}

/** The fields checked against the team's data, taken from the raw body when they have the right type:
 *  they are checked even when other fields are invalid, so one 422 lists every problem. */
function dataFields(raw: Record<string, unknown>): { category?: string; attributes?: Record<string, unknown> } {
  const { category_id: category, attributes } = raw;
  return {
    category: typeof category === 'string' ? category : undefined,
    attributes: attributes !== null && typeof attributes === 'object' && !Array.isArray(attributes) ? attributes as Record<string, unknown> : undefined,
  };
}

const NOT_A_CATEGORY = 'is not a category of this team';

/** The category checked by checkCategory was deleted before the write: the same 422. */
const categoryGone = (err: unknown) =>
  isForeignKeyViolation(err, 'pois_category_id_fkey') ? unprocessable({ category_id: [NOT_A_CATEGORY] }) : err;

async function checkCategory(sql: Sql, teamId: string, id: string | null | undefined, errors: FieldErrors): Promise<void> {
  if (id === undefined || id === null) return;
  const rows = isUlid(id) ? await sql`SELECT 1 FROM categories WHERE team_id = ${teamId} AND id = ${id.toUpperCase()}` : [];
  if (!rows.length) errors.category_id = [NOT_A_CATEGORY];
}

const filtersOnlyDistance = (f: PoiFilter) =>
  !f.attributes.length && !f.categoryId && f.categoryName === undefined && !f.countryId && !f.cityId && !f.zipcodeId && !f.poiIds;

const dataOf = (poi: PoiJsonRow) => new RawJson(`{"data":${poi.json}}`);

/**
 * GET /v1/pois's listing: the contract's filters, cursor pages. `nameContains` (the dashboard's text
 * search, never read from the API's query; '' = none) narrows to names containing it, case-insensitively.
 */
export function poiLister(sql: Sql, readSql: Sql = sql) {
  const reader = new PoiReader(readSql);
  const nearby = new NearbyIndex(sql, reader);

  /** The page's rows and one more (it tells whether another page follows). */
  const listSql = (teamId: string, filter: PoiFilter, page: Page, nameContains?: string) => {
    const near = filter.near;
    const distance = near ? sql`, ${distanceSql(sql, near)} AS distance` : sql``;
    const named = nameContains ? sql`AND p.name ILIKE ${`%${nameContains.replace(/[\\%_]/g, (c) => `\\${c}`)}%`}` : sql``;
    // The page is chosen first, so the joins and the attribute names are built for its rows only.
    return sql<PoiJsonRow[]>`
      WITH page AS (
        SELECT p.id ${distance} FROM pois p
        WHERE ${poiFilterSql(sql, teamId, filter)} ${named} AND (${page.cursor}::text IS NULL OR p.id > ${page.cursor})
        ORDER BY p.id LIMIT ${page.limit + 1})
      SELECT ${poiJsonColumns(sql, near ? 'page.distance' : undefined)}
      FROM page JOIN pois p ON p.id = page.id ${poiJoins(sql)}
      ORDER BY p.id`;
  };

  const list = async (ctx: RequestContext, nameContains?: string): Promise<Reply> => {
    const errors: FieldErrors = {};
    const q = ctx.query;
    const attrGroup = q.group('attributes');
    for (const key of attrGroup.malformed) errors[key] = ['must be sent as attributes[<name or id>]=<value>'];
    const needsAttrs = Object.keys(attrGroup.entries).length > 0;
    const filter = parsePoiFilter(
      {
        attributes: needsAttrs ? attrGroup.entries : undefined,
        category_id: q.get('category_id'),
        category_name: q.get('category_name'),
        latitude: q.get('latitude'),
        longitude: q.get('longitude'),
        distance: q.get('distance'),
        country_id: q.get('country_id'),
        city_id: q.get('city_id'),
        zipcode_id: q.get('zipcode_id'),
      },
      needsAttrs ? await teamAttributes(sql, ctx.teamId) : [],
      errors,
    );
    const page = readPage(q, 'ulid', errors);
    const near = filter.near;
    // The distance index is this lister's own: the dashboard's lister (always with a name) never uses it.
    const fast = near && nameContains === undefined && filtersOnlyDistance(filter) ? await nearby.page(ctx.teamId, near, page.cursor, page.limit) : undefined;
    const { data, next } = fast ?? pageOf(await listSql(ctx.teamId, filter, page, nameContains), page.limit);
    return { status: 200, body: new RawJson(`{"data":[${data.map((r) => r.json).join(',')}],"next":${JSON.stringify(next)}}`) };
  };
  return { reader, nearby, list };
}

/** `readSql` serves the batched reads (by id, and distance pages); writes and other lists use `sql`. */
export function poiRoutes(sql: Sql, readSql: Sql = sql): Route[] {
  const { reader, nearby, list } = poiLister(sql, readSql);
  const load = async (teamId: string, id: string): Promise<PoiJsonRow> => {
    const key = id.toUpperCase();
    const json = isUlid(id) ? (await reader.read(teamId, [key])).pois.get(key) : undefined;
    if (json === undefined) throw notFound('POI');
    return { id: key, json };
  };

  return [
    {
      method: 'GET', path: '/v1/pois', openapi: poiDocs.list, permission: 'read-pois',
      handler: (ctx) => list(ctx),
    },
    {
      method: 'POST', path: '/v1/pois', openapi: poiDocs.create, permission: 'create-pois',
      handler: async (ctx) => {
        const raw = await ctx.json();
        const errors: FieldErrors = Object.create(null);
        const parsed = parseInto(createPoiSchema, raw, errors);
        const { category, attributes } = dataFields(raw);
        await checkCategory(sql, ctx.teamId, category, errors);
        const values = await resolveValues(sql, ctx.teamId, attributes, false, errors);
        if (!parsed || Object.keys(errors).length) throw unprocessable(errors);
        const body = parsed;
        const id = newId();
        const limit = ctx.auth!.poiLimit;
        await sql.begin(async (tx) => {
          if ((await reservePoiSlots(tx as unknown as Sql, ctx.teamId, 1, limit)) === 0) {
            throw forbidden(`Your team has reached its limit of ${limit} POIs.`);
          }
          await tx`
            INSERT INTO pois (id, team_id, name, latitude, longitude, category_id, attrs)
            VALUES (${id}, ${ctx.teamId}, ${body.name}, ${body.latitude}, ${body.longitude}, ${body.category_id?.toUpperCase() ?? null}, ${tx.json(values.set)})`;
        }).catch((err) => {
          throw categoryGone(err);
        });
        const created = await load(ctx.teamId, id);
        // After the read, so that the response shows the address still empty, as it is at creation.
        notifyGeocoding(sql);
        return { status: 201, body: dataOf(created) };
      },
    },
    {
      method: 'GET', path: '/v1/pois/{id}', openapi: poiDocs.get, permission: 'read-pois',
      handler: async (ctx) => ({ status: 200, body: dataOf(await load(ctx.teamId, ctx.params.id)) }),
    },
    {
      method: 'PUT', path: '/v1/pois/{id}', openapi: poiDocs.update, permission: 'update-pois',
      handler: async (ctx) => {
        const current = await load(ctx.teamId, ctx.params.id);
        const raw = await ctx.json();
        const errors: FieldErrors = Object.create(null);
        const parsed = parseInto(updatePoiSchema, raw, errors);
        const { category, attributes } = dataFields(raw);
        await checkCategory(sql, ctx.teamId, category, errors);
        const values = await resolveValues(sql, ctx.teamId, attributes, true, errors);
        if (!parsed || Object.keys(errors).length) throw unprocessable(errors);
        const body = parsed;
        // The row is locked while the new values are worked out from it, so that a concurrent PUT
        // cannot undo this one's changes with values read before it.
        const moved = await sql.begin(async (tx) => {
          const [row] = await tx<Array<{ name: string; latitude: number; longitude: number; category_id: string | null }>>`
            SELECT name, latitude, longitude, category_id FROM pois WHERE team_id = ${ctx.teamId} AND id = ${current.id} FOR UPDATE`;
          if (!row) throw notFound('POI');
          const lat = body.latitude ?? row.latitude;
          const lon = body.longitude ?? row.longitude;
          const moved = lat !== row.latitude || lon !== row.longitude;
          const category = body.category_id === undefined ? row.category_id : body.category_id?.toUpperCase() ?? null;
          // A move empties the address and marks the POI for geocoding; a rename does not.
          await tx`
            UPDATE pois SET
              name = ${body.name ?? row.name}, latitude = ${lat}, longitude = ${lon}, category_id = ${category},
              attrs = (attrs || ${tx.json(values.set)}::jsonb) - ${values.remove}::text[],
              street = CASE WHEN ${moved} THEN NULL ELSE street END,
              display_name = CASE WHEN ${moved} THEN NULL ELSE display_name END,
              city_id = CASE WHEN ${moved} THEN NULL ELSE city_id END,
              country_id = CASE WHEN ${moved} THEN NULL ELSE country_id END,
              zipcode_id = CASE WHEN ${moved} THEN NULL ELSE zipcode_id END,
              geocoded_at = CASE WHEN ${moved} THEN NULL ELSE geocoded_at END,
              geocode_pending = geocode_pending OR ${moved},
              geocode_lease_until = CASE WHEN ${moved} THEN NULL ELSE geocode_lease_until END,
              geocode_attempts = CASE WHEN ${moved} THEN 0 ELSE geocode_attempts END,
              updated_at = now()
            WHERE team_id = ${ctx.teamId} AND id = ${current.id}`;
          return moved;
        }).catch((err) => {
          throw categoryGone(err);
        });
        if (moved) notifyGeocoding(sql);
        reader.forget(ctx.teamId, current.id);
        return { status: 200, body: dataOf(await load(ctx.teamId, current.id)) };
      },
    },
    {
      method: 'DELETE', path: '/v1/pois/{id}', openapi: poiDocs.delete, permission: 'delete-pois',
      handler: async (ctx) => {
        if (!isUlid(ctx.params.id)) throw notFound('POI');
        const deleted = await deletePoi(sql, ctx.teamId, ctx.params.id.toUpperCase());
        if (!deleted) throw notFound('POI');
        reader.forget(ctx.teamId, ctx.params.id.toUpperCase());
        return { status: 204 };
      },
    },
  ];
}
