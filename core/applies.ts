/**
 * Whether a case applies to this run, from the data it declares (`requires`): the runner's one rule, with one
 * uniform skip reason ("does not apply: …").
 */
import { FEATURE_WORDS, FEATURES, versionInRange, type VersionFeatures } from './features.js';
import { isObject } from './objects.js';
import { PROTOCOL_VERSIONS, type ProtocolVersion } from './schema/versions.js';
import type { CaseDef, Requires, TransportKind } from './suite.js';

const TRANSPORT_WORDS: Record<TransportKind, string> = {
  stdio: 'stdio',
  'streamable-http': 'Streamable HTTP',
  sse: 'HTTP+SSE',
};

/** A case's requirements, with the default of `needs` filled in. */
export function requiresOf(c: Pick<CaseDef, 'requires'>): Requires & { needs: NonNullable<Requires['needs']> } {
  const r = c.requires ?? {};
  return { ...r, needs: r.needs ?? 'server' };
}

export interface RunFacts {
  version: ProtocolVersion;
  features: Readonly<VersionFeatures>;
  transport: TransportKind;
  capabilities: Record<string, unknown>;
}

/**
 * Why a protocol version is outside a case's version range, in words (undefined: inside). `from` is the first
 * version the case applies to, `until` the first it no longer applies to: the one rule for server and client cases.
 */
export function outsideVersionRange(
  version: ProtocolVersion,
  r: { from?: ProtocolVersion; until?: ProtocolVersion },
): string | undefined {
  if (versionInRange(version, r.from, r.until)) return undefined;
  const range =
    r.from && r.until ? `from ${r.from} until before ${r.until}` : r.from ? `from ${r.from} on` : `before ${r.until}`;
  return `protocol ${version} (the case applies ${range})`;
}

/** Why the case does not apply to this run (undefined: it applies). */
export function notApplicable(c: CaseDef, run: RunFacts): string | undefined {
  const r = requiresOf(c);
  if (r.transports && !r.transports.includes(run.transport)) {
    return `does not apply: the case is about ${r.transports.map((t) => TRANSPORT_WORDS[t]).join(' or ')}; this run is over ${TRANSPORT_WORDS[run.transport]}`;
  }
  const outside = outsideVersionRange(run.version, r);
  if (outside) return `does not apply: ${outside}`;
  for (const f of r.feature === undefined ? [] : Array.isArray(r.feature) ? r.feature : [r.feature]) {
    if (!run.features[f]) return `does not apply: protocol ${run.version} has no ${FEATURE_WORDS[f]}`;
  }
  if (r.capability && !run.capabilities[r.capability])
    return `the server did not declare the "${r.capability}" capability`;
  if (r.extension && !isObject((run.capabilities.extensions as Record<string, unknown> | undefined)?.[r.extension])) {
    return `the server did not declare the ${r.extension} extension (capabilities.extensions)`;
  }
  return undefined;
}

/** The protocol versions a case can apply to, by its version range and features (transport and capability aside). */
export function versionsOfCase(c: Pick<CaseDef, 'requires'>): ProtocolVersion[] {
  const r = requiresOf(c);
  const feats = r.feature === undefined ? [] : Array.isArray(r.feature) ? r.feature : [r.feature];
  return PROTOCOL_VERSIONS.filter((v) => versionInRange(v, r.from, r.until) && feats.every((f) => FEATURES[v][f]));
}

/**
 * The version whose spec a catalogue (`list`, the table of docs/suites.md) links a case to: the preferred one when the case
 * applies there, else the newest version it applies to (a 2026-only case links to the 2026 page, which exists).
 */
export function catalogueVersion(c: Pick<CaseDef, 'requires'>, preferred: ProtocolVersion): ProtocolVersion {
  const vs = versionsOfCase(c);
  return vs.includes(preferred) || !vs.length ? preferred : vs[vs.length - 1]!;
}
