import { parseArgs, type ParseArgsConfig } from 'node:util';

export type Options = NonNullable<ParseArgsConfig['options']>;

/** Strict flag parsing; unknown flags are an error that names them. */
export function parse<O extends Options>(args: string[], options: O) {
  return parseArgs({ args, options: { json: { type: 'boolean' as const }, ...options }, allowPositionals: true, strict: true });
}

export function int(value: string | boolean | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^\d+$/.test(value)) throw new Error(`--${flag} must be a non-negative integer`);
  return Number(value);
}

/** Prints either JSON (for scripts) or a human line. */
export function output(json: boolean | undefined, value: unknown, human: string): void {
  console.log(json ? JSON.stringify(value, null, 2) : human);
}
