// Background geocoding through the real service: POIs created over the API get their address from the
// Liechtenstein map within seconds; moves re-geocode, renames do not; the POI list filters by place.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { GeocodingRunner } from '../../src/geocoding/runner.js';
import { newId } from '../../src/lib/ids.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { TIMESTAMP } from '../api/helpers.js';
import { PLACES, UUID, at, geocoded, testMapDir } from './support.js';

let app: App & { url: string };
let mapDir: string;

beforeAll(async () => {
  mapDir = await testMapDir();
  app = await startTestApp({ WAYMARK_MAP: mapDir });
  expect(app.geocoding).toBeDefined();
});
afterAll(() => app.close());

const create = async (team: TestTeam, name: string, place: { latitude: number; longitude: number }) => {
  const res = await api(app, 'POST', '/v1/pois', { key: team.key, body: { name, ...at(place) } });
  expect(res.status).toBe(201);
  return res.body.data;
};

/** The address the API shows for a POI at a known Liechtenstein address. */
const liechtenstein = (p: { street: string; zipcode: string; city: string }) => ({
  display_name: `${p.street}, ${p.zipcode} ${p.city}, Liechtenstein`,
  street: p.street,
  city: { id: expect.stringMatching(UUID), name: p.city },
  country: { id: expect.stringMatching(UUID), name: 'Liechtenstein' },
  zipcode: { id: expect.stringMatching(UUID), code: p.zipcode },
  geocoded_at: expect.stringMatching(TIMESTAMP),
});

