import { injectable } from '../core/shared/di.js';
import type { Random } from '../core/ports/random.js';
import { base62Secret, idFromBytes, type IdKind } from '../core/shared/ids.js';
import { sha256Hex } from '../core/shared/json.js';

/** Characters of randomness in an id after its prefix (24 base62 characters, ~143 bits). */
const ID_LENGTH = 24;

/**
 * Deterministic randomness: the sfc32 generator, seeded from SHA-256 of the seed, so the same
 * seed gives the same ids, keys and outcomes on every machine. Its 128-bit state is exported in
 * snapshots so a restored run continues the same sequence.
 */
@injectable()
export class SeededRandom implements Random {
  private a = 0;
  private b = 0;
  private c = 0;
  private d = 0;

  constructor(seed: number | string = 0) {
    const digest = sha256Hex(`agent-services/random/${seed}`);
    [this.a, this.b, this.c, this.d] = [0, 8, 16, 24].map((at) => parseInt(digest.slice(at, at + 8), 16) >>> 0) as [number, number, number, number];
    for (let i = 0; i < 16; i++) this.next32();
  }

  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i += 4) {
      const word = this.next32();
      for (let j = 0; j < 4 && i + j < n; j++) out[i + j] = (word >>> (8 * j)) & 0xff;
    }
    return out;
  }

  id(kind: IdKind): string {
    return idFromBytes(kind, this.bytes(ID_LENGTH));
  }

  secret(length: number): string {
    return base62Secret(length, (n) => this.bytes(n));
  }

  state(): string {
    return [this.a, this.b, this.c, this.d].map((word) => (word >>> 0).toString(16).padStart(8, '0')).join('');
  }

  restore(state: string): void {
    if (!/^[0-9a-f]{32}$/.test(state)) throw new RangeError('not a SeededRandom state');
    [this.a, this.b, this.c, this.d] = [0, 8, 16, 24].map((at) => parseInt(state.slice(at, at + 8), 16) >>> 0) as [number, number, number, number];
  }

  private next32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }
}
