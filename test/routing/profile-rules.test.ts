// Each tag rule of the profiles on its own (the OSRM feature files check them in combination).
import { describe, expect, it } from 'vitest';
import {
  conditionalValue,
  nodeBlocks,
  nodeLimits,
  parseDuration,
  parseMeters,
  parseTonnes,
  routeDuration,
  turnRestrictions,
  wayAccess,
  type ProfileName,
} from '../../src/map/graphs/profiles.js';

const dirs = (profile: ProfileName, tags: Record<string, string>): string => {
  const a = wayAccess(profile, tags);
  return a === null ? 'none' : a.forward > 0 && a.backward > 0 ? 'both' : a.forward > 0 ? 'forward' : 'backward';
};

describe('access tags', () => {
  it('the most specific key of the mode decides: motorcar over motor_vehicle over vehicle over access', () => {
    expect(dirs('driving-car', { highway: 'primary', access: 'no', motorcar: 'yes' })).toBe('both');
    expect(dirs('driving-car', { highway: 'primary', vehicle: 'yes', motor_vehicle: 'no' })).toBe('none');
    expect(dirs('driving-hgv', { highway: 'primary', motor_vehicle: 'yes', hgv: 'no' })).toBe('none');
    expect(dirs('cycling-regular', { highway: 'primary', vehicle: 'no', bicycle: 'yes' })).toBe('both');
    expect(dirs('foot-walking', { highway: 'footway', access: 'no', foot: 'yes' })).toBe('both');
    // Other modes' keys are not ours.
    expect(dirs('driving-car', { highway: 'primary', foot: 'no', bicycle: 'no', psv: 'no' })).toBe('both');
  });

  it(':forward and :backward apply per direction, before the key without a direction', () => {
    expect(dirs('driving-car', { highway: 'primary', access: 'yes', 'access:forward': 'no' })).toBe('backward');
    expect(dirs('driving-car', { highway: 'primary', access: 'no', 'access:forward': 'yes' })).toBe('forward');
    expect(dirs('driving-car', { highway: 'primary', 'access:forward': 'yes', motorcar: 'no' })).toBe('none');
    expect(dirs('cycling-regular', { highway: 'primary', 'vehicle:forward': 'agricultural' })).toBe('backward');
    expect(dirs('foot-walking', { highway: 'cycleway', 'foot:backward': 'designated' })).toBe('backward');
  });

  it('a list takes its most permissive value', () => {
    expect(dirs('driving-car', { highway: 'primary', access: 'agricultural;forestry' })).toBe('none');
    expect(dirs('driving-car', { highway: 'primary', access: 'yes;no' })).toBe('both');
    expect(dirs('driving-car', { highway: 'primary', access: 'destination;agricultural' })).toBe('both');
  });

  it('private, delivery, customers and destination are open to cars at a crawl; not to walkers and cyclists', () => {
    expect(wayAccess('driving-car', { highway: 'primary', access: 'private' })).toEqual({ forward: 10, backward: 10 });
    // Destination only: slowed like private, so that only a trip starting or ending there uses the road.
    expect(wayAccess('driving-car', { highway: 'primary', access: 'destination' })).toEqual({ forward: 10, backward: 10 });
    expect(wayAccess('driving-hgv', { highway: 'primary', motor_vehicle: 'destination' })).toEqual({ forward: 10, backward: 10 });
    expect(wayAccess('driving-car', { highway: 'primary', 'motorcar:forward': 'destination' })).toEqual({ forward: 10, backward: 80 });
    expect(wayAccess('cycling-regular', { highway: 'residential', access: 'destination' })).toEqual({ forward: 16, backward: 16 });
    expect(dirs('driving-car', { highway: 'service', access: 'private' })).toBe('none');
    expect(dirs('driving-car', { highway: 'footway', access: 'private' })).toBe('none');
    expect(dirs('foot-walking', { highway: 'residential', access: 'private' })).toBe('none');
    expect(dirs('cycling-regular', { highway: 'residential', access: 'delivery' })).toBe('none');
  });

  it('bus, taxi and other vehicles’ values close the way to cars; unknown values do not', () => {
    for (const v of ['psv', 'bus', 'taxi', 'foot', 'official', 'military', 'emergency'])
      expect(dirs('driving-car', { highway: 'primary', access: v })).toBe('none');
    for (const v of ['permit', 'residents', 'some_tag']) expect(dirs('driving-car', { highway: 'primary', access: v })).toBe('both');
  });

  it('an allowing value opens a way of another class; never steps or roads under construction', () => {
    expect(dirs('driving-car', { highway: 'runway' })).toBe('none');
    expect(wayAccess('driving-car', { highway: 'runway', motorcar: 'yes' })).toEqual({ forward: 10, backward: 10 });
    expect(dirs('driving-car', { highway: 'steps', access: 'yes' })).toBe('none');
    expect(dirs('foot-walking', { highway: 'motorway', foot: 'yes' })).toBe('both');
  });
});

