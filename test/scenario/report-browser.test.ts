/**
 * The HTML report in a real Chromium, opened from file:// with no network: it renders its five
 * charts without console errors, and strings a scenario chose (names, messages) stay text.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineScenario, runScenario } from '../../src/index.js';
import { escapeHtml, renderReport, scriptJson } from '../../src/scenario/report-html.js';
import marketplace from '../../examples/scenarios/marketplace.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HAS_CHROMIUM = existsSync(CHROMIUM);
if (!HAS_CHROMIUM) console.warn(`report Chromium tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

const HOSTILE = '</script><img src=x onerror="window.__pwned=1">&amp;';

/** A scenario whose name, agent name in messages and invariant message carry markup. */
const hostile = defineScenario({
  name: HOSTILE,
  description: `<b>${HOSTILE}</b>`,
  agents: 2,
  duration: '1h',
  agent: (index) => ({
    name: `h${index}x`,
    state: {},
    policy: async ({ step }) => {
      if (step === 2) throw new Error(HOSTILE);
    },
  }),
  invariants: { [HOSTILE]: ({ step }) => (step < 3 ? true : HOSTILE) },
});

interface Rendered {
  errors: string[];
  charts: number;
  title: string;
  heading: string;
  pwned: unknown;
  /** Canvas id → whether any pixel was drawn. */
  drawn: Record<string, boolean>;
}

let browser: Browser | undefined;

async function open(html: string): Promise<Rendered> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'scenario-report-'));
  const file = path.join(dir, 'report.html');
  writeFileSync(file, html);
  const page = await browser!.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('request', (request) => {
    if (!request.url().startsWith('file:')) errors.push(`network request: ${request.url()}`);
  });
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  await page.waitForSelector('body[data-charts]');
  // Evaluated in the page (a string: this project compiles without the DOM's types).
  const rendered = (await page.evaluate(`(() => {
    const drawn = {};
    for (const canvas of Array.from(document.querySelectorAll('canvas'))) {
      const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      let any = false;
      for (let i = 3; i < pixels.length && !any; i += 4) any = pixels[i] !== 0;
      drawn[canvas.id] = any && canvas.width > 0;
    }
    return {
      charts: Number(document.body.getAttribute('data-charts')),
      title: document.title,
      heading: document.querySelector('h1').textContent,
      pwned: window.__pwned,
      drawn,
    };
  })()`)) as Omit<Rendered, 'errors'>;
  await page.close();
  return { errors, ...rendered };
}

describe.skipIf(!HAS_CHROMIUM)('the scenario report in Chromium', () => {
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('draws its five charts from file:// with no console error and no network', async () => {
    const result = await runScenario(marketplace, { seed: 2, agents: 8, duration: '6h' });
    const rendered = await open(renderReport(result, { command: 'agent-services scenario run m.ts --seed 2', elapsedSeconds: 1.5 }));
    expect(rendered.errors).toEqual([]);
    expect(rendered.charts).toBe(5);
    expect(rendered.drawn).toEqual({ 'chart-held': true, 'chart-agents': true, 'chart-messages': true, 'chart-events': true, 'chart-failures': true });
    expect(rendered.heading).toBe('marketplace');
  });

  it('shows markup from the scenario as text and runs none of it', async () => {
    const result = await runScenario(hostile, { seed: 1 });
    expect(result.broken?.message).toBe(HOSTILE);
    const html = renderReport(result);
    const rendered = await open(html);
    expect(rendered.errors).toEqual([]);
    expect(rendered.pwned).toBeUndefined();
    expect(rendered.heading).toBe(HOSTILE);
    expect(rendered.title).toBe(`Scenario ${HOSTILE}, seed 1`);
    expect(rendered.charts).toBe(5);
  });
});

describe('report escaping', () => {
  it('escapes HTML text and keeps embedded JSON from closing its script element', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;');
    const json = scriptJson({ text: '</script><!-- \u2028' });
    expect(json).not.toMatch(/[<>&\u2028]/);
    expect(JSON.parse(json)).toEqual({ text: '</script><!-- \u2028' });
  });
});
