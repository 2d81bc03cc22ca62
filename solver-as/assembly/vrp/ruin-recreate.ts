// SISR (Christiaens & Vanden Berghe 2020): ruin removes adjacent strings of jobs around a seed job,
// recreate re-inserts the pool greedily with blinks.
// Ruin: adjacent string removal.

import { bestInsertion, byPriority } from './insertion';
import { place, touch, updateRoute } from './route';
import { CBAR, K, LMAX, S, SPLIT_DEPTH, SPLIT_RATE, V, adj, adjCnt, gPos, gPos2, hasPairs, iterStamp, jDemKey, jDepot, jPair, jRole, jobPos, jobRoute, keys, nPool, nServable, nUnas, pool, rLen, rint, rnd, servable, stops, touchStamp, unas } from './state';

function removeRange(r: i32, from: i32, count: i32, keepFrom: i32, keepCount: i32): void {
  // Removes nodes [from, from+count) of route r except [keepFrom, keepFrom+keepCount).
  const base = r * S;
  const len = unchecked(rLen[r]);
  let w = from;
  for (let i = from; i < from + count; i++) {
    const j = unchecked(stops[base + i]);
    if (i >= keepFrom && i < keepFrom + keepCount) {
      unchecked(stops[base + w++] = j);
    } else {
      // The pool holds a shipment by its pickup, which comes first in the route.
      const role = unchecked(jRole[j]);
      if (role == 0 || role == 1 || unchecked(jobRoute[unchecked(jPair[j])]) >= 0) unchecked(pool[nPool++] = role == 2 ? unchecked(jPair[j]) : j);
      unchecked(jobRoute[j] = -1);
    }
  }
  for (let i = from + count; i <= len; i++) unchecked(stops[base + w++] = stops[base + i]);
  unchecked(rLen[r] = w - 1);
  // The other halves of removed shipments leave with them.
  if (hasPairs) {
    let k = 1;
    for (let i = 1; i <= w - 1; i++) {
      const j = unchecked(stops[base + i]);
      if (unchecked(jRole[j]) != 0 && unchecked(jobRoute[unchecked(jPair[j])]) < 0) {
        unchecked(jobRoute[j] = -1);
        continue;
      }
      unchecked(stops[base + k++] = j);
    }
    unchecked(rLen[r] = k - 1);
  }
  updateRoute(r);
  touch(r);
}

export function ruin(): void {
  let assigned = 0;
  let used = 0;
  for (let r = 0; r < V; r++) {
    const len = unchecked(rLen[r]);
    if (len > 0) {
      assigned += len;
      used++;
    }
  }
  if (used == 0) return;
  const avg = <f64>assigned / <f64>used;
  const lsMax = avg < LMAX ? avg : LMAX;
  const ksMax = 4.0 * CBAR / (1.0 + lsMax) - 1.0;
  const ks = <i32>Math.floor(rnd() * ksMax) + 1;
  const seed = unchecked(servable[rint(nServable)]);
  let ruined = 0;
  const cnt = unchecked(adjCnt[seed]);
  for (let k = -1; k < cnt && ruined < ks; k++) {
    const c = k < 0 ? seed : unchecked(adj[seed * K + k]);
    const r = unchecked(jobRoute[c]);
    if (r < 0 || unchecked(touchStamp[r]) == iterStamp) continue;
    const len = unchecked(rLen[r]);
    const ltMax = <f64>len < lsMax ? <f64>len : lsMax;
    const lt = <i32>Math.floor(rnd() * ltMax) + 1;
    const p = unchecked(jobPos[c]);
    if (lt == len || rnd() < SPLIT_RATE) {
      const lo = p - lt + 1 > 1 ? p - lt + 1 : 1;
      const hi = p < len - lt + 1 ? p : len - lt + 1;
      const from = lo + rint(hi - lo + 1);
      removeRange(r, from, lt, 0, 0);
    } else {
      let m = 1;
      while (m < len - lt && rnd() >= SPLIT_DEPTH) m++;
      const span = lt + m;
      const lo = p - span + 1 > 1 ? p - span + 1 : 1;
      const hi = p < len - span + 1 ? p : len - span + 1;
      const from = lo + rint(hi - lo + 1);
      removeRange(r, from, span, from + rint(lt + 1), m);
    }
    ruined++;
  }
}

// ---- recreate: greedy insertion with blinks in one of four orders ----
function sortPool(desc: bool): void {
  // Shell sort of pool by keys (parallel arrays).
  let gap = nPool >> 1;
  while (gap > 0) {
    for (let i = gap; i < nPool; i++) {
      const kj = unchecked(keys[i]);
      const vj = unchecked(pool[i]);
      let k = i;
      while (k >= gap && (desc ? unchecked(keys[k - gap]) < kj : unchecked(keys[k - gap]) > kj)) {
        unchecked(keys[k] = keys[k - gap]);
        unchecked(pool[k] = pool[k - gap]);
        k -= gap;
      }
      unchecked(keys[k] = kj);
      unchecked(pool[k] = vj);
    }
    gap >>= 1;
  }
}

export function recreate(): void {
  for (let k = 0; k < nUnas; k++) unchecked(pool[nPool++] = unas[k]);
  nUnas = 0;
  const u = rnd() * 11.0;
  if (u < 4.0) {
    for (let i = nPool - 1; i > 0; i--) {
      const k = rint(i + 1);
      const t = unchecked(pool[i]);
      unchecked(pool[i] = pool[k]);
      unchecked(pool[k] = t);
    }
  } else {
    for (let i = 0; i < nPool; i++) {
      const j = unchecked(pool[i]);
      unchecked(keys[i] = u < 8.0 ? unchecked(jDemKey[j]) : unchecked(jDepot[j]));
    }
    sortPool(u < 10.0);
  }
  byPriority();
  for (let k = 0; k < nPool; k++) {
    const j = unchecked(pool[k]);
    const r = bestInsertion(j, true);
    if (r < 0) {
      unchecked(unas[nUnas++] = j);
    } else {
      place(j, r, gPos, gPos2);
      touch(r);
    }
  }
  nPool = 0;
}
