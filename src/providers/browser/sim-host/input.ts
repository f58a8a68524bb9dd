// Input of the simulated browser: mouse events at layout coordinates, keys and text into the
// focused field, with the default actions clients rely on (focus, click activation, typing,
// Enter submitting a form).
import { elementsAt } from './layout.js';
import type { SimPage } from './sim-page.js';

const FOCUSABLE = /^(INPUT|TEXTAREA|SELECT|BUTTON|A)$/;
let pressed: any;

function targetAt(page: SimPage, x: number, y: number): any {
  return elementsAt(page.layout(), x, y)[0] ?? page.window.document.body ?? page.window.document.documentElement;
}

/** `Input.dispatchMouseEvent`. */
export function dispatchMouse(page: SimPage, params: { type: string; x: number; y: number; button?: string; clickCount?: number }): void {
  const window = page.window;
  const target = targetAt(page, params.x, params.y);
  const init = {
    bubbles: true,
    cancelable: true,
    composed: true,
    clientX: params.x,
    clientY: params.y,
    button: params.button === 'right' ? 2 : params.button === 'middle' ? 1 : 0,
    detail: params.clickCount ?? 1,
    view: window,
  };
  if (params.type === 'mouseMoved') {
    target.dispatchEvent(new window.MouseEvent('mousemove', init));
  } else if (params.type === 'mousePressed') {
    pressed = target;
    const proceed = target.dispatchEvent(new window.MouseEvent('mousedown', init));
    if (proceed) {
      const focusable = closest(target, (element) => FOCUSABLE.test(element.tagName) || element.hasAttribute?.('tabindex'));
      if (focusable) focusable.focus?.();
      else window.document.activeElement?.blur?.();
    }
  } else if (params.type === 'mouseReleased') {
    target.dispatchEvent(new window.MouseEvent('mouseup', init));
    if (pressed === target && (params.button ?? 'left') === 'left') target.click?.() ?? target.dispatchEvent(new window.MouseEvent('click', init));
    pressed = undefined;
  } else if (params.type === 'mouseWheel') {
    target.dispatchEvent(new window.WheelEvent('wheel', init));
  }
}

/** `Input.dispatchKeyEvent`. */
export function dispatchKey(page: SimPage, params: { type: string; key?: string; code?: string; text?: string; windowsVirtualKeyCode?: number }): void {
  const window = page.window;
  const target = window.document.activeElement ?? window.document.body;
  const init = { bubbles: true, cancelable: true, composed: true, key: params.key ?? '', code: params.code ?? '', keyCode: params.windowsVirtualKeyCode ?? 0 };
  if (params.type === 'keyUp') {
    target?.dispatchEvent(new window.KeyboardEvent('keyup', init));
    return;
  }
  if (params.type === 'char') {
    if (params.text) insertText(page, params.text);
    return;
  }
  const proceed = target?.dispatchEvent(new window.KeyboardEvent('keydown', init)) ?? false;
  if (!proceed || params.type === 'rawKeyDown') return;
  if (params.key === 'Enter' && target?.tagName === 'INPUT' && target.form) {
    target.form.requestSubmit?.();
    return;
  }
  if (params.key === 'Backspace' && isTextField(target)) {
    const start = target.selectionStart ?? target.value.length;
    const end = target.selectionEnd ?? start;
    const from = start === end ? Math.max(0, start - 1) : start;
    replaceRange(window, target, from, end, '');
    return;
  }
  if (params.text && params.text !== '\r') insertText(page, params.text);
}

/** `Input.insertText`: replaces the focused field's selection with text. */
export function insertText(page: SimPage, text: string): void {
  const window = page.window;
  const target = window.document.activeElement;
  if (!isTextField(target)) return;
  const length = String(target.value ?? '').length;
  const start = target.selectionStart ?? length;
  const end = target.selectionEnd ?? start;
  replaceRange(window, target, start, end, text);
}

function isTextField(element: any): boolean {
  if (!element) return false;
  if (element.tagName === 'TEXTAREA') return true;
  return element.tagName === 'INPUT' && !/^(checkbox|radio|submit|button|reset|file|hidden|image)$/i.test(String(element.type ?? 'text'));
}

function replaceRange(window: any, field: any, start: number, end: number, text: string): void {
  const value = String(field.value ?? '');
  field.value = value.slice(0, start) + text + value.slice(end);
  const caret = start + text.length;
  try {
    field.setSelectionRange?.(caret, caret);
  } catch {
    // some input types have no selection
  }
  field.dispatchEvent(new window.Event('input', { bubbles: true, composed: true }));
}

function closest(element: any, test: (element: any) => boolean): any {
  for (let current = element; current && current.nodeType === 1; current = current.parentElement) if (test(current)) return current;
  return undefined;
}
