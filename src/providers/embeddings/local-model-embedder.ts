import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Embedder } from '../../core/ports/embedder.js';

/** Where the model is and how to run it. */
export interface LocalModelEmbedderOptions {
  /**
   * A folder holding a sentence-transformers model exported to ONNX, as on the Hugging Face hub
   * (`Xenova/all-MiniLM-L6-v2`, `Xenova/bge-small-en-v1.5`): `config.json`, `tokenizer.json`,
   * `tokenizer_config.json` and `onnx/model.onnx` (`onnx/model_quantized.onnx` for `q8`).
   */
  folder: string;
  /** Weights to run: `fp32` (default: the same vector for a text whatever else is in its batch) or `q8`. */
  dtype?: 'fp32' | 'q8';
  /**
   * How token vectors become one vector: `mean` (all-MiniLM, most models) or `cls` (bge). Default:
   * as the folder's `1_Pooling/config.json` says, else `mean`.
   */
  pooling?: 'mean' | 'cls';
  /** Texts per model run (default 32). */
  batchSize?: number;
  /** The name recorded with every vector (default `local:<folder name>:<dtype>:<pooling>`). */
  name?: string;
}

/** The part of `@huggingface/transformers` this provider uses. */
interface FeatureExtractor {
  (texts: string[], options: { pooling: 'mean' | 'cls'; normalize: boolean }): Promise<{ dims: number[]; data: Float32Array }>;
  dispose?(): Promise<void>;
}
interface Transformers {
  env: { allowRemoteModels: boolean; allowLocalModels: boolean };
  pipeline(task: 'feature-extraction', model: string, options: Record<string, unknown>): Promise<FeatureExtractor>;
}

/** The pooling a sentence-transformers folder declares (`1_Pooling/config.json`), if any. */
async function declaredPooling(folder: string): Promise<'mean' | 'cls' | undefined> {
  try {
    const config = JSON.parse(await readFile(path.join(folder, '1_Pooling', 'config.json'), 'utf8')) as Record<string, unknown>;
    if (config.pooling_mode_cls_token === true) return 'cls';
    if (config.pooling_mode_mean_tokens === true) return 'mean';
  } catch {
    // No sentence-transformers pooling file: the default applies.
  }
  return undefined;
}

/**
 * An {@link Embedder} running a sentence-embedding model on this machine's CPU with
 * `@huggingface/transformers` (ONNX Runtime), from a folder the user supplies: nothing is ever
 * downloaded (remote loading is switched off). Vectors are pooled and L2-normalised.
 * `@huggingface/transformers` is an optional dependency: install it to use this provider.
 */
export class LocalModelEmbedder implements Embedder {
  readonly model: string;
  private readonly folder: string;
  private readonly dtype: 'fp32' | 'q8';
  private readonly batchSize: number;
  private extractor: Promise<{ run: FeatureExtractor; pooling: 'mean' | 'cls' }> | undefined;

  /** @throws RangeError when `batchSize` is not a positive integer */
  constructor(private readonly options: LocalModelEmbedderOptions) {
    this.folder = path.resolve(options.folder);
    this.dtype = options.dtype ?? 'fp32';
    this.batchSize = options.batchSize ?? 32;
    if (!Number.isInteger(this.batchSize) || this.batchSize < 1) throw new RangeError('batchSize must be a positive integer');
    this.model = options.name ?? `local:${path.basename(this.folder)}:${this.dtype}:${options.pooling ?? 'auto'}`;
  }

  /**
   * One vector per text.
   * @throws Error when `@huggingface/transformers` is not installed or the folder holds no usable model
   */
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const { run, pooling } = await (this.extractor ??= this.load());
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.batchSize) {
      const batch = texts.slice(start, start + this.batchSize);
      const output = await run(batch, { pooling, normalize: true });
      const dimension = output.dims[output.dims.length - 1]!;
      for (let i = 0; i < batch.length; i++) vectors.push(Float32Array.from(output.data.subarray(i * dimension, (i + 1) * dimension)));
    }
    return vectors;
  }

  /** Frees the model's ONNX session. */
  async dispose(): Promise<void> {
    const loaded = this.extractor;
    this.extractor = undefined;
    if (loaded) await (await loaded.catch(() => undefined))?.run.dispose?.();
  }

  private async load(): Promise<{ run: FeatureExtractor; pooling: 'mean' | 'cls' }> {
    let transformers: Transformers;
    try {
      transformers = (await import('@huggingface/transformers')) as unknown as Transformers;
    } catch (error) {
      this.extractor = undefined;
      throw new Error(`LocalModelEmbedder needs the @huggingface/transformers package (npm install @huggingface/transformers): ${(error as Error).message}`);
    }
    // Never reach the network: the model comes from the user's folder only.
    transformers.env.allowRemoteModels = false;
    transformers.env.allowLocalModels = true;
    try {
      const pooling = this.options.pooling ?? (await declaredPooling(this.folder)) ?? 'mean';
      const run = await transformers.pipeline('feature-extraction', this.folder, { dtype: this.dtype, device: 'cpu', local_files_only: true });
      return { run, pooling };
    } catch (error) {
      this.extractor = undefined;
      throw new Error(`cannot load a sentence-transformers ONNX model from ${this.folder}: ${(error as Error).message}`);
    }
  }
}
