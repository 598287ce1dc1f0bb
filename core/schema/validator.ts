/**
 * Schema check of single messages: picks the definition for a message from its direction, kind and method, and
 * validates with ajv against the schema document of the protocol version in force.
 * Definitions of the built-in documents come precompiled from the build (./precompiled.ts) where the files exist;
 * otherwise they are compiled on first use, so a run pays only for the kinds of message it sees.
 */
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { newAjv, type Dialect } from './ajv.js';
import { messageAjvOptions, precompiledDefinitions } from './precompiled.js';
import type { Direction, MessageKind, SchemaVerdict, SchemaViolation } from '../log.js';
import { isBuiltInDocument } from './documents/index.js';
import { dialectOf, type ProtocolVersion } from './versions.js';

/** Requests, by method: the definition of the request and of its result. */
const REQUESTS: Record<string, { request: string; result: string }> = {
  initialize: { request: 'InitializeRequest', result: 'InitializeResult' },
  ping: { request: 'PingRequest', result: 'EmptyResult' },
  'tools/list': { request: 'ListToolsRequest', result: 'ListToolsResult' },
  'tools/call': { request: 'CallToolRequest', result: 'CallToolResult' },
  'resources/list': { request: 'ListResourcesRequest', result: 'ListResourcesResult' },
  'resources/templates/list': { request: 'ListResourceTemplatesRequest', result: 'ListResourceTemplatesResult' },
  'resources/read': { request: 'ReadResourceRequest', result: 'ReadResourceResult' },
  'resources/subscribe': { request: 'SubscribeRequest', result: 'EmptyResult' },
  'resources/unsubscribe': { request: 'UnsubscribeRequest', result: 'EmptyResult' },
  'prompts/list': { request: 'ListPromptsRequest', result: 'ListPromptsResult' },
  'prompts/get': { request: 'GetPromptRequest', result: 'GetPromptResult' },
  'completion/complete': { request: 'CompleteRequest', result: 'CompleteResult' },
  'logging/setLevel': { request: 'SetLevelRequest', result: 'EmptyResult' },
  'sampling/createMessage': { request: 'CreateMessageRequest', result: 'CreateMessageResult' },
  'roots/list': { request: 'ListRootsRequest', result: 'ListRootsResult' },
  'elicitation/create': { request: 'ElicitRequest', result: 'ElicitResult' },
  'tasks/get': { request: 'GetTaskRequest', result: 'GetTaskResult' },
  'tasks/result': { request: 'GetTaskPayloadRequest', result: 'GetTaskPayloadResult' },
  'tasks/list': { request: 'ListTasksRequest', result: 'ListTasksResult' },
  'tasks/cancel': { request: 'CancelTaskRequest', result: 'CancelTaskResult' },
  'server/discover': { request: 'DiscoverRequest', result: 'DiscoverResult' },
  'subscriptions/listen': { request: 'SubscriptionsListenRequest', result: 'SubscriptionsListenResult' },
};

/** Whether MCP (any version) has a request of this method. */
export function isRequestMethod(method: string): boolean {
  return Object.hasOwn(REQUESTS, method);
}

const NOTIFICATIONS: Record<string, string> = {
  'notifications/initialized': 'InitializedNotification',
  'notifications/cancelled': 'CancelledNotification',
  'notifications/progress': 'ProgressNotification',
  'notifications/message': 'LoggingMessageNotification',
  'notifications/resources/updated': 'ResourceUpdatedNotification',
  'notifications/resources/list_changed': 'ResourceListChangedNotification',
  'notifications/tools/list_changed': 'ToolListChangedNotification',
  'notifications/prompts/list_changed': 'PromptListChangedNotification',
  'notifications/roots/list_changed': 'RootsListChangedNotification',
  'notifications/tasks/status': 'TaskStatusNotification',
  'notifications/elicitation/complete': 'ElicitationCompleteNotification',
  'notifications/subscriptions/acknowledged': 'SubscriptionsAcknowledgedNotification',
};

type Side = 'client' | 'server';
const SIDE_OF: Record<Direction, Side> = { 'to-server': 'client', 'from-server': 'server' };
const OTHER: Record<Side, Side> = { client: 'server', server: 'client' };
const PLURAL: Record<Side, string> = { client: 'clients', server: 'servers' };

/**
 * Which methods each side may send in a version, read from the document's unions by direction (ClientRequest,
 * ClientNotification, ServerRequest, ServerNotification), with the definition of each member; `embedded`: requests
 * that travel inside a result instead of on their own (2026-07-28's InputRequest: sampling, roots, elicitation).
 */
