import type { ServiceIdentifier } from '../shared/di.js';

/**
 * A byte-pair tokenizer (the contract counts memory content in cl100k_base tokens). Special-token
 * names are encoded as ordinary text.
 */
export interface Tokenizer {
  /** The encoding's name, e.g. `cl100k_base`. */
  readonly encoding: string;
  /** The tokens of a text, special-token names included as plain text. */
  encodeOrdinary(text: string): Uint32Array;
  /** The UTF-8 bytes a run of tokens stands for. */
  decodeBytes(tokens: Uint32Array): Uint8Array;
}

/** Injection token of {@link Tokenizer}. */
export const Tokenizer = Symbol.for('agent-services/Tokenizer') as ServiceIdentifier<Tokenizer>;
