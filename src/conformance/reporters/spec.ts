import { AREAS } from '../types.js';
import type { CheckResult } from '../types.js';
import type { RunReport } from '../runner.js';

/** Colours when writing to a terminal. */
export interface SpecStyle {
  color: boolean;
}

const paint = (on: boolean, code: number, text: string) => (on ? `\x1b[${code}m${text}\x1b[0m` : text);

/** One check as a spec line (with its message indented under a failure or skip). */
export function specLine(result: CheckResult, style: SpecStyle): string {
  const ms = `(${Math.round(result.durationMs)} ms)`;
  if (result.status === 'passed') return `  ${paint(style.color, 32, '✓')} ${result.name} ${paint(style.color, 90, ms)}`;
  if (result.status === 'skipped') return `  ${paint(style.color, 33, '-')} ${result.name} ${paint(style.color, 90, `(skipped: ${result.message ?? ''})`)}`;
  const message = (result.message ?? '')
    .split('\n')
    .map((line) => `      ${line}`)
    .join('\n');
  return `  ${paint(style.color, 31, '✗')} ${result.name} ${paint(style.color, 90, ms)}\n${paint(style.color, 31, message)}`;
}

/** The heading printed before an area's first check. */
export function specHeading(area: string): string {
  return `\n${area}`;
}

/** The summary table per area, the failures again in full, and the seed. */
export function specSummary(report: RunReport, style: SpecStyle): string {
  const rows: string[][] = [['area', 'passed', 'failed', 'skipped']];
  for (const area of AREAS) {
    const results = report.results.filter((result) => result.area === area);
    if (results.length === 0) continue;
    const count = (status: string) => String(results.filter((result) => result.status === status).length);
    rows.push([area, count('passed'), count('failed'), count('skipped')]);
  }
  const { passed, failed, skipped } = report.summary;
  rows.push(['total', String(passed), String(failed), String(skipped)]);
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const format = (row: string[]) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ');
  const rule = widths.map((width) => '─'.repeat(width)).join('  ');
  const table = [format(rows[0]!), rule, ...rows.slice(1, -1).map(format), rule, format(rows[rows.length - 1]!)];
  const out = ['', ...table.map((line) => `  ${line}`), ''];
  const failures = report.results.filter((result) => result.status === 'failed');
  if (failures.length > 0) {
    out.push(paint(style.color, 31, `${failures.length} failed:`));
    for (const result of failures) out.push(`  ${result.area}: ${result.name}`, ...(result.message ?? '').split('\n').map((line) => `      ${line}`));
    out.push('');
  }
  out.push(`seed ${report.seed}, ${report.runs} runs per property`);
  return `${out.join('\n')}\n`;
}

/** `--reporter spec` as one block (the CLI prints lines live instead): checks by area, then the summary. */
export function specReport(report: RunReport, style: SpecStyle = { color: false }): string {
  const out: string[] = [];
  let area: string | undefined;
  for (const result of report.results) {
    if (result.area !== area) out.push(specHeading((area = result.area)));
    out.push(specLine(result, style));
  }
  return `${out.join('\n')}\n${specSummary(report, style)}`;
}
