/**
 * JavaScript run inside QuickJS before the agent's module: console, process, frozen Date, seeded
 * Math.random and crypto.getRandomValues, virtual-time timers, TextEncoder/TextDecoder and the
 * `node:fs`/`node:path` subset. It captures the host bridge `__host` and deletes it from the
 * global object, so the agent's code reaches only what is defined here.
 */
export function guestPrelude(nowMs: number, rngSource: string): string {
  return String.raw`(() => {
'use strict';
const host = globalThis.__host; delete globalThis.__host;
const NOW = ${nowMs};
const nextWord = ${rngSource};
const ExitSignal = class extends Error {};
const call = (name, ...args) => {
  const answer = JSON.parse(host.call(name, JSON.stringify(args)));
  if (answer.err) { const error = new Error(answer.err.message); error.code = answer.err.code; error.syscall = answer.err.syscall; error.path = answer.err.path; throw error; }
  return answer.ok;
};
// --- text encoding (UTF-8) ---
const utf8Encode = (text) => { const out = []; for (const ch of String(text)) { let c = ch.codePointAt(0);
  if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
  if (c < 0x80) out.push(c); else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
  else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63)); } return new Uint8Array(out); };
const utf8Decode = (bytes) => { bytes = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes.buffer ?? bytes, bytes.byteOffset ?? 0, bytes.byteLength); let s = ''; let i = 0;
  while (i < bytes.length) { const b = bytes[i]; let c, n;
    if (b < 0x80) { c = b; n = 1; } else if (b >= 0xc2 && b < 0xe0) { c = b & 31; n = 2; } else if (b >= 0xe0 && b < 0xf0) { c = b & 15; n = 3; } else if (b >= 0xf0 && b < 0xf5) { c = b & 7; n = 4; } else { s += '\ufffd'; i++; continue; }
    if (i + n > bytes.length) { s += '\ufffd'; break; }
    let ok = true; for (let k = 1; k < n; k++) { const x = bytes[i + k]; if ((x & 0xc0) !== 0x80) { ok = false; break; } c = (c << 6) | (x & 63); }
    if (!ok) { s += '\ufffd'; i++; continue; } s += String.fromCodePoint(c); i += n; } return s; };
class TextEncoder { get encoding() { return 'utf-8'; } encode(text = '') { return utf8Encode(text); } }
class TextDecoder { get encoding() { return 'utf-8'; } decode(bytes) { return bytes === undefined ? '' : utf8Decode(bytes); } }
// --- console ---
const inspect = (value, depth = 0, seen = []) => {
  if (typeof value === 'string') return depth === 0 ? value : JSON.stringify(value);
  if (typeof value === 'function') return '[Function: ' + (value.name || 'anonymous') + ']';
  if (typeof value === 'bigint') return value + 'n';
  if (typeof value === 'symbol') return value.toString();
  if (value === null || typeof value !== 'object') return String(value);
  if (value instanceof Error) return value.stack ? value.name + ': ' + value.message + '\n' + value.stack.replace(/\n$/, '') : value.name + ': ' + value.message;
  if (seen.includes(value)) return '[Circular]';
  if (depth > 2) return Array.isArray(value) ? '[Array]' : '[Object]';
  const next = [...seen, value];
  if (Array.isArray(value)) return '[ ' + value.map((v) => inspect(v, depth + 1, next)).join(', ') + ' ]';
  if (value instanceof Uint8Array) return 'Uint8Array(' + value.length + ') [ ' + Array.from(value.slice(0, 50)).join(', ') + ' ]';
  if (value instanceof Map) return 'Map(' + value.size + ') { ' + [...value].map(([k, v]) => inspect(k, depth + 1, next) + ' => ' + inspect(v, depth + 1, next)).join(', ') + ' }';
  if (value instanceof Set) return 'Set(' + value.size + ') { ' + [...value].map((v) => inspect(v, depth + 1, next)).join(', ') + ' }';
  if (value instanceof Date) return value.toISOString();
  const keys = Object.keys(value);
  if (keys.length === 0) return '{}';
  return '{ ' + keys.map((k) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)) + ': ' + inspect(value[k], depth + 1, next)).join(', ') + ' }';
};
const format = (args) => {
  if (typeof args[0] === 'string' && /%[sdifjoO%]/.test(args[0])) {
    let i = 1; const head = args[0].replace(/%([sdifjoO%])/g, (m, f) => { if (f === '%') return '%'; if (i >= args.length) return m; const a = args[i++];
      return f === 's' ? String(a) : f === 'd' || f === 'i' ? String(parseInt(a)) : f === 'f' ? String(Number(a)) : f === 'j' ? JSON.stringify(a) : inspect(a, 1); });
    return [head, ...args.slice(i).map((a) => inspect(a))].join(' ');
  }
  return args.map((a) => inspect(a)).join(' ');
};
const out = (stream) => (...args) => host.write(stream, format(args) + '\n');
const counts = new Map();
const consoleObject = { log: out(1), info: out(1), debug: out(1), error: out(2), warn: out(2), trace: out(2),
  dir: (v) => host.write(1, inspect(v, 1) + '\n'), table: out(1),
  count: (label = 'default') => { const n = (counts.get(label) ?? 0) + 1; counts.set(label, n); host.write(1, label + ': ' + n + '\n'); },
  assert: (ok, ...args) => { if (!ok) host.write(2, 'Assertion failed' + (args.length ? ': ' + format(args) : '') + '\n'); },
  time() {}, timeEnd() {}, group() {}, groupEnd() {} };
// --- time and randomness ---
const RealDate = Date;
class FrozenDate extends RealDate { constructor(...args) { if (args.length === 0) super(NOW); else super(...args); } static now() { return NOW; } }
const random = () => nextWord() / 4294967296;
const getRandomValues = (array) => { const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
  for (let i = 0; i < bytes.length; i += 4) { let w = nextWord(); for (let j = i; j < Math.min(i + 4, bytes.length); j++, w >>>= 8) bytes[j] = w & 255; } return array; };
const randomUUID = () => { const b = getRandomValues(new Uint8Array(16)); b[6] = (b[6] & 15) | 64; b[8] = (b[8] & 63) | 128;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join(''); return h.slice(0, 8) + '-' + h.slice(8, 12) + '-' + h.slice(12, 16) + '-' + h.slice(16, 20) + '-' + h.slice(20); };
// --- timers on virtual time: due callbacks run in (time, order) once the microtasks are drained ---
let timerSeq = 0; const timers = new Map(); let virtualNow = 0;
const addTimer = (fn, ms, args, repeat) => { const id = ++timerSeq; const delay = Math.max(0, Number(ms) || 0);
  timers.set(id, { id, at: virtualNow + delay, seq: id, fn, args, repeat: repeat ? Math.max(1, delay) : 0 }); return id; };
const runNextTimer = () => { let best; for (const t of timers.values()) if (!best || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t;
  if (!best) return false; virtualNow = best.at; if (best.repeat) { best.at += best.repeat; best.seq = ++timerSeq; } else timers.delete(best.id);
  if (typeof best.fn === 'function') best.fn(...best.args); return true; };
// --- process ---
const processObject = { argv: [], env: {}, platform: 'linux', version: 'v20.0.0', versions: {}, exitCode: undefined,
  exit: (code) => { host.exit(code === undefined ? (processObject.exitCode ?? 0) : Number(code) | 0); throw new ExitSignal('process.exit'); },
  cwd: () => '/home/agent', hrtime: Object.assign(() => [0, 0], { bigint: () => 0n }), nextTick: (fn, ...args) => Promise.resolve().then(() => fn(...args)),
  stdout: { write: (s) => { host.write(1, typeof s === 'string' ? s : utf8Decode(s)); return true; } },
  stderr: { write: (s) => { host.write(2, typeof s === 'string' ? s : utf8Decode(s)); return true; } } };
// --- node:path (POSIX) ---
const normalizeParts = (p, absolute) => { const out = []; for (const s of p.split('/')) { if (!s || s === '.') continue; if (s === '..') { if (out.length && out[out.length - 1] !== '..') out.pop(); else if (!absolute) out.push('..'); } else out.push(s); } return out; };
const path = { sep: '/', delimiter: ':',
  normalize(p) { const abs = p.startsWith('/'); const s = normalizeParts(p, abs).join('/'); return (abs ? '/' : '') + (s || (abs ? '' : '.')) + (p.endsWith('/') && s ? '/' : ''); },
  join(...parts) { const joined = parts.filter((x) => x !== '').join('/'); return joined ? path.normalize(joined) : '.'; },
  resolve(...parts) { let r = ''; for (let i = parts.length - 1; i >= 0 && !r.startsWith('/'); i--) r = parts[i] + (r ? '/' + r : ''); if (!r.startsWith('/')) r = '/home/agent/' + r; return '/' + normalizeParts(r, true).join('/'); },
  isAbsolute: (p) => p.startsWith('/'),
  dirname(p) { if (!p) return '.'; const t = p.replace(/\/+$/, '') || '/'; const i = t.lastIndexOf('/'); return i < 0 ? '.' : i === 0 ? '/' : t.slice(0, i); },
  basename(p, ext) { const t = p.replace(/\/+$/, ''); let b = t.slice(t.lastIndexOf('/') + 1); if (ext && b.endsWith(ext) && b !== ext) b = b.slice(0, -ext.length); return b; },
  extname(p) { const b = path.basename(p); const i = b.lastIndexOf('.'); return i <= 0 ? '' : b.slice(i); },
  relative(from, to) { const a = normalizeParts(path.resolve(from), true); const b = normalizeParts(path.resolve(to), true); let i = 0; while (i < a.length && a[i] === b[i]) i++; return [...a.slice(i).map(() => '..'), ...b.slice(i)].join('/'); },
  parse(p) { const root = p.startsWith('/') ? '/' : ''; const base = path.basename(p); const ext = path.extname(p); return { root, dir: path.dirname(p), base, ext, name: ext ? base.slice(0, -ext.length) : base }; },
  format(o) { const dir = o.dir || o.root || ''; const base = o.base || (o.name || '') + (o.ext || ''); return dir ? (dir.endsWith('/') ? dir + base : dir + '/' + base) : base; } };
path.posix = path;
// --- node:fs (a synchronous and a promise subset over the agent's tree) ---
const abs = (p) => { if (p !== null && typeof p === 'object' && typeof p.pathname === 'string') p = p.pathname; return path.resolve(String(p)); };
const encodingOf = (o) => (typeof o === 'string' ? o : o && o.encoding) || null;
const bytesOf = (data, enc) => (typeof data === 'string' ? (enc === 'latin1' || enc === 'binary' ? Uint8Array.from(data, (c) => c.charCodeAt(0) & 255) : utf8Encode(data)) : new Uint8Array(data.buffer ?? data, data.byteOffset ?? 0, data.byteLength));
const makeStats = (s) => ({ size: s.size, mode: s.mode, mtimeMs: s.mtimeMs, mtime: new FrozenDate(s.mtimeMs), ctime: new FrozenDate(s.mtimeMs), birthtime: new FrozenDate(s.mtimeMs),
  isFile: () => s.type === 'file', isDirectory: () => s.type === 'directory', isSymbolicLink: () => false });
const fs = {
  readFileSync(p, o) { const r = host.read(abs(p)); if (typeof r === 'string') { const e = JSON.parse(r).err; const error = new Error(e.message); error.code = e.code; throw error; }
    const bytes = new Uint8Array(r); const enc = encodingOf(o); return enc ? (enc === 'latin1' || enc === 'binary' ? String.fromCharCode(...bytes) : utf8Decode(bytes)) : bytes; },
  writeFileSync(p, data, o) { call('write', abs(p), Array.from(bytesOf(data, encodingOf(o))), false); },
  appendFileSync(p, data, o) { call('write', abs(p), Array.from(bytesOf(data, encodingOf(o))), true); },
  existsSync(p) { try { return call('exists', abs(p)); } catch { return false; } },
  statSync(p, o) { try { return makeStats(call('stat', abs(p))); } catch (e) { if (o && o.throwIfNoEntry === false && e.code === 'ENOENT') return undefined; throw e; } },
  lstatSync(p) { return fs.statSync(p); },
  readdirSync(p, o) { const names = call('readdir', abs(p)); if (!(o && o.withFileTypes)) return names;
    return names.map((name) => { const s = call('stat', abs(path.join(abs(p), name))); return { name, isFile: () => s.type === 'file', isDirectory: () => s.type === 'directory', isSymbolicLink: () => false }; }); },
  mkdirSync(p, o) { call('mkdir', abs(p), !!(o && o.recursive)); },
  rmSync(p, o) { call('rm', abs(p), !!(o && o.recursive), !!(o && o.force)); },
  rmdirSync(p, o) { call('rm', abs(p), !!(o && o.recursive), false); },
  unlinkSync(p) { if (call('stat', abs(p)).type === 'directory') { const e = new Error('EISDIR: illegal operation on a directory, unlink'); e.code = 'EISDIR'; throw e; } call('rm', abs(p), false, false); },
  renameSync(a, b) { call('rename', abs(a), abs(b)); },
  copyFileSync(a, b) { fs.writeFileSync(b, fs.readFileSync(a)); },
  realpathSync(p) { call('stat', abs(p)); return abs(p); },
  accessSync(p) { call('stat', abs(p)); },
  constants: { F_OK: 0, R_OK: 4, W_OK: 2, X_OK: 1 },
};
const promisify = (fn) => (...args) => new Promise((resolve, reject) => { try { resolve(fn(...args)); } catch (e) { reject(e); } });
const promises = { readFile: promisify(fs.readFileSync), writeFile: promisify(fs.writeFileSync), appendFile: promisify(fs.appendFileSync),
  stat: promisify(fs.statSync), lstat: promisify(fs.statSync), readdir: promisify(fs.readdirSync), mkdir: promisify(fs.mkdirSync), rm: promisify(fs.rmSync),
  rmdir: promisify(fs.rmdirSync), unlink: promisify(fs.unlinkSync), rename: promisify(fs.renameSync), copyFile: promisify(fs.copyFileSync),
  realpath: promisify(fs.realpathSync), access: promisify(fs.accessSync) };
fs.promises = promises;
const define = (name, value) => Object.defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
define('console', consoleObject); define('process', processObject); define('Date', FrozenDate);
Math.random = random;
define('crypto', { getRandomValues, randomUUID });
define('TextEncoder', TextEncoder); define('TextDecoder', TextDecoder);
define('setTimeout', (fn, ms, ...args) => addTimer(fn, ms, args, false)); define('setInterval', (fn, ms, ...args) => addTimer(fn, ms, args, true));
define('setImmediate', (fn, ...args) => addTimer(fn, 0, args, false));
define('clearTimeout', (id) => void timers.delete(id)); define('clearInterval', (id) => void timers.delete(id)); define('clearImmediate', (id) => void timers.delete(id));
define('queueMicrotask', (fn) => void Promise.resolve().then(fn));
define('structuredClone', (v) => JSON.parse(JSON.stringify(v)));
define('__sandbox', Object.freeze({ modules: Object.freeze({ fs, promises, path }), runNextTimer, ExitSignal, inspect }));
})();`;
}

