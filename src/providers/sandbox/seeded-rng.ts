/** A small, fast, seedable generator (sfc32) for the random sources a run can reach. */
export interface SeededRng {
  /** A uniform 32-bit unsigned integer. */
  next(): number;
  /** A float in [0, 1), like Math.random. */
  random(): number;
  /** Fills a byte array, like crypto.getRandomValues. */
  fill(bytes: Uint8Array): void;
}

/** The four 32-bit words a 16-byte (or longer) seed gives. */
export function seedWords(seed: Uint8Array): [number, number, number, number] {
  const view = new DataView(seed.buffer, seed.byteOffset, Math.min(seed.byteLength, 16));
  const word = (i: number) => (view.byteLength >= (i + 1) * 4 ? view.getUint32(i * 4, true) : 0x9e3779b9 * (i + 1)) >>> 0;
  return [word(0), word(1), word(2), word(3)];
}

/** sfc32 seeded from `seed` (at least 16 bytes are used). */
export function seededRng(seed: Uint8Array): SeededRng {
  let [a, b, c, d] = seedWords(seed);
  const next = (): number => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 12; i++) next();
  return {
    next,
    random: () => next() / 4294967296,
    fill(bytes) {
      for (let i = 0; i < bytes.length; i += 4) {
        let word = next();
        for (let j = i; j < Math.min(i + 4, bytes.length); j++, word >>>= 8) bytes[j] = word & 0xff;
      }
    },
  };
}

/** The same generator as guest JavaScript source (for interpreters with their own realm). */
export function guestRngSource(seed: Uint8Array): string {
  const [a, b, c, d] = seedWords(seed);
  return `(() => { let a=${a}>>>0,b=${b}>>>0,c=${c}>>>0,d=${d}>>>0;
  const next = () => { a>>>=0;b>>>=0;c>>>=0;d>>>=0; const t=(((a+b)|0)+d)|0; d=(d+1)|0; a=b^(b>>>9); b=(c+(c<<3))|0; c=(c<<21)|(c>>>11); c=(c+t)|0; return t>>>0; };
  for (let i = 0; i < 12; i++) next();
  return next; })()`;
}
