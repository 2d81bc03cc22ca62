/** A record of the file with the physical line it starts on (the first line is 1). */
export interface CsvRecord {
  line: number;
  fields: string[];
}

export type Delimiter = ',' | ';';

/** The file as a whole cannot be read; `line` is where the problem starts. */
export class CsvError extends Error {
  constructor(
    message: string,
    readonly line?: number,
  ) {
    super(message);
  }
}

const QUOTE = 34;
const CR = 13;
const LF = 10;

/** UTF-8 text without its BOM; anything that is not valid UTF-8 is an error. */
export function decodeCsv(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new CsvError('must be UTF-8 encoded');
  }
}

/** `;` when the header line has more semicolons than commas, else `,`. */
export function detectDelimiter(text: string): Delimiter {
  const header = /^[\r\n]*([^\r\n]*)/.exec(text)![1];
  let commas = 0;
  let semicolons = 0;
  for (let i = 0; i < header.length; i++) {
    const c = header[i];
    if (c === ',') commas++;
    else if (c === ';') semicolons++;
  }
  return semicolons > commas ? ';' : ',';
}

const isBlank = (fields: string[]) => fields.every((f) => f.trim() === '');

/** Where reading stands in the text: a string index at the start of a line, and that line's number. */
export interface CsvCursor {
  offset: number;
  line: number;
}

export const START: CsvCursor = { offset: 0, line: 1 };

/**
 * Up to `max` RFC 4180 records from `from`, and where the next read starts: quoted fields may hold
 * delimiters, line breaks and doubled quotes; lines end with CRLF, LF or CR. Blank records (empty
 * lines, or only delimiters) are skipped. Lenient where the RFC is strict and the intent is clear: a
 * quote inside an unquoted field is kept as it is, text after a closing quote is appended.
 */
export function readRecords(text: string, delimiter: Delimiter, from: CsvCursor, max: number): { records: CsvRecord[]; next: CsvCursor } {
  const delim = delimiter.charCodeAt(0);
  const records: CsvRecord[] = [];
  const n = text.length;
  let i = from.offset;
  let line = from.line;
  while (i < n && records.length < max) {
    const start = line;
    const fields: string[] = [];
    for (;;) {
      let value = '';
      if (text.charCodeAt(i) === QUOTE) {
        const opened = line;
        i++;
        for (;;) {
          const close = text.indexOf('"', i);
          if (close < 0) throw new CsvError(`has an unterminated quoted field starting at line ${opened}`, opened);
          const part = text.slice(i, close);
          line += countLineBreaks(part);
          value += part;
          if (text.charCodeAt(close + 1) === QUOTE) {
            value += '"';
            i = close + 2;
          } else {
            i = close + 1;
            break;
          }
        }
      }
      const begin = i;
      while (i < n) {
        const c = text.charCodeAt(i);
        if (c === delim || c === CR || c === LF) break;
        i++;
      }
      value += text.slice(begin, i);
      fields.push(value);
      if (i < n && text.charCodeAt(i) === delim) {
        i++;
        continue;
      }
      break;
    }
    if (i < n) {
      // at a line break
      if (text.charCodeAt(i) === CR && text.charCodeAt(i + 1) === LF) i += 2;
      else i++;
      line++;
    }
    if (!isBlank(fields)) records.push({ line: start, fields });
  }
  return { records, next: { offset: i, line } };
}

function countLineBreaks(s: string): number {
  let count = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === LF) count++;
    else if (c === CR && s.charCodeAt(i + 1) !== LF) count++;
  }
  return count;
}
