// Joins the member ways of a boundary relation into closed rings. OSM splits a boundary into many ways
// in no particular order or direction, so rings are built by matching end nodes, reversing ways as
// needed. Extracts cut relations at their edge: a missing way or an end that matches nothing makes the
// relation incomplete, which callers treat as "no polygon".

export interface RingMember {
  role: string;
  /** Node ids of the way, or null when the way is not in the extract. */
  refs: readonly number[] | null;
}

export interface AssembledRings {
  /** Closed rings of node ids (first id repeated at the end); outer and inner rings alike. */
  rings: number[][];
  /** Joined ways that do not close, as where the extract cuts the boundary. */
  chains: number[][];
  complete: boolean;
}

/**
 * Outer and inner ways are joined separately so that an inner ring touching the outer one at a node is
 * not merged into it. Point-in-polygon later uses the even-odd rule over all rings, which makes holes
 * and multiple outer rings work without assigning inners to outers.
 */
export function assembleRings(members: readonly RingMember[]): AssembledRings {
  if (members.length === 0) return { rings: [], chains: [], complete: false };
  let complete = true;
  const outer: (readonly number[])[] = [];
  const inner: (readonly number[])[] = [];
  for (const m of members) {
    if (!m.refs) {
      complete = false;
      continue;
    }
    if (m.refs.length < 2) continue;
    (m.role === 'inner' ? inner : outer).push(m.refs);
  }
  const rings: number[][] = [];
  const chains: number[][] = [];
  for (const group of [outer, inner]) {
    const joined = joinWays(group);
    if (!joined.complete) complete = false;
    rings.push(...joined.rings);
    chains.push(...joined.chains);
  }
  if (rings.length === 0) complete = false;
  return { rings, chains, complete };
}

/** The closed rings the ways join into, for drawing: chains the extract cut open are left out. */
export const closedRings = (ways: readonly (readonly number[])[]): number[][] => joinWays(ways.filter((w) => w.length >= 2)).rings;

function joinWays(ways: readonly (readonly number[])[]): AssembledRings {
  const rings: number[][] = [];
  const chains: number[][] = [];
  // End node id → indices of the open ways that start or end there.
  const byEnd = new Map<number, number[]>();
  const open: (readonly number[])[] = [];
  for (const refs of ways) {
    if (refs[0] === refs[refs.length - 1]) {
      if (refs.length >= 4) rings.push([...refs]);
      continue;
    }
    const i = open.push(refs) - 1;
    for (const end of [refs[0], refs[refs.length - 1]]) {
      const list = byEnd.get(end);
      if (list) list.push(i);
      else byEnd.set(end, [i]);
    }
  }
  const used = new Uint8Array(open.length);
  const takeAt = (node: number): number => {
    const list = byEnd.get(node);
    if (!list) return -1;
    for (const i of list) if (!used[i]) return i;
    return -1;
  };
  const extend = (ring: number[]) => {
    for (;;) {
      const last = ring[ring.length - 1];
      if (last === ring[0]) return;
      const next = takeAt(last);
      if (next < 0) return;
      used[next] = 1;
      const refs = open[next];
      if (refs[0] === last) for (let k = 1; k < refs.length; k++) ring.push(refs[k]);
      else for (let k = refs.length - 2; k >= 0; k--) ring.push(refs[k]);
    }
  };
  for (let start = 0; start < open.length; start++) {
    if (used[start]) continue;
    used[start] = 1;
    const ring = [...open[start]];
    extend(ring);
    if (ring[0] === ring[ring.length - 1] && ring.length >= 4) {
      rings.push(ring);
      continue;
    }
    // An open chain: grow it from its other end too, so a cut boundary yields one chain, not pieces.
    ring.reverse();
    extend(ring);
    chains.push(ring);
  }
  return { rings, chains, complete: chains.length === 0 };
}
