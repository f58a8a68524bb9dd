// Determinism lint (DESIGN.md): nothing under src/core or src/sim reads wall-clock time, draws
// unseeded randomness or schedules real timers, except the clock and random modules themselves.
import { readFileSync } from 'node:fs';
import { sourceFiles } from './source-files.mjs';

const FORBIDDEN = [
  [/\bDate\.now\s*\(/, 'Date.now()'],
  [/\bnew\s+Date\s*\(\s*\)/, 'new Date() without arguments'],
  [/\bMath\.random\s*\(/, 'Math.random()'],
  [/\brandomUUID\s*\(/, 'crypto.randomUUID()'],
  [/\brandomBytes\s*\(/, 'crypto.randomBytes()'],
  [/\bperformance\.now\s*\(/, 'performance.now()'],
  [/\b(setTimeout|setInterval|setImmediate)\s*\(/, 'real timers'],
];
const EXEMPT = /(^|\/)[^/]*(clock|random)[^/]*\.ts$/;

const problems = [];
for (const file of [...sourceFiles('src/core'), ...sourceFiles('src/sim')]) {
  if (EXEMPT.test(file) && file.startsWith('src/sim/')) continue;
  readFileSync(file, 'utf8').split('\n').forEach((line, index) => {
    const code = line.replace(/\/\/.*$/, '');
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
