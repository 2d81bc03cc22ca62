// Issue 31 on the real Andorra and Monaco maps (each served by a test app of its own): OSRM's guidance rules
// on junctions of those extracts, each checked by hand against the OSM data (osmium cat … -f opl: the ways and nodes named in each
// test) and against osrm-routed 6.0.0 (car.lua, the same extract).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { projectRoot } from '../../src/lib/paths.js';
import { buildMap } from '../../src/map/build.js';
import { makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { routeWithSteps } from './helpers.js';

/**
 * A test app serving a car map of `../shared/data/osm/<name>.osm.pbf`, built for the describe block that
 * calls this (a few seconds: another test file may be building or serving the shared one) and removed
 * after it; `steps` asks it a car route with steps.
 */
function useExtractApp(name: string): { steps: (from: [number, number], to: [number, number]) => Promise<any[]> } {
  let app: (App & { url: string }) | undefined;
  let team: TestTeam;
  let work: string | undefined;
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), `waymark-${name}-`));
    const map = join(work, 'map');
    await buildMap(join(projectRoot, '..', 'shared', 'data', 'osm', `${name}.osm.pbf`), map);
    app = await startTestApp({ WAYMARK_MAP: map, WAYMARK_PROFILES: 'driving-car', WAYMARK_JOBS: 'off' });
    team = await makeTeam(app);
  });
  afterAll(async () => {
    await app?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });
  return { steps: async (from, to) => (await routeWithSteps(app!, team.key, from, to)).legs[0].steps };
}

describe("OSRM's guidance rules on real junctions (Andorra)", () => {
  const andorra = useExtractApp('andorra');
  it("La Massana, the ring at Avinguda Sant Antoni: a roundabout turn's direction from its intersections' bearings (15° steps)", async () => {
    // OSM: the secondary Carretera Sant Cristofol w32845063 (CS-310) reaches the small unnamed ring
    // w26243580 (junction=roundabout, primary) at node 287397023 (1.519885, 42.532694); the second exit
    // is Avinguda Sant Antoni w26243488 (CG-3), north-west. OSRM tells a ring this small as one "roundabout
    // turn", its direction from the way in to the way out as the two intersections show them: 135° (the way
    // in, turned round: 315°) and 345°, 30° to the right, a slight right (post_processing.cpp). With the
    // roads' own bearings (320° and 338°) it came out 18°, "straight" (66 of 600 random routes).
    const steps = await andorra.steps([42.5318, 1.521], [42.534, 1.517]);
    const turn = steps[1];
    expect([turn.maneuver.type, turn.maneuver.modifier, turn.maneuver.exit, turn.name]).toEqual(['roundabout turn', 'slight right', 2, 'Avinguda Sant Antoni']);
    expect(turn.maneuver.location).toEqual([1.519885, 42.532694]);
    expect(turn.intersections[0].bearings).toEqual([15, 135, 225]);
  });
  it('La Massana, node 51402989: Baixada del Molì bending 51° left is the way on, not an unnamed road to the right', async () => {
    // OSM: Baixada del Molì w24715008 (secondary, two-way) passes node 51402989 (1.5162625, 42.5050777),
    // bending from 103° to 52°; there w6182267 (residential, no name: FIXME=Missing name) ends, leaving 220°,
    // a sharp right. OSRM's findObviousTurn takes as going on under the name only a road that has one:
    // the bend is obvious and osrm-routed 6.0.0 (car.lua, this extract) says nothing there (its
    // intersection [45, 225, 285], in 2, out 0). The steps said "continue left": an unnamed road needs no
    // name announced (OSRM's requiresNameAnnounced), and was taken for the name going on too.
    const steps = await andorra.steps([42.50509, 1.51576], [42.5054, 1.51702]);
    expect(steps.map((s: any) => [s.maneuver.type, s.name])).toEqual([
      ['depart', 'Baixada del Molì'],
      ['arrive', 'Baixada del Molì'],
    ]);
  });
});

describe("OSRM's guidance rules on real junctions (Monaco)", () => {
  const monaco = useExtractApp('monaco');

  it('Monte-Carlo, node 1720684257: onto Avenue Princesse Alice, beside a straighter residential road, is a new name', async () => {
    // OSM: Avenue d'Ostende w166624050 (primary) ends at node 1720684257 (7.426507, 43.7378865), arrived on
    // heading 74°; Avenue Princesse Alice w35092475 (primary) leaves 27° to the left, the one-way Avenue de
    // Monte-Carlo w4229308 (residential) 10° to the right. OSRM's findObviousTurn, with no road going on
    // under the name, takes the straightest road of no lower class than the one arrived on: Avenue
    // Princesse Alice, distinct from the residential road, is the obvious way on, and osrm-routed 6.0.0
    // (car.lua, this extract) says "new name slight left" (its intersection [45, 90, 255]). The steps
    // said "turn slight left", the residential road being straighter (48 of 600 random routes).
    const steps = await monaco.steps([43.7318753, 7.4174475], [43.7699474, 7.4773648]);
    const at = steps.find((s: any) => s.maneuver.location[0] === 7.426507 && s.maneuver.location[1] === 43.737887);
    expect(at && [at.maneuver.type, at.maneuver.modifier, at.name]).toEqual(['new name', 'slight left', 'Avenue Princesse Alice']);
  });
});
