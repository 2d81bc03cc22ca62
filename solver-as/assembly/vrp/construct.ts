// Construction: regret-2 insertion with a per-(job, route) cache of the best insertion.
import { bestInRoute, bestInsertion, byPriority } from './insertion';
import { canServe } from './problem';
import { place } from './route';
import { INF, J, V, gPos, gPos2, hasPairs, hasPrio, jPrio, nPool, nUnas, pool, rLen, stamp, typeStamp, unas, vFixed, vType } from './state';

export function construct(): void {
  const useRegret = <f64>J * <f64>J * <f64>V <= 2.0e8;
  if (!useRegret) {
    nPool = 0;
    for (let k = 0; k < nUnas; k++) unchecked(pool[nPool++] = unas[k]);
    nUnas = 0;
    byPriority();
    for (let k = 0; k < nPool; k++) {
      const j = unchecked(pool[k]);
      const r = bestInsertion(j, false);
      if (r < 0) unchecked(unas[nUnas++] = j);
      else place(j, r, gPos, gPos2);
    }
    return;
  }
  const cacheCost = new StaticArray<f64>(J * V);
  const cachePos = new StaticArray<i32>(J * V);
  const cachePos2 = new StaticArray<i32>(hasPairs ? J * V : 0);
  const cacheVer = new StaticArray<i32>(J * V);
  const rVer = new StaticArray<i32>(V);
  for (let k = 0; k < J * V; k++) unchecked(cacheVer[k] = -1);
  while (nUnas > 0) {
    let pick = -1;
    let pickR = -1;
    let pickP = -1;
    let pickP2 = -1;
    let pickInf = false;
    let pickKey: f64 = -INF;
    let pickPrio: i32 = -1;
    for (let k = 0; k < nUnas; k++) {
      const j = unchecked(unas[k]);
      const prio = hasPrio ? unchecked(jPrio[j]) : 0;
      // A job of higher priority is placed first, whatever its regret: it gets the room it needs.
      if (prio < pickPrio) continue;
      stamp++;
      let b1 = INF;
      let b2 = INF;
      let r1 = -1;
      let p1 = -1;
      let q1 = -1;
      for (let r = 0; r < V; r++) {
        if (!canServe(j, r)) continue;
        let c: f64;
        let p: i32;
        let p2: i32;
        if (unchecked(rLen[r]) == 0) {
          const ty = unchecked(vType[r]);
          if (unchecked(typeStamp[ty]) == stamp) continue;
          unchecked(typeStamp[ty] = stamp);
          c = bestInRoute(j, r, INF, false) + unchecked(vFixed[r]);
          p = gPos;
          p2 = gPos2;
        } else {
          const ci = j * V + r;
          if (unchecked(cacheVer[ci]) != unchecked(rVer[r])) {
            unchecked(cacheCost[ci] = bestInRoute(j, r, INF, false));
            unchecked(cachePos[ci] = gPos);
            if (hasPairs) unchecked(cachePos2[ci] = gPos2);
            unchecked(cacheVer[ci] = rVer[r]);
          }
          c = unchecked(cacheCost[ci]);
          p = unchecked(cachePos[ci]);
          p2 = hasPairs ? unchecked(cachePos2[ci]) : -1;
        }
        if (c < b1) {
          b2 = b1;
          b1 = c;
          r1 = r;
          p1 = p;
          q1 = p2;
        } else if (c < b2) b2 = c;
      }
      if (r1 < 0) continue;
      const inf = b2 == INF;
      const key = inf ? -b1 : b2 - b1;
      if (prio > pickPrio || (inf && !pickInf) || (inf == pickInf && key > pickKey)) {
        pickPrio = prio;
        pick = k;
        pickR = r1;
        pickP = p1;
        pickP2 = q1;
        pickInf = inf;
        pickKey = key;
      }
    }
    if (pick < 0) break;
    const j = unchecked(unas[pick]);
    unchecked(unas[pick] = unas[--nUnas]);
    place(j, pickR, pickP, pickP2);
    unchecked(rVer[pickR] = rVer[pickR] + 1);
  }
}
