import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { ScenarioResult } from './run-scenario.js';

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** JSON that is safe inside a `<script>` element: no `<`, `>`, `&` or line separators as such. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

let chartSource: string | undefined;

/**
 * The UMD build of Chart.js, read from the installed package (inlined so the report needs no
 * network). @throws Error when chart.js is not installed
 */
function chartJs(): string {
  if (chartSource === undefined) {
    const main = createRequire(import.meta.url).resolve('chart.js');
    // Nothing in the build closes a script element, but make sure of it.
    chartSource = readFileSync(path.join(path.dirname(main), 'chart.umd.min.js'), 'utf8').replace(/<\/script/gi, '<\\/script');
  }
  return chartSource;
}

/** `MM-DD HH:MM` of the instant `hours` after `startIso`, for axis labels. */
function label(startIso: string, hours: number): string {
  return new Date(Date.parse(startIso) + Math.round(hours * 3_600_000)).toISOString().slice(5, 16).replace('T', ' ');
}

function row(name: string, value: string | number): string {
  return `<tr><th>${escapeHtml(name)}</th><td>${escapeHtml(String(value))}</td></tr>`;
}

/** The browser side: builds the four charts from the embedded data. Plain ES2017, no template tricks. */
const PAGE_SCRIPT = `
(function () {
  var data = JSON.parse(document.getElementById('report-data').textContent);
  var palette = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#ca8a04', '#db2777', '#4b5563', '#65a30d', '#7c3aed', '#0d9488'];
  function color(i) { return palette[i % palette.length]; }
  function datasets(series, stacked) {
    return Object.keys(series).sort().map(function (name, i) {
      return { label: name, data: series[name], backgroundColor: color(i), borderColor: color(i), stack: stacked ? 'all' : undefined };
    });
  }
  function bars(id, series, stacked, yTitle) {
    var canvas = document.getElementById(id);
    var sets = datasets(series, stacked);
    if (sets.length === 0) sets = [{ label: 'none', data: data.bucketLabels.map(function () { return 0; }), backgroundColor: '#9ca3af' }];
    new Chart(canvas, {
      type: 'bar',
      data: { labels: data.bucketLabels, datasets: sets },
      options: { animation: false, responsive: true, maintainAspectRatio: false,
        scales: { x: { stacked: stacked, title: { display: true, text: 'service time (bucket start)' } }, y: { stacked: stacked, beginAtZero: true, title: { display: true, text: yTitle } } } }
    });
  }
  function lines(id, labels, series, yTitle) {
    var canvas = document.getElementById(id);
    var sets = Object.keys(series).map(function (name, i) {
      return { label: name, data: series[name], borderColor: color(i), backgroundColor: color(i), pointRadius: 0, borderWidth: 2, tension: 0 };
    });
    if (sets.length === 0) sets = [{ label: 'none', data: labels.map(function () { return 0; }), borderColor: '#9ca3af' }];
    new Chart(canvas, {
      type: 'line',
      data: { labels: labels, datasets: sets },
      options: { animation: false, responsive: true, maintainAspectRatio: false, interaction: { mode: 'index', intersect: false },
        scales: { x: { title: { display: true, text: 'service time' } }, y: { title: { display: true, text: yTitle } } } }
    });
  }
  var perBucket = 'count per ' + data.bucketName;
  lines('chart-held', data.moneyLabels, data.held, 'held in wallets');
  lines('chart-agents', data.moneyLabels, data.agentBalances, 'balance');
  bars('chart-messages', data.messages, false, perBucket);
  bars('chart-events', data.events, true, perBucket);
  bars('chart-failures', data.failures, true, perBucket);
  document.body.setAttribute('data-charts', String(Chart.instances ? Object.keys(Chart.instances).length : 0));
})();
`;

/** Plot series of the money samples: asset → held, and `agent asset` → balance, assets that were ever non-zero only. */
function moneySeries(result: ScenarioResult): { held: Record<string, number[]>; agentBalances: Record<string, number[]> } {
  const samples = result.metrics.money;
  const held: Record<string, number[]> = {};
  const assets = new Set<string>();
  for (const sample of samples) for (const [asset, value] of Object.entries(sample.held)) if (value !== 0 || (sample.sent_out[asset] ?? 0) !== 0) assets.add(asset);
  for (const asset of assets) {
    held[asset] = samples.map((sample) => sample.held[asset] ?? 0);
    if (samples.some((sample) => (sample.sent_out[asset] ?? 0) !== 0)) held[`${asset} sent out`] = samples.map((sample) => sample.sent_out[asset] ?? 0);
    if (samples.some((sample) => (sample.fees[asset] ?? 0) !== 0)) held[`${asset} fees`] = samples.map((sample) => sample.fees[asset] ?? 0);
  }
  const agentBalances: Record<string, number[]> = {};
  const names = new Set<string>();
  for (const sample of samples) for (const name of Object.keys(sample.agents)) names.add(name);
  for (const name of names) {
    for (const asset of assets) {
      const values = samples.map((sample) => sample.agents[name]?.[asset] ?? 0);
      if (values.some((value) => value !== 0)) agentBalances[`${name} ${asset}`] = values;
    }
  }
  return { held, agentBalances };
}

