import { z } from 'zod';
import { unprocessable, zodErrors, type FieldErrors } from './errors.js';

/** Length in characters as PostgreSQL counts them (code points): an emoji is one, not two UTF-16 units. */
export function charLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** A zod type error that tells a missing field ("is required") from one of the wrong type. */
export const typeError = (wrongType: string) => (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : wrongType);

/** Parses with a zod schema, adding its problems to `errors` (undefined when there are any), so that the
 *  checks that need data can still run on the parts that are well-formed and the 422 lists everything. */
export function parseInto<S extends z.ZodType>(schema: S, value: unknown, errors: FieldErrors): z.infer<S> | undefined {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  for (const [field, messages] of Object.entries(zodErrors(result.error))) (errors[field] ??= []).push(...messages);
  return undefined;
}

/** Parses with a zod schema or throws the 422 of DECISIONS.md. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, prefix = ''): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const errors = zodErrors(result.error);
    if (!prefix) throw unprocessable(errors);
    const prefixed: Record<string, string[]> = {};
    for (const [k, v] of Object.entries(errors)) prefixed[k === 'body' ? prefix : `${prefix}.${k}`] = v;
    throw unprocessable(prefixed);
  }
  return result.data;
}

/** Passes arrays on and refuses anything else with `message`: put before `.pipe(z.array(…).min().max())`
 *  so that a string is not measured as a list (zod runs length checks on anything with a length). As a
 *  transform, the document shows the array schema after it. */
export const arrayFirst = (message: string) =>
  z.transform((value: unknown, ctx) => {
    if (Array.isArray(value)) return value as unknown[];
    ctx.addIssue({ code: 'custom', message, input: value });
    return z.NEVER;
  });
