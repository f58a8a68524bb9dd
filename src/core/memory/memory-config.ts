import type { ServiceIdentifier } from '../shared/di.js';

/** The embedders `memory.embedder` names. */
export const BUILT_IN_EMBEDDERS = ['sentence-encoder', 'word-vectors', 'lexical'] as const;

/** One of {@link BUILT_IN_EMBEDDERS}. */
export type BuiltInEmbedder = (typeof BUILT_IN_EMBEDDERS)[number];

/** Memory options of `createRuntime({ memory })`. */
export interface MemoryOptions {
  /** Largest upload in bytes (default 500,000,000: SPEC.md's 500 MB, decimal). */
  maxUploadBytes?: number;
  /** Tokens per indexed chunk of a document (default 512, cl100k_base). */
  chunkTokens?: number;
  /** Tokens each chunk shares with the one before (default 64). */
  chunkOverlapTokens?: number;
  /**
   * Most chunks indexed from one file (default 2,000, about 900,000 tokens): the rest of a larger
   * file is stored and downloadable but not searchable, so one upload cannot flood the index.
   */
  maxChunksPerFile?: number;
  /**
   * Which vector index each agent's memories use: `auto` (default; exact search below
   * `hnswThreshold` memories, an HNSW graph from there on), `exact` or `hnsw`. A
   * `VectorIndexFactory` given as `providers.vectorIndex` wins over this.
   */
  index?: 'auto' | 'exact' | 'hnsw';
  /** Memories of one agent from which `auto` searches an HNSW graph (default 10,000). */
  hnswThreshold?: number;
  /**
   * The built-in embedder (CLI `--embedder NAME`; docs/memory.md): `sentence-encoder` (default:
   * the Universal Sentence Encoder lite blended with lexical features, about 10 ms a text, run in
   * a worker thread), `word-vectors` (GloVe word vectors blended with lexical features, about
   * 0.05 ms a text, weaker on paraphrases) or `lexical` (shared words and word forms only).
   * `embeddingModel` and `providers.embedder` win over this.
   */
  embedder?: BuiltInEmbedder;
  /**
   * A local sentence-transformers ONNX model folder to embed with instead of the built-in
   * embedder (CLI `--embedding-model DIR --embedding-dtype fp32|q8`; docs/memory.md). An embedder
   * given as `providers.embedder` wins over this.
   */
  embeddingModel?: { folder: string; dtype?: 'fp32' | 'q8' };
}

/** The resolved memory configuration of one runtime. */
export interface MemoryConfig {
  readonly maxContentTokens: number;
  readonly maxUploadBytes: number;
  readonly chunkTokens: number;
  readonly chunkOverlapTokens: number;
  readonly maxChunksPerFile: number;
}

/** Injection token of {@link MemoryConfig}. */
export const MemoryConfig = Symbol.for('agent-services/MemoryConfig') as ServiceIdentifier<MemoryConfig>;

/** SPEC.md's limit on memory content, in cl100k_base tokens. */
export const MAX_CONTENT_TOKENS = 8000;
/** SPEC.md's upload limit, 500 MB. */
export const DEFAULT_MAX_UPLOAD_BYTES = 500_000_000;

/** Resolves memory options. @throws RangeError on an impossible setting */
export function memoryConfig(options: MemoryOptions = {}): MemoryConfig {
  const config: MemoryConfig = {
    maxContentTokens: MAX_CONTENT_TOKENS,
    maxUploadBytes: options.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES,
    chunkTokens: options.chunkTokens ?? 512,
    chunkOverlapTokens: options.chunkOverlapTokens ?? 64,
    maxChunksPerFile: options.maxChunksPerFile ?? 2000,
  };
  if (!(config.maxUploadBytes >= 0)) throw new RangeError('memory.maxUploadBytes must be a non-negative number');
  if (!(Number.isInteger(config.chunkTokens) && config.chunkTokens > 0 && config.chunkTokens <= MAX_CONTENT_TOKENS)) {
    throw new RangeError(`memory.chunkTokens must be an integer 1..${MAX_CONTENT_TOKENS}`);
  }
  if (!(Number.isInteger(config.chunkOverlapTokens) && config.chunkOverlapTokens >= 0 && config.chunkOverlapTokens < config.chunkTokens)) {
    throw new RangeError('memory.chunkOverlapTokens must be an integer 0..chunkTokens-1');
  }
  if (!(Number.isInteger(config.maxChunksPerFile) && config.maxChunksPerFile >= 0)) throw new RangeError('memory.maxChunksPerFile must be a non-negative integer');
  return config;
}