interface DirectionSets {
  request: Record<Side, Map<string, string | undefined>>;
  notification: Record<Side, Map<string, string | undefined>>;
  embedded: Set<string>;
}

export interface MessageToCheck {
  direction: Direction;
  kind: MessageKind;
  /** Method of a request/notification, or of the request a response answers. */
  method?: string;
  json: unknown;
  /**
   * A response to a request the client sent with params.task: a result carrying `task` is checked as a
   * CreateTaskResult (2025-11-25 tasks); one without is checked as the request's usual result. Also set for a request
   * that declared the io.modelcontextprotocol/tasks extension (2026-07-28): a result of resultType "task" is then a
   * task handle of the extension, checked as a Result (the core schema has no definition of it).
   */
  taskAugmented?: boolean;
}

/** Compiled definitions of the built-in documents, by document and dialect (see the MessageValidator constructor). */
interface Compilers {
  /** Created on first need: a validator whose definitions are all precompiled never builds one. */
  ajv?: Ajv;
  compiled: Map<string, ValidateFunction>;
  /** Validators generated at build time, by reference (#/definitions/Name), when the build left them. */
  precompiled?: Map<string, ValidateFunction>;
}
const sharedCompilers = new WeakMap<object, Map<string, Compilers>>();

export class MessageValidator {
  private readonly compilers: Compilers;
  private readonly id: string;
  private readonly defsKey: string;
  private readonly defs: Record<string, unknown>;
  private readonly document: Record<string, unknown>;
  private readonly dialect: Dialect;
  /** undefined: the document has no unions by direction (a --schema FILE may lack them): direction is not checked. */
  private readonly sides: DirectionSets | undefined;

  /** dialect: of the document (default: the dialect of the version's official schema; --schema FILE gives its own). */
  constructor(
    readonly version: ProtocolVersion,
    document: Record<string, unknown>,
    dialect: Dialect = dialectOf(version),
  ) {
    this.document = document;
    this.dialect = dialect;
    this.defsKey = document.$defs ? '$defs' : 'definitions';
    this.defs = (document[this.defsKey] ?? {}) as Record<string, unknown>;
    this.id = typeof document.$id === 'string' ? document.$id : `urn:mcp-conform:schema:${version}`;
    // The project's own documents (frozen, one object per version) are compiled once per process: every validator of
    // that document and dialect shares the compiled definitions (sessions of a run, runs of --all-versions).
    const builtIn = isBuiltInDocument(document);
    const shared = builtIn ? sharedCompilers.get(document)?.get(dialect) : undefined;
    if (shared) {
      this.compilers = shared;
    } else {
      // The build's validators exist for each built-in document in its version's own dialect.
      const precompiled =
        builtIn && dialect === dialectOf(version) && this.id === `urn:mcp-conform:schema:${version}`
          ? precompiledDefinitions(version, document, dialect)
          : undefined;
      this.compilers = { compiled: new Map(), precompiled };
      // Without them, the document is added now: a --schema FILE that is not a valid JSON Schema fails here.
      if (!precompiled) this.runtimeAjv();
      if (builtIn) {
        let byDialect = sharedCompilers.get(document);
        if (!byDialect) sharedCompilers.set(document, (byDialect = new Map()));
        byDialect.set(dialect, this.compilers);
      }
    }
    this.sides = this.directionSets();
  }

  /** True when the definitions are checked by validators generated at build time (not compiled in this process). */
  get precompiled(): boolean {
    return this.compilers.precompiled !== undefined;
  }

  /** The ajv instance that compiles at runtime, with the document added (created on first need). */
  private runtimeAjv(): Ajv {
    if (!this.compilers.ajv) {
      const ajv = newAjv(this.dialect, messageAjvOptions());
      // A built-in document is checked against the meta-schema by the tests; others (--schema FILE) here.
      const builtIn = isBuiltInDocument(this.document);
      ajv.addSchema({ ...this.document, $id: this.id }, undefined, undefined, !builtIn);
      this.compilers.ajv = ajv;
    }
    return this.compilers.ajv;
  }

