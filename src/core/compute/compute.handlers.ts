import { bindRoute, callerOf, type BoundRoute } from '../api/route.js';
import { computeRoutes as routes } from './compute.routes.js';
import type { ComputeService, ParsedRun } from './compute.service.js';
import type { FilesystemService } from './filesystem.service.js';

/** Binds the compute routes to the services. */
export function computeHandlers(compute: ComputeService, files: FilesystemService): BoundRoute[] {
  return [
    bindRoute(routes.run, (context, { body }) => compute.run(callerOf(context), body as ParsedRun, context.signal)),
    bindRoute(routes.listFs, (context, { query }) => files.list(callerOf(context), query.path ?? '/')),
    bindRoute(routes.writeFs, (context, { body }) => files.write(callerOf(context), body.path, body.content)),
    bindRoute(routes.readFs, (context, { query }) => files.read(callerOf(context), query.path)),
    bindRoute(routes.deleteFs, (context, { query }) => files.remove(callerOf(context), query.path)),
  ];
}
