/**
 * The Porter (1980) stemming algorithm for English, after Martin Porter's reference description
 * ("An algorithm for suffix stripping") and his published JavaScript rendering of it. It lives in
 * the source rather than as a dependency because the default embedder's vectors are part of
 * deterministic snapshots: a stemmer that changed with a package update would change every
 * stored vector. `relational` → `relat`, `running` → `run`, `ponies` → `poni`.
 */

const STEP2: Readonly<Record<string, string>> = {
  ational: 'ate',
  tional: 'tion',
  enci: 'ence',
  anci: 'ance',
  izer: 'ize',
  bli: 'ble',
  alli: 'al',
  entli: 'ent',
  eli: 'e',
  ousli: 'ous',
  ization: 'ize',
  ation: 'ate',
  ator: 'ate',
  alism: 'al',
  iveness: 'ive',
  fulness: 'ful',
  ousness: 'ous',
  aliti: 'al',
  iviti: 'ive',
  biliti: 'ble',
  logi: 'log',
};
const STEP3: Readonly<Record<string, string>> = { icate: 'ic', ative: '', alize: 'al', iciti: 'ic', ical: 'ic', ful: '', ness: '' };

const c = '[^aeiou]';
const v = '[aeiouy]';
const C = `${c}[^aeiouy]*`;
const V = `${v}[aeiou]*`;
/** Measure m > 0. */
const MGR0 = new RegExp(`^(${C})?${V}${C}`);
/** Measure m = 1. */
const MEQ1 = new RegExp(`^(${C})?${V}${C}(${V})?$`);
/** Measure m > 1. */
const MGR1 = new RegExp(`^(${C})?${V}${C}${V}${C}`);
/** The stem contains a vowel. */
const S_V = new RegExp(`^(${C})?${v}`);
/** Ends consonant-vowel-consonant, the last not w, x or y (*o). */
const CVC = new RegExp(`^${C}${v}[^aeiouwxy]$`);

const STEP1A_SSES_IES = /^(.+?)(ss|i)es$/;
const STEP1A_S = /^(.+?)([^s])s$/;
const STEP1B_EED = /^(.+?)eed$/;
const STEP1B_ED_ING = /^(.+?)(ed|ing)$/;
const STEP1B_AT_BL_IZ = /(at|bl|iz)$/;
const STEP1B_DOUBLE = /([^aeiouylsz])\1$/;
const STEP1C = /^(.+?)y$/;
const STEP2_RE = /^(.+?)(ational|tional|enci|anci|izer|bli|alli|entli|eli|ousli|ization|ation|ator|alism|iveness|fulness|ousness|aliti|iviti|biliti|logi)$/;
const STEP3_RE = /^(.+?)(icate|ative|alize|iciti|ical|ful|ness)$/;
const STEP4_RE = /^(.+?)(al|ance|ence|er|ic|able|ible|ant|ement|ment|ent|ou|ism|ate|iti|ous|ive|ize)$/;
const STEP4_ION = /^(.+?)(s|t)(ion)$/;
const STEP5_E = /^(.+?)e$/;

/** The Porter stem of a lower-case English word (a-z only; other words come back unchanged). */
export function porterStem(word: string): string {
  if (word.length < 3 || !/^[a-z]+$/.test(word)) return word;
  // A leading y is a consonant: mark it so the vowel patterns do not see it.
  const leadingY = word.startsWith('y');
  let w = leadingY ? `Y${word.slice(1)}` : word;
  let match: RegExpExecArray | null;

  // Step 1a: plurals.
  if (STEP1A_SSES_IES.test(w)) w = w.replace(STEP1A_SSES_IES, '$1$2');
  else if (STEP1A_S.test(w)) w = w.replace(STEP1A_S, '$1$2');

  // Step 1b: -eed, -ed, -ing.
  if ((match = STEP1B_EED.exec(w))) {
    if (MGR0.test(match[1]!)) w = w.slice(0, -1);
  } else if ((match = STEP1B_ED_ING.exec(w))) {
    const stem = match[1]!;
    if (S_V.test(stem)) {
      w = stem;
      if (STEP1B_AT_BL_IZ.test(w)) w += 'e';
      else if (STEP1B_DOUBLE.test(w)) w = w.slice(0, -1);
      else if (CVC.test(w)) w += 'e';
    }
  }

  // Step 1c: y → i after a vowel in the stem.
  if ((match = STEP1C.exec(w)) && S_V.test(match[1]!)) w = `${match[1]!}i`;

  // Step 2: double suffixes to single ones.
  if ((match = STEP2_RE.exec(w)) && MGR0.test(match[1]!)) w = match[1]! + STEP2[match[2]!]!;

  // Step 3: -ic-, -full, -ness and friends.
  if ((match = STEP3_RE.exec(w)) && MGR0.test(match[1]!)) w = match[1]! + STEP3[match[2]!]!;

  // Step 4: remove the remaining suffixes when the measure allows.
  if ((match = STEP4_RE.exec(w))) {
    if (MGR1.test(match[1]!)) w = match[1]!;
  } else if ((match = STEP4_ION.exec(w))) {
    const stem = match[1]! + match[2]!;
    if (MGR1.test(stem)) w = stem;
  }

  // Step 5: a final -e, and -ll → -l.
  if ((match = STEP5_E.exec(w))) {
    const stem = match[1]!;
    if (MGR1.test(stem) || (MEQ1.test(stem) && !CVC.test(stem))) w = stem;
  }
  if (/ll$/.test(w) && MGR1.test(w)) w = w.slice(0, -1);

  return leadingY ? `y${w.slice(1)}` : w;
}
