/**
 * The GSM 03.38 default alphabet (7-bit) and its extension table, as Twilio's segment calculator
 * uses them: a character of the basic table costs one septet, one of the extension table two (the
 * escape 0x1B and the character).
 */
const BASIC = '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' + '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';

/** The extension table: form feed, `^{}\[~]|` and the euro sign. */
const EXTENSION = '\f^{}\\[~]|€';

/** Septets of each GSM-7 code unit (1 basic, 2 extension); absent when not GSM-7. */
const SEPTETS = new Map<number, 1 | 2>([...[...BASIC].map((char) => [char.charCodeAt(0), 1] as const), ...[...EXTENSION].map((char) => [char.charCodeAt(0), 2] as const)]);

/** Every character of the basic table (for tests and generators). */
export const GSM7_BASIC_CHARS: readonly string[] = [...BASIC];
/** Every character of the extension table (for tests and generators). */
export const GSM7_EXTENSION_CHARS: readonly string[] = [...EXTENSION];

/** Septets a UTF-16 code unit takes in GSM-7 (1 or 2), or 0 when GSM-7 cannot carry it. */
export function gsm7Septets(codeUnit: number): 0 | 1 | 2 {
  return SEPTETS.get(codeUnit) ?? 0;
}
