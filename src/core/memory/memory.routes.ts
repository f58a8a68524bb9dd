import { defineRoute } from '../api/route.js';
import { CreateMemoryBody, CreatedMemory, FileIdParams, FileList, FileObject, ListFilesQuery, MemoryIdParams, SearchMemoriesBody, SearchMemoriesResult } from './memory.schema.js';

/** The memory endpoints of SPEC.md part 4 and the file download of DECISIONS.md. */
export const memoryRoutes = {
  /** Stores a memory (content up to 8,000 cl100k_base tokens, string metadata); it is embedded for semantic search. `POST /v1/memory` */
  create: defineRoute({
    id: 'memory.create',
    method: 'POST',
    path: '/v1/memory',
    auth: 'agent',
    tag: 'memory',
    status: 201,
    summary: 'Stores a memory (content up to 8,000 cl100k_base tokens, string metadata); it is embedded for semantic search.',
    body: CreateMemoryBody,
    response: CreatedMemory,
  }),
  /** Memories ranked by cosine similarity to the query; metadata_filter (strict equality on every pair) applies before ranking. `POST /v1/memory/search` */
  search: defineRoute({
    id: 'memory.search',
    method: 'POST',
    path: '/v1/memory/search',
    auth: 'agent',
    tag: 'memory',
    status: 200,
    summary: 'Memories ranked by cosine similarity to the query; metadata_filter (strict equality on every pair) applies before ranking.',
    body: SearchMemoriesBody,
    response: SearchMemoriesResult,
  }),
  /** Deletes a memory permanently. `DELETE /v1/memory/{id}` */
  delete: defineRoute({
    id: 'memory.delete',
    method: 'DELETE',
    path: '/v1/memory/{id}',
    auth: 'agent',
    tag: 'memory',
    status: 204,
    summary: 'Deletes a memory permanently.',
    params: MemoryIdParams,
  }),
  /** Uploads a file (multipart/form-data, one part "file", at most 500 MB); PDF, DOCX, TXT, MD, CSV and XLSX are indexed into memory search. `POST /v1/memory/files` */
  uploadFile: defineRoute({
    id: 'memory.uploadFile',
    method: 'POST',
    path: '/v1/memory/files',
    auth: 'agent',
    tag: 'memory',
    status: 201,
    summary: 'Uploads a file (multipart/form-data, one part "file", at most 500 MB); PDF, DOCX, TXT, MD, CSV and XLSX are indexed into memory search.',
    upload: { field: 'file' },
    response: FileObject,
  }),
  /** The agent's files, newest first, with the total count. `GET /v1/memory/files` */
  listFiles: defineRoute({
    id: 'memory.listFiles',
    method: 'GET',
    path: '/v1/memory/files',
    auth: 'agent',
    tag: 'memory',
    status: 200,
    summary: "The agent's files, newest first, with the total count.",
    query: ListFilesQuery,
    response: FileList,
  }),
  /** A file's bytes ({files_url}/files/{file_id}), only with the owning agent's key. `GET /files/files/{file_id}` */
  downloadFile: defineRoute({
    id: 'memory.downloadFile',
    method: 'GET',
    path: '/files/files/{file_id}',
    auth: 'agent',
    tag: 'memory',
    status: 200,
    summary: "A file's bytes ({files_url}/files/{file_id}), only with the owning agent's key.",
    params: FileIdParams,
    binary: true,
  }),
};
