// A full garbage collection on request, in the thread that asks. Node gives `gc` only behind --expose-gc;
// the flag set at run time gives it to a context made after, in this thread's isolate.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Collects this thread's garbage now (the map build between its stages; a fresh process's warm-up,
 *  before /ready, so that its first requests do not pay for the warm-up's garbage). */
export function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}
