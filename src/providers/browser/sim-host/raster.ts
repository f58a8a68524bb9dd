import type { Layout } from './layout.js';
import { encodePng } from './png.js';

/**
 * Draws a laid-out page into a PNG of the viewport: a white page, boxes of form controls and
 * rules, and text "greeked" — each character a solid block of the text's colour in a cell of the
 * font's width — so the picture shows where text is without needing a font.
 */
export function renderPng(layout: Layout, width: number, height: number): Buffer {
  const pixels = new Uint8Array(width * height * 3).fill(255);
  const fill = (x0: number, y0: number, w: number, h: number, color: number) => {
    const left = Math.max(0, Math.round(x0));
    const top = Math.max(0, Math.round(y0));
    const right = Math.min(width, Math.round(x0 + w));
    const bottom = Math.min(height, Math.round(y0 + h));
    const r = (color >> 16) & 0xff;
    const g = (color >> 8) & 0xff;
    const b = color & 0xff;
    for (let y = top; y < bottom; y++) {
      for (let x = left; x < right; x++) {
        const at = (y * width + x) * 3;
        pixels[at] = r;
        pixels[at + 1] = g;
        pixels[at + 2] = b;
      }
    }
  };
  for (const paint of layout.paints) {
    const { x, y, width: w, height: h } = paint.rect;
    if (paint.kind === 'box') {
      if (paint.fill >= 0) fill(x, y, w, h, paint.fill);
      if (paint.border >= 0) {
        fill(x, y, w, 1, paint.border);
        fill(x, y + h - 1, w, 1, paint.border);
        fill(x, y, 1, h, paint.border);
        fill(x + w - 1, y, 1, h, paint.border);
      }
    } else {
      const cell = paint.size / 2;
      const glyphHeight = Math.max(2, Math.round(paint.size * 0.6));
      const glyphTop = y + Math.round((h - glyphHeight) / 2);
      [...paint.text].forEach((character, index) => {
        if (character.trim()) fill(x + index * cell + 1, glyphTop, Math.max(1, cell - 2), glyphHeight, paint.color);
      });
    }
  }
  return encodePng(width, height, pixels);
}
