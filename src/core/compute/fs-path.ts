import { ApiError } from '../shared/api-error.js';

/** Longest accepted path, in UTF-8 bytes (PATH_MAX). */
export const PATH_MAX_BYTES = 4096;
/** Longest accepted name of one path segment, in UTF-8 bytes (NAME_MAX). */
export const NAME_MAX_BYTES = 255;

const encoder = new TextEncoder();

/**
 * The normalised form of an absolute path: `.` and empty segments dropped, `..` applied
 * (`/a/./b/../c` is `/a/c`), no trailing slash except for `/` itself.
 * @throws ApiError 400 invalid_request param `path` (relative, climbs above `/`, NUL byte, a name
 *   over 255 bytes or a path over 4,096 bytes)
 */
export function normalisePath(input: string, param = 'path'): string {
  if (!input.startsWith('/')) throw new ApiError('invalid_request', `${param}: expected an absolute path starting with "/", got ${JSON.stringify(input.slice(0, 80))}`, param);
  if (input.includes('\0')) throw new ApiError('invalid_request', `${param}: a path must not contain a NUL byte`, param);
  if (encoder.encode(input).length > PATH_MAX_BYTES) throw new ApiError('invalid_request', `${param}: expected at most ${PATH_MAX_BYTES} bytes`, param);
  const parts: string[] = [];
  for (const segment of input.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (parts.length === 0) throw new ApiError('invalid_request', `${param}: the path climbs above "/"`, param);
      parts.pop();
      continue;
    }
    if (encoder.encode(segment).length > NAME_MAX_BYTES) throw new ApiError('invalid_request', `${param}: a name must be at most ${NAME_MAX_BYTES} bytes`, param);
    parts.push(segment);
  }
  return '/' + parts.join('/');
}

/** The parent directory of a normalised path (`/` for top-level names and for `/`). */
export function parentOf(path: string): string {
  const cut = path.lastIndexOf('/');
  return cut <= 0 ? '/' : path.slice(0, cut);
}

/** The last segment of a normalised path (empty for `/`). */
export function nameOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Every proper ancestor of a normalised path, outermost first, without `/`. */
export function ancestorsOf(path: string): string[] {
  const out: string[] = [];
  let at = path.indexOf('/', 1);
  while (at !== -1) {
    out.push(path.slice(0, at));
    at = path.indexOf('/', at + 1);
  }
  return out;
}

/** Whether `path` is `dir` itself or lies under it (both normalised). */
export function isWithin(path: string, dir: string): boolean {
  return dir === '/' || path === dir || path.startsWith(dir + '/');
}