describe('way classes and kinds', () => {
  it('walkers and cyclists keep off trunk roads, roads of unknown kind and bridleways', () => {
    for (const h of ['trunk', 'trunk_link', 'road', 'bridleway']) {
      expect(dirs('foot-walking', { highway: h })).toBe('none');
      expect(dirs('cycling-regular', { highway: h })).toBe('none');
    }
    expect(dirs('foot-walking', { highway: 'cycleway' })).toBe('none');
    expect(dirs('foot-walking', { highway: 'pier' })).toBe('both');
    expect(dirs('cycling-regular', { man_made: 'pier' })).toBe('both');
  });

  it('construction, proposed and emergency access roads are closed; upgrades in planning are not', () => {
    expect(dirs('driving-car', { highway: 'construction' })).toBe('none');
    expect(dirs('driving-car', { highway: 'primary', construction: 'yes' })).toBe('none');
    expect(dirs('driving-car', { highway: 'primary', construction: 'minor' })).toBe('both');
    expect(dirs('driving-car', { highway: 'proposed' })).toBe('none');
    expect(dirs('driving-car', { highway: 'primary', proposed: 'yes' })).toBe('both');
    expect(dirs('driving-car', { highway: 'service', service: 'emergency_access' })).toBe('none');
  });

  it('a road whose sidewalk or cycle track is a way of its own is left to that way', () => {
    expect(dirs('foot-walking', { highway: 'primary', 'sidewalk:both': 'separate' })).toBe('none');
    expect(dirs('foot-walking', { highway: 'primary', 'sidewalk:both': 'separate', foot: 'yes' })).toBe('both');
    expect(dirs('cycling-regular', { highway: 'primary', 'cycleway:right': 'separate' })).toBe('none');
  });

  it('cycle lanes and tracks open roads bicycles may not ride otherwise', () => {
    expect(dirs('cycling-regular', { highway: 'motorway' })).toBe('none');
    expect(dirs('cycling-regular', { highway: 'motorway', cycleway: 'track' })).toBe('forward');
    expect(dirs('cycling-regular', { highway: 'motorway', 'cycleway:left': 'opposite' })).toBe('both');
  });
});

