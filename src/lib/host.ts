// What the host's kernel says about itself that changes how the service behaves, read once where it matters.
import { readFileSync } from 'node:fs';

/**
 * The kernel's transparent huge pages mode (`always`, `madvise`, `never`), or null where there is none to
 * read (not Linux). With `madvise`, Debian's default, Node's memory is never given huge pages (V8 does not
 * ask for them), so a map is faulted in 4 KiB pages: on a virtual machine, most of a load (docs/operations.md).
 */
export function transparentHugePages(): string | null {
  try {
    return /\[(\w+)\]/.exec(readFileSync('/sys/kernel/mm/transparent_hugepage/enabled', 'utf8'))?.[1] ?? null;
  } catch {
    return null;
  }
}
