/** Generation of strings: formats, hints from the property name, lengths, patterns. */
import { regex, type Ctx } from './context.js';
import { ok, pickScalar, type Frame, type Gen } from './frame.js';
import { cpLength, cpSlice, hasOwn, isNum, own, pathText, show } from './json.js';
import { ARGUMENT_LIMITS } from './limits.js';
import { patternStrings } from './regex.js';
import type { SchemaObject } from './types.js';
import { formatCheck } from './validate.js';
import { memo } from './memo.js';

/**
 * Where the URLs the generator makes up point: a loopback address, never a public host. A run sets it to the listener
 * it owns (core/url-sink.ts: it answers 404); without one, a loopback port nothing is expected to listen on.
 */
const DEFAULT_URL_BASE = 'http://127.0.0.1:65535';
let urlBase = DEFAULT_URL_BASE;

/** Point generated URLs at this base (`http://127.0.0.1:PORT`; undefined: the default). Remembered results are dropped. */
export function setGeneratedUrlBase(base: string | undefined): void {
  const next = base ?? DEFAULT_URL_BASE;
  if (next === urlBase) return;
  urlBase = next;
  for (const f of URL_FORMATS) FORMAT_VALUES[f] = `${urlBase}/`;
  FORMAT_VALUES.url = `${namedBase()}/`;
  FORMAT_VALUES['uri-template'] = `${urlBase}/{id}`;
  memo.clear();
}

const URL_FORMATS = ['uri', 'iri', 'uri-reference', 'iri-reference'];

/**
 * The base for format "url", whose definition (ajv-formats) wants a host name with a top-level domain and refuses
 * loopback addresses: a name under .localhost, which is reserved for loopback (RFC 6761) and never a public host.
 */
function namedBase(): string {
  return urlBase.replace('//127.0.0.1', '//mcp-conform.localhost');
}

/** Values for formats; each is valid for ajv-formats' "full" definitions. */
export const FORMAT_VALUES: Record<string, string> = {
  'date-time': '2025-01-01T00:00:00Z',
  'iso-date-time': '2025-01-01T00:00:00Z',
  date: '2025-01-01',
  time: '12:00:00Z',
  'iso-time': '12:00:00Z',
  duration: 'P1D',
  email: 'user@example.com',
  'idn-email': 'user@example.com',
  uri: `${DEFAULT_URL_BASE}/`,
  url: 'http://mcp-conform.localhost:65535/',
  iri: `${DEFAULT_URL_BASE}/`,
  'uri-reference': `${DEFAULT_URL_BASE}/`,
  'iri-reference': `${DEFAULT_URL_BASE}/`,
  'uri-template': `${DEFAULT_URL_BASE}/{id}`,
  uuid: '123e4567-e89b-42d3-a456-426614174000',
  ipv4: '127.0.0.1',
  ipv6: '::1',
  hostname: 'localhost',
  'idn-hostname': 'localhost',
  byte: 'ZXhhbXBsZQ==',
  regex: '^example$',
  'json-pointer': '/example',
  'json-pointer-uri-fragment': '#/example',
  'relative-json-pointer': '0',
  password: 'example',
  binary: 'example',
  // Formats ajv does not know, seen in the wild (pydantic, OpenAPI): plausible values.
  'file-path': 'README.md',
  'directory-path': '.',
  path: 'README.md',
  'multi-line': 'example',
  textarea: 'example',
  color: '#336699',
  phone: '+1-555-0100',
};

export const NUMBER_FORMATS = new Set(['int32', 'int64', 'float', 'double']);

/** The i-th distinct value of a format (i = 0 is FORMAT_VALUES), for uniqueItems. */
export function formatVariant(format: string, i: number): string | undefined {
  const base = hasOwn(FORMAT_VALUES, format) ? FORMAT_VALUES[format] : undefined;
  if (base === undefined || i === 0) return base;
  const dd = String((i % 28) + 1).padStart(2, '0');
  const n = i + 1;
  switch (format) {
    case 'date-time':
    case 'iso-date-time':
      return `2025-01-${dd}T${String(Math.floor(i / 28) % 24).padStart(2, '0')}:00:00Z`;
    case 'date':
      return `${2025 + Math.floor(i / 28)}-01-${dd}`;
    case 'time':
    case 'iso-time':
      return `12:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}Z`;
    case 'duration':
      return `P${n}D`;
    case 'email':
    case 'idn-email':
      return `user${n}@example.com`;
    case 'url':
      return `${namedBase()}/${n}`;
    case 'uri':
    case 'iri':
    case 'uri-reference':
    case 'iri-reference':
      return `${urlBase}/${n}`;
    case 'uri-template':
      return `${urlBase}/${n}/{id}`;
    case 'uuid':
      return `123e4567-e89b-42d3-a456-${String(426614174000 + i).padStart(12, '0')}`;
    case 'ipv4':
      return `127.0.${Math.floor(i / 250) % 250}.${(i % 250) + 1}`;
    case 'ipv6':
      return `::${n.toString(16)}`;
    case 'hostname':
    case 'idn-hostname':
      return `host${n}.localhost`;
    case 'byte':
      return btoa(`example${n}`);
    case 'regex':
      return `^example${n}$`;
    case 'json-pointer':
      return `/example${n}`;
    case 'json-pointer-uri-fragment':
      return `#/example${n}`;
    case 'relative-json-pointer':
      return String(i);
    default:
      return `${base}-${n}`;
  }
}

