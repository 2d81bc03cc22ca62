import { resolveAttribute, teamAttributes } from '../attributes/definitions.js';
import type { Sql } from '../../db/client.js';
import { isForeignKeyViolation } from '../../db/errors.js';
import { notifyGeocoding } from '../../geocoding/runner.js';
import { forbidden, notFound, unprocessable, type FieldErrors } from '../../http/errors.js';
import { pageOf, readPage } from '../../http/pagination.js';
import type { RequestContext } from '../../http/context.js';
import { RawJson, type Reply, type Route } from '../../http/router.js';
import { parseInto } from '../../http/validate.js';
import { isUlid, newId } from '../../lib/ids.js';
import { asksTravel, listByTravelTime, readTravel, readTravelPage } from './by-travel-time.js';
import { parsePoiFilter, type PoiFilter } from './filters.js';
import { NearbyIndex } from './nearby-index.js';
import { PoiReader } from './poi-reader.js';
import { createPoiSchema, poiDocs, updatePoiSchema } from './schema.js';
import { createPoi, deletePoi, isTeamCategory, listPois, updatePoi, type PoiJsonRow } from './store.js';
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
    attributes: attributes !== null && typeof attributes === 'object' && !Array.isArray(attributes) ? (attributes as Record<string, unknown>) : undefined,
  };
}

const NOT_A_CATEGORY = 'is not a category of this team';

/** The category checked by checkCategory was deleted before the write: the same 422. */
const categoryGone = (err: unknown) => (isForeignKeyViolation(err, 'pois_category_id_fkey') ? unprocessable({ category_id: [NOT_A_CATEGORY] }) : err);

async function checkCategory(sql: Sql, teamId: string, id: string | null | undefined, errors: FieldErrors): Promise<void> {
  if (id === undefined || id === null) return;
  if (!(isUlid(id) && (await isTeamCategory(sql, teamId, id.toUpperCase())))) errors.category_id = [NOT_A_CATEGORY];
}

const filtersOnlyDistance = (f: PoiFilter) =>
  !f.attributes.length &&
  !f.categoryId &&
  f.categoryName === undefined &&
  !f.countryId &&
  !f.cityId &&
  !f.zipcodeId &&
  !f.poiIds &&
  f.nameContains === undefined;

const dataOf = (poi: PoiJsonRow) => new RawJson(`{"data":${poi.json}}`);

/**
 * GET /v1/pois's listing: the contract's filters, `q` (an extension), cursor pages. `nameContains` (the
 * dashboard's text search, sent instead of `q`; '' = none) is the same filter: names containing the text,
 * ignoring case and diacritics.
 */
export function poiLister(sql: Sql, readSql: Sql = sql) {
  const reader = new PoiReader(readSql);
  const nearby = new NearbyIndex(sql, reader);

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
        // The dashboard's text search and the API's `q` are one filter; the dashboard sends no `q`.
        q: nameContains ?? q.get('q'),
      },
      needsAttrs ? await teamAttributes(sql, ctx.teamId) : [],
      errors,
    );
    if (asksTravel(q)) {
      const travel = readTravel(q, errors);
      const travelPage = readTravelPage(q, errors);
      if (!travel || Object.keys(errors).length) throw unprocessable(errors);
      // The straight-line radius applies only when sent: the travel limits bound the list here.
      const from = filter.near!;
      if (q.get('distance') === undefined) filter.near = undefined;
      const indexable = nameContains === undefined && !filter.near && filtersOnlyDistance(filter);
      const { data, next } = await listByTravelTime(sql, reader, ctx.teamId, filter, from, travel, travelPage, indexable ? nearby : undefined);
      return { status: 200, body: new RawJson(`{"data":[${data.join(',')}],"next":${JSON.stringify(next)}}`) };
    }
    const page = readPage(q, 'ulid', errors);
    const near = filter.near;
    // The distance index is this lister's own: the dashboard's lister (always with a name) never uses it.
    const fast = near && nameContains === undefined && filtersOnlyDistance(filter) ? await nearby.page(ctx.teamId, near, page.cursor, page.limit) : undefined;
    const { data, next } = fast ?? pageOf(await listPois(sql, ctx.teamId, filter, page), page.limit);
    return { status: 200, body: new RawJson(`{"data":[${data.map((r) => r.json).join(',')}],"next":${JSON.stringify(next)}}`) };
  };
  return { reader, list };
}

/** `readSql` serves the batched reads (by id, and distance pages); writes and other lists use `sql`. */
export function poiRoutes(sql: Sql, readSql: Sql = sql): Route[] {
  const { reader, list } = poiLister(sql, readSql);
  const load = async (teamId: string, id: string): Promise<PoiJsonRow> => {
    const key = id.toUpperCase();
    const json = isUlid(id) ? (await reader.read(teamId, [key])).pois.get(key) : undefined;
    if (json === undefined) throw notFound('POI');
    return { id: key, json };
  };

  return [
    {
      method: 'GET',
      path: '/v1/pois',
      openapi: poiDocs.list,
      permission: 'read-pois',
      handler: (ctx) => list(ctx),
    },
    {
      method: 'POST',
      path: '/v1/pois',
      openapi: poiDocs.create,
      permission: 'create-pois',
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
        const created = await createPoi(sql, ctx.teamId, limit, {
          id,
          name: body.name,
          latitude: body.latitude,
          longitude: body.longitude,
          categoryId: body.category_id?.toUpperCase() ?? null,
          attrs: values.set,
        }).catch((err) => {
          throw categoryGone(err);
        });
        if (created === null) throw forbidden(`Your team has reached its limit of ${limit} POIs.`);
        notifyGeocoding(sql);
        return { status: 201, body: dataOf({ id, json: created }) };
      },
    },
    {
      method: 'GET',
      path: '/v1/pois/{id}',
      openapi: poiDocs.get,
      permission: 'read-pois',
      handler: async (ctx) => ({ status: 200, body: dataOf(await load(ctx.teamId, ctx.params.id)) }),
    },
    {
      method: 'PUT',
      path: '/v1/pois/{id}',
      openapi: poiDocs.update,
      permission: 'update-pois',
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
        const updated = await updatePoi(sql, ctx.teamId, current.id, {
          name: body.name,
          latitude: body.latitude,
          longitude: body.longitude,
          categoryId: body.category_id === undefined ? undefined : (body.category_id?.toUpperCase() ?? null),
          ...values,
        }).catch((err) => {
          throw categoryGone(err);
        });
        if (updated === undefined) throw notFound('POI');
        if (updated.moved) notifyGeocoding(sql);
        reader.forget(ctx.teamId, current.id);
        return { status: 200, body: dataOf({ id: current.id, json: updated.json }) };
      },
    },
    {
      method: 'DELETE',
      path: '/v1/pois/{id}',
      openapi: poiDocs.delete,
      permission: 'delete-pois',
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