describe('oneways', () => {
  it('a mode’s own oneway key comes first', () => {
    expect(dirs('driving-car', { highway: 'primary', 'oneway:motorcar': 'yes', 'oneway:motor_vehicle': 'no' })).toBe('forward');
    expect(dirs('driving-car', { highway: 'primary', 'oneway:vehicle': 'no', oneway: 'yes' })).toBe('both');
    expect(dirs('driving-car', { highway: 'primary', oneway: 'yes', 'oneway:bicycle': 'no' })).toBe('forward');
    expect(dirs('foot-walking', { highway: 'residential', oneway: 'yes' })).toBe('both');
    expect(dirs('foot-walking', { highway: 'footway', 'oneway:foot': '-1' })).toBe('backward');
  });

  it('motorways and roundabouts are oneway without a tag, motorway links are not; reversible ways are not used', () => {
    expect(dirs('driving-car', { highway: 'motorway' })).toBe('forward');
    expect(dirs('driving-car', { highway: 'motorway_link' })).toBe('both');
    expect(dirs('driving-car', { highway: 'primary', junction: 'roundabout' })).toBe('forward');
    expect(dirs('driving-car', { highway: 'primary', oneway: 'reversible' })).toBe('none');
    expect(dirs('driving-car', { highway: 'primary', oneway: 'alternating' })).toBe('both');
  });

  it('a cyclist pushes the bike against a oneway at walking speed where walking is allowed', () => {
    // Pushed against it: OSRM's mode `pushing bike` that way (the steps say so).
    expect(wayAccess('cycling-regular', { highway: 'residential', oneway: 'yes' })).toEqual({
      forward: 16,
      backward: 5,
      pushedForward: false,
      pushedBackward: true,
    });
    expect(dirs('cycling-regular', { highway: 'residential', oneway: 'yes', foot: 'no' })).toBe('forward');
    expect(dirs('cycling-regular', { highway: 'residential', oneway: 'yes', cycleway: 'opposite_lane' })).toBe('both');
    expect(wayAccess('cycling-regular', { highway: 'residential', oneway: 'yes', 'oneway:bicycle': 'no' })).toEqual({ forward: 16, backward: 16 });
  });

  it('but never the wrong way round a roundabout, tagged oneway or not (bicycle.lua: no push against an implied oneway)', () => {
    expect(dirs('cycling-regular', { highway: 'residential', junction: 'roundabout' })).toBe('forward');
    expect(dirs('cycling-regular', { highway: 'residential', junction: 'roundabout', oneway: 'yes' })).toBe('forward');
    expect(dirs('cycling-regular', { highway: 'tertiary', junction: 'circular' })).toBe('forward');
    // oneway=no on a roundabout opens it both ways, ridden.
    expect(wayAccess('cycling-regular', { highway: 'residential', junction: 'roundabout', oneway: 'no' })).toEqual({ forward: 16, backward: 16 });
  });
});

describe('physical limits', () => {
  it('parses lengths and weights with their units', () => {
    expect(parseMeters('2.5')).toBe(2.5);
    expect(parseMeters('3 m')).toBe(3);
    expect(parseMeters(`6'2"`)).toBeCloseTo(1.8796, 4);
    expect(parseMeters('default')).toBeNull();
    expect(parseTonnes('35000 kg')).toBe(35);
    expect(parseTonnes('8.9t')).toBe(8.9);
    expect(parseTonnes('0.1 lbs')).toBeCloseTo(0.0000454, 6);
    expect(parseTonnes('unsigned')).toBeNull();
  });

  it('a way narrower, lower, shorter or weaker than the vehicle is closed to it', () => {
    expect(dirs('driving-car', { highway: 'primary', width: '1.9' })).toBe('none');
    expect(dirs('driving-car', { highway: 'primary', width: '2' })).toBe('both');
    expect(dirs('driving-car', { highway: 'primary', maxheight: '1.8' })).toBe('none');
    expect(dirs('driving-car', { highway: 'primary', maxlength: '4' })).toBe('none');
    expect(dirs('driving-car', { highway: 'primary', maxweight: '3.5' })).toBe('both');
    // The lorry graph keeps ways below the default lorry for smaller ones (routes keep each lorry off
    // what it exceeds); only a way too small for the smallest lorry a request may describe is out.
    expect(dirs('driving-hgv', { highway: 'primary', maxweight: '3.5' })).toBe('both');
    expect(dirs('driving-hgv', { highway: 'primary', maxheight: '3.8' })).toBe('both');
    expect(dirs('driving-hgv', { highway: 'primary', maxheight: '0.9' })).toBe('none');
    expect(dirs('driving-hgv', { highway: 'primary', maxweight: '0.4' })).toBe('none');
    expect(dirs('foot-walking', { highway: 'primary', maxheight: '1' })).toBe('both');
  });
});

