import type { Worker } from 'node:worker_threads';
import type { Embedder } from '../../../core/ports/embedder.js';
import { startModuleWorker } from '../../workers/module-worker.js';
import type { EmbedAnswer, EmbedRequest } from './worker-protocol.js';

/** The process's one model worker: every runtime shares it (the model holds about 300 MB). */
let shared: ModelWorker | undefined;

/** A worker thread running the model, with the requests it has not answered yet. */
class ModelWorker {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve(vector: Float32Array): void; reject(error: Error): void }>();
  private next = 0;

  constructor() {
    // Its output is not piped: a piped stdio stream would keep the process alive after the last
    // answer (the worker prints nothing unless it fails to start).
    this.worker = startModuleWorker(import.meta.url, 'sentence-encoder-worker');
    this.worker.unref();
    this.worker.on('message', (answer: EmbedAnswer) => {
      const waiter = this.pending.get(answer.id);
      if (!waiter) return;
      this.pending.delete(answer.id);
      if (this.pending.size === 0) this.worker.unref();
      if ('vector' in answer) waiter.resolve(answer.vector);
      else waiter.reject(new Error(`sentence encoder: ${answer.error}`));
    });
    const fail = (reason: string) => {
      if (shared === this) shared = undefined;
      for (const waiter of this.pending.values()) waiter.reject(new Error(`sentence encoder: ${reason}`));
      this.pending.clear();
    };
    this.worker.on('error', (error) => fail(error.message));
    this.worker.on('exit', (code) => fail(`the model worker exited (${code})`));
  }

  embed(text: string): Promise<Float32Array> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // While an answer is awaited the worker keeps the process alive; idle, it does not.
      this.worker.ref();
      this.worker.postMessage({ id, text } satisfies EmbedRequest);
    });
  }
}

/**
 * Semantic embedder over the Universal Sentence Encoder lite (512 numbers; see
 * {@link UseLiteModel} in `use-lite-model.ts`), run in a worker thread shared by the process
 * and started on the first text. Local, offline and deterministic: the same text gives the same
 * vector on every machine, whatever else is embedded with it. About 10 ms of one core per
 * sentence on the 2-core reference machine.
 */
export class SentenceEncoderEmbedder implements Embedder {
  readonly model = 'use-lite-1:tfjs-wasm-4.22.0/512';
  private readonly recent = new Map<string, Promise<Float32Array>>();

  /** @throws Error when the model cannot load or run (the memory service answers 500) */
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    return Promise.all(texts.map((text) => this.vectorOf(text)));
  }

  /**
   * One text's vector. Texts seen lately (a document's repeated chunks, a query asked again,
   * fixtures a test suite stores in every agent) are answered from the last {@link CACHE_TEXTS}
   * without running the model again: the model gives the same bits anyway.
   */
  private vectorOf(text: string): Promise<Float32Array> {
    const cached = this.recent.get(text);
    if (cached) {
      this.recent.delete(text);
      this.recent.set(text, cached);
      return cached.then((vector) => vector.slice());
    }
    shared ??= new ModelWorker();
    const vector = shared.embed(text);
    if (text.length <= CACHE_TEXT_CHARS) {
      this.recent.set(text, vector);
      // A failure is not kept: the next call tries again.
      vector.catch(() => this.recent.get(text) === vector && this.recent.delete(text));
      if (this.recent.size > CACHE_TEXTS) this.recent.delete(this.recent.keys().next().value!);
    }
    return vector.then((value) => value.slice());
  }
}

/** Texts whose vectors each embedder keeps (about 2 KB each). */
const CACHE_TEXTS = 4096;

/** Longest text kept in the cache (a document chunk of 512 tokens is about 2,500). */
const CACHE_TEXT_CHARS = 8192;
