import { z } from 'zod';
import { timestamp } from '../shared/schemas.js';
import { PATH_MAX_BYTES } from './fs-path.js';

/** Canonical Base64 with padding, as the service checks it (filesystem.service.ts isBase64). */
const BASE64 = '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$';

/** Longest `code` of a run, in UTF-8 bytes (1 MiB). */
export const CODE_MAX_BYTES = 1024 ** 2;

/** Body of `POST /v1/compute/run`. */
export const RunBody = z.strictObject({
  runtime: z.enum(['python', 'typescript', 'bash']),
  code: z
    .string()
    .min(1)
    .refine((code) => Buffer.byteLength(code, 'utf8') <= CODE_MAX_BYTES, { message: `must be at most ${CODE_MAX_BYTES} bytes` })
    // JSON Schema counts characters, not bytes: maxLength is the bound it can state, the description the exact one.
    .meta({ maxLength: CODE_MAX_BYTES, description: `at most ${CODE_MAX_BYTES} bytes of UTF-8` }),
  timeout_seconds: z.number().int().min(1).max(300).optional().describe("default 30, or the smaller of 30 and the agent's policy's max_timeout_seconds"),
});
export type RunBody = z.input<typeof RunBody>;

/** Answer of `POST /v1/compute/run`. */
export const RunResult = z.object({
  stdout: z.string(),
  stderr: z.string(),
  exit_code: z.number().int(),
  duration_ms: z.number().int().describe('measured wall time of the run; in the answer only'),
});
export type RunResult = z.infer<typeof RunResult>;

/**
 * A filesystem path as the document states it: absolute, at most 4,096 bytes. The service checks
 * it (fs-path.ts: relative, climbing above `/`, NUL, names over 255 bytes are 400 on `path`), so the
 * zod schema stays a plain string and its messages stay the service's.
 */
const fsPath = () =>
  z.string().max(65_536).meta({ pattern: '^/', maxLength: PATH_MAX_BYTES, description: 'absolute path ("/" first), normalised by the service (/a/./b/../c is /a/c); at most 4,096 bytes, names at most 255' });

/** A path query of the filesystem endpoints (validated and normalised by the service). */
export const FsPathQuery = z.strictObject({ path: fsPath().default('/') });
export type FsPathQuery = z.input<typeof FsPathQuery>;

/** A path query that must be given. */
export const FsRequiredPathQuery = z.strictObject({ path: fsPath() });
export type FsRequiredPathQuery = z.input<typeof FsRequiredPathQuery>;

/** One entry of a listing. */
export const FsEntry = z.object({
  name: z.string(),
  path: z.string(),
  type: z.enum(['file', 'directory']),
  size: z.number().int(),
  modified_at: timestamp,
});
export type FsEntry = z.infer<typeof FsEntry>;

/** Answer of `GET /v1/compute/fs`. */
export const FsListing = z.object({ path: z.string(), entries: z.array(FsEntry) });
export type FsListing = z.infer<typeof FsListing>;

/** Body of `PUT /v1/compute/fs`. */
export const FsWriteBody = z.strictObject({
  path: fsPath(),
  content: z.string().meta({
    contentEncoding: 'base64',
    pattern: BASE64,
    description: 'the file bytes as canonical Base64 with padding (RFC 4648 section 4); at most 100,000,000 bytes decoded',
  }),
});
export type FsWriteBody = z.infer<typeof FsWriteBody>;

/** Answer of `PUT /v1/compute/fs`. */
export const FsWritten = z.object({ path: z.string(), size: z.number().int(), modified_at: timestamp });
export type FsWritten = z.infer<typeof FsWritten>;

/** Answer of `GET /v1/compute/fs/content`. */
export const FsContent = z.object({ path: z.string(), content: z.string().meta({ contentEncoding: 'base64', description: 'the file bytes as Base64' }), size: z.number().int() });
export type FsContent = z.infer<typeof FsContent>;
