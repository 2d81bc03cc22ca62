import { readFileSync } from 'node:fs';
import { distPath } from './paths.js';

const modules = new Map<string, WebAssembly.Module>();

/**
 * dist/wasm, or with WAYMARK_CHECKED_KERNELS=1 dist/wasm-checked: the same kernels built with every bounds
 * check and assertion on (solver-as/build.mjs --checked), which the kernel tests run against a second time
 * (npm run test:kernels-checked). Not a setting of the service: read here, where the kernels are loaded.
 */
const KERNEL_DIR = process.env.WAYMARK_CHECKED_KERNELS === '1' ? 'wasm-checked' : 'wasm';

/** Compiles dist/wasm/<name>.wasm (see KERNEL_DIR) once per thread. */
export function wasmModule(name: string): WebAssembly.Module {
  let mod = modules.get(name);
  if (!mod) {
    mod = new WebAssembly.Module(readFileSync(distPath(KERNEL_DIR, `${name}.wasm`)));
    modules.set(name, mod);
  }
  return mod;
}

/**
 * Instantiates a kernel; `abort` is the only import the stub runtime asks for besides memory. A kernel
 * aborts on a failed assertion or bounds check (the checked build) or an impossible state: the error names
 * the kernel's source file, line and column.
 */
export function instantiate<T extends WebAssembly.Exports>(name: string, imports: Record<string, Record<string, WebAssembly.ImportValue>> = {}): T {
  let memory = imports.env?.memory as WebAssembly.Memory | undefined;
  const env = {
    abort: (_msg: number, file: number, line: number, col: number) => {
      throw new Error(`WASM kernel ${name} aborted at ${(memory && kernelString(memory, file)) || '?'}:${line}:${col}`);
    },
    ...(imports.env ?? {}),
  };
  const exports = new WebAssembly.Instance(wasmModule(name), { ...imports, env }).exports;
  memory ??= exports.memory as WebAssembly.Memory | undefined;
  return exports as T;
}

/** An AssemblyScript string at `ptr` (UTF-16, its byte length in the object header's last word), or '' when it cannot be one. */
function kernelString(memory: WebAssembly.Memory, ptr: number): string {
  const buf = memory.buffer;
  if (ptr < 4 || ptr % 2 || ptr > buf.byteLength) return '';
  const bytes = new DataView(buf).getUint32(ptr - 4, true);
  if (bytes % 2 || ptr + bytes > buf.byteLength) return '';
  return Buffer.from(new Uint8Array(buf, ptr, bytes).slice()).toString('utf16le');
}
