// Determinism lint (DESIGN.md): nothing under src/core or src/sim reads wall-clock time, draws
// unseeded randomness or schedules real timers, except the clock and random modules themselves.
import { existsSync, readFileSync } from 'node:fs';
import { sourceFiles } from './source-files.mjs';

const FORBIDDEN = [
  [/\bDate\.now\b/, 'Date.now()'],
  [/\bnew\s+Date\s*\(\s*\)/, 'new Date() without arguments'],
  [/\bnew\s+Date\b(?!\s*\()/, 'new Date without arguments'],
  [/(?<!\bnew\s+)(?<![\w.])Date\s*\(/, 'Date() called as a function'],
  [/\bgetRandomValues\b/, 'crypto.getRandomValues()'],
  [/\bprocess\.hrtime\b/, 'process.hrtime()'],
  [/\bMath\.random\s*\(/, 'Math.random()'],
  [/\brandomUUID\s*\(/, 'crypto.randomUUID()'],
  [/\brandomBytes\s*\(/, 'crypto.randomBytes()'],
  [/\bperformance\.now\s*\(/, 'performance.now()'],
  [/\b(setTimeout|setInterval|setImmediate)\s*\(/, 'real timers'],
];
const EXEMPT = /(^|\/)[^/]*(clock|random)[^/]*\.ts$/;

/** Blanks string literals and comments so only code is matched (line numbers are kept). */
function codeOnly(text) {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' '))
    .replace(/(['"`])(?:\\.|(?!\1)[^\\\n])*\1/g, (literal) => literal[0] + ' '.repeat(literal.length - 2) + literal[0])
    .replace(/\/\/.*$/gm, '');
}

const problems = [];
const roots = ['src/core', 'src/sim'].filter((root) => existsSync(root));
for (const file of roots.flatMap((root) => sourceFiles(root))) {
  if (EXEMPT.test(file) && file.startsWith('src/sim/')) continue;
  codeOnly(readFileSync(file, 'utf8'))
    .split('\n')
    .forEach((code, index) => {
      for (const [pattern, what] of FORBIDDEN) {
        if (pattern.test(code)) problems.push(`${file}:${index + 1}: ${what} (use the Clock or Random port)`);
      }
    });
}
if (problems.length > 0) {
  console.error(`determinism lint: ${problems.length} problem(s)\n${problems.join('\n')}`);
  process.exit(1);
}
console.log('determinism lint: ok');
