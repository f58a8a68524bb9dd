// The simulated browser's layout: deliberately simple, deterministic and documented in
// docs/browser.md. Block elements stack, inline content flows in lines of fixed-width characters,
// form controls are boxes of fixed sizes. It gives elements real geometry, so clients can click
// them and the screenshot shows the page's structure.

/** A rectangle in CSS pixels. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** One thing the screenshot draws, in paint order. */
export type Paint = { kind: 'box'; rect: Rect; fill: number; border: number } | { kind: 'text'; rect: Rect; text: string; color: number; size: number };

/** A laid-out document. */
export interface Layout {
  boxes: Map<any, Rect>;
  /** Elements with boxes, in document order (later ones paint above earlier ones). */
  order: any[];
  paints: Paint[];
  height: number;
}

const HIDDEN = new Set(['HEAD', 'SCRIPT', 'STYLE', 'TEMPLATE', 'NOSCRIPT', 'TITLE', 'META', 'LINK', 'BASE']);
const BLOCK = new Set([
  'HTML',
  'BODY',
  'DIV',
  'P',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'FORM',
  'FIELDSET',
  'LEGEND',
  'UL',
  'OL',
  'LI',
  'DL',
  'DT',
  'DD',
  'SECTION',
  'ARTICLE',
  'HEADER',
  'FOOTER',
  'MAIN',
  'NAV',
  'ASIDE',
  'TABLE',
  'TBODY',
  'THEAD',
  'TR',
  'PRE',
  'BLOCKQUOTE',
  'HR',
  'FIGURE',
  'ADDRESS',
  'DETAILS',
  'SUMMARY',
]);
const HEADING_SIZE: Record<string, number> = { H1: 32, H2: 24, H3: 19, H4: 16, H5: 13, H6: 11 };
const MARGIN: Record<string, number> = { P: 16, UL: 16, OL: 16, DL: 16, FORM: 0, BLOCKQUOTE: 16, PRE: 13, FIELDSET: 8, HR: 8, FIGURE: 16 };
const INDENT: Record<string, number> = { UL: 40, OL: 40, DD: 40, BLOCKQUOTE: 40, FIELDSET: 12 };
const TEXT = 0x111111;
const LINK = 0x1a0dab;

interface Flow {
  left: number;
  width: number;
  x: number;
  y: number;
  lineHeight: number;
}

/** Whether an element takes no space. */
function hidden(element: any): boolean {
  if (HIDDEN.has(element.tagName)) return true;
  if (element.hasAttribute?.('hidden')) return true;
  if (element.tagName === 'INPUT' && String(element.type).toLowerCase() === 'hidden') return true;
  const display = element.style?.display;
  return display === 'none';
}

/** The fixed size of a replaced element or form control, or undefined for ordinary elements. */
function controlSize(element: any, fontSize: number): { width: number; height: number; label: string } | undefined {
  const char = fontSize / 2;
  switch (element.tagName) {
    case 'BUTTON':
      return { width: Math.max(24, String(element.textContent ?? '').trim().length * char + 16), height: 24, label: String(element.textContent ?? '').trim() };
    case 'INPUT': {
      const type = String(element.type ?? 'text').toLowerCase();
      if (type === 'checkbox' || type === 'radio') return { width: 14, height: 14, label: element.checked ? 'x' : '' };
      if (type === 'submit' || type === 'button' || type === 'reset') {
        const label = String(element.value || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : ''));
        return { width: label.length * char + 16, height: 24, label };
      }
      return { width: 200, height: 24, label: type === 'password' ? '*'.repeat(String(element.value ?? '').length) : String(element.value ?? '') };
    }
    case 'TEXTAREA':
      return { width: 300, height: 48, label: String(element.value ?? '') };
    case 'SELECT':
      return { width: 150, height: 24, label: String(element.options?.[element.selectedIndex]?.textContent ?? '') };
    case 'IMG':
      return { width: Number(element.getAttribute('width')) || 100, height: Number(element.getAttribute('height')) || 100, label: '' };
    default:
      return undefined;
  }
}

/** Lays out a document at a viewport width. */
export function layoutDocument(document: any, viewportWidth: number): Layout {
  const layout: Layout = { boxes: new Map(), order: [], paints: [], height: 0 };
  const root = document.documentElement;
  if (!root) return layout;
  const flow: Flow = { left: 0, width: viewportWidth, x: 0, y: 0, lineHeight: 0 };
  block(root, flow, layout, 16, TEXT);
  layout.height = flow.y;
  return layout;
}

function newline(flow: Flow): void {
  if (flow.x > flow.left || flow.lineHeight > 0) flow.y += flow.lineHeight;
  flow.x = flow.left;
  flow.lineHeight = 0;
}

function record(layout: Layout, element: any, rect: Rect): void {
  layout.boxes.set(element, rect);
  layout.order.push(element);
}