describe('barrier nodes', () => {
  it('bollards stop cars but not bicycles or walkers; rising bollards let cars through', () => {
    expect(nodeBlocks('driving-car', { barrier: 'bollard' })).toBe(true);
    expect(nodeBlocks('driving-car', { barrier: 'bollard', bollard: 'rising' })).toBe(false);
    expect(nodeBlocks('cycling-regular', { barrier: 'bollard' })).toBe(false);
    expect(nodeBlocks('foot-walking', { barrier: 'bollard' })).toBe(false);
  });

  it('gates are opened; walls and fences stop everyone unless access tags or a sound fence say otherwise', () => {
    expect(nodeBlocks('driving-car', { barrier: 'gate' })).toBe(false);
    expect(nodeBlocks('driving-car', { barrier: 'gate', access: 'no' })).toBe(true);
    expect(nodeBlocks('driving-car', { barrier: 'gate', access: 'private' })).toBe(false);
    expect(nodeBlocks('foot-walking', { barrier: 'gate', access: 'private' })).toBe(true);
    expect(nodeBlocks('foot-walking', { barrier: 'wall' })).toBe(true);
    expect(nodeBlocks('foot-walking', { barrier: 'wall', foot: 'yes' })).toBe(false);
    expect(nodeBlocks('cycling-regular', { barrier: 'fence', sensory: 'audible' })).toBe(false);
  });

  it('kerbs stop cars unless lowered or at a crossing; height restrictors by their height; access=no on any node', () => {
    expect(nodeBlocks('driving-car', { barrier: 'kerb' })).toBe(true);
    expect(nodeBlocks('driving-car', { barrier: 'kerb', kerb: 'lowered' })).toBe(false);
    expect(nodeBlocks('driving-car', { barrier: 'kerb', highway: 'crossing' })).toBe(false);
    expect(nodeBlocks('driving-car', { barrier: 'height_restrictor', maxheight: '1.9' })).toBe(true);
    expect(nodeBlocks('driving-car', { barrier: 'height_restrictor', maxheight: '3' })).toBe(false);
    // The lorry graph keeps a 3 m restrictor for smaller lorries: its limits go to the geometries through it.
    expect(nodeBlocks('driving-hgv', { barrier: 'height_restrictor', maxheight: '3' })).toBe(false);
    expect(nodeLimits({ barrier: 'height_restrictor', maxheight: '3', maxwidth: '2.2' })).toEqual({
      heightM: 3,
      widthM: 2.2,
      lengthM: Infinity,
      weightT: Infinity,
    });
    expect(nodeBlocks('driving-hgv', { barrier: 'height_restrictor', maxheight: '0.8' })).toBe(true);
    expect(nodeBlocks('driving-car', { motor_vehicle: 'no' })).toBe(true);
    expect(nodeBlocks('foot-walking', { motor_vehicle: 'no' })).toBe(false);
  });
});

