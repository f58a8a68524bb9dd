/** One vocabulary entry: the piece (a word start is marked by U+2581) and its log probability. */
export type SentencePieceEntry = readonly [piece: string, score: number];

/** The mark SentencePiece puts before every word (U+2581, "lower one eighth block"). */
const WORD_MARK = '\u2581';

/**
 * Ids before this index are the unknown piece and control symbols, which no text segments into
 * (the Universal Sentence Encoder's vocabulary: `�`, `<s>`, `</s>` and three extra ids).
 */
const RESERVED = 6;

/**
 * A unigram SentencePiece tokenizer (Kudo, 2018) over a vocabulary of `[piece, score]` pairs, as
 * the Universal Sentence Encoder's TensorFlow.js release segments text: NFKC, spaces (only U+0020)
 * become the word mark, one more leads the text, then the segmentation of highest total score
 * (Viterbi over every vocabulary piece found at each position, code point by code point); a code
 * point no piece starts with is the unknown id 0, and a run of unknowns is one id.
 *
 * The reference (`@tensorflow-models/universal-sentence-encoder`'s `Tokenizer`) is not a
 * dependency: it declares TensorFlow.js 3 as a peer, whose WebAssembly backend lacks a kernel
 * the model needs. This class reproduces its choices exactly, including how ties go (the later
 * start wins), so the model sees the ids it was published with; the tests compare both on fixed
 * texts.
 */
export class SentencePieceTokenizer {
  private readonly pieces = new Map<string, number>();
  private readonly longest: number;

  /** @throws RangeError when the vocabulary has no piece past the reserved ids */
  constructor(private readonly vocabulary: readonly SentencePieceEntry[]) {
    let longest = 0;
    for (let id = RESERVED; id < vocabulary.length; id++) {
      const piece = vocabulary[id]![0];
      this.pieces.set(piece, id);
      longest = Math.max(longest, [...piece].length);
    }
    if (longest === 0) throw new RangeError('the vocabulary has no pieces');
    this.longest = longest;
  }

  /** The ids of `text`'s segmentation (empty for the empty text). */
  encode(text: string): number[] {
    const normalized = text.normalize('NFKC');
    if (normalized.length === 0) return [];
    const symbols = [...(WORD_MARK + normalized.replaceAll(' ', WORD_MARK))];
    const n = symbols.length;
    // best[end]: score of the best segmentation of symbols[0, end); 0 means none yet (every
    // piece scores below 0, except the unknown, which scores 0, as in the reference).
    const best = new Float64Array(n + 1);
    const chosen = new Int32Array(n + 1);
    const chosenLength = new Int32Array(n + 1);
    // Arcs ending at each position, in the order the reference visits them (start ascending).
    const arcs: Array<Array<{ start: number; id: number; score: number; length: number }>> = Array.from({ length: n + 1 }, () => []);
    for (let start = 0; start < n; start++) {
      let matched = false;
      let piece = '';
      for (let length = 1; length <= this.longest && start + length <= n; length++) {
        piece += symbols[start + length - 1]!;
        const id = this.pieces.get(piece);
        if (id === undefined) continue;
        matched = true;
        arcs[start + length]!.push({ start, id, score: this.vocabulary[id]![1], length });
      }
      if (!matched) arcs[start + 1]!.push({ start, id: 0, score: 0, length: 1 });
    }
    for (let end = 1; end <= n; end++) {
      for (const arc of arcs[end]!) {
        const score = arc.score + best[arc.start]!;
        if (best[end] === 0 || score >= best[end]!) {
          best[end] = score;
          chosen[end] = arc.id;
          chosenLength[end] = arc.length;
        }
      }
    }
    const ids: number[] = [];
    for (let end = n; end > 0; end -= chosenLength[end]!) ids.push(chosen[end]!);
    ids.reverse();
    return ids.filter((id, i) => !(id === 0 && i > 0 && ids[i - 1] === 0));
  }
}
