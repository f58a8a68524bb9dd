import { createRequire } from 'node:module';
import type { Tiktoken } from '@dqbd/tiktoken';
import type { Tokenizer } from '../../core/ports/tokenizer.js';

/** Loads tiktoken (its WebAssembly module costs about 150 ms and 20 MB) the first time it is needed. */
const loadTiktoken = (() => {
  let module: typeof import('@dqbd/tiktoken') | undefined;
  // A synchronous require: the Tokenizer port is synchronous, and the package ships CommonJS for Node.
  return () => (module ??= createRequire(import.meta.url)('@dqbd/tiktoken') as typeof import('@dqbd/tiktoken'));
})();

/**
 * OpenAI's cl100k_base through tiktoken's WebAssembly build. The library is loaded and the encoder
 * created on first use, not when the runtime starts, and the encoder is kept; after a WebAssembly trap, whose memory may be left inconsistent, the next call starts
 * afresh.
 */
export class TiktokenTokenizer implements Tokenizer {
  readonly encoding = 'cl100k_base';
  private encoder: Tiktoken | undefined;

  encodeOrdinary(text: string): Uint32Array {
    return this.guarded((encoder) => encoder.encode_ordinary(text));
  }

  decodeBytes(tokens: Uint32Array): Uint8Array {
    return this.guarded((encoder) => encoder.decode(tokens));
  }

  private guarded<T>(use: (encoder: Tiktoken) => T): T {
    try {
      return use((this.encoder ??= loadTiktoken().get_encoding('cl100k_base')));
    } catch (error) {
      this.encoder = undefined;
      throw error;
    }
  }
}
