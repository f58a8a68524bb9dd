// Geometry for happy-dom, which has no layout: element boxes, hit testing and intersection
// observation answer from the simulated browser's simple layout, so clients' visibility checks,
// scrolling and clicks behave as in a browser.
import { elementsAt, layoutDocument, type Layout, type Rect } from './layout.js';

/** Where a page's geometry comes from. */
export interface Geometry {
  layout(): Layout;
  viewport(): { width: number; height: number };
}

function domRect(window: any, rect: Rect | undefined): any {
  const { x, y, width, height } = rect ?? { x: 0, y: 0, width: 0, height: 0 };
  const plain = { x, y, width, height, top: y, left: x, right: x + width, bottom: y + height };
  return { ...plain, toJSON: () => plain };
}

const geometries = new WeakMap<object, Geometry>();
const patched = new WeakSet<object>();

/** The prototype in an object's chain that defines `name` itself. */
function owner(object: any, name: string): any {
  for (let proto = Object.getPrototypeOf(object); proto; proto = Object.getPrototypeOf(proto)) {
    if (Object.prototype.hasOwnProperty.call(proto, name)) return proto;
  }
  return undefined;
}

/**
 * Installs the geometry of one window (called for each new document). happy-dom's element
 * classes are shared by every window of the process, so their prototypes are patched once and
 * find the geometry through the element's document.
 */
export function installGeometry(window: any, geometry: Geometry): void {
  const document = window.document;
  geometries.set(document, geometry);
  const sample = document.createElement('div');
  const geometryOf = (node: any) => geometries.get(node?.ownerDocument ?? node);
  const elementProto = owner(sample, 'getBoundingClientRect');
  if (elementProto && !patched.has(elementProto)) {
    patched.add(elementProto);
    elementProto.getBoundingClientRect = function (this: any) {
      return domRect(window, geometryOf(this)?.layout().boxes.get(this));
    };
    elementProto.getClientRects = function (this: any) {
      const rect = geometryOf(this)?.layout().boxes.get(this);
      return rect && (rect.width > 0 || rect.height > 0) ? [domRect(window, rect)] : [];
    };
    elementProto.scrollIntoView = function () {};
    elementProto.scrollIntoViewIfNeeded = function () {};
    for (const [name, pick] of [
      ['clientWidth', 'width'],
      ['clientHeight', 'height'],
      ['offsetWidth', 'width'],
      ['offsetHeight', 'height'],
    ] as const) {
      const proto = owner(sample, name) ?? elementProto;
      Object.defineProperty(proto, name, {
        configurable: true,
        get(this: any) {
          const found = geometryOf(this);
          if (!found) return 0;
          if (this === this.ownerDocument?.documentElement && name.startsWith('client')) return found.viewport()[pick];
          return found.layout().boxes.get(this)?.[pick] ?? 0;
        },
      });
    }
  }
  const documentProto = owner(document, 'elementFromPoint');
  if (documentProto && !patched.has(documentProto)) {
    patched.add(documentProto);
    documentProto.elementFromPoint = function (this: any, x: number, y: number) {
      const found = geometries.get(this);
      return found ? (elementsAt(found.layout(), x, y)[0] ?? null) : null;
    };
    documentProto.elementsFromPoint = function (this: any, x: number, y: number) {
      const found = geometries.get(this);
      return found ? elementsAt(found.layout(), x, y) : [];
    };
  }
  // happy-dom leaves `visibility` empty unless a style sets it; browsers compute "visible".
  const computed = window.getComputedStyle.bind(window);
  window.getComputedStyle = (element: any, pseudo?: string) => {
    const style = computed(element, pseudo);
    return new Proxy(style, {
      get(target, key) {
        if (key === 'visibility') return target.visibility || 'visible';
        if (key === 'getPropertyValue') return (name: string) => (name === 'visibility' ? target.visibility || 'visible' : target.getPropertyValue(name));
        const value = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  };
  window.IntersectionObserver = class IntersectionObserver {
    private readonly targets = new Set<any>();
    constructor(private readonly callback: (entries: any[], observer: unknown) => void) {}
    observe(target: any): void {
      this.targets.add(target);
      window.setTimeout(() => {
        if (!this.targets.has(target)) return;
        const rect = geometry.layout().boxes.get(target) ?? { x: 0, y: 0, width: 0, height: 0 };
        const view = geometry.viewport();
        const visibleWidth = Math.max(0, Math.min(rect.x + rect.width, view.width) - Math.max(rect.x, 0));
        const visibleHeight = Math.max(0, Math.min(rect.y + rect.height, view.height) - Math.max(rect.y, 0));
        const area = rect.width * rect.height;
        const ratio = area > 0 ? (visibleWidth * visibleHeight) / area : 0;
        this.callback([{ target, intersectionRatio: ratio, isIntersecting: ratio > 0, boundingClientRect: domRect(window, rect), intersectionRect: domRect(window, rect), rootBounds: null, time: 0 }], this);
      }, 0);
    }
    unobserve(target: any): void {
      this.targets.delete(target);
    }
    disconnect(): void {
      this.targets.clear();
    }
    takeRecords(): any[] {
      return [];
    }
  };
}

/** Lays out a window's document at a width. */
export function layoutOf(window: any, width: number): Layout {
  return layoutDocument(window.document, width);
}