  /** The methods of the unions by direction; undefined when the document has none of them. */
  private directionSets(): DirectionSets | undefined {
    const names = {
      request: { client: 'ClientRequest', server: 'ServerRequest' },
      notification: { client: 'ClientNotification', server: 'ServerNotification' },
    } as const;
    if (!Object.values(names).some((n) => this.has(n.client) || this.has(n.server))) return undefined;
    const sets: DirectionSets = {
      request: { client: new Map(), server: new Map() },
      notification: { client: new Map(), server: new Map() },
      embedded: new Set(),
    };
    for (const kind of ['request', 'notification'] as const) {
      for (const side of ['client', 'server'] as const) {
        if (this.has(names[kind][side])) this.collectMethods(names[kind][side], sets[kind][side], new Set());
      }
    }
    if (this.has('InputRequest')) {
      const embedded = new Map<string, string | undefined>();
      this.collectMethods('InputRequest', embedded, new Set());
      for (const m of embedded.keys()) if (!sets.request.server.has(m)) sets.embedded.add(m);
    }
    return sets;
  }

  /**
   * The methods (const or enum of properties.method) a definition admits, through $ref, anyOf, oneOf and allOf,
   * each with the name of the definition that fixes it (undefined when written inline in the union).
   */
  private collectMethods(definition: string, into: Map<string, string | undefined>, seen: Set<string>): void {
    if (seen.has(definition) || !this.has(definition)) return;
    seen.add(definition);
    const prefix = `#/${this.defsKey}/`;
    const walk = (schema: unknown, named: string | undefined): void => {
      if (schema === null || typeof schema !== 'object') return;
      const s = schema as Record<string, unknown>;
      if (typeof s.$ref === 'string' && s.$ref.startsWith(prefix)) {
        const name = s.$ref.slice(prefix.length);
        if (!seen.has(name) && this.has(name)) {
          seen.add(name);
          walk(this.defs[name], name);
        }
      }
      for (const k of ['anyOf', 'oneOf', 'allOf'])
        if (Array.isArray(s[k])) for (const b of s[k] as unknown[]) walk(b, named);
      const props = s.properties as Record<string, unknown> | undefined;
      const m = props && typeof props === 'object' ? (props.method as Record<string, unknown> | undefined) : undefined;
      if (m && typeof m === 'object') {
        const values =
          typeof m.const === 'string'
            ? [m.const]
            : Array.isArray(m.enum)
              ? m.enum.filter((x): x is string => typeof x === 'string')
              : [];
        for (const v of values) if (!into.has(v) || (into.get(v) === undefined && named)) into.set(v, named);
      }
    };
    // The union itself names no member: a member written inline (2026-07-28's ClientNotification) has no name.
    walk(this.defs[definition], undefined);
  }

  /** True when the version knows the method as a request or notification of either side (or one carried in results). */
  private known(method: string): boolean {
    const s = this.sides;
    if (!s) return false;
    return (
      s.request.client.has(method) ||
      s.request.server.has(method) ||
      s.notification.client.has(method) ||
      s.notification.server.has(method) ||
      s.embedded.has(method)
    );
  }

  /**
   * For a request or notification of a method the version knows: the definition it is checked against, or the
   * violation of sending it from the wrong side (pointer /method).
   */
  private byDirection(
    direction: Direction,
    kind: 'request' | 'notification',
    method: string,
  ): { definition?: string; wrong?: SchemaViolation; union?: string } {
    const s = this.sides!;
    const side = SIDE_OF[direction];
    const other = OTHER[side];
    const union = `${side === 'client' ? 'Client' : 'Server'}${kind === 'request' ? 'Request' : 'Notification'}`;
    const own = s[kind][side];
    if (own.has(method)) {
      const mapped = kind === 'request' ? REQUESTS[method]?.request : NOTIFICATIONS[method];
      const definition = mapped && this.has(mapped) ? mapped : own.get(method);
      return { definition };
    }
    const what = kind === 'request' ? 'request' : 'notification';
    let message: string;
    if (s[kind][other].has(method)) message = `${method} is sent by ${PLURAL[other]}, not ${PLURAL[side]}`;
    else if (kind === 'request' && s.embedded.has(method)) {
      message =
        side === 'server'
          ? `${method} is not a request of its own in ${this.version}: a server asks for it in the inputRequests of an InputRequiredResult`
          : `${method} is not a request clients send: a server asks for it in the inputRequests of an InputRequiredResult`;
    } else {
      // Known only as the other kind: a request sent as a notification, or the reverse.
      const otherKind = kind === 'request' ? 'notification' : 'request';
      const senders = (['client', 'server'] as const).filter((x) => s[otherKind][x].has(method)).map((x) => PLURAL[x]);
      const of =
        senders.length === 2
          ? 'of clients and servers'
          : senders.length
            ? `of ${senders[0]}`
            : 'carried in an InputRequiredResult';
      message = `${method} is a ${otherKind} (${of}), not a ${what}`;
    }
    return { wrong: { pointer: '/method', keyword: 'direction', message }, union: this.has(union) ? union : undefined };
  }

