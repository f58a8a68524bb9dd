import type { Download, UploadInput } from '../api/binary.js';
import type { CallOptions } from '../api/transport.js';
import type { TypedCall } from '../api/typed-call.js';
import { memoryRoutes as routes } from './memory.routes.js';
import type { CreateMemoryBody, CreatedMemory, FileList, FileObject, SearchMemoriesBody, SearchMemoriesResult } from './memory.schema.js';

/** Memory endpoints as client methods. */
export interface MemoryClient {
  /** `POST /v1/memory` */
  createMemory(body: CreateMemoryBody, options?: CallOptions): Promise<CreatedMemory>;
  /** `POST /v1/memory/search` */
  searchMemories(body: SearchMemoriesBody, options?: CallOptions): Promise<SearchMemoriesResult>;
  /** `DELETE /v1/memory/{id}` */
  deleteMemory(id: string): Promise<void>;
  /** `POST /v1/memory/files` (multipart/form-data, part `file`) */
  uploadFile(file: UploadInput, options?: CallOptions): Promise<FileObject>;
  /** `GET /v1/memory/files` */
  listFiles(query?: { limit?: number; cursor?: string }): Promise<FileList>;
  /** `GET {files_url}/files/{file_id}` */
  downloadFile(fileId: string): Promise<Download>;
}

/** Builds the memory methods over a typed call. */
export function memoryClient(call: TypedCall): MemoryClient {
  return {
    createMemory: (body, options) => call(routes.createMemory, { body }, options),
    searchMemories: (body, options) => call(routes.searchMemories, { body }, options),
    deleteMemory: async (id) => void (await call(routes.deleteMemory, { params: { id } })),
    uploadFile: (file, options) => call(routes.uploadFile, { body: file }, options),
    listFiles: (query = {}) => call(routes.listFiles, { query }),
    downloadFile: (fileId) => call(routes.downloadFile, { params: { file_id: fileId } }),
  };
}
