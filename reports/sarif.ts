/**
 * report.sarif: SARIF 2.1.0 for GitHub code scanning (github/codeql-action/upload-sarif) and other SARIF readers.
 *
 * - One SARIF run for the whole invocation (every target), tool driver `mcp-conform`; one rule per case id met in
 *   the results, with the case title, the requirement, the spec link (helpUri) and the level as the rule's default
 *   configuration (MUST → error, SHOULD → warning, MAY → note).
 * - Results: a fail is an `error`, a warn a `warning` (under --strict a warn made a fail is an error); a baselined
 *   fail stays an `error` with an external suppression carrying the baseline's reason (readers show it as
 *   suppressed). pass, skip and info are left out: code scanning makes an alert of every result, and an alert
 *   should be something to fix. A run that ended early (the server would not start, crashed, went silent) is an
 *   `error` of rule `mcp-conform/run-ended-early`.
 * - Where (see locateTarget): the config file the target came from, on the line of its entry; without a config
 *   file, a stdio server's script (the first word of its command that is a file) or else its program; an HTTP
 *   target's URL (without credentials or query). Paths are relative to the checkout (%SRCROOT%: $GITHUB_WORKSPACE
 *   when set, else the current directory) so that code scanning can show the line.
 * - partialFingerprints: a hash of target and case id, so that an alert keeps its identity from run to run.
 * - Security rules (the security suite's cases): tags include "security" and properties carry "security-severity"
 *   (SECURITY_SEVERITY), so that code scanning lists them as security alerts with a severity.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LineCounter, parseDocument, isMap, isSeq, type Node as YamlNode } from 'yaml';
import type { CaseResult, Level, Report } from '../core/results.js';
import { envSecretRedactor } from '../core/secrets.js';
import { runLabel, type Reporter, type ReporterIO, type ReportSet } from './types.js';

export const SARIF_SCHEMA_URI = 'https://json.schemastore.org/sarif-2.1.0.json';
const ABORTED_RULE = 'mcp-conform/run-ended-early';
const LEVEL_OF: Record<Level, 'error' | 'warning' | 'note'> = { MUST: 'error', SHOULD: 'warning', MAY: 'note' };

/** Where a target's results are shown: a file (relative to the source root, or absolute) and a line, or a URL. */
export interface SarifLocation {
  uri: string;
  /** The uri is relative to %SRCROOT%. */
  relative: boolean;
  startLine?: number;
}

interface Where {
  /** The source root: $GITHUB_WORKSPACE when set, else the current directory. */
  root: string;
  configFile?: string;
  /** Lines of the config's targets, by index, and the line of `targets:` itself. */
  configLines?: { targets: (number | undefined)[]; entries: Record<string, unknown>[]; top?: number };
}

function fileLocation(file: string, root: string, startLine?: number): SarifLocation {
  const rel = relative(root, file);
  if (rel && !rel.startsWith('..') && !isAbsolute(rel))
    return { uri: rel.split(sep).join('/'), relative: true, ...(startLine ? { startLine } : {}) };
  return { uri: pathToFileURL(file).href, relative: false, ...(startLine ? { startLine } : {}) };
}

/** The line of each entry of the config's `targets` (JSON or YAML: the yaml parser reads both). */
function configLines(file: string): Where['configLines'] {
  try {
    const counter = new LineCounter();
    const doc = parseDocument(readFileSync(file, 'utf8'), { lineCounter: counter });
    const line = (n: YamlNode | null | undefined) => (n?.range ? counter.linePos(n.range[0]).line : undefined);
    const root = doc.contents;
    if (!isMap(root)) return undefined;
    const pair = root.items.find((p) => (p.key as { value?: unknown } | null)?.value === 'targets');
    const seq = pair?.value;
    const top = line(pair?.key as YamlNode | undefined);
    if (!isSeq(seq)) return { targets: [], entries: [], top };
    return {
      targets: seq.items.map((n) => line(n as YamlNode)),
      entries: (doc.toJS() as { targets: Record<string, unknown>[] }).targets,
      top,
    };
  } catch {
    return undefined;
  }
}

/** A URL as a location: no user, password, query or fragment (they may carry credentials). */
function safeUrl(u: string): string {
  try {
    const url = new URL(u);
    url.username = '';
    url.password = '';
    url.search = '';
    url.hash = '';
    return url.href;
  } catch {
    return u;
  }
}

