/** The speaking rate of DECISIONS.md: 150 words per minute. */
export const DEFAULT_WORDS_PER_MINUTE = 150;

/** Words of a text: runs of non-space characters. */
export function wordCount(text: string): number {
  const words = text.trim().split(/\s+/u);
  return words[0] === '' ? 0 : words.length;
}

/**
 * Whole seconds it takes to say `text` at `wordsPerMinute`, at least 1: at 150 words per minute,
 * `ceil(words / 2.5)`. Integer arithmetic, so every machine agrees.
 */
export function speechSeconds(text: string, wordsPerMinute = DEFAULT_WORDS_PER_MINUTE): number {
  return Math.max(1, Math.ceil((wordCount(text) * 60) / wordsPerMinute));
}
