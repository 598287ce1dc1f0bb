/**
 * Comparing two JSON Schemas of a tool (inputSchema or outputSchema) by what they let through.
 *
 * Input direction: a change that refuses values the old schema accepted breaks callers (narrowing); one that accepts
 * more is compatible (widening). Output direction: the other way round (see rules.ts).
 *
 * Compared: type (sets, integer ⊂ number), enum/const, numeric and length bounds, multipleOf, pattern, format,
 * uniqueItems, properties/required/additionalProperties of objects at any depth, items/prefixItems of arrays,
 * anyOf/oneOf branches (matched by content, then by type), allOf member by member, local $ref (#/…) resolved
 * against the schema's own root at every level (a cycle is compared once), boolean schemas. Not compared — reported
 * as undecided (breaking) when they differ: not, if/then/else, patternProperties, propertyNames, dependencies,
 * dependentRequired/dependentSchemas, contains, unevaluated*, $ref to another document, $dynamicRef, a tuple whose
 * length changed, anyOf ↔ oneOf, anything deeper than 64 levels.
 */
import { isObject } from './snapshot.js';
import type { RuleId } from './rules.js';

export type Emit = (rule: RuleId, path: string, message: string, before?: unknown, after?: unknown) => void;

type Mode = 'input' | 'output';

const TEXT_KEYWORDS = new Set([
  'title',
  'description',
  'examples',
  '$comment',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$schema',
  '$id',
  'markdownDescription',
  'enumDescriptions',
]);
/** Keywords compared by code below (or containers of definitions compared through $ref). */
const HANDLED = new Set([
  'type',
  'enum',
  'const',
  'default',
  'maximum',
  'exclusiveMaximum',
  'maxLength',
  'maxItems',
  'maxProperties',
  'minimum',
  'exclusiveMinimum',
  'minLength',
  'minItems',
  'minProperties',
  'multipleOf',
  'pattern',
  'format',
  'uniqueItems',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'prefixItems',
  'additionalItems',
  'anyOf',
  'oneOf',
  'allOf',
  '$ref',
  '$defs',
  'definitions',
  'nullable',
]);
const UPPER = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties'];
const LOWER = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'];
const MAX_DEPTH = 64;

