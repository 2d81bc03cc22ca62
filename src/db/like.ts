import type postgres from 'postgres';
import type { Sql } from './client.js';

/** `text` as a LIKE pattern that matches it literally: `%`, `_` and `\` match themselves. */
export const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** A LIKE pattern for "contains `text`", its `%`, `_` and `\` taken literally. */
export const likeContains = (text: string) => `%${likeLiteral(text)}%`;

// Folding for name search, without the `unaccent` extension (the project needs none): the Latin letters
// with diacritics of European languages, either case, each to its lower-case base letter by translate(),
// and ß to "ss". Both sides of a match go through it, so what it does not know still matches itself;
// ILIKE then ignores the remaining case.
const FOLD_FROM =
  'ÀÁÂÃÄÅàáâãäåĀāĂăĄąÇçĆćĈĉĊċČčĎďĐđÈÉÊËèéêëĒēĔĕĖėĘęĚěĜĝĞğĠġĢģĤĥĦħÌÍÎÏìíîïĨĩĪīĬĭĮįİıĴĵĶķĹĺĻļĽľĿŀŁłÑñŃńŅņŇňÒÓÔÕÖØòóôõöøŌōŎŏŐőŔŕŖŗŘřŚśŜŝŞşŠšȘșŢţȚțŤťŦŧÙÚÛÜùúûüŨũŪūŬŭŮůŰűŲųŴŵÝýÿŶŷŸŹźŻżŽž';
/** Letters without a canonical decomposition. */
const FOLD_SPECIAL: Record<string, string> = { Đ: 'd', đ: 'd', Ħ: 'h', ħ: 'h', ı: 'i', Ŀ: 'l', ŀ: 'l', Ł: 'l', ł: 'l', Ø: 'o', ø: 'o', Ŧ: 't', ŧ: 't' };
const FOLD_TO = [...FOLD_FROM].map((c) => FOLD_SPECIAL[c] ?? c.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase()).join('');
if ([...FOLD_TO].length !== [...FOLD_FROM].length || !/^[a-z]+$/.test(FOLD_TO)) throw new Error('the name fold maps a letter to other than one base letter');

/** `expr` folded: lower-case base letters for the Latin letters with diacritics, ß as "ss". */
const fold = (sql: Sql, expr: postgres.Fragment) => sql`translate(replace(${expr}, 'ß', 'ss'), ${FOLD_FROM}::text, ${FOLD_TO}::text)`;

/** `expr` (a text column) contains `text`, ignoring case and the diacritics of Latin letters; `%`, `_` and `\` literal. */
export const foldedContains = (sql: Sql, expr: postgres.Fragment, text: string) => sql`${fold(sql, expr)} ILIKE ${fold(sql, sql`${likeContains(text)}::text`)}`;