/**
 * Where a target's results are located. A config target: the config file, at the line of its entry (found by name,
 * else by its command or URL, else the `targets:` line). A command-line stdio target: the first word of its command
 * that names an existing file (the server's script), else its program as written. An HTTP target: its URL — code
 * scanning shows such an alert without a source snippet, which is the truth: the server is not in this repository.
 */
export function locateTarget(r: Report, where: Where): SarifLocation {
  if (where.configFile) {
    const lines = where.configLines;
    let idx = -1;
    if (lines) {
      const t = r.target;
      idx = lines.entries.findIndex((e) =>
        t.name !== undefined
          ? e.name === t.name
          : (t.url !== undefined && [e.url, e.http, e.sse].includes(t.url)) ||
            (t.command !== undefined && (e.stdio === t.command || e.start === t.command)),
      );
    }
    return fileLocation(where.configFile, where.root, (idx >= 0 ? lines?.targets[idx] : undefined) ?? lines?.top);
  }
  if (r.target.transport === 'stdio' || !r.target.url) {
    const cwd = r.target.cwd ?? process.cwd();
    for (const w of (r.target.argv ?? []).slice(0, 6)) {
      const p = resolve(cwd, w);
      try {
        if (existsSync(p) && statSync(p).isFile()) return fileLocation(p, where.root);
      } catch {
        /* not a file */
      }
    }
    const program = r.target.argv?.[0] ?? r.target.command ?? 'server';
    return { uri: encodeURI(program.replace(/\\/g, '/')), relative: true };
  }
  return { uri: safeUrl(r.target.url), relative: false };
}

const fingerprint = (...parts: string[]) =>
  createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 32);

/** The SARIF log of a set of runs (an object; JSON.stringify it). */
export function renderSarif(
  set: ReportSet,
  o: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Record<string, unknown> {
  const env = o.env ?? process.env;
  const root = resolve(env.GITHUB_WORKSPACE || o.cwd || process.cwd());
  const where: Where = {
    root,
    configFile: set.configFile,
    configLines: set.configFile ? configLines(set.configFile) : undefined,
  };
  const rules: Record<string, unknown>[] = [];
  const ruleIndex = new Map<string, number>();
  const rule = (id: string, make: () => Record<string, unknown>) => {
    let i = ruleIndex.get(id);
    if (i === undefined) {
      i = rules.length;
      ruleIndex.set(id, i);
      rules.push(make());
    }
    return i;
  };
  const results: Record<string, unknown>[] = [];
  const multi = set.runs.length > 1;
  set.runs.forEach((r, runIdx) => {
    const label = runLabel(r, runIdx);
    const loc = locateTarget(r, where);
    const location = {
      physicalLocation: {
        artifactLocation: { uri: loc.uri, ...(loc.relative ? { uriBaseId: '%SRCROOT%' } : {}) },
        ...(loc.startLine ? { region: { startLine: loc.startLine } } : {}),
      },
      logicalLocations: [{ name: label, kind: 'module', fullyQualifiedName: label }],
    };
    const result = (
      ruleId: string,
      idx: number,
      level: 'error' | 'warning',
      text: string,
      extra: Record<string, unknown> = {},
    ) =>
      results.push({
        ruleId,
        ruleIndex: idx,
        level,
        message: { text: multi || set.configFile ? `${label}: ${text}` : text },
        locations: [location],
        partialFingerprints: { 'mcpConformTargetCase/v1': fingerprint(label, ruleId) },
        ...extra,
      });
    if (r.aborted) {
      const i = rule(ABORTED_RULE, () => ({
        id: ABORTED_RULE,
        name: 'RunEndedEarly',
        shortDescription: { text: 'The run ended early: the server would not start, crashed or stopped answering' },
        defaultConfiguration: { level: 'error' },
        properties: { tags: ['mcp', 'mcp-conform'] },
      }));
      result(ABORTED_RULE, i, 'error', r.aborted);
    }
    for (const s of r.suites) {
      for (const c of s.cases) {
        if (c.verdict !== 'fail' && c.verdict !== 'warn') continue;
        const i = rule(c.id, () => ruleOf(c, s.id));
        const text = `${c.strictFromWarn ? '[warn made a fail by --strict] ' : ''}${c.message}`;
        result(c.id, i, c.verdict === 'fail' ? 'error' : 'warning', text, {
          properties: {
            verdict: c.verdict,
            level: c.level,
            protocolVersion: c.protocolVersion ?? r.server.protocolVersion,
            target: label,
          },
          ...(c.verdict === 'fail' && c.baselined
            ? {
                suppressions: [
                  {
                    kind: 'external',
                    status: 'accepted',
                    justification: `known failure (baseline${r.baseline ? ` ${r.baseline.file}` : ''})${c.baselineReason ? `: ${c.baselineReason}` : ''}`,
                  },
                ],
              }
            : {}),
        });
      }
    }
  });
  const first = set.runs[0];
  const exitCode = Math.max(...set.runs.map((r) => r.exitCode));
  return {
    $schema: SARIF_SCHEMA_URI,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'mcp-conform',
            version: first.tool.version,
            semanticVersion: first.tool.version,
            rules,
          },
        },
        automationDetails: { id: 'mcp-conform/' },
        originalUriBaseIds: { '%SRCROOT%': { uri: pathToFileURL(root + sep).href } },
        invocations: [{ executionSuccessful: exitCode < 2, exitCode }],
        results,
      },
    ],
  };
}

