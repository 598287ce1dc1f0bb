/** The tools a run's server listed and the ones the harness called, read from report.json's message log. */
import type { Report } from '../../core/results.js';

export interface ListedTool {
  name: string;
  annotations?: { readOnlyHint?: unknown };
}

/** Every tool the server listed in the run (all tools/list answers in the message log). */
export function listedTools(report: Report): ListedTool[] {
  return report.messages
    .filter((m) => m.direction === 'from-server' && m.kind === 'response' && m.method === 'tools/list')
    .flatMap((m) => (m.json as { result?: { tools?: ListedTool[] } }).result?.tools ?? []);
}

/**
 * The names of every tools/call the harness sent that names a tool the server listed (the unknown-tool probe's
 * made-up name and the nameless malformed call are not calls of a real tool).
 */
export function calledNames(report: Report): string[] {
  const listed = new Set(listedTools(report).map((t) => t.name));
  return report.messages
    .filter((m) => m.direction === 'to-server' && m.kind === 'request' && m.method === 'tools/call')
    .map((m) => (m.json as { params?: { name?: unknown } }).params?.name)
    .filter((n): n is string => typeof n === 'string' && listed.has(n));
}