describe('turn restrictions', () => {
  const way = (ref: number, role: string) => ({ type: 'way', ref, role });
  const via = { type: 'node', ref: 9, role: 'via' };

  it('no_entry takes several from-ways, no_exit several to-ways; other kinds take one of each', () => {
    const entry = turnRestrictions('driving-car', { type: 'restriction', restriction: 'no_entry' }, [way(1, 'from'), way(2, 'from'), way(3, 'to'), via]);
    expect(entry.map((r) => [r.fromWay, r.toWay])).toEqual([
      [1, 3],
      [2, 3],
    ]);
    const exit = turnRestrictions('driving-car', { type: 'restriction', restriction: 'no_exit' }, [way(1, 'from'), way(2, 'to'), way(3, 'to'), via]);
    expect(exit.map((r) => [r.fromWay, r.toWay])).toEqual([
      [1, 2],
      [1, 3],
    ]);
    expect(turnRestrictions('driving-car', { type: 'restriction', restriction: 'no_exit' }, [way(1, 'from'), way(2, 'from'), way(3, 'to'), via])).toEqual([]);
    expect(turnRestrictions('driving-car', { type: 'restriction', restriction: 'no_left_turn' }, [way(1, 'from'), way(2, 'to'), way(3, 'to'), via])).toEqual(
      [],
    );
  });

  it('takes via ways, in member order, instead of a via node; not a via node beside via ways', () => {
    const r = turnRestrictions('driving-car', { type: 'restriction', restriction: 'no_u_turn' }, [way(1, 'from'), way(3, 'via'), way(2, 'to')]);
    expect(r).toEqual([{ fromWay: 1, viaNode: 0, viaWays: [3], toWay: 2, only: false }]);
    const multi = turnRestrictions('driving-car', { type: 'restriction', restriction: 'no_u_turn' }, [
      way(1, 'from'),
      way(3, 'via'),
      way(4, 'via'),
      way(2, 'to'),
    ]);
    expect(multi).toEqual([{ fromWay: 1, viaNode: 0, viaWays: [3, 4], toWay: 2, only: false }]);
    expect(turnRestrictions('driving-car', { type: 'restriction', restriction: 'no_u_turn' }, [way(1, 'from'), way(3, 'via'), via, way(2, 'to')])).toEqual([]);
    expect(turnRestrictions('driving-car', { type: 'restriction', restriction: 'no_u_turn' }, [way(1, 'from'), via, { ...via, ref: 8 }, way(2, 'to')])).toEqual(
      [],
    );
  });

  it('ignores *_on_red, the vehicles named in except, and other modes', () => {
    const members = [way(1, 'from'), way(2, 'to'), via];
    expect(turnRestrictions('driving-car', { type: 'restriction', restriction: 'no_right_turn_on_red' }, members)).toEqual([]);
    expect(turnRestrictions('driving-car', { type: 'restriction', restriction: 'no_left_turn', except: 'bicycle;motorcar' }, members)).toEqual([]);
    expect(turnRestrictions('driving-hgv', { type: 'restriction', restriction: 'no_left_turn', except: 'motorcar' }, members)).toHaveLength(1);
    expect(turnRestrictions('cycling-regular', { type: 'restriction', restriction: 'no_left_turn' }, members)).toEqual([]);
    expect(turnRestrictions('driving-car', { type: 'restriction', 'restriction:hgv': 'no_left_turn' }, members)).toEqual([]);
  });
});

describe('conditional access', () => {
  it('a condition on the vehicle is checked against the profile’s vehicle', () => {
    // The lorry (40 t, 4 m) is over 7.5 t; the car (2 t) is not.
    expect(dirs('driving-hgv', { highway: 'primary', 'hgv:conditional': 'no @ (weight>7.5)' })).toBe('none');
    expect(dirs('driving-car', { highway: 'primary', 'motor_vehicle:conditional': 'no @ (weight > 7.5 t)' })).toBe('both');
    expect(dirs('driving-car', { highway: 'primary', 'motor_vehicle:conditional': 'no @ (weight>1.5)' })).toBe('none');
    expect(dirs('driving-hgv', { highway: 'primary', 'access:forward:conditional': 'no @ (height>3.5 AND length>12)' })).toBe('backward');
    // A conditional value applies at its key's level: motorcar=yes outranks motor_vehicle:conditional.
    expect(dirs('driving-car', { highway: 'primary', motorcar: 'yes', 'motor_vehicle:conditional': 'no @ (weight>1)' })).toBe('both');
    // It can open a way too.
    expect(dirs('driving-car', { highway: 'primary', access: 'no', 'access:conditional': 'yes @ (weight<3.5)' })).toBe('both');
  });

  it('time, day and other conditions are not evaluated: the unconditional tags decide', () => {
    expect(dirs('driving-car', { highway: 'primary', 'motor_vehicle:conditional': 'no @ (Mo-Fr 07:00-19:00)' })).toBe('both');
    expect(dirs('driving-car', { highway: 'primary', access: 'no', 'access:conditional': 'yes @ (Sa,Su; PH)' })).toBe('none');
    expect(dirs('foot-walking', { highway: 'path', 'foot:conditional': 'no @ (Nov-Apr)' })).toBe('both');
    expect(dirs('driving-car', { highway: 'primary', 'access:conditional': 'no @ wet' })).toBe('both');
    // A vehicle condition ANDed with a time is not evaluated either; walkers and cyclists have no vehicle.
    expect(dirs('driving-hgv', { highway: 'primary', 'hgv:conditional': 'no @ (weight>7.5 AND 22:00-06:00)' })).toBe('both');
    expect(dirs('cycling-regular', { highway: 'primary', 'access:conditional': 'no @ (weight>0)' })).toBe('both');
  });

  it('reads several rules, ";" inside a condition’s parentheses included, the last that applies winning', () => {
    const lorry = { heightM: 4, widthM: 2.55, lengthM: 16.5, weightT: 40 };
    expect(conditionalValue('no @ (Mo-Fr 07:00-09:00; Sa 10:00-12:00); delivery @ (weight>3.5)', lorry)).toBe('delivery');
    expect(conditionalValue('no @ (weight>3.5); yes @ (length<20)', lorry)).toBe('yes');
    expect(conditionalValue('no @ (weight>50)', lorry)).toBeUndefined();
    expect(conditionalValue('no', lorry)).toBeUndefined();
  });
});

