/** Generation of objects: required properties and their dependencies, minProperties (no optional properties otherwise). */
import { regex, type Ctx } from './context.js';
import { child, ok, type Frame, type Gen, type GenerateFn } from './frame.js';
import { hasOwn, isNum, isObj, own, pathText, setProp } from './json.js';
import { ARGUMENT_LIMITS } from './limits.js';
import { patternStrings } from './regex.js';
import type { SchemaObject } from './types.js';
import { validAll } from './validate.js';

/** Schemas that property `name` must satisfy under every schema of the conjunction. */
export function propertySchemas(conj: readonly SchemaObject[], name: string, ctx: Ctx): unknown[] {
  const out: unknown[] = [];
  let matchedAny = false;
  for (const s of conj) {
    let matched = false;
    const props = own(s, 'properties');
    if (isObj(props) && hasOwn(props, name)) {
      out.push(props[name]);
      matched = true;
    }
    const pp = own(s, 'patternProperties');
    if (isObj(pp)) {
      for (const p of Object.keys(pp)) {
        if (regex(ctx, p)?.test(name)) {
          out.push(pp[p]);
          matched = true;
        }
      }
    }
    if (!matched && hasOwn(s, 'additionalProperties')) out.push(s.additionalProperties);
    matchedAny ||= matched;
  }
  if (!matchedAny) for (const s of conj) if (hasOwn(s, 'unevaluatedProperties')) out.push(s.unevaluatedProperties);
  return out;
}

export function dependencyNames(conj: readonly SchemaObject[], name: string): { names: string[]; schemas: boolean } {
  const names: string[] = [];
  let schemas = false;
  for (const s of conj) {
    for (const kw of ['dependencies', 'dependentRequired', 'dependentSchemas']) {
      const deps = own(s, kw);
      if (!isObj(deps) || !hasOwn(deps, name)) continue;
      const d = deps[name];
      if (Array.isArray(d)) for (const n of d) if (typeof n === 'string') names.push(n);
      if (isObj(d) || d === false) schemas = true;
    }
  }
  return { names, schemas };
}

export function synthObject(
  conj: SchemaObject[],
  ctx: Ctx,
  frame: Frame,
  variant: number,
  requiredOnly: boolean,
  generate: GenerateFn,
): Gen {
  const where = pathText(frame.path);
  const notes: string[] = [];
  const requiredSet = new Set<string>();
  const declaredSet = new Set<string>();
  let minProps = 0;
  let maxProps = Infinity;
  for (const s of conj) {
    const req = own(s, 'required');
    if (Array.isArray(req)) for (const r of req.slice(0, 10_000)) if (typeof r === 'string') requiredSet.add(r);
    const props = own(s, 'properties');
    if (isObj(props)) for (const k of Object.keys(props).slice(0, 1000)) declaredSet.add(k);
    const a = own(s, 'minProperties');
    const b = own(s, 'maxProperties');
    if (isNum(a)) minProps = Math.max(minProps, Math.ceil(a));
    if (isNum(b)) maxProps = Math.min(maxProps, Math.floor(b));
  }
  const required = [...requiredSet];
  const declared = [...declaredSet];
  if (minProps > ARGUMENT_LIMITS.maxProperties) {
    notes.push(`${where}: minProperties ${minProps} capped at ${ARGUMENT_LIMITS.maxProperties}`);
    minProps = ARGUMENT_LIMITS.maxProperties;
  }
  const values = new Map<string, unknown>();
  const variantTarget = required[0] ?? declared[0];
  const add = (name: string, optional: boolean): boolean => {
    if (values.has(name)) return true;
    const r = generate(
      propertySchemas(conj, name, ctx),
      ctx,
      child(frame, name),
      name,
      name === variantTarget ? variant : 0,
    );
    if (optional && !ok(r)) return false;
    notes.push(...r.notes);
    if (!r.has) {
      if (!optional) notes.push(`${pathText([...frame.path, name])}: required property could not be generated`);
      return false;
    }
    values.set(name, r.value);
    return true;
  };
  // Required properties, and those they depend on.
  const queue = [...required];
  const queued = new Set(queue);
  for (let i = 0; i < queue.length && i < 10_000; i++) {
    const name = queue[i];
    if (ctx.nodes <= 0) {
      notes.push(`${where}: output size limit reached; ${queue.length - i} required properties left out`);
      break;
    }
    if (!add(name, false)) continue;
    for (const d of dependencyNames(conj, name).names) {
      if (queued.has(d)) continue;
      queued.add(d);
      queue.push(d);
    }
  }
  /** A declared property marked readOnly or deprecated: not one to send unless nothing else will do. */
  const retired = (name: string) =>
    conj
      .map((s) => own(s, 'properties'))
      .map((p) => (isObj(p) ? own(p, name) : undefined))
      .some((d) => isObj(d) && (own(d, 'readOnly') === true || own(d, 'deprecated') === true));
  // Optional properties: none — a property the schema does not require is the tool's to default, and two made-up
  // optionals can contradict each other (firecrawl_search's includeDomains with excludeDomains). Only where the schema
  // needs more than its required ones (minProperties, below) or a variant needs a difference.
  // minProperties: more declared properties (readOnly / deprecated ones last), then names for patternProperties/additionalProperties.
  if (values.size < minProps) {
    for (const name of [...declared.filter((n) => !retired(n)), ...declared.filter(retired)])
      if (values.size < minProps && !values.has(name)) add(name, true);
    const extraNames = function* (): Generator<string> {
      for (const s of conj) {
        const pp = own(s, 'patternProperties');
        if (isObj(pp))
          for (const p of Object.keys(pp))
            for (let seed = 0; seed < 5; seed++) yield* patternStrings(p, ctx, 1, Infinity, seed);
      }
      for (let i = 1; i <= ARGUMENT_LIMITS.maxProperties * 2; i++) yield `extra${i}`;
    };
    for (const name of extraNames()) {
      if (values.size >= minProps || ctx.nodes <= 0) break;
      if (!values.has(name)) add(name, true);
    }
    if (values.size < minProps)
      notes.push(`${where}: could only generate ${values.size} of the ${minProps} properties minProperties asks for`);
  }
  // Variants (uniqueItems) of an object with no property to vary: add a distinguishing property.
  if (variant > 0 && variantTarget === undefined) add(`variant${variant}`, true);
  const value: Record<string, unknown> = {};
  for (const name of [...declared, ...values.keys()])
    if (values.has(name) && !hasOwn(value, name)) setProp(value, name, values.get(name));
  ctx.nodes -= 1;
  if (values.size > required.length && !requiredOnly && !validAll(conj, value, ctx)) {
    // An optional property spoiled the object (maxProperties, oneOf, dependencies...): only what is needed.
    return synthObject(conj, ctx, frame, variant, true, generate);
  }
  return { has: true, value, notes };
}
