// Copies of the solution: the accepted one (sav) for rollback, the best one for the end.

import { updateLoads, updateRoute } from './route';
import { BK, DIM, J, S, V, bLen, bStops, costModel, dep, hasBreaks, hasDist, hasPick, jPair, jRole, jobPos, jobRoute, lat, nServable, nTouched, nUnas, rBrk, rBrkLd, rCost, rDist, rLen, rLoad, rTrav, sBrk, sBrkLd, sCost, sDep, sDist, sLat, sLen, sLoad, sNUnas, sStops, sTrav, sUnas, servable, stops, touched, unas } from './state';

export function copyRoute(r: i32, toSaved: bool): void {
  const base = r * S;
  if (toSaved) {
    const len = unchecked(rLen[r]);
    memory.copy(changetype<usize>(sStops) + (<usize>base << 2), changetype<usize>(stops) + (<usize>base << 2), <usize>(len + 2) << 2);
    memory.copy(changetype<usize>(sDep) + (<usize>base << 3), changetype<usize>(dep) + (<usize>base << 3), <usize>(len + 2) << 3);
    memory.copy(changetype<usize>(sLat) + (<usize>base << 3), changetype<usize>(lat) + (<usize>base << 3), <usize>(len + 2) << 3);
    unchecked(sLen[r] = len);
    for (let d = 0; d < DIM; d++) unchecked(sLoad[r * DIM + d] = rLoad[r * DIM + d]);
    unchecked(sCost[r] = rCost[r]);
    if (costModel) unchecked(sTrav[r] = rTrav[r]);
    if (hasBreaks) for (let k = 0; k < BK; k++) unchecked(sBrk[r * BK + k] = rBrk[r * BK + k]);
    for (let x = r * BK * DIM; x < (r + 1) * BK * DIM && x < rBrkLd.length; x++) unchecked(sBrkLd[x] = rBrkLd[x]);
    if (hasDist) unchecked(sDist[r] = rDist[r]);
  } else {
    const len = unchecked(sLen[r]);
    memory.copy(changetype<usize>(stops) + (<usize>base << 2), changetype<usize>(sStops) + (<usize>base << 2), <usize>(len + 2) << 2);
    memory.copy(changetype<usize>(dep) + (<usize>base << 3), changetype<usize>(sDep) + (<usize>base << 3), <usize>(len + 2) << 3);
    memory.copy(changetype<usize>(lat) + (<usize>base << 3), changetype<usize>(sLat) + (<usize>base << 3), <usize>(len + 2) << 3);
    unchecked(rLen[r] = len);
    for (let d = 0; d < DIM; d++) unchecked(rLoad[r * DIM + d] = sLoad[r * DIM + d]);
    unchecked(rCost[r] = sCost[r]);
    if (costModel) unchecked(rTrav[r] = sTrav[r]);
    if (hasBreaks) for (let k = 0; k < BK; k++) unchecked(rBrk[r * BK + k] = sBrk[r * BK + k]);
    for (let x = r * BK * DIM; x < (r + 1) * BK * DIM && x < rBrkLd.length; x++) unchecked(rBrkLd[x] = sBrkLd[x]);
    if (hasDist) unchecked(rDist[r] = sDist[r]);
    for (let i = 1; i <= len; i++) {
      const j = unchecked(stops[base + i]);
      unchecked(jobRoute[j] = r);
      unchecked(jobPos[j] = i);
    }
    if (hasPick) updateLoads(r);
  }
}

export function commit(): void {
  for (let k = 0; k < nTouched; k++) copyRoute(unchecked(touched[k]), true);
  for (let k = 0; k < nUnas; k++) unchecked(sUnas[k] = unas[k]);
  sNUnas = nUnas;
}

export function rollback(): void {
  for (let k = 0; k < nUnas; k++) unchecked(jobRoute[unas[k]] = -1);
  for (let k = 0; k < nTouched; k++) copyRoute(unchecked(touched[k]), false);
  for (let k = 0; k < sNUnas; k++) {
    const j = unchecked(sUnas[k]);
    unchecked(unas[k] = j);
    unchecked(jobRoute[j] = -1);
    if (unchecked(jRole[j]) == 1) unchecked(jobRoute[unchecked(jPair[j])] = -1);
  }
  nUnas = sNUnas;
}

export function saveBest(): void {
  for (let r = 0; r < V; r++) {
    const len = unchecked(rLen[r]);
    unchecked(bLen[r] = len);
    const base = r * S;
    for (let i = 1; i <= len; i++) unchecked(bStops[base + i] = stops[base + i]);
  }
}

export function loadBest(): void {
  nUnas = 0;
  for (let j = 0; j < J; j++) unchecked(jobRoute[j] = -1);
  for (let r = 0; r < V; r++) {
    const len = unchecked(bLen[r]);
    unchecked(rLen[r] = len);
    const base = r * S;
    for (let i = 1; i <= len; i++) unchecked(stops[base + i] = bStops[base + i]);
    updateRoute(r);
  }
  for (let k = 0; k < nServable; k++) {
    const j = unchecked(servable[k]);
    if (unchecked(jobRoute[j]) < 0) unchecked(unas[nUnas++] = j);
  }
}