describe('ferries and car trains', () => {
  it('route=ferry is taken by cars, lorries, bicycles and walkers at 5 km/h; a car train only by cars and lorries', () => {
    for (const p of ['driving-car', 'driving-hgv', 'cycling-regular', 'foot-walking'] as const) {
      expect(wayAccess(p, { route: 'ferry' })).toEqual({ forward: 5, backward: 5 });
    }
    expect(wayAccess('driving-car', { route: 'shuttle_train' })).toEqual({ forward: 10, backward: 10 });
    expect(wayAccess('foot-walking', { route: 'shuttle_train' })).toBeNull();
    expect(wayAccess('driving-car', { route: 'bus' })).toBeNull();
  });

  it('the mode’s access tags and oneway apply to a ferry; maxspeed does not', () => {
    expect(dirs('driving-car', { route: 'ferry', motor_vehicle: 'no' })).toBe('none');
    expect(dirs('foot-walking', { route: 'ferry', motor_vehicle: 'no' })).toBe('both');
    expect(dirs('cycling-regular', { route: 'ferry', bicycle: 'no' })).toBe('none');
    expect(dirs('driving-car', { route: 'ferry', oneway: 'yes' })).toBe('forward');
    // No pushing a bike against a oneway ferry.
    expect(dirs('cycling-regular', { route: 'ferry', oneway: 'yes' })).toBe('forward');
    expect(wayAccess('driving-car', { route: 'ferry', maxspeed: '30' })).toEqual({ forward: 5, backward: 5 });
    // route=ferry decides over a highway tag on the same way.
    expect(wayAccess('driving-car', { route: 'ferry', highway: 'primary' })).toEqual({ forward: 5, backward: 5 });
  });

  it('reads duration as OSRM does: H:MM, HH:MM:SS, minutes, ISO 8601', () => {
    expect(parseDuration('00:01:00')).toBe(60);
    expect(parseDuration('0:10')).toBe(600);
    expect(parseDuration('1:00')).toBe(3600);
    expect(parseDuration('10:00')).toBe(36000);
    expect(parseDuration('45')).toBe(2700);
    expect(parseDuration('PT1M')).toBe(60);
    expect(parseDuration('PT1H30M')).toBe(5400);
    expect(parseDuration('P1DT2H')).toBe(93600);
    for (const bad of ['', 'P', 'PT', 'about an hour', '0:00', '1:2:3:4']) expect(parseDuration(bad)).toBeNull();
    expect(routeDuration({ route: 'ferry', duration: '0:10' })).toBe(600);
    expect(routeDuration({ highway: 'primary', duration: '0:10' })).toBeNull();
    expect(routeDuration({ route: 'ferry' })).toBeNull();
  });
});
