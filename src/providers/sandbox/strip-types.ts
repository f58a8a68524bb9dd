import { transform } from 'sucrase';

/** Strips TypeScript syntax with sucrase, keeping ES modules and top-level await as they are. @throws SyntaxError-like errors of the parser */
export function stripTypes(code: string): string {
  return transform(code, { transforms: ['typescript'], disableESTransforms: true, keepUnusedImports: true }).code;
}
