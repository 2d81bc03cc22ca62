import { InvalidArgumentError } from 'commander';

/** A flag's whole number; a bad one is a usage error (exit 2) naming the flag. */
export const wholeNumber =
  (flag: string) =>
  (value: string): number => {
    if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`${flag} must be a non-negative integer`);
    return Number(value);
  };

/** Prints either JSON (for scripts) or a human line. */
export function output(json: boolean | undefined, value: unknown, human: string): void {
  console.log(json ? JSON.stringify(value, null, 2) : human);
}