/** Friendly strings suggested by a property name (split into words: `imageUrl`, `file_path`). */
export function hintStrings(hint: string): string[] {
  const words = hint
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const any = (test: (w: string) => boolean) => words.some(test);
  const out: string[] = [];
  if (any((w) => /^(ur[il]s?|links?|hrefs?|endpoints?|websites?|\w*url)$/.test(w))) out.push(`${urlBase}/`);
  if (any((w) => /^e?mails?$|^email/.test(w))) out.push('user@example.com');
  if (any((w) => /^(paths?|files?|filenames?|\w*path)$/.test(w) || w.startsWith('file'))) out.push('README.md');
  if (any((w) => /^host(name)?s?$/.test(w))) out.push('localhost');
  if (any((w) => /^(names?|titles?|labels?|\w+name)$/.test(w))) out.push('mcp-conform');
  if (any((w) => /^(lang|language|locale)s?$/.test(w))) out.push('en');
  return out;
}

export function synthString(
  conj: SchemaObject[],
  ctx: Ctx,
  frame: Frame,
  hint: string,
  variant: number,
  exclude: unknown[],
): Gen {
  const where = pathText(frame.path);
  const notes: string[] = [];
  let minLen = 0;
  let maxLen = Infinity;
  const patterns: string[] = [];
  const formats: string[] = [];
  for (const s of conj) {
    const a = own(s, 'minLength');
    const b = own(s, 'maxLength');
    if (isNum(a)) minLen = Math.max(minLen, Math.ceil(a));
    if (isNum(b)) maxLen = Math.min(maxLen, Math.floor(b));
    const p = own(s, 'pattern');
    if (typeof p === 'string') {
      if (regex(ctx, p)) patterns.push(p);
      else notes.push(`${where}: pattern ${show(p)} is not a valid regular expression (with the "u" flag); ignored`);
    }
    const f = own(s, 'format');
    if (typeof f === 'string' && !formats.includes(f)) formats.push(f);
  }
  for (const f of formats) {
    if (!hasOwn(FORMAT_VALUES, f) && !NUMBER_FORMATS.has(f) && !formatCheck(f))
      notes.push(`${where}: format ${show(f)} is not known; sent a plain string`);
  }
  const capped = minLen > ARGUMENT_LIMITS.maxStringLength;
  if (capped) {
    notes.push(`${where}: minLength ${minLen} capped at ${ARGUMENT_LIMITS.maxStringLength}`);
    minLen = ARGUMENT_LIMITS.maxStringLength;
  }
  const fit = (c: string): string[] => {
    const len = cpLength(c);
    if (len < minLen)
      return [
        c,
        c + 'x'.repeat(minLen - len),
        c.repeat(Math.ceil(minLen / Math.max(1, len))).slice(0, Math.max(minLen, c.length)),
      ];
    if (len > maxLen) return [cpSlice(c, Math.max(0, maxLen))];
    return [c];
  };
  const bases = function* (): Generator<string> {
    // A declared format's own value first (format "url" wants a named host, which a name hint's loopback URL is not).
    for (const f of formats) if (hasOwn(FORMAT_VALUES, f)) yield FORMAT_VALUES[f];
    yield* hintStrings(hint);
    yield 'example';
    yield 'mcp-conform';
    for (const p of patterns) yield* patternStrings(p, ctx, minLen, maxLen, 0);
    yield* ['a', 'x', 'A', '1', '0', 'example-1', ''];
    for (let i = 2; i < 60; i++) {
      for (const f of formats) {
        const fv = formatVariant(f, i - 1);
        if (fv !== undefined) yield fv;
      }
      yield `example-${i}`;
      for (const p of patterns) yield* patternStrings(p, ctx, minLen, maxLen, i);
    }
  };
  const cands = (function* () {
    for (const base of bases())
      for (const c of fit(base)) if (cpLength(c) <= ARGUMENT_LIMITS.maxStringLength || capped) yield c;
  })();
  const describe = () => {
    if (minLen > maxLen) return `${where}: minLength ${minLen} is greater than maxLength ${maxLen}`;
    if (patterns.length)
      return `${where}: could not generate a string matching pattern ${patterns.map((p) => show(p)).join(' and ')}`;
    const f = formats.filter((x) => !NUMBER_FORMATS.has(x));
    if (f.length)
      return `${where}: could not generate a string of format ${f.map((x) => show(x)).join(' and ')} that satisfies the schema`;
    return undefined;
  };
  let r = pickScalar(cands, conj, ctx, frame, variant, exclude, 'string', describe);
  if (!ok(r) && (!r.has || typeof r.value !== 'string' || cpLength(r.value) < minLen || cpLength(r.value) > maxLen)) {
    // Send at least a string of an allowed length.
    r = {
      has: true,
      value: cpSlice('example'.padEnd(minLen, 'x'), Math.max(0, Math.min(maxLen, Math.max(minLen, 7)))),
      notes: r.notes,
    };
  }
  if (notes.length) r = { ...r, notes: [...notes, ...r.notes] };
  return r;
}