  has(definition: string): boolean {
    return Object.hasOwn(this.defs, definition);
  }

  private compiledRef(ref: string): ValidateFunction {
    let fn = this.compilers.precompiled?.get(ref) ?? this.compilers.compiled.get(ref);
    if (!fn) {
      fn = this.runtimeAjv().compile({ $ref: `${this.id}${ref}` });
      this.compilers.compiled.set(ref, fn);
    }
    return fn;
  }

  /** Validate a value against one definition of the document. */
  validateDefinition(definition: string, value: unknown, pointerPrefix = ''): SchemaViolation[] {
    const fn = this.compiledRef(`#/${this.defsKey}/${definition}`);
    if (fn(value)) return [];
    return toViolations(fn.errors ?? [], pointerPrefix, this.refiner(value));
  }

  /** For a failed union whose branches are references into the document: the closest branch's own errors. */
  private refiner(root: unknown): UnionRefiner {
    return (e) => {
      const branches = e.schema;
      if (!Array.isArray(branches)) return undefined;
      const value = atPointer(root, e.instancePath);
      let best: { errors: ErrorObject[]; score: number } | undefined;
      for (const b of branches) {
        const ref = b !== null && typeof b === 'object' ? (b as { $ref?: unknown }).$ref : undefined;
        if (typeof ref !== 'string' || !ref.startsWith('#/') || Object.keys(b as object).length !== 1) return undefined;
        const fn = this.compiledRef(ref);
        if (fn(value)) return undefined; // a branch matches on its own: nothing sensible to add
        const errs = [...(fn.errors ?? [])];
        const sc = score(errs);
        if (!best || sc < best.score) best = { errors: errs, score: sc };
      }
      if (!best || best.errors.some(isDiscriminatorMiss)) return undefined;
      return best.errors;
    };
  }

  /** The envelope definitions of this version. */
  private envelope(kind: MessageKind): string {
    switch (kind) {
      case 'request':
        return 'JSONRPCRequest';
      case 'notification':
        return 'JSONRPCNotification';
      case 'response':
        return this.has('JSONRPCResultResponse') ? 'JSONRPCResultResponse' : 'JSONRPCResponse';
      default:
        return this.has('JSONRPCErrorResponse') ? 'JSONRPCErrorResponse' : 'JSONRPCError';
    }
  }

  check(msg: MessageToCheck): SchemaVerdict {
    const { kind, method } = msg;
    let json = msg.json;
    if (kind === 'invalid') {
      return {
        checked: true,
        valid: false,
        definition: 'JSONRPCMessage',
        violations: this.validateDefinition('JSONRPCMessage', json),
      };
    }
    const envelope = this.envelope(kind);
    const parts: string[] = [envelope];
    let violations: SchemaViolation[] = [];
    if (kind === 'error') {
      // JSON-RPC 2.0 answers an unreadable request with id null; MCP's schemas leave null out. Not a violation here.
      const m = json as Record<string, unknown>;
      const isObject = m !== null && typeof m === 'object' && !Array.isArray(m);
      if (isObject && (m.id === null || !('id' in m))) json = { ...m, id: 0 };
    }
    violations.push(...this.validateDefinition(envelope, json));
    if ((kind === 'request' || kind === 'notification') && method && this.known(method)) {
      // The version knows this method: it must come from the side that sends it, in the kind it is sent as.
      const d = this.byDirection(msg.direction, kind, method);
      if (d.wrong) {
        if (d.union) parts.push(d.union);
        violations.push(d.wrong);
      } else if (d.definition) {
        parts.push(d.definition);
        violations.push(...this.validateDefinition(d.definition, json));
      }
    } else if (
      kind === 'response' &&
      method &&
      this.known(method) &&
      !this.sides!.request[OTHER[SIDE_OF[msg.direction]]].has(method)
    ) {
      // An answer to a request the other side should not have sent (that request is the violation): envelope only.
    } else if (kind === 'request' && method && REQUESTS[method] && this.has(REQUESTS[method].request)) {
      parts.push(REQUESTS[method].request);
      violations.push(...this.validateDefinition(REQUESTS[method].request, json));
    } else if (kind === 'notification' && method && NOTIFICATIONS[method] && this.has(NOTIFICATIONS[method])) {
      parts.push(NOTIFICATIONS[method]);
      violations.push(...this.validateDefinition(NOTIFICATIONS[method], json));
    } else if (kind === 'response' && method && REQUESTS[method] && this.has(REQUESTS[method].result)) {
      const result = json !== null && typeof json === 'object' ? (json as Record<string, unknown>).result : undefined;
      const isTask =
        msg.taskAugmented === true &&
        result !== null &&
        typeof result === 'object' &&
        'task' in result &&
        this.has('CreateTaskResult');
      // 2026-07-28 (multi-round-trip): a result of resultType "input_required" is an InputRequiredResult, whatever the method.
      const inputRequired =
        !isTask &&
        result !== null &&
        typeof result === 'object' &&
        (result as Record<string, unknown>).resultType === 'input_required' &&
        this.has('InputRequiredResult');
      // 2026-07-28: a task handle of the io.modelcontextprotocol/tasks extension, to a request that declared the
      // extension. Its shape is not in the core schema: checked as a Result here, in full by the tasks suite.
      const extensionTask =
        !isTask &&
        !inputRequired &&
        msg.taskAugmented === true &&
        result !== null &&
        typeof result === 'object' &&
        (result as Record<string, unknown>).resultType === 'task' &&
        !this.has('CreateTaskResult');
      const definition = isTask
        ? 'CreateTaskResult'
        : inputRequired
          ? 'InputRequiredResult'
          : extensionTask
            ? 'Result'
            : REQUESTS[method].result;
      parts.push(extensionTask ? 'Result (a task handle of the io.modelcontextprotocol/tasks extension)' : definition);
      violations.push(...this.validateDefinition(definition, result, '/result'));
    }
    violations = dedupe(violations);
    return { checked: true, valid: violations.length === 0, definition: parts.join(' + '), violations };
  }
}

