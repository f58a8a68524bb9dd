import { get_encoding, type Tiktoken } from '@dqbd/tiktoken';
import type { Tokenizer } from '../../core/ports/tokenizer.js';

/**
 * OpenAI's cl100k_base through tiktoken's WebAssembly build. The encoder is created on first use
 * and kept; after a WebAssembly trap, whose memory may be left inconsistent, the next call starts
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
      return use((this.encoder ??= get_encoding('cl100k_base')));
    } catch (error) {
      this.encoder = undefined;
      throw error;
    }
  }
}