function block(element: any, outer: Flow, layout: Layout, fontSize: number, color: number): void {
  newline(outer);
  const tag = element.tagName as string;
  const size = HEADING_SIZE[tag] ?? fontSize;
  const margin = tag === 'BODY' ? 8 : HEADING_SIZE[tag] ? Math.round(size * 0.67) : (MARGIN[tag] ?? 0);
  const indent = tag === 'BODY' ? 8 : (INDENT[tag] ?? 0);
  outer.y += margin;
  const top = outer.y;
  const inner: Flow = { left: outer.left + indent, width: Math.max(0, outer.width - indent - (tag === 'BODY' ? 8 : 0)), x: outer.left + indent, y: top, lineHeight: 0 };
  if (tag === 'FIELDSET') layout.paints.push({ kind: 'box', rect: { x: outer.left + 2, y: top, width: outer.width - 4, height: 0 }, fill: -1, border: 0xc0c0c0 });
  const paintIndex = layout.paints.length - 1;
  const rect: Rect = { x: outer.left, y: top, width: outer.width, height: 0 };
  record(layout, element, rect);
  if (tag === 'HR') {
    layout.paints.push({ kind: 'box', rect: { x: outer.left, y: top, width: outer.width, height: 2 }, fill: 0xc0c0c0, border: -1 });
    inner.y += 2;
  } else {
    children(element, inner, layout, size, color);
  }
  newline(inner);
  rect.height = inner.y - top + (tag === 'FIELDSET' ? 8 : 0);
  if (tag === 'FIELDSET') (layout.paints[paintIndex] as { rect: Rect }).rect.height = rect.height;
  outer.y = top + rect.height + margin;
  outer.x = outer.left;
  outer.lineHeight = 0;
}

function children(element: any, flow: Flow, layout: Layout, fontSize: number, color: number): void {
  for (const child of element.childNodes) {
    if (child.nodeType === 3) text(String(child.textContent ?? ''), flow, layout, fontSize, color);
    else if (child.nodeType === 1 && !hidden(child)) {
      if (BLOCK.has(child.tagName)) block(child, flow, layout, fontSize, color);
      else inline(child, flow, layout, fontSize, child.tagName === 'A' ? LINK : color);
    }
  }
}

function text(content: string, flow: Flow, layout: Layout, fontSize: number, color: number): void {
  const char = fontSize / 2;
  const lineHeight = Math.round(fontSize * 1.25);
  for (const word of content.split(/\s+/)) {
    if (!word) continue;
    const width = word.length * char;
    if (flow.x + width > flow.left + flow.width && flow.x > flow.left) newline(flow);
    layout.paints.push({ kind: 'text', rect: { x: flow.x, y: flow.y, width, height: lineHeight }, text: word, color, size: fontSize });
    flow.x += width + char;
    flow.lineHeight = Math.max(flow.lineHeight, lineHeight);
  }
}

function inline(element: any, flow: Flow, layout: Layout, fontSize: number, color: number): void {
  const control = controlSize(element, fontSize);
  if (control) {
    if (flow.x + control.width > flow.left + flow.width && flow.x > flow.left) newline(flow);
    const rect = { x: flow.x, y: flow.y, width: control.width, height: control.height };
    record(layout, element, rect);
    const isButton = element.tagName === 'BUTTON' || /^(submit|button|reset)$/i.test(String(element.type ?? ''));
    layout.paints.push({ kind: 'box', rect, fill: isButton ? 0xe9e9ed : element.tagName === 'IMG' ? 0xd0d0d0 : 0xffffff, border: 0x767676 });
    if (control.label) layout.paints.push({ kind: 'text', rect: { x: rect.x + 6, y: rect.y + 2, width: control.width - 12, height: 20 }, text: control.label, color: TEXT, size: 13 });
    flow.x += control.width + 4;
    flow.lineHeight = Math.max(flow.lineHeight, control.height + 2);
    return;
  }
  const start = layout.paints.length;
  const startPosition = { x: flow.x, y: flow.y };
  record(layout, element, { x: flow.x, y: flow.y, width: 0, height: 0 });
  const size = element.tagName === 'SMALL' ? fontSize * 0.8 : fontSize;
  children(element, flow, layout, size, color);
  const added = layout.paints.slice(start).map((paint) => paint.rect);
  if (added.length === 0) return;
  const left = Math.min(startPosition.x, ...added.map((r) => r.x));
  const top = Math.min(startPosition.y, ...added.map((r) => r.y));
  const right = Math.max(...added.map((r) => r.x + r.width));
  const bottom = Math.max(...added.map((r) => r.y + r.height));
  layout.boxes.set(element, { x: left, y: top, width: right - left, height: bottom - top });
}

/** The elements at a point, topmost first. */
export function elementsAt(layout: Layout, x: number, y: number): any[] {
  const hits: any[] = [];
  for (const element of layout.order) {
    const rect = layout.boxes.get(element)!;
    if (x >= rect.x && x < rect.x + rect.width && y >= rect.y && y < rect.y + rect.height) hits.push(element);
  }
  return hits.reverse();
}
