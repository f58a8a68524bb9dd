import { bindRoute, callerOf, uploadBodyBytes, type BoundRoute } from '../api/route.js';
import type { DriveService } from './drive.service.js';
import { memoryRoutes as routes } from './memory.routes.js';
import type { MemoryService } from './memory.service.js';

/** Binds the memory routes to the services; an upload's body is held to what a file of `maxUploadBytes` needs. */
export function memoryHandlers(memories: MemoryService, drive: DriveService, maxUploadBytes: number): BoundRoute[] {
  return [
    bindRoute(routes.create, (context, { body }) => memories.create(callerOf(context), body)),
    bindRoute(routes.search, (context, { body }) => memories.search(callerOf(context), body)),
    bindRoute(routes.delete, (context, { params }) => memories.delete(callerOf(context), params.id)),
    bindRoute({ ...routes.uploadFile, maxBodyBytes: uploadBodyBytes(maxUploadBytes) }, (context, { body }) => drive.upload(callerOf(context), body)),
    bindRoute(routes.listFiles, (context, { query }) => drive.list(callerOf(context), query)),
    bindRoute(routes.downloadFile, (context, { params }) => drive.download(callerOf(context), params.file_id)),
  ];
}