function atPointer(root: unknown, pointer: string): unknown {
  if (!pointer) return root;
  let cur: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

function dedupe(v: SchemaViolation[]): SchemaViolation[] {
  const seen = new Set<string>();
  const out: SchemaViolation[] = [];
  for (const x of v) {
    const k = x.pointer + '\u0000' + x.message;
    if (!seen.has(k)) {
      seen.add(k);
      out.push(x);
    }
  }
  return out;
}

/**
 * Re-checks the value at a failed union against each branch on its own and returns the errors of the closest
 * branch (instance paths relative to the union's place), or undefined when it cannot tell.
 */
export type UnionRefiner = (unionError: ErrorObject) => ErrorObject[] | undefined;

/**
 * Turn ajv errors into plain-words violations. A failed union ('anyOf'/'oneOf', e.g. ContentBlock) makes ajv
 * report the errors of every branch; with a refiner only the closest branch's errors are kept, else one line says
 * that no shape matched.
 */
export function toViolations(errors: ErrorObject[], prefix = '', refine?: UnionRefiner): SchemaViolation[] {
  const kept: ErrorObject[] = [];
  for (const e of errors) {
    if (e.keyword !== 'anyOf' && e.keyword !== 'oneOf') {
      kept.push(e);
      continue;
    }
    const place = e.instancePath;
    const inside = (x: ErrorObject) => x.instancePath === place || x.instancePath.startsWith(place + '/');
    // ajv reports the branches' errors just before the union's own error.
    while (kept.length && inside(kept[kept.length - 1]!)) kept.pop();
    const best = refine?.(e);
    if (best?.length) kept.push(...best.map((b) => ({ ...b, instancePath: place + b.instancePath })));
    else kept.push(e);
  }
  return kept.slice(0, 20).map((e) => ({ pointer: prefix + e.instancePath, keyword: e.keyword, message: describe(e) }));
}

function isDiscriminatorMiss(e: ErrorObject): boolean {
  return (e.keyword === 'const' || e.keyword === 'enum') && /\/(type|kind|method)$/.test(e.instancePath);
}

function score(group: ErrorObject[]): number {
  return (group.some(isDiscriminatorMiss) ? 1000 : 0) + group.length;
}

function describe(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `missing required property "${String(p.missingProperty)}"`;
    case 'type':
      return `expected ${String(p.type)}`;
    case 'const':
      return `expected the constant ${JSON.stringify(p.allowedValue)}`;
    case 'enum':
      return `expected one of ${JSON.stringify(p.allowedValues)}`;
    case 'additionalProperties':
      return `property "${String(p.additionalProperty)}" is not allowed here`;
    case 'anyOf':
    case 'oneOf':
      return 'matches none of the allowed shapes';
    case 'format':
      return `expected format "${String(p.format)}"`;
    default:
      return e.message ?? e.keyword;
  }
}
