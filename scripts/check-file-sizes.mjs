// File-size check (DESIGN.md: small files with one job): no source file under src/ passes 450
// lines. Merges of parallel work grew files past it unseen; this keeps the rule in `npm run check`.
import { readFileSync } from 'node:fs';
import { sourceFiles } from './source-files.mjs';

const LIMIT = 450;
const over = sourceFiles('src')
  .map((file) => ({ file, lines: readFileSync(file, 'utf8').split('\n').length - 1 }))
  .filter(({ lines }) => lines > LIMIT);
if (over.length > 0) {
  for (const { file, lines } of over) console.error(`${file}: ${lines} lines (at most ${LIMIT}): split it by concern`);
  process.exit(1);
}
console.log(`file sizes: ok (every file under src/ at most ${LIMIT} lines)`);
