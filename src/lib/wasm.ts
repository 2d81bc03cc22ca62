import { readFileSync } from 'node:fs';
import { distPath } from './paths.js';

const modules = new Map<string, WebAssembly.Module>();

/** Compiles dist/wasm/<name>.wasm once per thread. */
export function wasmModule(name: string): WebAssembly.Module {
  let mod = modules.get(name);
  if (!mod) {
    mod = new WebAssembly.Module(readFileSync(distPath('wasm', `${name}.wasm`)));
    modules.set(name, mod);
  }
  return mod;
}

/** Instantiates a kernel; `abort` is the only import the stub runtime asks for besides memory. */
export function instantiate<T extends WebAssembly.Exports>(name: string, imports: Record<string, Record<string, WebAssembly.ImportValue>> = {}): T {
  const env = {
    abort: (_msg: number, _file: number, line: number, col: number) => {
      throw new Error(`WASM kernel ${name} aborted at ${line}:${col}`);
    },
    ...(imports.env ?? {}),
  };
  return new WebAssembly.Instance(wasmModule(name), { ...imports, env }).exports as T;
}