/** The source of each importable module, re-exporting the prelude's objects. */
export const GUEST_MODULES: Readonly<Record<string, string>> = (() => {
  const named = (object: string, names: string[]) => `const m = globalThis.__sandbox.modules.${object};\nexport default m;\n` + names.map((n) => `export const ${n} = m.${n};`).join('\n');
  const fsNames = [
    'readFileSync',
    'writeFileSync',
    'appendFileSync',
    'existsSync',
    'statSync',
    'lstatSync',
    'readdirSync',
    'mkdirSync',
    'rmSync',
    'rmdirSync',
    'unlinkSync',
    'renameSync',
    'copyFileSync',
    'realpathSync',
    'accessSync',
    'constants',
    'promises',
  ];
  const promiseNames = ['readFile', 'writeFile', 'appendFile', 'stat', 'lstat', 'readdir', 'mkdir', 'rm', 'rmdir', 'unlink', 'rename', 'copyFile', 'realpath', 'access'];
  const pathNames = ['sep', 'delimiter', 'normalize', 'join', 'resolve', 'isAbsolute', 'dirname', 'basename', 'extname', 'relative', 'parse', 'format', 'posix'];
  const fs = named('fs', fsNames);
  const promises = named('promises', promiseNames);
  const path = named('path', pathNames);
  return { 'node:fs': fs, fs, 'node:fs/promises': promises, 'fs/promises': promises, 'node:path': path, path };
})();
