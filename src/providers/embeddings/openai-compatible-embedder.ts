import type { Embedder } from '../../core/ports/embedder.js';
import { decodeVector } from '../../core/memory/vectors.js';
import { ApiError } from '../../core/shared/api-error.js';

/** Where and how to reach an OpenAI-compatible embeddings endpoint. */
export interface OpenAICompatibleEmbedderOptions {
  /**
   * The server: `https://api.openai.com`, `http://localhost:11434` (Ollama), a vLLM or TEI server.
   * `/v1/embeddings` is appended; a base that already ends in `/v1` gets only `/embeddings`.
   */
  baseUrl: string;
  /** The model name the server knows, e.g. `text-embedding-3-small`, `nomic-embed-text`. */
  model: string;
  /** Sent as `Authorization: Bearer <apiKey>` when given. */
  apiKey?: string;
  /** Texts per request (default 64). */
  batchSize?: number;
  /** Asks for vectors of this size (OpenAI `text-embedding-3-*` `dimensions`); omitted when absent. */
  dimensions?: number;
  /** Per-request timeout in milliseconds (default 60,000). */
  timeoutMs?: number;
  /** Further attempts after a 429, a 5xx or a network failure (default 2), with backoff. */
  retries?: number;
  /** Extra headers (e.g. `OpenAI-Organization`). */
  headers?: Record<string, string>;
  /** A fetch implementation (default: the global fetch). */
  fetch?: (request: Request) => Promise<Response>;
}

interface EmbeddingsResponse {
  data?: Array<{ index?: number; embedding?: number[] | string }>;
}

/** Longest wait honoured from a `Retry-After` header, in milliseconds. */
const MAX_RETRY_AFTER_MS = 10_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * An {@link Embedder} over any OpenAI-compatible `POST /v1/embeddings` endpoint (OpenAI, Ollama,
 * vLLM, Hugging Face TEI, LiteLLM...): sends `{model, input: [...]}` in batches and reads
 * `data[].embedding` in `index` order. Failures answer 500 `internal_error` with a message that
 * names the provider's status, never its body or the key.
 */
export class OpenAICompatibleEmbedder implements Embedder {
  readonly model: string;
  private readonly url: string;
  private readonly batchSize: number;
  private readonly send: (request: Request) => Promise<Response>;

  constructor(private readonly options: OpenAICompatibleEmbedderOptions) {
    if (!options.model) throw new TypeError('model is required');
    const base = options.baseUrl.replace(/\/+$/, '');
    this.url = /\/v1$/.test(base) ? `${base}/embeddings` : `${base}/v1/embeddings`;
    new URL(this.url); // throws early on a malformed base URL
    this.batchSize = Math.max(1, options.batchSize ?? 64);
    this.model = `openai-compatible:${options.model}${options.dimensions === undefined ? '' : `/${options.dimensions}`}`;
    this.send = options.fetch ?? ((request) => fetch(request));
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.batchSize) {
      vectors.push(...(await this.embedBatch(texts.slice(start, start + this.batchSize))));
    }
    const dimension = vectors[0]?.length;
    if (vectors.some((vector) => vector.length !== dimension || vector.length === 0)) {
      throw new ApiError('internal_error', 'the embedding provider answered vectors of different sizes');
    }
    return vectors;
  }

  /**
   * Readiness: the endpoint embeds one word with this model and key (one attempt, no retries).
   * @throws Error naming the endpoint's status when it does not
   */
  async ready(signal: AbortSignal): Promise<void> {
    const response = await this.send(
      new Request(this.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
          ...this.options.headers,
        },
        body: JSON.stringify({ model: this.options.model, input: ['ready'] }),
        signal,
      }),
    );
    await response.body?.cancel().catch(() => {});
    if (!response.ok) throw new Error(`the embedding provider answered HTTP ${response.status}`);
  }

  private async embedBatch(input: string[]): Promise<Float32Array[]> {
    const body = JSON.stringify({ model: this.options.model, input, ...(this.options.dimensions === undefined ? {} : { dimensions: this.options.dimensions }) });
    const retries = Math.max(0, this.options.retries ?? 2);
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await this.send(
          new Request(this.url, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/json',
              ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
              ...this.options.headers,
            },
            body,
            signal: AbortSignal.timeout(this.options.timeoutMs ?? 60_000),
          }),
        );
      } catch {
        if (attempt < retries) {
          await sleep(250 * 2 ** attempt);
          continue;
        }
        throw new ApiError('internal_error', 'the embedding provider could not be reached');
      }
      if (response.ok) return this.parse(await response.json().catch(() => undefined), input.length);
      await response.body?.cancel().catch(() => {});
      if ((response.status === 429 || response.status >= 500) && attempt < retries) {
        const retryAfter = Number(response.headers.get('retry-after'));
        await sleep(Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter * 1000, MAX_RETRY_AFTER_MS) : 250 * 2 ** attempt);
        continue;
      }
      throw new ApiError('internal_error', `the embedding provider answered HTTP ${response.status}`);
    }
  }

  private parse(json: unknown, expected: number): Float32Array[] {
    const data = (json as EmbeddingsResponse | undefined)?.data;
    if (!Array.isArray(data) || data.length !== expected) {
      throw new ApiError('internal_error', `the embedding provider answered ${Array.isArray(data) ? data.length : 'no'} embeddings for ${expected} texts`);
    }
    const ordered = [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    return ordered.map((item) => {
      const embedding = item.embedding;
      // `encoding_format: base64`: little-endian float32, decoded as memories store vectors.
      const vector = typeof embedding === 'string' ? decodeVector(embedding) : undefined;
      if (vector) return vector;
      if (Array.isArray(embedding) && embedding.every((value) => typeof value === 'number' && Number.isFinite(value))) return Float32Array.from(embedding);
      throw new ApiError('internal_error', 'the embedding provider answered an embedding that is not a list of numbers');
    });
  }
}