describe('background geocoding of POIs', () => {
  let team: TestTeam;
  const pois: Record<string, any> = {};

  beforeAll(async () => {
    team = await makeTeam(app);
  });

  it('gives POIs at known addresses in Vaduz, Schaan and Triesenberg their street, postcode, city and country', async () => {
    for (const name of ['vaduz', 'schaanPost', 'schaanDuxweg', 'triesenberg'] as const) {
      const created = await create(team, name, PLACES[name]);
      expect(created.address.geocoded_at).toBeNull();
      pois[name] = created;
    }
    for (const name of ['vaduz', 'schaanPost', 'schaanDuxweg', 'triesenberg'] as const) {
      pois[name] = await geocoded(app, team.key, pois[name].id);
      expect(pois[name].address).toEqual(liechtenstein(PLACES[name]));
    }
    // Shared places: one row per country, city and zip code.
    expect(pois.schaanPost.address.city).toEqual(pois.schaanDuxweg.address.city);
    expect(pois.schaanPost.address.zipcode).toEqual(pois.schaanDuxweg.address.zipcode);
    expect(pois.vaduz.address.country).toEqual(pois.triesenberg.address.country);
    expect(pois.vaduz.address.city.id).not.toBe(pois.schaanPost.address.city.id);
    const rows = await app.sql`SELECT geocode_pending, geocode_lease_until FROM pois WHERE id = ANY(${Object.values(pois).map((p) => p.id)})`;
    expect(rows.map((r) => [r.geocode_pending, r.geocode_lease_until])).toEqual(rows.map(() => [false, null]));
  });

  it('answers a creation and a move with the address empty, however quickly the geocoder takes the POI up', async () => {
    // Five at a time, while the geocoder is awake for the ones before: a creation's or move's answer read
    // after its commit could show the address the geocoder had already written (seen in CI); the contract's
    // state then is empty, always.
    const ids: string[] = [];
    for (let round = 0; round < 4; round++) {
      const made = await Promise.all(Array.from({ length: 5 }, (_, i) => create(team, `busy ${round} ${i}`, i % 2 ? PLACES.vaduz : PLACES.schaanPost)));
      for (const poi of made) expect(poi.address).toMatchObject({ street: null, city: null, geocoded_at: null });
      ids.push(...made.map((p) => p.id));
    }
    await geocoded(app, team.key, ids[0]);
    const moves = await Promise.all(ids.slice(0, 10).map((id) => api(app, 'PUT', `/v1/pois/${id}`, { key: team.key, body: at(PLACES.triesenberg) })));
    for (const res of moves) {
      expect(res.status).toBe(200);
      expect(res.body.data.address).toMatchObject({ street: null, city: null, geocoded_at: null });
    }
    for (const id of ids) await api(app, 'DELETE', `/v1/pois/${id}`, { key: team.key });
  });

  it('filters the POI list by country_id, city_id and zipcode_id', async () => {
    const list = async (query: string) => {
      const res = await api(app, 'GET', `/v1/pois?limit=100&${query}`, { key: team.key });
      expect(res.status).toBe(200);
      return res.body.data.map((p: any) => p.name).sort();
    };
    expect(await list(`city_id=${pois.schaanPost.address.city.id}`)).toEqual(['schaanDuxweg', 'schaanPost']);
    expect(await list(`zipcode_id=${pois.vaduz.address.zipcode.id}`)).toEqual(['vaduz']);
    expect(await list(`country_id=${pois.vaduz.address.country.id}`)).toEqual(['schaanDuxweg', 'schaanPost', 'triesenberg', 'vaduz']);
    expect(await list(`country_id=${pois.vaduz.address.country.id}&city_id=${pois.triesenberg.address.city.id}`)).toEqual(['triesenberg']);
    expect(await list(`city_id=${pois.vaduz.address.city.id}&zipcode_id=${pois.schaanPost.address.zipcode.id}`)).toEqual([]);
  });

  it('puts points across the borders in Switzerland and Austria', async () => {
    const buchs = await geocoded(app, team.key, (await create(team, 'Buchs SG', PLACES.buchs)).id);
    expect(buchs.address).toEqual({
      display_name: 'Switzerland',
      street: null,
      city: null,
      zipcode: null,
      country: { id: expect.stringMatching(UUID), name: 'Switzerland' },
      geocoded_at: expect.stringMatching(TIMESTAMP),
    });
    const feldkirch = await geocoded(app, team.key, (await create(team, 'Feldkirch', PLACES.feldkirch)).id);
    expect(feldkirch.address).toMatchObject({
      street: 'Am Schellenberg 17',
      display_name: 'Am Schellenberg 17, 6800, Austria',
      country: { name: 'Austria' },
      zipcode: { code: '6800' },
      city: null,
    });
    expect(feldkirch.address.country.id).not.toBe(buchs.address.country.id);
  });

  it('finishes a point in the sea or off the map with geocoded_at and null fields', async () => {
    for (const place of [
      { latitude: 0, longitude: 0 },
      { latitude: 43.5, longitude: 7.6 },
      { latitude: 48.78, longitude: 9.18 },
    ]) {
      const poi = await geocoded(app, team.key, (await create(team, 'Nowhere', place)).id);
      expect(poi.address).toEqual({
        display_name: null,
        street: null,
        city: null,
        country: null,
        zipcode: null,
        geocoded_at: expect.stringMatching(TIMESTAMP),
      });
    }
  });

  it('geocodes a moved POI again, and keeps the address of a renamed one', async () => {
    const first = await geocoded(app, team.key, (await create(team, 'Wanderer', PLACES.vaduz)).id);
    const renamed = await api(app, 'PUT', `/v1/pois/${first.id}`, { key: team.key, body: { name: 'Renamed', latitude: PLACES.vaduz.latitude } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data.address).toEqual(first.address);
    const [row] = await app.sql`SELECT geocode_pending FROM pois WHERE id = ${first.id}`;
    expect(row.geocode_pending).toBe(false);

    const moved = await api(app, 'PUT', `/v1/pois/${first.id}`, { key: team.key, body: at(PLACES.triesenberg) });
    expect(moved.body.data.address.geocoded_at).toBeNull();
    const again = await geocoded(app, team.key, first.id);
    expect(again.address).toEqual(liechtenstein(PLACES.triesenberg));
    expect(Date.parse(again.address.geocoded_at)).toBeGreaterThan(Date.parse(first.address.geocoded_at));

    await api(app, 'PUT', `/v1/pois/${first.id}`, { key: team.key, body: { name: 'Renamed again' } });
    await app.geocoding!.drain();
    expect((await api(app, 'GET', `/v1/pois/${first.id}`, { key: team.key })).body.data.address).toEqual(again.address);
  });

  it('does not write an address geocoded at coordinates the POI has since left; a move releases its claim', async () => {
    // A POI held mid-batch by a worker that claimed it in Vaduz; it has moved to Eschen since. Its lease
    // keeps the other workers off it.
    const id = newId();
    await app.sql`
      INSERT INTO pois (id, team_id, name, latitude, longitude, geocode_lease_until, geocode_attempts)
      VALUES (${id}, ${team.teamId}, 'Mover', ${PLACES.eschen.latitude}, ${PLACES.eschen.longitude}, now() + interval '10 minutes', 1)`;
    const stale = new GeocodingRunner(app.sql, { mapDir, log: app.log });
    expect(await stale.process([{ id, ...at(PLACES.vaduz), geocode_attempts: 1 }])).toBe(0);
    const [row] = await app.sql`SELECT geocode_pending, street, city_id, geocoded_at FROM pois WHERE id = ${id}`;
    expect(row).toEqual({ geocode_pending: true, street: null, city_id: null, geocoded_at: null });
    // Written when the coordinates match.
    expect(await stale.process([{ id, ...at(PLACES.eschen), geocode_attempts: 1 }])).toBe(1);
    expect((await api(app, 'GET', `/v1/pois/${id}`, { key: team.key })).body.data.address).toEqual(liechtenstein(PLACES.eschen));

    // A move over the API while a claim is held: the POI is geocoded again at once, not when the lease runs out.
    await app.sql`UPDATE pois SET geocode_pending = true, geocode_lease_until = now() + interval '10 minutes' WHERE id = ${id}`;
    expect((await api(app, 'PUT', `/v1/pois/${id}`, { key: team.key, body: at(PLACES.balzers) })).status).toBe(200);
    expect((await geocoded(app, team.key, id)).address).toEqual(liechtenstein(PLACES.balzers));
  });

  it('finishes a POI whose geocoding kept failing with an empty address instead of leaving it pending', async () => {
    const id = newId();
    await app.sql`
      INSERT INTO pois (id, team_id, name, latitude, longitude, geocode_attempts)
      VALUES (${id}, ${team.teamId}, 'Unlucky', ${PLACES.vaduz.latitude}, ${PLACES.vaduz.longitude}, 5)`;
    const poi = await geocoded(app, team.key, id);
    expect(poi.address).toEqual({ display_name: null, street: null, city: null, country: null, zipcode: null, geocoded_at: expect.stringMatching(TIMESTAMP) });
    const [row] = await app.sql`SELECT geocode_pending, geocode_attempts FROM pois WHERE id = ${id}`;
    expect(row).toEqual({ geocode_pending: false, geocode_attempts: 0 });
  });
});
