/**
 * An independent statement of DECISIONS.md's SMS segment rules, for the conformance property:
 * GSM-7 when every character is in the GSM 03.38 basic or extension table (extension characters
 * take two septets), else UCS-2 in UTF-16 code units; 160/153 and 70/67 per single message and
 * per part, and no character (an extension pair, a surrogate pair) is split between parts.
 */
const GSM_BASIC = '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM_EXTENSION = '\f^{}\\[~]|€';

/** Characters the generator draws from: basic, extension, and a few outside GSM-7 (one a surrogate pair). */
export const SMS_ALPHABET: readonly string[] = ['a', 'Z', ' ', '7', 'é', '@', '{', '€', '^', '\\', 'ж', 'ç', '中', '😀'];

/** Encoding and part count of a body (bodies built from single code points, no combining sequences). */
export function expectedSegments(body: string): { encoding: 'GSM-7' | 'UCS-2'; num_segments: number } {
  const chars = [...body];
  const gsm = chars.every((char) => GSM_BASIC.includes(char) || GSM_EXTENSION.includes(char));
  const sizes = gsm ? chars.map((char) => (GSM_EXTENSION.includes(char) ? 2 : 1)) : chars.map((char) => char.length);
  const [single, part] = gsm ? [160, 153] : [70, 67];
  const total = sizes.reduce((sum, size) => sum + size, 0);
  if (total <= single) return { encoding: gsm ? 'GSM-7' : 'UCS-2', num_segments: 1 };
  let parts = 1;
  let used = 0;
  for (const size of sizes) {
    if (used + size > part) {
      parts++;
      used = 0;
    }
    used += size;
  }
  return { encoding: gsm ? 'GSM-7' : 'UCS-2', num_segments: parts };
}