/**
 * GitHub code scanning's severity of a security rule (properties.security-severity, "0.0"–"10.0": 9+ critical, 7+
 * high, 4+ medium, else low), by case id (a per-item case by its stem). A case of the security suite not listed
 * here gets the default. docs/security.md gives the reasons.
 */
export const SECURITY_SEVERITY: Readonly<Record<string, string>> = {
  'security/session-isolation': '9.0', // another user's data in an answer (GHSA-345p-7cg4-v4c7)
  'security/resource-escape': '8.0', // files outside the served folder (CVE-2025-53110, CVE-2025-53109)
  'security/path-escape': '8.0',
  'security/poisoning': '7.5', // instructions to the model: secrets carried out through tool arguments
  'security/rug-pull': '7.0', // another face for users than for the check
  'security/ssrf': '6.5', // requests to internal addresses
  'security/host-header': '6.5', // DNS rebinding of a local server (CVE-2025-66414, CVE-2025-66416)
  'security/session-id': '5.0', // guessable session ids
};
const DEFAULT_SECURITY_SEVERITY = '5.0';

/** The security-severity of a case of the security suite (undefined for the other suites). */
export function securitySeverity(caseId: string, suite: string): string | undefined {
  if (suite !== 'security' && !caseId.startsWith('security/')) return undefined;
  const stem = Object.keys(SECURITY_SEVERITY)
    .filter((k) => caseId === k || caseId.startsWith(`${k}/`))
    .sort((a, b) => b.length - a.length)[0];
  return stem ? SECURITY_SEVERITY[stem] : DEFAULT_SECURITY_SEVERITY;
}

function ruleOf(c: CaseResult, suite: string): Record<string, unknown> {
  const desc = c.requirement ?? c.title;
  const severity = securitySeverity(c.id, suite);
  return {
    id: c.id,
    name: c.id,
    shortDescription: { text: c.title },
    fullDescription: { text: desc },
    helpUri: c.spec,
    help: {
      text: `${desc}\n${c.level} · ${c.spec}`,
      markdown: `${desc}\n\n**${c.level}** · [specification](${c.spec})`,
    },
    defaultConfiguration: { level: LEVEL_OF[c.level] ?? 'warning' },
    // Security rules: GitHub code scanning's convention (the tag "security" and a security-severity) puts them under
    // security alerts, with the severity it shows.
    properties: severity
      ? {
          level: c.level,
          suite,
          tags: [...new Set(['security', 'mcp', suite, c.level])],
          'security-severity': severity,
        }
      : { level: c.level, suite, tags: ['mcp', suite, c.level] },
  };
}

export function sarifReporter(io: Pick<ReporterIO, 'env'>): Reporter {
  return {
    name: 'sarif',
    writesFiles: true,
    async onFinished(set, { outDir }) {
      await mkdir(outDir, { recursive: true });
      const file = join(outDir, 'report.sarif');
      // The values of secret environment variables never reach the file (a server may print its environment).
      await writeFile(file, envSecretRedactor()(`${JSON.stringify(renderSarif(set, { env: io.env }), null, 2)}\n`));
      return file;
    },
  };
}
