/** A parsed query string: repeated keys keep every value, `a[b]=c` keys are grouped under `a`. */
export class Query {
  private readonly values = new Map<string, string[]>();

  constructor(raw: string) {
    for (const [key, value] of new URLSearchParams(raw)) {
      const list = this.values.get(key);
      if (list) list.push(value);
      else this.values.set(key, [value]);
    }
  }

  /** The last value sent for `key` (a repeated scalar takes the last one, as most frameworks do). */
  get(key: string): string | undefined {
    const list = this.values.get(key);
    return list ? list[list.length - 1] : undefined;
  }

  all(key: string): string[] {
    return this.values.get(key) ?? [];
  }

  has(key: string): boolean {
    return this.values.has(key);
  }

  /** `attributes[color]=red&attributes[size]=2` → {color: 'red', size: '2'}; also returns malformed keys
   *  such as `attributes` or `attributes[]` so the caller can reject them. */
  group(prefix: string): { entries: Record<string, string>; malformed: string[] } {
    // No prototype: `attributes[__proto__]` is a valid attribute name and must stay a plain key.
    const entries: Record<string, string> = Object.create(null);
    const malformed: string[] = [];
    for (const [key, list] of this.values) {
      if (key === prefix) malformed.push(key);
      else if (key.startsWith(`${prefix}[`)) {
        const m = /^\[([^[\]]+)\]$/.exec(key.slice(prefix.length));
        if (m) entries[m[1]] = list[list.length - 1];
        else malformed.push(key);
      }
    }
    return { entries, malformed };
  }
}
