/**
 * `npm run bench -- memory-quality [--model <folder>] [--model-dtype fp32|q8]`
 *
 * Retrieval quality of every embedder side by side, on labelled sets written for this project:
 * - paraphrase: 62 questions that share no content word or stem with their note
 *   (test/core/memory/paraphrase-set.ts), among their 62 notes and 62 distractors that reuse a
 *   word of a question in another sense;
 * - lexical: the 30 questions of the memory suite's labelled set (test/core/memory/labelled-set.ts)
 *   over its 30 notes, as the suite runs it, and again over all 154 notes;
 * - exact terms: 14 names, ids and rare words over all 154 notes.
 * For each: top-1, recall@5 and MRR, ranking by exact cosine (what every vector index answers for
 * these sizes). The floor is the previous default, the lexical `HashingEmbedder`; the ratio of the
 * default's paraphrase recall@5 to it is printed. Then the calibration: percentiles of the default's
 * combined cosine for paraphrase pairs and for unrelated pairs, and the scores they map to.
 * `--model` adds a `LocalModelEmbedder` over a sentence-transformers ONNX folder.
 */
import { performance } from 'node:perf_hooks';
import type { Embedder } from '../src/core/ports/embedder.js';
import { HashingEmbedder } from '../src/sim/hashing-embedder.js';
import { WordVectorEmbedder, createWordVectorEmbedder } from '../src/sim/word-vector-embedder.js';
import type { HybridEmbedder } from '../src/sim/hybrid-embedder.js';
import { createDefaultEmbedder } from '../src/runtime/default-embedder.js';
import { SentenceEncoderEmbedder } from '../src/providers/embeddings/sentence-encoder/sentence-encoder-embedder.js';
import { loadWordVectorTable } from '../src/providers/embeddings/word-vector-table-file.js';
import { LocalModelEmbedder } from '../src/providers/embeddings/local-model-embedder.js';
import { MEMORIES, QUERIES } from '../test/core/memory/labelled-set.js';
import { EXACT_QUERIES, PARAPHRASE_SET, type ParaphraseItem } from '../test/core/memory/paraphrase-set.js';
import { PARAPHRASE_HOLDOUT } from '../test/core/memory/paraphrase-holdout.js';

function option(args: string[], name: string): string | undefined {
  const index = args.indexOf(`--${name}`);
  return index >= 0 ? args[index + 1] : undefined;
}

type Note = [key: string, text: string];
type Query = [query: string, relevant: string];

/** Top-1, recall@5 and MRR of `queries` over `notes`, and the cosine of each relevant note. */
interface Quality {
  top1: number;
  recall5: number;
  mrr: number;
  relevant: number[];
  unrelated: number[];
}

const dot = (a: Float32Array, b: Float32Array) => {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
};
const unit = (vector: Float32Array) => {
  const norm = Math.sqrt(dot(vector, vector));
  return norm === 0 ? vector : vector.map((value) => value / norm);
};

async function quality(embedder: Embedder, notes: Note[], queries: Query[]): Promise<Quality> {
  const noteVectors = (await embedder.embed(notes.map(([, text]) => text))).map(unit);
  const queryVectors = (await embedder.embed(queries.map(([query]) => query))).map(unit);
  let top1 = 0;
  let recall5 = 0;
  let mrr = 0;
  const relevant: number[] = [];
  const unrelated: number[] = [];
  queries.forEach(([, key], q) => {
    const ranked = notes.map(([noteKey], n) => ({ key: noteKey, similarity: dot(queryVectors[q]!, noteVectors[n]!) })).sort((a, b) => b.similarity - a.similarity || a.key.localeCompare(b.key));
    const rank = ranked.findIndex((hit) => hit.key === key);
    if (rank < 0) throw new Error(`no note ${key}`);
    if (rank === 0) top1++;
    if (rank < 5) recall5++;
    mrr += 1 / (rank + 1);
    for (const hit of ranked) (hit.key === key ? relevant : unrelated).push(hit.similarity);
  });
  const n = queries.length;
  return { top1: top1 / n, recall5: recall5 / n, mrr: mrr / n, relevant, unrelated };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * (sorted.length - 1)))]!;
};
const fmt = (value: number, digits = 2) => value.toFixed(digits);

/** The name the default embedder has in the tables. */
const DEFAULT = 'sentence encoder + lexical (default)';

