/** `text` as a LIKE pattern that matches it literally: `%`, `_` and `\` match themselves. */
export const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** A LIKE pattern for "contains `text`", its `%`, `_` and `\` taken literally. */
export const likeContains = (text: string) => `%${likeLiteral(text)}%`;
