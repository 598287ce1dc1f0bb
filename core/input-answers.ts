/**
 * The harness's answers to a server's input requests (2026-07-28 `inputRequests`, in an input_required result or a
 * task's tasks/update): which client capability each request needs, whether the user declared it
 * (--client-capabilities), and the canned result it gets (core/client-capabilities.ts cannedResult). Used by the
 * multi round-trip requests (core/mrtr.ts) and the tasks extension (core/tasks.ts).
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr
 */
import { CAPABILITY_OF_REQUEST, cannedResult, type ClientCapabilityName, type Root } from './client-capabilities.js';
import { isObject as isObj } from './objects.js';
import type { Reply } from './session.js';

/** The flag that declares client capabilities (for messages). */
export const CLIENT_CAPABILITIES_FLAG = '--client-capabilities';

/**
 * What an input request needs the client to have declared: the capability, and a sub-capability for an elicitation
 * in url mode (`elicitation.url`; a bare `elicitation: {}` means form only) or a sampling request with tools
 * (`sampling.tools`). undefined: not a request kind an input request may be.
 */
export function neededCapability(
  request: unknown,
): { capability: ClientCapabilityName; sub?: string; label: string } | undefined {
  if (!isObj(request) || typeof request.method !== 'string') return undefined;
  const capability = CAPABILITY_OF_REQUEST[request.method];
  if (!capability) return undefined;
  const params = isObj(request.params) ? request.params : {};
  if (capability === 'elicitation' && params.mode === 'url')
    return { capability, sub: 'url', label: 'elicitation (url mode)' };
  if (capability === 'sampling' && (params.tools !== undefined || params.toolChoice !== undefined))
    return { capability, sub: 'tools', label: 'sampling with tools' };
  return { capability, label: capability };
}

/** Whether the declared client capabilities cover what an input request needs. */
export function isDeclared(need: { capability: string; sub?: string }, declared: Record<string, unknown>): boolean {
  const cap = declared[need.capability];
  if (cap === undefined) return false;
  if (!need.sub) return true;
  return isObj(cap) && cap[need.sub] !== undefined;
}

export interface InputProblem {
  key: string;
  /** The method the input request names (absent when it names none). */
  method?: string;
  /** undeclared: asks for a capability the client did not declare (the server's fault); unknown: not a kind the harness answers. */
  kind: 'undeclared' | 'unknown';
  /** Plain words: what is missing, and the flag that would enable it where there is one. */
  why: string;
}

export interface CannedInputs {
  /** The InputResponses map: key → canned result. */
  responses: Record<string, Record<string, unknown>>;
  /** What was answered, for messages: 'key: method → decline'. */
  answered: string[];
  /** Input requests the harness did not answer (then it must not retry at all). */
  problems: InputProblem[];
}

function cannedSummary(method: string, r: Record<string, unknown>): string {
  if (method === 'elicitation/create') return `action "${String(r.action)}"`;
  if (method === 'sampling/createMessage') return 'the canned assistant text';
  if (method === 'roots/list') return `${Array.isArray(r.roots) ? r.roots.length : 0} root(s)`;
  return 'a canned result';
}

/**
 * The canned InputResponses for an `inputRequests` map, given what the harness declared (the same answers it gives
 * server-to-client requests: core/client-capabilities.ts cannedResult). Requests it cannot answer are listed in
 * `problems` with the reason.
 */
export function answerInputRequests(
  inputRequests: unknown,
  declared: Record<string, unknown>,
  roots?: readonly Root[],
): CannedInputs {
  const out: CannedInputs = { responses: {}, answered: [], problems: [] };
  if (!isObj(inputRequests)) return out;
  for (const [key, req] of Object.entries(inputRequests)) {
    const method = isObj(req) && typeof req.method === 'string' ? req.method : undefined;
    const need = neededCapability(req);
    if (!need) {
      out.problems.push({
        key,
        ...(method ? { method } : {}),
        kind: 'unknown',
        why: `"${key}" asks for ${method ? `"${method}"` : 'no method'}, not elicitation/create, sampling/createMessage or roots/list: the harness cannot answer it`,
      });
      continue;
    }
    if (!isDeclared(need, declared)) {
      const how = need.sub
        ? `the harness declares ${need.capability} without ${need.capability}.${need.sub}, so it cannot answer it`
        : `${CLIENT_CAPABILITIES_FLAG} ${need.capability} declares it and answers it with a canned result`;
      out.problems.push({
        key,
        method,
        kind: 'undeclared',
        why: `"${key}" asks for ${need.label}, which the client did not declare (${how})`,
      });
      continue;
    }
    const canned = cannedResult(method!, roots);
    if (!canned) {
      out.problems.push({
        key,
        method,
        kind: 'unknown',
        why: `"${key}" asks for "${method}": the harness has no canned answer for it`,
      });
      continue;
    }
    out.responses[key] = canned;
    out.answered.push(`${key}: ${method} → ${cannedSummary(method!, canned)}`);
  }
  return out;
}

/** One request that met input_required, with every round. */
export interface MrtrExchange {
  method: string;
  /** The tool or prompt name, or the resource URI. */
  target?: string;
  caseId?: string;
  /** Every reply in order (the first is the original request's, the last the final one). */
  rounds: Reply[];
  /** What the harness answered, round by round. */
  answered: string[][];
  /**
   * complete: the last reply is a result that is no longer input_required; error: a JSON-RPC error;
   * not-exercisable: the harness could not answer (note says why); still-asking: input_required after MAX_INPUT_ROUNDS
   * answered rounds; failure: a retry got no answer (the request's own failure says why).
   */
  outcome: 'complete' | 'error' | 'not-exercisable' | 'still-asking' | 'failure';
  /** Plain words on a not-exercisable or still-asking outcome. */
  note?: string;
  /** Input requests the harness did not answer. */
  problems: InputProblem[];
}
