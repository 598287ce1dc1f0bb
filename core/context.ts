/**
 * The context a case runs in (CaseContext): the session, the version in force and its features, the transport facet
 * a suite needs (ctx.http, ctx.sse), run services, option values and the record of every exchange.
 */
import { SchemaWorkbench } from './jsonschema.js';
import { featuresOf } from './features.js';
import type { OptionDef, OptionValues } from './options.js';
import { inputValue, type RunInputs } from './inputs.js';
import { ServiceStore } from './services.js';
import { requestAnswering } from './mrtr.js';
import type { Session } from './session.js';
import type { CaseContext, ExchangeRecord, InitOutcome } from './suite.js';
import { dialectOf, specUrl, type ProtocolVersion } from './schema/versions.js';
import { transportFacets } from './transport/facets.js';
import type { Transport } from './transport/types.js';

export interface ContextInput {
  session: Session;
  transport: Transport;
  init: InitOutcome;
  version: ProtocolVersion;
  capabilities: Record<string, unknown>;
  timeoutMs: number;
  forcedVersion?: ProtocolVersion;
  /** Option values by key (suite options and run options); a missing one takes its default. */
  options: OptionValues;
  caseFilter?: string[];
  /** The values given for features (RunOptions.inputs), read with ctx.input(…). */
  inputs?: RunInputs;
}

export interface RunContext extends CaseContext {
  /** The store behind ctx.service (the runner lets services contribute report fields). */
  readonly services: ServiceStore;
  /** The id of the case running now (exchanges are recorded with it). */
  currentCase: string;
}

export function makeContext(i: ContextInput): RunContext {
  const services = new ServiceStore();
  const exchanges: ExchangeRecord[] = [];
  const ctx: RunContext = {
    session: i.session,
    transport: i.transport,
    ...transportFacets(i.transport),
    version: i.version,
    features: featuresOf(i.version),
    init: i.init,
    capabilities: i.capabilities,
    timeoutMs: i.timeoutMs,
    forcedVersion: i.forcedVersion,
    input: (x) => inputValue(i.inputs, x),
    workbench: new SchemaWorkbench(dialectOf(i.version) === 'draft-07' ? 'draft-07' : '2020-12'),
    services,
    currentCase: '',
    exchanges,
    service: (s) => services.get(s, ctx),
    whenProduced: (s) => services.whenProduced(s),
    option<T>(o: OptionDef<T>): T {
      const v = i.options[o.key];
      return (v === undefined ? o.default : v) as T;
    },
    async request(method, params, how) {
      const rec: ExchangeRecord = {
        method,
        purpose: how.purpose,
        caseId: ctx.currentCase,
        ...(how.tool !== undefined ? { tool: how.tool } : {}),
      };
      exchanges.push(rec); // in the order the requests were made (several may be in flight: see pipelined in core/tools.ts)
      try {
        // 2026-07-28: an input_required answer is answered (canned) and the request sent again (core/mrtr.ts); a
        // request malformed on purpose is sent once, as it is.
        if (ctx.features.mrtr && how.expectInvalid === undefined) {
          const x = await requestAnswering(ctx, method, params, {
            beforeRetry: how.beforeRetry,
            timeoutFrom: how.timeoutFrom,
            onExchange: (m) => {
              rec.mrtr = m;
            },
          });
          rec.reply = x.reply;
        } else
          rec.reply = await i.session.request(method, params, {
            expectInvalid: how.expectInvalid,
            timeoutFrom: how.timeoutFrom,
          });
      } catch (e) {
        rec.failure = e as Error;
      }
      return rec;
    },
    selected(id: string) {
      const f = i.caseFilter;
      return !f?.length || f.some((p) => id.startsWith(p) || p.startsWith(id + '/'));
    },
    spec(path: string) {
      return specUrl(i.version, path);
    },
  };
  return ctx;
}