export async function run(args: string[]): Promise<void> {
  const loadStarted = performance.now();
  const table = await loadWordVectorTable();
  const loadMs = performance.now() - loadStarted;
  const load = () => Promise.resolve(table);
  const embedders: Array<[name: string, embedder: Embedder]> = [
    ['hashing (lexical, previous default)', new HashingEmbedder()],
    ['word vectors (SIF, semantic only)', new WordVectorEmbedder(load)],
    ['word vectors + lexical (fast option)', createWordVectorEmbedder(load)],
    ['sentence encoder (USE lite, semantic only)', new SentenceEncoderEmbedder()],
    ['sentence encoder + lexical (default)', createDefaultEmbedder()],
  ];
  const modelFolder = option(args, 'model');
  if (modelFolder) {
    const dtype = (option(args, 'model-dtype') ?? 'fp32') as 'fp32' | 'q8';
    embedders.push([`local model ${modelFolder} (${dtype})`, new LocalModelEmbedder({ folder: modelFolder, dtype })]);
  }

  const notesOf = (set: readonly ParaphraseItem[], prefix: string) =>
    set.flatMap((item): Note[] => [
      [`${prefix}p:${item.key}`, item.memory],
      [`${prefix}d:${item.key}`, item.distractor],
    ]);
  const questionsOf = (set: readonly ParaphraseItem[], prefix: string) => set.map((item): Query => [item.query, `${prefix}p:${item.key}`]);
  const paraphraseNotes = notesOf(PARAPHRASE_SET, '');
  const holdoutNotes = notesOf(PARAPHRASE_HOLDOUT, 'h');
  const labelledNotes: Note[] = Object.entries(MEMORIES);
  const allNotes = [...labelledNotes, ...paraphraseNotes];
  const sets: Array<[name: string, notes: Note[], queries: Query[]]> = [
    [`paraphrase (${PARAPHRASE_SET.length} q, ${paraphraseNotes.length} notes)`, paraphraseNotes, questionsOf(PARAPHRASE_SET, '')],
    [`paraphrase held out (${PARAPHRASE_HOLDOUT.length} q, ${holdoutNotes.length} notes)`, holdoutNotes, questionsOf(PARAPHRASE_HOLDOUT, 'h')],
    [
      `both paraphrase sets, all notes (${PARAPHRASE_SET.length + PARAPHRASE_HOLDOUT.length} q, ${allNotes.length + holdoutNotes.length} notes)`,
      [...allNotes, ...holdoutNotes],
      [...questionsOf(PARAPHRASE_SET, ''), ...questionsOf(PARAPHRASE_HOLDOUT, 'h')],
    ],
    [`lexical suite (${QUERIES.length} q, ${labelledNotes.length} notes)`, labelledNotes, QUERIES.map(([q, k]): Query => [q, k])],
    [`lexical, all notes (${QUERIES.length} q, ${allNotes.length} notes)`, allNotes, QUERIES.map(([q, k]): Query => [q, k])],
    [`exact terms (${EXACT_QUERIES.length} q, ${allNotes.length} notes)`, allNotes, EXACT_QUERIES.map(([q, k]): Query => [q, k])],
  ];

  console.log(`word-vector table: ${table.count} words × ${table.dimension}, loaded in ${fmt(loadMs, 0)} ms`);
  console.log('');
  console.log(`| set | embedder | top-1 | recall@5 | MRR |`);
  console.log(`|---|---|---|---|---|`);
  const results = new Map<string, Quality>();
  for (const [setName, notes, queries] of sets) {
    for (const [name, embedder] of embedders) {
      const result = await quality(embedder, notes, queries);
      results.set(`${setName}|${name}`, result);
      console.log(`| ${setName} | ${name} | ${fmt(result.top1)} | ${fmt(result.recall5)} | ${fmt(result.mrr, 3)} |`);
    }
  }
  const floor = results.get(`${sets[0]![0]}|${embedders[0]![0]}`)!;
  const ours = results.get(`${sets[0]![0]}|${DEFAULT}`)!;
  console.log('');
  console.log(
    `paraphrase recall@5, default vs lexical floor: ${fmt(ours.recall5)} vs ${fmt(floor.recall5)}` +
      (floor.recall5 > 0 ? ` (${fmt(ours.recall5 / floor.recall5, 1)}×)` : ' (floor 0)') +
      `; top-1 ${fmt(ours.top1)} vs ${fmt(floor.top1)}. Goals: recall@5 >= 0.90, top-1 >= 0.60.`,
  );

  // Calibration of the default's score.
  const hybrid = embedders.find(([name]) => name.endsWith('(default)'))![1] as HybridEmbedder;
  const row = (label: string, values: number[]) => `| ${label} | ${[0.1, 0.5, 0.9, 0.99].map((p) => `${fmt(percentile(values, p), 3)} → ${fmt(hybrid.score(percentile(values, p)))}`).join(' | ')} |`;
  console.log('');
  console.log('default: combined cosine → score, percentiles');
  console.log('| pairs | p10 | p50 | p90 | p99 |');
  console.log('|---|---|---|---|---|');
  console.log(row('paraphrase, relevant', ours.relevant));
  console.log(row('paraphrase set, every other note', ours.unrelated));
  const lexical = results.get(`${sets[3]![0]}|${DEFAULT}`)!;
  console.log(row('lexical suite, relevant', lexical.relevant));
  console.log(row('lexical suite, every other note', lexical.unrelated));
  const itself = await quality(
    hybrid,
    paraphraseNotes,
    paraphraseNotes.map(([key, text]): Query => [text, key]),
  );
  console.log(row('a note searched by its own text', itself.relevant));

  // Speed.
  const sentences = PARAPHRASE_SET.map((item) => item.memory);
  for (const [name, embedder] of embedders) {
    await embedder.embed(sentences.slice(0, 4));
    const rounds = name.startsWith('local model') || name.startsWith('sentence encoder') ? 2 : 20;
    const started = performance.now();
    // Texts new to the embedder each round: the sentence encoder answers a text it saw lately from its cache.
    for (let i = 0; i < rounds; i++) await embedder.embed(sentences.map((sentence) => `${sentence} (${i})`));
    const perSentence = (performance.now() - started) / (rounds * sentences.length);
    console.log(`${name}: ${fmt(perSentence * 1000, 1)} µs per sentence`);
  }
}
