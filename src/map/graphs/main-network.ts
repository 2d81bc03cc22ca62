// The main network of a search graph: its largest strongly connected part. Snapping prefers it and a
// waypoint on a piece cut off from it (a driveway behind a private road) is moved onto it.
// A node's strongly connected part is what it reaches intersected with what reaches it; a few roots are
// tried and the largest part is kept, which on road graphs is found by the first (busiest) root.

/** 1 per node of the largest strongly connected part found, else 0. */
export function mainNetwork(n: number, firstOut: Uint32Array, head: Uint32Array): Uint8Array {
  const best = new Uint8Array(n);
  if (n === 0) return best;
  const m = firstOut[n];
  // Reverse CSR, only for this computation.
  const firstIn = new Uint32Array(n + 1);
  for (let e = 0; e < m; e++) firstIn[head[e] + 1]++;
  for (let v = 0; v < n; v++) firstIn[v + 1] += firstIn[v];
  const fill = firstIn.slice(0, n);
  const inTail = new Uint32Array(m);
  for (let v = 0; v < n; v++) for (let e = firstOut[v]; e < firstOut[v + 1]; e++) inTail[fill[head[e]]++] = v;

  const mark = new Uint8Array(n);
  const stack = new Uint32Array(n);
  const sweep = (root: number, bit: number, first: Uint32Array, next: Uint32Array): void => {
    let top = 0;
    stack[top++] = root;
    mark[root] |= bit;
    while (top > 0) {
      const v = stack[--top];
      for (let i = first[v]; i < first[v + 1]; i++) {
        const w = next[i];
        if (!(mark[w] & bit)) {
          mark[w] |= bit;
          stack[top++] = w;
        }
      }
    }
  };
  let root = 0;
  for (let v = 1; v < n; v++) if (firstOut[v + 1] - firstOut[v] > firstOut[root + 1] - firstOut[root]) root = v;
  let bestSize = 0;
  const tried = new Set<number>();
  for (let attempt = 0; attempt < 8 && bestSize * 2 < n; attempt++) {
    if (tried.has(root)) break;
    tried.add(root);
    mark.fill(0);
    sweep(root, 1, firstOut, head);
    sweep(root, 2, firstIn, inTail);
    let size = 0;
    for (let v = 0; v < n; v++) if (mark[v] === 3) size++;
    if (size > bestSize) {
      bestSize = size;
      for (let v = 0; v < n; v++) best[v] = mark[v] === 3 ? 1 : 0;
    }
    // Next root: a node outside every part tried so far, spread over the id range.
    root = Math.floor((((attempt + 1) * 0.618034) % 1) * n);
    while (best[root] && root + 1 < n) root++;
  }
  return best;
}
