import type { AttributeRow } from '../attributes/definitions.js';

export type AttributeValue = string | number | boolean;

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const BOOLEANS: Record<string, boolean> = { true: true, false: false, '1': true, '0': false, yes: true, no: false };

/** true/false/1/0/yes/no in any case, surrounding blanks ignored; undefined for anything else. */
export const parseBoolean = (text: string): boolean | undefined => BOOLEANS[text.trim().toLowerCase()];

/** A typed JSON value from a request body; returns an error message when it does not fit the type. */
export function typedBodyValue(attr: AttributeRow, value: unknown): { value: AttributeValue } | { error: string } {
  switch (attr.type) {
    case 'string':
      return typeof value === 'string' ? { value } : { error: 'must be a string' };
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? { value } : { error: 'must be a number' };
    case 'boolean':
      return typeof value === 'boolean' ? { value } : { error: 'must be a boolean' };
  }
}

/** A value from text (query strings, CSV cells): numbers compare numerically, booleans accept
 *  true/false/1/0/yes/no. JSON numbers and booleans are accepted as they are. */
export function typedTextValue(attr: AttributeRow, value: unknown): { value: AttributeValue } | { error: string } {
  if (typeof value !== 'string') return typedBodyValue(attr, value);
  switch (attr.type) {
    case 'string':
      // PostgreSQL cannot hold U+0000, so no stored value has it.
      return value.includes('\u0000') ? { error: 'may not contain NUL characters' } : { value };
    case 'number': {
      const trimmed = value.trim();
      return NUMBER.test(trimmed) && Number.isFinite(Number(trimmed)) ? { value: Number(trimmed) } : { error: 'must be a number' };
    }
    case 'boolean': {
      const b = parseBoolean(value);
      return b === undefined ? { error: 'must be a boolean (true, false, 1, 0, yes, no)' } : { value: b };
    }
  }
}
