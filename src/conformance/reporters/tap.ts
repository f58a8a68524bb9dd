import type { RunReport } from '../runner.js';

/** Indents a block for a TAP YAML diagnostic. */
function block(text: string, indent: string): string {
  return text
    .split('\n')
    .map((line) => `${indent}${line}`)
    .join('\n');
}

/** `--reporter tap`: TAP version 13, one test point per check, YAML diagnostics on failures, `# SKIP reason` on skips. */
export function tapReport(report: RunReport): string {
  const lines = ['TAP version 13', `1..${report.results.length}`];
  report.results.forEach((result, index) => {
    const title = `${result.area}: ${result.name}`.replace(/#/g, '\\#');
    if (result.status === 'skipped') {
      lines.push(`ok ${index + 1} - ${title} # SKIP ${(result.message ?? '').replace(/\n/g, ' ')}`);
    } else if (result.status === 'passed') {
      lines.push(`ok ${index + 1} - ${title}`);
    } else {
      lines.push(`not ok ${index + 1} - ${title}`, '  ---', `  area: ${result.area}`, '  message: |', block(result.message ?? '', '    '));
      if (result.seed !== undefined) lines.push(`  seed: ${result.seed}`);
      lines.push('  ...');
    }
  });
  const { passed, failed, skipped } = report.summary;
  lines.push(`# seed ${report.seed}, ${report.runs} runs per property`, `# pass ${passed}`, `# fail ${failed}`, `# skip ${skipped}`);
  return `${lines.join('\n')}\n`;
}