/** Options of {@link renderReport}. */
export interface ReportOptions {
  /** The command that reproduces the run, shown in the report. */
  command?: string;
  /** Wall-clock seconds the run took (shown only; the trace never holds it). */
  elapsedSeconds?: number;
}

/**
 * The HTML report of a run: one self-contained file (Chart.js and the data inlined, a CSP that
 * allows no network) with the summary and plots over service time: money held per asset and the
 * first agents' balances, messages and SMS, events per type, failures and faults. Every string
 * that came from the scenario is escaped.
 * @throws Error when chart.js is not installed
 */
export function renderReport(result: ScenarioResult, options: ReportOptions = {}): string {
  const metrics = result.metrics;
  const bucketHours = metrics.bucket_seconds / 3600;
  const money = moneySeries(result);
  const data = {
    bucketName: bucketHours === 1 ? 'hour' : `${metrics.bucket_seconds / 60} min`,
    bucketLabels: metrics.bucket_hours.map((hours) => label(result.start, hours)),
    moneyLabels: metrics.money.map((sample) => label(result.start, sample.hour)),
    held: money.held,
    agentBalances: money.agentBalances,
    messages: metrics.messages,
    events: metrics.events,
    failures: metrics.failures,
  };
  const broken = result.broken
    ? `<section class="broken"><h2>Invariant broken</h2><p><strong>${escapeHtml(result.broken.name)}</strong> at step ${result.broken.step} (${escapeHtml(result.broken.at)}): ${escapeHtml(result.broken.message)}</p></section>`
    : '';
  const errors = Object.entries(result.errors);
  const policyErrors = result.firstPolicyErrors.map((failure) => `<li>step ${failure.step}, ${escapeHtml(failure.agent)}: ${escapeHtml(failure.message)}</li>`).join('');
  const summary = [
    row('scenario', result.scenario),
    row('seed', result.seed),
    row('agents', result.agents),
    row('service time', `${result.start} → ${result.end} (${result.duration}, steps of ${result.stepSeconds} s)`),
    row('steps', `${result.stepsRun} of ${result.steps}`),
    row('agent steps', result.agentSteps),
    row('calls', result.calls),
    row('events', result.events),
    row('policy errors', result.policyErrors),
    row('invariants', result.invariants.length === 0 ? 'none' : result.invariants.join(', ')),
    row('trace SHA-256', result.sha256),
    ...(options.command === undefined ? [] : [row('replay', options.command)]),
    ...(options.elapsedSeconds === undefined ? [] : [row('wall time', `${options.elapsedSeconds.toFixed(1)} s`)]),
  ].join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(`Scenario ${result.scenario}, seed ${result.seed}`)}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #111827; background: #fff; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 24px 0 8px; }
table { border-collapse: collapse; } th, td { text-align: left; padding: 2px 12px 2px 0; vertical-align: top; } th { font-weight: 600; }
td { font-family: ui-monospace, monospace; word-break: break-all; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 24px; }
.chart { position: relative; height: 320px; }
.broken { border: 2px solid #dc2626; padding: 8px 12px; background: #fef2f2; }
.muted { color: #6b7280; }
</style>
</head>
<body>
<h1>${escapeHtml(result.scenario)}</h1>
<p class="muted">${escapeHtml(result.description)}</p>
${broken}
<h2>Summary</h2>
<table>
${summary}
</table>
<div class="charts">
<section><h2>Money held in wallets, per asset</h2><div class="chart"><canvas id="chart-held" aria-label="money held per asset"></canvas></div></section>
<section><h2>Balances of the first agents</h2><div class="chart"><canvas id="chart-agents" aria-label="balances of the first agents"></canvas></div></section>
<section><h2>Messages and SMS per ${escapeHtml(data.bucketName)}</h2><div class="chart"><canvas id="chart-messages" aria-label="messages and SMS"></canvas></div></section>
<section><h2>Events per type</h2><div class="chart"><canvas id="chart-events" aria-label="events per type"></canvas></div></section>
<section><h2>Failures and faults</h2><div class="chart"><canvas id="chart-failures" aria-label="failures and faults"></canvas></div></section>
</div>
<h2>API errors</h2>
${errors.length === 0 ? '<p>none</p>' : `<table>${errors.map(([code, count]) => row(code, count)).join('')}</table>`}
${policyErrors === '' ? '' : `<h2>First policy errors</h2><ul>${policyErrors}</ul>`}
<h2>Events</h2>
<table>${Object.entries(result.eventTypes)
    .map(([type, count]) => row(type, count))
    .join('')}</table>
<script id="report-data" type="application/json">${scriptJson(data)}</script>
<script>${chartJs()}</script>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}
