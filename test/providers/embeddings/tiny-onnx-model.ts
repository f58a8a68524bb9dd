/**
 * Writes a tiny sentence-transformers-style model folder for tests: a WordPiece `tokenizer.json`
 * (BERT layout) and `onnx/model.onnx`, an ONNX graph whose one node looks each token up in an
 * embedding table (`Gather`), answering `last_hidden_state` [batch, sequence, hidden] as a BERT
 * export does. The protobuf is encoded here by hand (ModelProto of onnx.proto), so the test needs
 * no converter and no download. Words of one group share a direction, so "cat" and "kitten" embed
 * alike and "cat" and "invoice" do not.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Word groups: the words of a group get the same direction in the embedding table. */
export const TINY_MODEL_GROUPS: readonly (readonly string[])[] = [
  ['cat', 'kitten', 'feline', 'pet'],
  ['dog', 'puppy', 'hound'],
  ['invoice', 'bill', 'payment', 'paid'],
  ['car', 'vehicle', 'brakes'],
  ['my', 'the', 'a', 'is', 'was', 'sleeps', 'all', 'day'],
];
const SPECIALS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]'];
/** Size of the model's vectors. */
export const TINY_MODEL_HIDDEN = 8;

// Protobuf wire format: varints, tags, length-delimited fields.
function varint(value: number | bigint): number[] {
  let v = BigInt(value);
  if (v < 0n) v += 1n << 64n;
  const out: number[] = [];
  do {
    const byte = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v > 0n ? byte | 0x80 : byte);
  } while (v > 0n);
  return out;
}
const tag = (field: number, wire: number) => varint((field << 3) | wire);
const int = (field: number, value: number) => [...tag(field, 0), ...varint(value)];
const bytes = (field: number, data: Uint8Array | number[]) => [...tag(field, 2), ...varint(data.length), ...data];
const str = (field: number, text: string) => bytes(field, [...Buffer.from(text, 'utf8')]);

const FLOAT = 1;
const INT64 = 7;

/** ValueInfoProto of a tensor with symbolic or fixed dimensions. */
function valueInfo(name: string, elemType: number, dims: Array<string | number>): number[] {
  const shape = dims.flatMap((dim) => bytes(1, typeof dim === 'string' ? str(2, dim) : int(1, dim)));
  const tensorType = [...int(1, elemType), ...bytes(2, shape)];
  return [...str(1, name), ...bytes(2, bytes(1, tensorType))];
}

/** The model's ONNX bytes for an embedding table of `rows` (vocabulary × hidden). */
function onnxModel(rows: Float32Array, vocabulary: number): Uint8Array {
  const raw = new Uint8Array(rows.buffer, rows.byteOffset, rows.byteLength);
  const initializer = [...int(1, vocabulary), ...int(1, TINY_MODEL_HIDDEN), ...int(2, FLOAT), ...str(8, 'embeddings'), ...bytes(9, raw)];
  const node = [...str(1, 'embeddings'), ...str(1, 'input_ids'), ...str(2, 'last_hidden_state'), ...str(3, 'lookup'), ...str(4, 'Gather')];
  const graph = [
    ...bytes(1, node),
    ...str(2, 'tiny'),
    ...bytes(5, initializer),
    ...bytes(11, valueInfo('input_ids', INT64, ['batch_size', 'sequence_length'])),
    ...bytes(11, valueInfo('attention_mask', INT64, ['batch_size', 'sequence_length'])),
    ...bytes(12, valueInfo('last_hidden_state', FLOAT, ['batch_size', 'sequence_length', TINY_MODEL_HIDDEN])),
  ];
  const opset = [...str(1, ''), ...int(2, 13)];
  return Uint8Array.from([...int(1, 8), ...str(2, 'agent-services-test'), ...bytes(7, graph), ...bytes(8, opset)]);
}

/** Writes the model folder at `folder` (created if needed) and answers it. */
export function writeTinyModel(folder: string): string {
  const words = TINY_MODEL_GROUPS.flat();
  const vocab: Record<string, number> = {};
  [...SPECIALS, ...words].forEach((token, i) => (vocab[token] = i));
  const vocabulary = SPECIALS.length + words.length;
  const rows = new Float32Array(vocabulary * TINY_MODEL_HIDDEN);
  // Special tokens and the function-word group share a weak common direction.
  for (let i = 0; i < SPECIALS.length; i++) rows[i * TINY_MODEL_HIDDEN + 7] = 0.1;
  TINY_MODEL_GROUPS.forEach((group, g) => {
    group.forEach((word, w) => {
      const at = vocab[word]! * TINY_MODEL_HIDDEN;
      rows[at + g] = g === TINY_MODEL_GROUPS.length - 1 ? 0.1 : 1;
      // A little of the word's own, so words of a group are close but not equal.
      rows[at + 5 + (w % 2)] = 0.05;
    });
  });
  const addedToken = (content: string, id: number) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIALS.map((token, i) => addedToken(token, i)),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: { '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] }, '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] } },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
  };
  const tokenizerConfig = {
    tokenizer_class: 'BertTokenizer',
    do_lower_case: true,
    model_max_length: 128,
    cls_token: '[CLS]',
    sep_token: '[SEP]',
    pad_token: '[PAD]',
    unk_token: '[UNK]',
    mask_token: '[UNK]',
  };
  const config = { model_type: 'bert', architectures: ['BertModel'], hidden_size: TINY_MODEL_HIDDEN, vocab_size: vocabulary, max_position_embeddings: 128 };
  mkdirSync(path.join(folder, 'onnx'), { recursive: true });
  mkdirSync(path.join(folder, '1_Pooling'), { recursive: true });
  writeFileSync(path.join(folder, 'tokenizer.json'), JSON.stringify(tokenizer));
  writeFileSync(path.join(folder, 'tokenizer_config.json'), JSON.stringify(tokenizerConfig));
  writeFileSync(path.join(folder, 'config.json'), JSON.stringify(config));
  writeFileSync(path.join(folder, '1_Pooling', 'config.json'), JSON.stringify({ word_embedding_dimension: TINY_MODEL_HIDDEN, pooling_mode_mean_tokens: true, pooling_mode_cls_token: false }));
  writeFileSync(path.join(folder, 'onnx', 'model.onnx'), onnxModel(rows, vocabulary));
  return folder;
}
