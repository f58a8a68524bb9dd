import { DriveService } from '../../core/memory/drive.service.js';
import { BUILT_IN_EMBEDDERS, MemoryConfig, memoryConfig, type MemoryOptions } from '../../core/memory/memory-config.js';
import { MemoryIndexes } from '../../core/memory/memory-index.js';
import { memoryHandlers } from '../../core/memory/memory.handlers.js';
import { MemoryService } from '../../core/memory/memory.service.js';
import { DocumentExtractor } from '../../core/ports/document-extractor.js';
import { Embedder } from '../../core/ports/embedder.js';
import { Tokenizer } from '../../core/ports/tokenizer.js';
import { TiktokenTokenizer } from '../../providers/tokens/tiktoken-tokenizer.js';
import { VectorIndexFactory } from '../../core/ports/vector-index.js';
import { LibraryDocumentExtractor } from '../../providers/documents/library-document-extractor.js';
import { vectorIndexFactory } from '../../providers/vector/vector-index-factory.js';
import { loadWordVectorTable } from '../../providers/embeddings/word-vector-table-file.js';
import { createWordVectorEmbedder } from '../../sim/word-vector-embedder.js';
import { HashingEmbedder } from '../../sim/hashing-embedder.js';
import { createDefaultEmbedder } from '../default-embedder.js';
import { LocalModelEmbedder } from '../../providers/embeddings/local-model-embedder.js';
import { memoryRoutes } from '../../core/memory/memory.routes.js';
import { defineArea } from './area-module.js';

/** Memory: embedded memories, semantic search, the file drive with document indexing. */
export const memoryArea = defineArea({
  name: 'memory',
  routes: memoryRoutes,
  bind({ container, options }) {
    const memory = options.memory ?? {};
    container.bind(MemoryConfig).toConstantValue(memoryConfig(memory));
    container.bind(Embedder).toConstantValue(options.providers?.embedder ?? builtInEmbedder(memory));
    container.bind(VectorIndexFactory).toConstantValue(options.providers?.vectorIndex ?? vectorIndexFactory(memory.index, memory.hnswThreshold === undefined ? {} : { hnswThreshold: memory.hnswThreshold }));
    container.bind(Tokenizer).toConstantValue(new TiktokenTokenizer());
    container.bind(DocumentExtractor).toConstantValue(options.providers?.documentExtractor ?? new LibraryDocumentExtractor());
    container.bind(MemoryIndexes).toSelf();
    container.bind(MemoryService).toSelf();
    container.bind(DriveService).toSelf();
  },
  start({ container }) {
    return memoryHandlers(container.get(MemoryService), container.get(DriveService), container.get(MemoryConfig).maxUploadBytes);
  },
  restored({ container }) {
    // The indexes are derived from the store that was just replaced.
    container.get(MemoryIndexes).invalidate();
  },
});

/**
 * The embedder the memory options name: a local model folder, else the built-in one.
 * @throws RangeError when `embedder` names no built-in embedder
 */
function builtInEmbedder(memory: MemoryOptions): Embedder {
  if (memory.embeddingModel) return new LocalModelEmbedder(memory.embeddingModel);
  const name = memory.embedder ?? 'sentence-encoder';
  if (name === 'sentence-encoder') return createDefaultEmbedder();
  if (name === 'word-vectors') return createWordVectorEmbedder(() => loadWordVectorTable());
  if (name === 'lexical') return new HashingEmbedder();
  throw new RangeError(`memory.embedder must be one of ${BUILT_IN_EMBEDDERS.join(', ')}, got "${String(name)}"`);
}