/** A JSON pointer segment. */
export function esc(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function canon(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canon).join(',')}]`;
  if (isObject(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canon(v[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'undefined';
}

function show(v: unknown, max = 80): string {
  const s = JSON.stringify(v) ?? 'nothing';
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

interface Side {
  root: unknown;
}

class SchemaComparison {
  private seen = new Set<string>();

  constructor(
    private readonly mode: Mode,
    private readonly emit: Emit,
    private readonly oldSide: Side,
    private readonly newSide: Side,
  ) {}

  private rule(input: RuleId, output: RuleId): RuleId {
    return this.mode === 'input' ? input : output;
  }

  /** Values accepted before are refused now. */
  private narrowed(
    kind: 'type' | 'enum' | 'bound' | 'union',
    path: string,
    message: string,
    before?: unknown,
    after?: unknown,
  ): void {
    const r = (
      {
        type: ['input.type-narrowed', 'output.type-narrowed'],
        enum: ['input.enum-narrowed', 'output.enum-narrowed'],
        bound: ['input.bound-stricter', 'output.bound-stricter'],
        union: ['input.union-branch-removed', 'output.union-branch-removed'],
      } as const
    )[kind];
    this.emit(this.rule(r[0], r[1]), path, message, before, after);
  }

  /** More values are accepted now. */
  private widened(
    kind: 'type' | 'enum' | 'bound' | 'union',
    path: string,
    message: string,
    before?: unknown,
    after?: unknown,
  ): void {
    const r = (
      {
        type: ['input.type-widened', 'output.type-changed'],
        enum: ['input.enum-widened', 'output.enum-widened'],
        bound: ['input.bound-looser', 'output.bound-looser'],
        union: ['input.union-branch-added', 'output.union-branch-added'],
      } as const
    )[kind];
    this.emit(this.rule(r[0], r[1]), path, message, before, after);
  }

  private undecided(path: string, message: string, before?: unknown, after?: unknown): void {
    this.emit(
      this.rule('input.undecided', 'output.undecided'),
      path,
      `could not decide whether this is compatible: ${message}`,
      before,
      after,
    );
  }

  /** Follows local $refs (with a bound); returns the schema and the refs it went through, or a problem. */
  private deref(s: unknown, side: Side): { schema: unknown; via: string[]; problem?: string } {
    const via: string[] = [];
    let cur = s;
    for (let i = 0; i < 32 && isObject(cur) && typeof cur.$ref === 'string'; i++) {
      const ref = cur.$ref;
      if (!ref.startsWith('#')) return { schema: cur, via, problem: `$ref ${ref} points outside the schema` };
      const target = resolvePointer(side.root, ref.slice(1));
      if (target === undefined) return { schema: cur, via, problem: `$ref ${ref} does not resolve` };
      via.push(ref);
      const { $ref: _r, ...siblings } = cur;
      // Siblings of $ref (2019-09 and later) apply too: taken as overriding the target's keywords (an approximation).
      cur = Object.keys(siblings).length && isObject(target) ? { ...target, ...siblings } : target;
    }
    return { schema: cur, via };
  }

  compare(o: unknown, n: unknown, path: string, depth = 0): void {
    // Equal text is an equal schema, unless a $ref inside may resolve to definitions that differ.
    if (canon(o) === canon(n) && !containsRef(o)) return;
    if (depth > MAX_DEPTH) {
      if (canon(o) !== canon(n)) this.undecided(path, `nested deeper than ${MAX_DEPTH} levels`);
      return;
    }
    const ro = this.deref(o, this.oldSide);
    const rn = this.deref(n, this.newSide);
    if (ro.problem || rn.problem) {
      if (canon(o) !== canon(n)) this.undecided(path, (ro.problem ?? rn.problem)!, o, n);
      return;
    }
    if (ro.via.length || rn.via.length) {
      const key = `${ro.via.join('>')}|${rn.via.join('>')}|${this.mode}`;
      if (this.seen.has(key)) return; // a recursive definition: compared once
      this.seen.add(key);
    }
    o = ro.schema;
    n = rn.schema;
    if (canon(o) === canon(n) && !containsRef(o)) return;
    // Boolean schemas: true (and {}) accepts anything, false nothing.
    if (o === false || n === false) {
      if (o === false)
        this.widened(
          'type',
          path,
          `the schema accepted nothing (false) and now accepts ${n === true ? 'anything' : 'values'}`,
          o,
          n,
        );
      else this.narrowed('type', path, 'the schema now accepts nothing (false)', o, n);
      return;
    }
    const os: Record<string, unknown> = o === true ? {} : isObject(o) ? o : {};
    const ns: Record<string, unknown> = n === true ? {} : isObject(n) ? n : {};
    if ((o !== true && !isObject(o)) || (n !== true && !isObject(n))) {
      this.undecided(path, `not a schema object (${show(o)} → ${show(n)})`, o, n);
      return;
    }
    this.text(os, ns, path);
    const union = (s: Record<string, unknown>) =>
      s.anyOf !== undefined ? 'anyOf' : s.oneOf !== undefined ? 'oneOf' : undefined;
    const uo = union(os);
    const un = union(ns);
    if (uo || un) {
      if (uo && un && uo !== un) {
        this.undecided(`${path}/${un}`, `${uo} became ${un}`, os[uo], ns[un]);
        return;
      }
      if (os.anyOf !== undefined && os.oneOf !== undefined) {
        this.undecided(path, 'anyOf and oneOf side by side');
        return;
      }
      if (ns.anyOf !== undefined && ns.oneOf !== undefined) {
        this.undecided(path, 'anyOf and oneOf side by side');
        return;
      }
      const kw = (uo ?? un)!;
      if (uo && un) {
        this.keywords(strip(os, [kw]), strip(ns, [kw]), path, depth);
        this.unions(arr(os[kw]), arr(ns[kw]), `${path}/${kw}`, depth);
      } else {
        // One side is a union, the other a plain schema: the plain one is a union of one branch (a value of it
        // matched that branch), when the union side has no constraints of its own besides the union.
        const plainSide = uo ? ns : os;
        const unionSide = uo ? os : ns;
        if (Object.keys(constraints(strip(unionSide, [kw]))).length) {
          this.undecided(
            `${path}/${kw}`,
            `${uo ? 'a union was replaced by a plain schema' : 'a plain schema became a union'} beside other constraints`,
            o,
            n,
          );
          return;
        }
        const plain = constraints(plainSide);
        if (uo) this.unions(arr(os[kw]), [plain], `${path}/${kw}`, depth);
        else this.unions([plain], arr(ns[kw]), `${path}/${kw}`, depth);
      }
      return;
    }
    this.keywords(os, ns, path, depth);
  }

  private text(os: Record<string, unknown>, ns: Record<string, unknown>, path: string): void {
    for (const k of new Set([...Object.keys(os), ...Object.keys(ns)])) {
      if (!(TEXT_KEYWORDS.has(k) || k.startsWith('x-')) || canon(os[k]) === canon(ns[k])) continue;
      const what = os[k] === undefined ? 'added' : ns[k] === undefined ? 'removed' : 'changed';
      this.emit(this.rule('input.text', 'output.text'), `${path}/${esc(k)}`, `${k} ${what}`, os[k], ns[k]);
    }
    if (this.mode === 'output' && canon(os.default) !== canon(ns.default))
      this.emit('output.text', `${path}/default`, 'default changed', os.default, ns.default);
  }

  private keywords(os: Record<string, unknown>, ns: Record<string, unknown>, path: string, depth: number): void {
    this.types(os, ns, path);
    this.values(os, ns, path);
    if (this.mode === 'input' && canon(os.default) !== canon(ns.default)) {
      this.emit(
        'input.default-changed',
        `${path}/default`,
        `the default changed from ${show(os.default)} to ${show(ns.default)}: a call that leaves this out now means something else`,
        os.default,
        ns.default,
      );
    }
    this.bounds(os, ns, path);
    this.objects(os, ns, path, depth);
    this.arrays(os, ns, path, depth);
    if (canon(os.allOf) !== canon(ns.allOf)) {
      const a = arr(os.allOf);
      const b = arr(ns.allOf);
      if (a.length === b.length) a.forEach((x, i) => this.compare(x, b[i], `${path}/allOf/${i}`, depth + 1));
      else this.undecided(`${path}/allOf`, `allOf went from ${a.length} to ${b.length} members`, os.allOf, ns.allOf);
    }
    for (const k of new Set([...Object.keys(os), ...Object.keys(ns)])) {
      if (HANDLED.has(k) || TEXT_KEYWORDS.has(k) || k.startsWith('x-') || canon(os[k]) === canon(ns[k])) continue;
      this.undecided(
        `${path}/${esc(k)}`,
        `"${k}" ${os[k] === undefined ? 'added' : ns[k] === undefined ? 'removed' : 'changed'}`,
        os[k],
        ns[k],
      );
    }
  }

  private types(os: Record<string, unknown>, ns: Record<string, unknown>, path: string): void {
    const to = typeSet(os);
    const tn = typeSet(ns);
    if (canon(to && [...to].sort()) === canon(tn && [...tn].sort())) return;
    const words = (t: Set<string> | undefined) => (t ? [...t].sort().join(' | ') : 'any type');
    const msg = `type was ${words(to)}, now ${words(tn)}`;
    const lost = to === undefined ? tn !== undefined : [...to].some((t) => !covers(tn, t));
    const gained = tn === undefined ? to !== undefined : [...tn].some((t) => !covers(to, t));
    if (lost && gained)
      this.emit(
        this.rule('input.type-narrowed', 'output.type-changed'),
        `${path}/type`,
        this.mode === 'input'
          ? `${msg}: values of the old type are refused`
          : `${msg}: clients get values of another type`,
        os.type,
        ns.type,
      );
    else if (lost)
      this.narrowed(
        'type',
        `${path}/type`,
        this.mode === 'input' ? `${msg}: values of the old type are refused` : msg,
        os.type,
        ns.type,
      );
    else if (gained)
      this.widened(
        'type',
        `${path}/type`,
        this.mode === 'input' ? msg : `${msg}: clients can now get values they were not told about`,
        os.type,
        ns.type,
      );
  }

  private values(os: Record<string, unknown>, ns: Record<string, unknown>, path: string): void {
    const vo = valueSet(os);
    const vn = valueSet(ns);
    if (!vo && !vn) return;
    const where = `${path}/${ns.enum !== undefined || os.enum !== undefined ? 'enum' : 'const'}`;
    if (!vo) {
      this.narrowed(
        'enum',
        where,
        `only ${[...vn!.values()].map((v) => show(v, 40)).join(', ')} allowed now (no enum/const before)`,
        undefined,
        ns.enum ?? ns.const,
      );
      return;
    }
    if (!vn) {
      this.widened(
        'enum',
        where,
        'the enum/const was dropped: any value of the type is allowed',
        os.enum ?? os.const,
        undefined,
      );
      return;
    }
    const removed = [...vo.keys()].filter((k) => !vn.has(k));
    const added = [...vn.keys()].filter((k) => !vo.has(k));
    if (removed.length)
      this.narrowed(
        'enum',
        where,
        `value${removed.length > 1 ? 's' : ''} ${removed.map((k) => show(vo.get(k), 40)).join(', ')} no longer allowed`,
        os.enum ?? os.const,
        ns.enum ?? ns.const,
      );
    if (added.length)
      this.widened(
        'enum',
        where,
        `value${added.length > 1 ? 's' : ''} ${added.map((k) => show(vn.get(k), 40)).join(', ')} added`,
        os.enum ?? os.const,
        ns.enum ?? ns.const,
      );
  }

  private bounds(os: Record<string, unknown>, ns: Record<string, unknown>, path: string): void {
    for (const k of [...UPPER, ...LOWER]) {
      const a = os[k];
      const b = ns[k];
      if (canon(a) === canon(b)) continue;
      const p = `${path}/${k}`;
      if (typeof a === 'boolean' || typeof b === 'boolean') {
        // draft-04 exclusiveMaximum/exclusiveMinimum: a flag on maximum/minimum.
        if (b === true && a !== true) this.narrowed('bound', p, `${k} turned on`, a, b);
        else if (a === true && b !== true) this.widened('bound', p, `${k} turned off`, a, b);
        continue;
      }
      if (a !== undefined && typeof a !== 'number') {
        this.undecided(p, `${k} is not a number`, a, b);
        continue;
      }
      if (b !== undefined && typeof b !== 'number') {
        this.undecided(p, `${k} is not a number`, a, b);
        continue;
      }
      const upper = UPPER.includes(k);
      const stricter = a === undefined || (b !== undefined && (upper ? b < a : b > a));
      const msg =
        a === undefined
          ? `${k} ${b} added`
          : b === undefined
            ? `${k} ${a} removed`
            : `${k} ${upper ? (b < a ? 'lowered' : 'raised') : b > a ? 'raised' : 'lowered'} from ${a} to ${b}`;
      if (stricter) this.narrowed('bound', p, msg, a, b);
      else this.widened('bound', p, msg, a, b);
    }
    const mo = os.multipleOf;
    const mn = ns.multipleOf;
    if (canon(mo) !== canon(mn)) {
      const p = `${path}/multipleOf`;
      if (mn === undefined) this.widened('bound', p, `multipleOf ${show(mo)} removed`, mo, mn);
      else if (mo === undefined) this.narrowed('bound', p, `multipleOf ${show(mn)} added`, mo, mn);
      else if (
        typeof mo === 'number' &&
        typeof mn === 'number' &&
        mn > 0 &&
        Math.abs(mo / mn - Math.round(mo / mn)) < 1e-9
      )
        this.widened('bound', p, `multipleOf ${mo} → ${mn} (every multiple of ${mo} is one of ${mn})`, mo, mn);
      else this.narrowed('bound', p, `multipleOf ${show(mo)} → ${show(mn)}`, mo, mn);
    }
    for (const k of ['pattern', 'format']) {
      const a = os[k];
      const b = ns[k];
      if (canon(a) === canon(b)) continue;
      const p = `${path}/${k}`;
      if (b === undefined) this.widened('bound', p, `${k} ${show(a)} removed`, a, b);
      else
        this.narrowed(
          'bound',
          p,
          a === undefined ? `${k} ${show(b)} added` : `${k} changed from ${show(a)} to ${show(b)}`,
          a,
          b,
        );
    }
    if (!!os.uniqueItems !== !!ns.uniqueItems) {
      if (ns.uniqueItems === true)
        this.narrowed(
          'bound',
          `${path}/uniqueItems`,
          'uniqueItems turned on: lists with repeated items are refused',
          os.uniqueItems,
          ns.uniqueItems,
        );
      else this.widened('bound', `${path}/uniqueItems`, 'uniqueItems turned off', os.uniqueItems, ns.uniqueItems);
    }
  }

  private objects(os: Record<string, unknown>, ns: Record<string, unknown>, path: string, depth: number): void {
    const po = isObject(os.properties) ? os.properties : {};
    const pn = isObject(ns.properties) ? ns.properties : {};
    const ro = new Set(Array.isArray(os.required) ? os.required.filter((x): x is string => typeof x === 'string') : []);
    const rn = new Set(Array.isArray(ns.required) ? ns.required.filter((x): x is string => typeof x === 'string') : []);
    const apNew = ns.additionalProperties;
    const names = [...new Set([...Object.keys(po), ...Object.keys(pn), ...ro, ...rn])].sort();
    const input = this.mode === 'input';
    for (const name of names) {
      const p = `${path}/properties/${esc(name)}`;
      const inO = name in po;
      const inN = name in pn;
      if (!inO && inN) {
        if (input) {
          if (rn.has(name))
            this.emit(
              'input.required-added',
              p,
              `new required parameter "${name}": calls without it are refused`,
              undefined,
              pn[name],
            );
          else this.emit('input.property-added', p, `new optional parameter "${name}"`, undefined, pn[name]);
        } else {
          this.emit('output.property-added', p, `new output property "${name}"`, undefined, pn[name]);
        }
        continue;
      }
      if (inO && !inN) {
        if (!input)
          this.emit(
            'output.property-removed',
            p,
            `output property "${name}" removed: clients that read it find nothing`,
            po[name],
            undefined,
          );
        else if (apNew === false || ns.unevaluatedProperties === false)
          this.emit(
            'input.property-removed-closed',
            p,
            `parameter "${name}" removed and additionalProperties is false: calls that send it are refused`,
            po[name],
            undefined,
          );
        else if (isObject(apNew)) {
          this.emit(
            'input.property-removed-open',
            p,
            `parameter "${name}" removed; calls that send it are checked against additionalProperties now, and the server may ignore it`,
            po[name],
            undefined,
          );
          this.compare(po[name], apNew, `${path}/additionalProperties`, depth + 1);
        } else
          this.emit(
            'input.property-removed-open',
            p,
            `parameter "${name}" removed; calls that send it are still accepted, but the server may ignore it`,
            po[name],
            undefined,
          );
        continue;
      }
      if (inO && inN) this.compare(po[name], pn[name], p, depth + 1);
      const rp = inN || inO ? p : `${path}/required`;
      if (!ro.has(name) && rn.has(name) && (inO || !inN)) {
        if (input)
          this.emit('input.required-added', rp, `parameter "${name}" is required now: calls without it are refused`);
        else this.emit('output.required-added', rp, `output property "${name}" is required now`);
      } else if (ro.has(name) && !rn.has(name) && (inN || !inO)) {
        if (input) this.emit('input.required-removed', rp, `parameter "${name}" is optional now`);
        else
          this.emit(
            'output.required-removed',
            rp,
            `output property "${name}" is no longer required: clients may not get it`,
          );
      }
    }
    const ao = os.additionalProperties;
    const an = ns.additionalProperties;
    if (canon(ao) !== canon(an)) {
      const p = `${path}/additionalProperties`;
      const open = (v: unknown) =>
        v === undefined || v === true || (isObject(v) && !Object.keys(constraints(v)).length);
      if (!input)
        this.emit('output.additional-properties', p, `additionalProperties ${show(ao)} → ${show(an)}`, ao, an);
      else if (open(ao) && open(an)) {
        /* both accept anything */
      } else if (open(an))
        this.emit(
          'input.opened',
          p,
          `additionalProperties ${show(ao)} → ${show(an)}: extra arguments are accepted now`,
          ao,
          an,
        );
      else if (an === false || open(ao))
        this.emit(
          'input.closed',
          p,
          an === false
            ? 'additionalProperties is false now: calls with extra arguments are refused'
            : 'additionalProperties is restricted to a schema now',
          ao,
          an,
        );
      else if (ao === false)
        this.emit(
          'input.opened',
          p,
          'additionalProperties false → a schema: some extra arguments are accepted now',
          ao,
          an,
        );
      else this.compare(ao, an, p, depth + 1);
    }
  }

  private arrays(os: Record<string, unknown>, ns: Record<string, unknown>, path: string, depth: number): void {
    const io = os.items;
    const inn = ns.items;
    if (canon(io) !== canon(inn)) {
      if (Array.isArray(io) || Array.isArray(inn)) {
        if (Array.isArray(io) && Array.isArray(inn) && io.length === inn.length)
          io.forEach((x, i) => this.compare(x, inn[i], `${path}/items/${i}`, depth + 1));
        else this.undecided(`${path}/items`, 'a tuple (items as a list) changed its length or form', io, inn);
      } else this.compare(io ?? true, inn ?? true, `${path}/items`, depth + 1);
    }
    const xo = os.prefixItems;
    const xn = ns.prefixItems;
    if (canon(xo) !== canon(xn)) {
      if (Array.isArray(xo) && Array.isArray(xn) && xo.length === xn.length)
        xo.forEach((x, i) => this.compare(x, xn[i], `${path}/prefixItems/${i}`, depth + 1));
      else this.undecided(`${path}/prefixItems`, 'prefixItems changed its length', xo, xn);
    }
    if (canon(os.additionalItems) !== canon(ns.additionalItems))
      this.undecided(`${path}/additionalItems`, 'additionalItems changed', os.additionalItems, ns.additionalItems);
  }

  /**
   * Union branches: equal ones match; the rest are paired by their type (compared member by member); whatever is
   * left in the old union was removed, whatever is left in the new one was added.
   */
  private unions(a: unknown[], b: unknown[], path: string, depth: number): void {
    const restA = a.map((x, i) => ({ x, i }));
    const restB = b.map((x, i) => ({ x, i }));
    for (let i = restA.length - 1; i >= 0; i--) {
      const j = restB.findIndex((y) => canon(y.x) === canon(restA[i]!.x));
      if (j >= 0) {
        restA.splice(i, 1);
        restB.splice(j, 1);
      }
    }
    for (let i = 0; i < restA.length; ) {
      const key = canon(
        isObject(restA[i]!.x)
          ? ((restA[i]!.x as Record<string, unknown>).type ?? (restA[i]!.x as Record<string, unknown>).$ref)
          : undefined,
      );
      const j = restB.findIndex(
        (y) =>
          canon(
            isObject(y.x)
              ? ((y.x as Record<string, unknown>).type ?? (y.x as Record<string, unknown>).$ref)
              : undefined,
          ) === key,
      );
      if (j >= 0 && (key !== 'undefined' || (restA.length === 1 && restB.length === 1))) {
        this.compare(restA[i]!.x, restB[j]!.x, `${path}/${restB[j]!.i}`, depth + 1);
        restA.splice(i, 1);
        restB.splice(j, 1);
      } else i++;
    }
    for (const r of restA)
      this.narrowed('union', `${path}/${r.i}`, `union branch ${show(r.x)} removed`, r.x, undefined);
    for (const r of restB) this.widened('union', `${path}/${r.i}`, `union branch ${show(r.x)} added`, undefined, r.x);
  }
}

const refInside = new WeakMap<object, boolean>();

/** Whether a $ref occurs anywhere in a schema (memoized per object). */
function containsRef(s: unknown): boolean {
  if (s === null || typeof s !== 'object') return false;
  const known = refInside.get(s);
  if (known !== undefined) return known;
  refInside.set(s, false); // a cycle in the value itself cannot come from JSON, but stay safe
  const has = Array.isArray(s)
    ? s.some(containsRef)
    : typeof (s as Record<string, unknown>).$ref === 'string' ||
      Object.entries(s).some(([k, v]) => k !== '$defs' && k !== 'definitions' && containsRef(v));
  refInside.set(s, has);
  return has;
}

function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function strip(s: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  const out = { ...s };
  for (const k of keys) delete out[k];
  return out;
}

/** The keywords of a schema that constrain values (annotations left out). */
function constraints(s: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s))
    if (!TEXT_KEYWORDS.has(k) && !k.startsWith('x-') && k !== 'default' && k !== '$defs' && k !== 'definitions')
      out[k] = v;
  return out;
}

function typeSet(s: Record<string, unknown>): Set<string> | undefined {
  const t = s.type;
  let out: Set<string> | undefined;
  if (typeof t === 'string') out = new Set([t]);
  else if (Array.isArray(t)) out = new Set(t.filter((x): x is string => typeof x === 'string'));
  if (out && s.nullable === true) out.add('null'); // OpenAPI 3.0 style
  return out;
}

/** Whether a type set accepts every value of type t (undefined: any type). */
function covers(set: Set<string> | undefined, t: string): boolean {
  return !set || set.has(t) || (t === 'integer' && set.has('number'));
}

function valueSet(s: Record<string, unknown>): Map<string, unknown> | undefined {
  if (s.const !== undefined) return new Map([[canon(s.const), s.const]]);
  if (Array.isArray(s.enum)) return new Map(s.enum.map((v) => [canon(v), v]));
  return undefined;
}

function resolvePointer(root: unknown, pointer: string): unknown {
  if (pointer === '' || pointer === '/') return pointer === '' ? root : isObject(root) ? root[''] : undefined;
  let cur = root;
  for (const raw of pointer.split('/').slice(1)) {
    const seg = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur)) cur = cur[Number(seg)];
    else if (isObject(cur)) cur = cur[seg];
    else return undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}

/** Compares two schemas of a tool; emits one change per difference found. */
export function compareSchemas(mode: Mode, oldSchema: unknown, newSchema: unknown, basePath: string, emit: Emit): void {
  new SchemaComparison(mode, emit, { root: oldSchema }, { root: newSchema }).compare(oldSchema, newSchema, basePath);
}
