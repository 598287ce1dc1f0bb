/** `$ref` resolution inside one inputSchema: JSON pointers, plain-name anchors, `$recursiveRef` and `$dynamicRef`. */
import type { Ctx } from './context.js';
import { hasOwn, isObj, own } from './json.js';
import type { SchemaObject } from './types.js';

export function collectAnchors(ctx: Ctx): Map<string, unknown> {
  const anchors = new Map<string, unknown>();
  const seen = new Set<object>();
  const stack: unknown[] = [ctx.root];
  let budget = 20_000;
  while (stack.length && budget-- > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    if (Array.isArray(node)) {
      for (const x of node) stack.push(x);
      continue;
    }
    const n = node as SchemaObject;
    for (const k of ['$anchor', '$dynamicAnchor']) {
      const a = own(n, k);
      if (typeof a === 'string' && !anchors.has(a)) anchors.set(a, n);
    }
    const id = own(n, '$id') ?? own(n, 'id');
    if (typeof id === 'string' && id.startsWith('#') && !anchors.has(id.slice(1))) anchors.set(id.slice(1), n);
    for (const k of Object.keys(n))
      if (k !== 'enum' && k !== 'const' && k !== 'default' && k !== 'examples') stack.push(n[k]);
  }
  return anchors;
}

/** Resolves a `$ref` inside the input schema (JSON pointer or plain-name anchor). */
export function resolveRef(ctx: Ctx, ref: string): { schema: unknown } | undefined {
  let r = ref;
  const rootId = isObj(ctx.root) ? own(ctx.root, '$id') : undefined;
  if (typeof rootId === 'string' && rootId && r.startsWith(rootId.replace(/#$/, '')))
    r = r.slice(rootId.replace(/#$/, '').length);
  if (r === '' || r === '#') return { schema: ctx.root };
  if (!r.startsWith('#')) return undefined;
  let frag = r.slice(1);
  try {
    frag = decodeURIComponent(frag);
  } catch {
    /* keep as is */
  }
  if (frag.startsWith('/')) {
    let node: unknown = ctx.root;
    for (const raw of frag.slice(1).split('/')) {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      if (Array.isArray(node)) {
        if (!/^\d+$/.test(key) || Number(key) >= node.length) return undefined;
        node = node[Number(key)];
      } else if (isObj(node) && hasOwn(node, key)) {
        node = node[key];
      } else {
        return undefined;
      }
    }
    return { schema: node };
  }
  ctx.anchors ??= collectAnchors(ctx);
  return ctx.anchors.has(frag) ? { schema: ctx.anchors.get(frag) } : undefined;
}

export const REF_KEYWORDS = ['$ref', '$recursiveRef', '$dynamicRef'] as const;

export function refTarget(ctx: Ctx, kw: string, ref: string): { schema: unknown } | undefined {
  if (kw === '$recursiveRef') return { schema: ctx.root };
  const found = resolveRef(ctx, ref);
  if (!found && kw === '$dynamicRef') return { schema: ctx.root };
  return found;
}
