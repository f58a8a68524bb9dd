/**
 * `npm run bench -- memory [--sizes 10000,100000] [--queries N] [--csv-mb N] [--skip-upload]`
 *
 * 1. Peak memory while uploading a generated CSV (default 200 MB) through the HTTP server over
 *    loopback, streamed from a file into the upload endpoint (FileBlobStore, as `--data` uses):
 *    process RSS sampled every 5 ms, growth over the RSS before the upload. Measured first, while
 *    the process is small. Target: growth < 150 MB.
 * 2. For each size (default 10,000 and 100,000 memories of one agent):
 *    - insert rate through the service (in-process client: validation, token count, embedding,
 *      store transaction, event, index), with the exact index;
 *    - insert rate of the HNSW index itself (graph construction from the same vectors);
 *    - search latency p50/p99 of the exact and the HNSW index (k = 10), recall@10 of HNSW
 *      against exact on the same queries, and service search p50/p99 (embedding + index + records).
 *    Targets at 100,000: HNSW p50 < 2 ms, recall@10 >= 0.95.
 *
 * The memories are synthetic notes with topical structure (each mixes words of one of 300
 * topics with common filler words and a rare name); queries take some words of an existing note,
 * as someone recalling it would. Everything is seeded: the same run gives the same corpus.
 */
import { once } from 'node:events';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { FileBlobStore, createRuntime, serve, type AgentClient } from '../src/index.js';
import { ExactVectorIndex } from '../src/providers/vector/exact-vector-index.js';
import { HnswVectorIndex } from '../src/providers/vector/hnsw-vector-index.js';
import { hashingVector } from '../src/sim/hashing-embedder.js';
import { clusteredTexts } from '../test/providers/vector/clustered-texts.js';

function option(args: string[], name: string, fallback: string): string {
  const index = args.indexOf(`--${name}`);
  return index >= 0 && args[index + 1] !== undefined ? args[index + 1]! : fallback;
}

const MB = 1024 * 1024;
const fmt = (value: number, digits = 2) => value.toFixed(digits);
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * (sorted.length - 1)))]!;

/**
 * A seeded generator of topical notes (those of the vector index tests, over 300 topics, with
 * their words shuffled) and of queries recalling them.
 */
function corpus(seed: number) {
  const texts = clusteredTexts(seed, 300);
  const { random } = texts;
  return {
    note(): string {
      const words = texts.text().split(' ');
      for (let i = words.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [words[i], words[j]] = [words[j]!, words[i]!];
      }
      return words.join(' ');
    },
    query: (note: string) => texts.queryFor(note),
    pick: <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!,
  };
}

/** Writes a CSV of about `megabytes` MB to `file`, streamed. */
async function writeCsv(file: string, megabytes: number): Promise<number> {
  const out = createWriteStream(file);
  const source = corpus(99);
  out.write('id,customer,city,amount,notes\n');
  let size = 0;
  for (let row = 0; size < megabytes * MB; row++) {
    let block = '';
    for (let i = 0; i < 1000; i++, row++) block += `${row},${source.note().split(' ').slice(0, 2).join(' ')},City ${row % 977},${(row * 37) % 10_000}.${row % 100},"${source.note()}"\n`;
    size += Buffer.byteLength(block);
    if (!out.write(block)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return statSync(file).size;
}

/** Streams `file` as a multipart upload to `url` with node:http (never whole in memory). */
function uploadFile(url: string, apiKey: string, file: string, name: string): Promise<{ status: number; body: string }> {
  const boundary = '----memory-bench-boundary';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: text/csv\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const length = head.length + statSync(file).size + tail.length;
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(length) } }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.write(head);
    const stream = createReadStream(file, { highWaterMark: 256 * 1024 });
    stream.on('error', reject);
    stream.on('end', () => request.end(tail));
    stream.pipe(request, { end: false });
  });
}

