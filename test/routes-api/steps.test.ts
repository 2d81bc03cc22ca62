// POST /v1/routes `steps` and `language` (extensions) on the real Liechtenstein map: maneuvers and street
// names at two junctions checked by hand against the OSM extract (osmium, the ways and nodes named in each
// test), steps that add up to their leg, step geometries that are the route's line cut at the maneuvers,
// instructions in five languages from osrm-text-instructions, the answer without `steps` unchanged, 422s.
import polyline from '@mapbox/polyline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { idleThreads } from '../../src/compute/pool.js';
import { expect422 } from '../api/helpers.js';
import { makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { BALZERS, BETWEEN, RUGGELL, SCHAAN, VADUZ, expectRoute, plan, type At } from './helpers.js';

let app: App & { url: string };
let team: TestTeam;
beforeAll(async () => {
  app = await startTestApp();
  team = await makeTeam(app);
});
afterAll(() => app.close());

/** Once two compute threads are idle, so that a route of 4 or more waypoints is split over two. */
async function idle(): Promise<void> {
  for (let i = 0; i < 500 && idleThreads() < 2; i++) await new Promise((r) => setTimeout(r, 10));
}

async function stepsOf(body: Record<string, unknown>): Promise<any> {
  const res = await plan(app, team.key, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

const tenths = (x: number) => Math.round(x * 10) / 10;

describe('steps on real junctions', () => {
  it('Ruggell: Landstrasse, then right onto Kreuzstrasse at node 302779610', async () => {
    // OSM: node 302779610 (47.2363545, 9.5203818) is where Landstrasse (way 25341598 ends there, way
    // 142821284 starts there, both highway=secondary, going on to the north-east), Poliweg (way 142821284,
    // to the north-west) and Kreuzstrasse (way 245095038, residential, its last node; its node before,
    // 5483591858, lies to the south-east) meet. From Landstrasse's node 5322282796 (south-west of the
    // junction) to Kreuzstrasse's 5483591858 a driver turns right there, off Landstrasse.
    const data = await stepsOf({
      waypoints: [
        { latitude: 47.2360024, longitude: 9.520066 },
        { latitude: 47.2361681, longitude: 9.5209527 },
      ],
      steps: true,
      language: 'en',
    });
    const steps = data.legs[0].steps;
    expect(steps.map((s: any) => [s.maneuver.type, s.maneuver.modifier ?? null, s.name])).toEqual([
      ['depart', null, 'Landstrasse'],
      ['turn', 'right', 'Kreuzstrasse'],
      ['arrive', null, 'Kreuzstrasse'],
    ]);
    const turn = steps[1];
    expect(turn.maneuver.location).toEqual([9.520382, 47.236355]);
    // Four roads at the node: Landstrasse both ways, Poliweg, Kreuzstrasse; in from the south-west, out to the south-east.
    expect(turn.intersections[0].bearings).toHaveLength(4);
    expect(turn.intersections[0].bearings[turn.intersections[0].in]).toBeGreaterThan(180);
    expect(turn.intersections[0].bearings[turn.intersections[0].out]).toBeGreaterThan(90);
    expect(turn.intersections[0].bearings[turn.intersections[0].out]).toBeLessThan(150);
    expect(turn.maneuver.bearing_after - turn.maneuver.bearing_before).toBeGreaterThan(45);
    expect(turn.instruction).toBe('Turn right onto Kreuzstrasse');
    expect(turn.mode).toBe('driving');
  });

  it('Vaduz: the Adlerkreisel roundabout, left at its 2nd exit onto Herrengasse', async () => {
    // OSM: the Adlerkreisel is 8 ways tagged junction=roundabout (6065796, 614503243 … 614503257). Äulestrasse
    // (way 571067338, oneway) enters it at node 5489321558; going round, Städtle leaves at node 2484142831
    // (way 571067341: exit 1), Städtle's other way enters at 1338455720 (571067342, oneway in: no exit),
    // and Herrengasse (way 571067443, oneway out) leaves at node 5489339374: exit 2.
    const data = await stepsOf({ waypoints: [VADUZ, SCHAAN], steps: true });
    const steps = data.legs[0].steps;
    const round = steps.findIndex((s: any) => s.maneuver.type === 'roundabout');
    expect(round).toBe(1);
    expect(steps[0].name).toBe('Äulestrasse');
    // As osrm-routed 6.0.0 (car.lua, the same extract) answers: the roundabout step's modifier is the turn
    // onto the ring, the exit step is numbered too, and Herrengasse becomes Landstrasse straight on.
    expect(steps[round]).toMatchObject({ name: 'Herrengasse', maneuver: { modifier: 'right', exit: 2, location: [9.520966, 47.14094] } });
    expect(steps[round + 1]).toMatchObject({
      name: 'Herrengasse',
      maneuver: { type: 'exit roundabout', modifier: 'slight right', exit: 2, location: [9.520999, 47.141131] },
    });
    expect(steps[round + 2]).toMatchObject({ name: 'Landstrasse', maneuver: { type: 'new name', modifier: 'straight', location: [9.518783, 47.142941] } });
    // Schaan's Landstrasse at the end: the last maneuver before arriving is onto it.
    expect(steps.at(-1).maneuver.type).toBe('arrive');
    expect(steps.at(-1).name).toBe('Landstrasse');
  });

  it('Vaduz: north along Landstrasse past 75 m of Churerstrasse with its lanes, nothing said (a name oscillation)', async () => {
    // OSM: going north, Landstrasse (way 532911074, secondary) becomes Churerstrasse at node 49872292
    // (47.1522617, 9.5110497; ways 28712199 and 532911075, `turn:lanes:backward=through`) and Landstrasse
    // again at node 5170973220 (47.1529336, 9.5108992; way 28712198). osrm-routed (car.lua, the same
    // extract) says nothing at either, and turns left onto Marianumstrasse next: OSRM takes a name and
    // back out before it looks at short names' lanes (its steps here: depart, end of road left onto
    // Landstrasse, turn left onto Marianumstrasse, …).
    const data = await stepsOf({
      waypoints: [
        { latitude: 47.1457959, longitude: 9.5136251 },
        { latitude: 47.1648579, longitude: 9.5049306 },
      ],
      steps: true,
    });
    const steps = data.legs[0].steps;
    expect(steps.slice(0, 3).map((s: any) => [s.maneuver.type, s.maneuver.modifier ?? null, s.name])).toEqual([
      ['depart', null, ''],
      ['end of road', 'left', 'Landstrasse'],
      ['turn', 'left', 'Marianumstrasse'],
    ]);
  });

  it('a leg that ends on a roundabout enters it with the turn onto it, and says so in every language', async () => {
    // OSM: way 5033624 is a roundabout (junction=roundabout, highway=secondary, no name). Kohlplatz's oneway
    // way 702273059 (nodes 364033968 … 6594857610) enters it at node 6594857610 (47.2080328, 9.5271164);
    // node 281672029 (47.207935, 9.5270245) is on the ring a few meters on. A route that ends there never
    // leaves the ring: OSRM keeps the entry's modifier on such a roundabout step (no exit), and
    // osrm-text-instructions needs one for its sentence (this route failed with a language before).
    const waypoints = [
      { latitude: 47.217914, longitude: 9.53703 },
      { latitude: 47.207935, longitude: 9.5270245 },
    ];
    for (const language of ['en', 'de', 'fr', 'it', 'es']) {
      const steps = (await stepsOf({ waypoints, steps: true, language })).legs[0].steps;
      const round = steps.at(-2);
      expect(round.maneuver).toMatchObject({ type: 'roundabout', location: [9.527116, 47.208033] });
      expect(round.maneuver).not.toHaveProperty('exit');
      expect(['slight right', 'right', 'straight', 'slight left']).toContain(round.maneuver.modifier);
      for (const s of steps) expect(s.instruction).toMatch(/\p{L}{3}/u);
      if (language === 'en') expect(round.instruction).toBe('Enter the roundabout');
    }
  });
});

describe('steps add up', () => {
  const ROUTES: Array<[string, At[]]> = [
    ['2 waypoints', [VADUZ, SCHAAN]],
    ['3 waypoints', [BALZERS, VADUZ, RUGGELL]],
    // Split over two threads when two are idle: each half's legs have their own steps.
    ['5 waypoints (split)', [BALZERS, VADUZ, BETWEEN, SCHAAN, RUGGELL]],
  ];
  it.each(ROUTES)("%s: each leg's steps sum to its distance and duration, depart to arrive, and cut its line at the maneuvers", async (_, waypoints) => {
    await idle();
    const plain = expectRoute(await plan(app, team.key, { waypoints }), waypoints.length);
    await idle();
    const data = await stepsOf({ waypoints, steps: true });
    // Everything but the steps is the plain answer's.
    expect({ ...data, legs: data.legs.map(({ steps: _s, ...l }: any) => l) }).toEqual(plain);
    const line: number[][] = data.geometry.coordinates;
    let at = 0;
    for (const leg of data.legs) {
      const steps = leg.steps;
      expect(steps[0].maneuver.type).toBe('depart');
      expect(steps.at(-1).maneuver.type).toBe('arrive');
      expect(steps.slice(1, -1).every((s: any) => s.maneuver.type !== 'depart' && s.maneuver.type !== 'arrive')).toBe(true);
      expect(tenths(steps.reduce((a: number, s: any) => a + s.distance, 0))).toBe(leg.distance);
      expect(tenths(steps.reduce((a: number, s: any) => a + s.duration, 0))).toBe(leg.duration);
      expect(steps.at(-1).distance).toBe(0);
      // The steps' lines, end to end, are the leg's part of the route's line.
      expect(steps[0].maneuver.location).toEqual(line[at]);
      for (const s of steps.slice(0, -1)) {
        const g: number[][] = s.geometry.coordinates;
        expect(g[0]).toEqual(s.maneuver.location);
        expect(line.slice(at, at + g.length)).toEqual(g);
        at += g.length - 1;
      }
      expect(steps.at(-1).maneuver.location).toEqual(line[at]);
    }
    expect(at).toBe(line.length - 1);
  });

  it('polyline6: each step geometry decodes to its GeoJSON line', async () => {
    const geo = await stepsOf({ waypoints: [VADUZ, SCHAAN], steps: true });
    const enc = await stepsOf({ waypoints: [VADUZ, SCHAAN], steps: true, geometry_format: 'polyline6', overview: 'false' });
    expect(enc.geometry).toBeNull();
    const a = geo.legs[0].steps,
      b = enc.legs[0].steps;
    expect(b.length).toBe(a.length);
    for (let i = 0; i < a.length; i++) {
      expect(polyline.decode(b[i].geometry, 6).map(([lat, lon]: number[]) => [lon, lat])).toEqual(a[i].geometry.coordinates);
      expect({ ...b[i], geometry: null }).toEqual({ ...a[i], geometry: null });
    }
  });
});

describe('language', () => {
  it.each([
    ['en', /Kreuzstrasse/],
    ['de', /Kreuzstrasse/],
    ['fr', /Kreuzstrasse/],
    ['it', /Kreuzstrasse/],
    ['es', /Kreuzstrasse/],
  ])('%s: every step has an instruction', async (language, turn) => {
    const data = await stepsOf({
      waypoints: [
        { latitude: 47.2360024, longitude: 9.520066 },
        { latitude: 47.2361681, longitude: 9.5209527 },
      ],
      steps: true,
      language,
    });
    const steps = data.legs[0].steps;
    for (const s of steps) expect(s.instruction).toMatch(/\p{L}{3}/u);
    expect(steps[1].instruction).toMatch(turn);
  });

  it('the turn reads differently in each language', async () => {
    const texts = new Set<string>();
    for (const language of ['en', 'de', 'fr', 'it', 'es']) {
      const data = await stepsOf({
        waypoints: [
          { latitude: 47.2360024, longitude: 9.520066 },
          { latitude: 47.2361681, longitude: 9.5209527 },
        ],
        steps: true,
        language,
      });
      texts.add(data.legs[0].steps[1].instruction);
    }
    expect(texts.size).toBe(5);
    expect(texts.has('Rechts abbiegen auf Kreuzstrasse')).toBe(true);
  });

  it('without language, no instruction', async () => {
    const data = await stepsOf({ waypoints: [VADUZ, SCHAAN], steps: true });
    for (const s of data.legs[0].steps) expect(s).not.toHaveProperty('instruction');
  });
});

describe('the text of the steps', () => {
  // The compute thread writes the steps' JSON byte by byte (guidance/step-json.ts): it must be exactly what
  // JSON.stringify writes of the same answer (numbers as JavaScript prints them, names escaped as it escapes
  // them, keys in the answer's order), which parsing and writing it again shows.
  it.each([
    ['GeoJSON', { waypoints: [BALZERS, RUGGELL] }],
    ['German, polyline6', { waypoints: [RUGGELL, BALZERS], language: 'de', geometry_format: 'polyline6' }],
    ['3 waypoints, polyline, simplified', { waypoints: [BALZERS, VADUZ, RUGGELL], geometry_format: 'polyline', overview: 'simplified' }],
  ])('%s: the body is what JSON.stringify writes of it', async (_, body) => {
    const res = await fetch(`${app.url}/v1/routes`, {
      method: 'POST',
      headers: { 'X-API-KEY': team.key, 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, steps: true }),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    const data = JSON.parse(text);
    expect(data.data.legs.flatMap((l: any) => l.steps).length).toBeGreaterThan(10);
    expect(JSON.stringify(data)).toBe(text);
  });
});

describe('without steps', () => {
  it('steps: false and no steps give the same bytes, with no steps in the legs', async () => {
    const raw = async (body: unknown) =>
      (
        await fetch(`${app.url}/v1/routes`, {
          method: 'POST',
          headers: { 'X-API-KEY': team.key, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).text();
    const a = await raw({ waypoints: [VADUZ, SCHAAN] });
    const b = await raw({ waypoints: [VADUZ, SCHAAN], steps: false });
    expect(b).toBe(a);
    expect(a).not.toContain('"steps"');
  });
});

describe('422s', () => {
  it('an unknown language names `language`', async () => {
    expect422(await plan(app, team.key, { waypoints: [VADUZ, SCHAAN], steps: true, language: 'xx' }), ['language']);
  });
  it('a language without steps names `language`', async () => {
    expect422(await plan(app, team.key, { waypoints: [VADUZ, SCHAAN], language: 'de' }), ['language']);
    expect422(await plan(app, team.key, { waypoints: [VADUZ, SCHAAN], steps: false, language: 'de' }), ['language']);
  });
  it('steps that is not a boolean names `steps`', async () => {
    expect422(await plan(app, team.key, { waypoints: [VADUZ, SCHAAN], steps: 'yes' }), ['steps']);
  });
});
