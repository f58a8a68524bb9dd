import { SeededRandom } from '../sim/seeded-random.js';

/**
 * The seeded randomness a scenario's code is handed: every draw comes from a stream derived from
 * the run's seed and the stream's name, so the same seed draws the same numbers, and adding an
 * agent does not change the draws of the others.
 */
export interface ScenarioRandom {
  /** A number in [0, 1). */
  next(): number;
  /** An integer in [0, n). @throws RangeError when n is not a positive integer */
  int(n: number): number;
  /** An integer in [min, max], both included. */
  between(min: number, max: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  /** One element of a non-empty list. @throws RangeError for an empty list */
  pick<T>(items: readonly T[]): T;
  /** A shuffled copy of a list. */
  shuffle<T>(items: readonly T[]): T[];
}

const TWO_TO_32 = 2 ** 32;

/** The stream `name` of the run seeded with `seed`. */
export function scenarioRandom(seed: number | string, name: string): ScenarioRandom {
  const source = new SeededRandom(`scenario/${seed}/${name}`);
  const word = new Uint8Array(4);
  const next = (): number => {
    const bytes = source.bytes(4);
    word.set(bytes);
    return ((word[0]! | (word[1]! << 8) | (word[2]! << 16)) + word[3]! * 2 ** 24) / TWO_TO_32;
  };
  const int = (n: number): number => {
    if (!Number.isInteger(n) || n <= 0) throw new RangeError(`int(n): n must be a positive integer, got ${n}`);
    return Math.floor(next() * n);
  };
  return {
    next,
    int,
    between: (min, max) => min + int(max - min + 1),
    chance: (p) => next() < p,
    pick<T>(items: readonly T[]): T {
      if (items.length === 0) throw new RangeError('pick: the list is empty');
      return items[int(items.length)]!;
    },
    shuffle<T>(items: readonly T[]): T[] {
      const copy = [...items];
      for (let i = copy.length - 1; i > 0; i--) {
        const j = int(i + 1);
        [copy[i], copy[j]] = [copy[j]!, copy[i]!];
      }
      return copy;
    },
  };
}
