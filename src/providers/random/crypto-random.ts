import { randomBytes } from 'node:crypto';
import { injectable } from '../../core/shared/di.js';
import type { Random } from '../../core/ports/random.js';
import { base62Secret, idFromBytes, type IdKind } from '../../core/shared/ids.js';

/** Operating-system randomness, for live deployments where keys must not be predictable. */
@injectable()
export class CryptoRandom implements Random {
  bytes(n: number): Uint8Array {
    return new Uint8Array(randomBytes(n));
  }

  id(kind: IdKind): string {
    return idFromBytes(kind, this.bytes(24));
  }

  secret(length: number): string {
    return base62Secret(length, (n) => this.bytes(n));
  }

  /** OS randomness has no state to save; snapshots record an empty string. */
  state(): string {
    return '';
  }

  restore(): void {
    // Nothing to restore: every draw comes fresh from the operating system.
  }
}