async function measureUpload(megabytes: number): Promise<void> {
  const directory = mkdtempSync(path.join(tmpdir(), 'memory-bench-'));
  try {
    const csv = path.join(directory, 'big.csv');
    const size = await writeCsv(csv, megabytes);
    const runtime = await createRuntime({ blobs: new FileBlobStore(path.join(directory, 'blobs')) });
    const { api_key } = await runtime.createAgent({ name: 'uploader' });
    const server = await serve(runtime, { port: 0 });
    // Warm up the paths (busboy, tiktoken's WebAssembly, csv-parse) so their one-off cost is not counted as growth.
    const warm = path.join(directory, 'warm.csv');
    await writeCsv(warm, 1);
    await uploadFile(`${server.url}/v1/memory/files`, api_key, warm, 'warm.csv');
    (globalThis as { gc?: () => void }).gc?.();
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    const started = performance.now();
    const answer = await uploadFile(`${server.url}/v1/memory/files`, api_key, csv, 'big.csv');
    const elapsed = performance.now() - started;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    await server.close();
    if (answer.status !== 201) throw new Error(`upload answered ${answer.status}: ${answer.body}`);
    const file = JSON.parse(answer.body) as { size: number; indexed: boolean; file_id: string };
    const agent = runtime.agent(api_key);
    const chunks = (await agent.memory.search({ query: 'City customer notes', limit: 50, metadata_filter: { file_id: file.file_id } })).memories.length;
    console.log(`upload of a ${fmt(size / MB, 0)} MB CSV over loopback (FileBlobStore):`);
    console.log(`  stored ${file.size} bytes, indexed ${file.indexed} (first 2,000 chunks; ${chunks >= 50 ? '50+' : chunks} found by a filtered search)`);
    console.log(`  time ${fmt(elapsed / 1000)} s (${fmt(size / MB / (elapsed / 1000), 0)} MB/s), peak RSS growth ${fmt((peak - baseline) / MB, 1)} MB (target < 150 MB)`);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

async function measureSize(count: number, queries: number): Promise<void> {
  const source = corpus(count);
  const notes = Array.from({ length: count }, () => source.note());
  const questions = Array.from({ length: queries }, () => source.query(source.pick(notes)));

  // Insert through the service, in-process.
  const runtime = await createRuntime({ memory: { index: 'exact' } });
  const { api_key } = await runtime.createAgent({ name: 'bench' });
  const agent: AgentClient = runtime.agent(api_key);
  let started = performance.now();
  for (const content of notes) await agent.memory.create({ content });
  const serviceInsertSeconds = (performance.now() - started) / 1000;

  // The indexes themselves, from the same vectors.
  const vectors = notes.map((note) => hashingVector(note));
  const exact = new ExactVectorIndex(384);
  vectors.forEach((vector, i) => exact.add(`m${i}`, vector));
  const hnsw = new HnswVectorIndex(384);
  vectors.forEach((vector, i) => hnsw.add(`m${i}`, vector));
  started = performance.now();
  hnsw.buildGraph();
  const hnswInsertSeconds = (performance.now() - started) / 1000;

  const queryVectors = questions.map((question) => hashingVector(question));
  const exactTimes: number[] = [];
  const hnswTimes: number[] = [];
  let found = 0;
  let relevant = 0;
  for (const query of queryVectors) {
    let t = performance.now();
    const truth = exact.search(query, 10);
    exactTimes.push(performance.now() - t);
    t = performance.now();
    const approximate = hnsw.search(query, 10);
    hnswTimes.push(performance.now() - t);
    const ids = new Set(truth.map((hit) => hit.id));
    found += approximate.filter((hit) => ids.has(hit.id)).length;
    relevant += ids.size;
  }
  const serviceTimes: number[] = [];
  for (const question of questions.slice(0, Math.min(questions.length, 200))) {
    const t = performance.now();
    await agent.memory.search({ query: question, limit: 10 });
    serviceTimes.push(performance.now() - t);
  }
  for (const times of [exactTimes, hnswTimes, serviceTimes]) times.sort((a, b) => a - b);

  console.log(`${count.toLocaleString('en-US')} memories (${queries} queries, k = 10):`);
  console.log(`  insert rate, service (in-process, exact index): ${fmt(count / serviceInsertSeconds, 0)} memories/s`);
  console.log(`  insert rate, HNSW graph (M 16, efConstruction 200): ${fmt(count / hnswInsertSeconds, 0)} vectors/s`);
  console.log(`  search exact: p50 ${fmt(percentile(exactTimes, 0.5), 3)} ms, p99 ${fmt(percentile(exactTimes, 0.99), 3)} ms`);
  console.log(`  search HNSW (efSearch 256): p50 ${fmt(percentile(hnswTimes, 0.5), 3)} ms, p99 ${fmt(percentile(hnswTimes, 0.99), 3)} ms`);
  console.log(`  recall@10 of HNSW against exact: ${fmt(found / relevant, 4)}`);
  console.log(`  service search (embed + exact index + records): p50 ${fmt(percentile(serviceTimes, 0.5), 3)} ms, p99 ${fmt(percentile(serviceTimes, 0.99), 3)} ms`);
}

/** Runs the memory benchmark and prints what it measured. */
export async function run(args: string[]): Promise<void> {
  const sizes = option(args, 'sizes', '10000,100000')
    .split(',')
    .map(Number)
    .filter((size) => size > 0);
  const queries = Number(option(args, 'queries', '500'));
  const csvMegabytes = Number(option(args, 'csv-mb', '200'));
  console.log(`memory benchmark (node ${process.version}, ${process.platform}/${process.arch})`);
  if (!args.includes('--skip-upload')) await measureUpload(csvMegabytes);
  for (const size of sizes) await measureSize(size, queries);
}
