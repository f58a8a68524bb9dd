import { defineRoute } from '../api/route.js';
import { FsContent, FsListing, FsPathQuery, FsRequiredPathQuery, FsWriteBody, FsWritten, RunBody, RunResult } from './compute.schema.js';

/** A write's body: 100 MB decoded is 133,333,336 Base64 characters, plus the JSON around them. */
export const FS_WRITE_MAX_BODY_BYTES = 134_000_000;

/** The compute endpoints of SPEC.md part 4 and DECISIONS.md (runs and the filesystem). */
export const computeRoutes = {
  /** Runs python, typescript or bash in a fresh sandbox over the agent filesystem (timeout 1..300 s, exit 124 on timeout, 137 past the memory limit). `POST /v1/compute/run` */
  run: defineRoute({
    id: 'compute.run',
    method: 'POST',
    path: '/v1/compute/run',
    auth: 'agent',
    tag: 'compute',
    status: 200,
    summary: 'Runs python, typescript or bash in a fresh sandbox over the agent filesystem (timeout 1..300 s, exit 124 on timeout, 137 past the memory limit).',
    body: RunBody,
    response: RunResult,
    maxBodyBytes: 2 * 1024 ** 2,
  }),
  /** Lists a directory of the agent filesystem (default /), sorted by name. `GET /v1/compute/fs` */
  listFs: defineRoute({
    id: 'compute.listFs',
    method: 'GET',
    path: '/v1/compute/fs',
    auth: 'agent',
    tag: 'compute',
    status: 200,
    summary: 'Lists a directory of the agent filesystem (default /), sorted by name.',
    query: FsPathQuery,
    response: FsListing,
  }),
  /** Writes a file from Base64 (at most 100 MB decoded), creating missing directories and overwriting a file. `PUT /v1/compute/fs` */
  writeFs: defineRoute({
    id: 'compute.writeFs',
    method: 'PUT',
    path: '/v1/compute/fs',
    auth: 'agent',
    tag: 'compute',
    status: 200,
    summary: 'Writes a file from Base64 (at most 100 MB decoded), creating missing directories and overwriting a file.',
    body: FsWriteBody,
    response: FsWritten,
    maxBodyBytes: FS_WRITE_MAX_BODY_BYTES,
  }),
  /** A file's content as Base64. `GET /v1/compute/fs/content` */
  readFs: defineRoute({
    id: 'compute.readFs',
    method: 'GET',
    path: '/v1/compute/fs/content',
    auth: 'agent',
    tag: 'compute',
    status: 200,
    summary: "A file's content as Base64.",
    query: FsRequiredPathQuery,
    response: FsContent,
  }),
  /** Deletes a file, or a directory with everything in it. `DELETE /v1/compute/fs` */
  deleteFs: defineRoute({
    id: 'compute.deleteFs',
    method: 'DELETE',
    path: '/v1/compute/fs',
    auth: 'agent',
    tag: 'compute',
    status: 204,
    summary: 'Deletes a file, or a directory with everything in it.',
    query: FsRequiredPathQuery,
  }),
};
