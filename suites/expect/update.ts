/**
 * --update-expect: after an intended change, the expected values of failing checks are rewritten to what the server
 * answered (vitest's `-u` for expectation files). Only the values that were checked change; the file keeps its order,
 * its other values and (YAML) its comments. Checks whose expected value cannot be derived from an answer
 * (textContains, textMatches, $-operators, maxMs) are left as they are, and keep failing.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isMap, type Document } from 'yaml';
import type { CheckOutcome } from './checks.js';
import type { ExpectFile } from './format.js';

/** What changed in one expectation, in words; or why a failing check was left. */
export interface UpdateNote {
  updated: string[];
  left: string[];
}

const RESULT_CHECKS = ['isError', 'text', 'textContains', 'textMatches', 'structuredContent', 'result', 'paths'];

/**
 * Applies the failing checks of one expectation (at `index` in the file) to the document; returns what it changed and
 * what it left. `answer` is the raw answer (for a result that came where an error was expected, and the other way).
 */
export function updateExpectation(doc: Document, index: number, checks: readonly CheckOutcome[], answer: { result?: Record<string, unknown>; error?: { code: number; message: string } }): UpdateNote {
  const at = (...p: (string | number)[]) => ['expectations', index, ...p];
  const note: UpdateNote = { updated: [], left: [] };
  for (const c of checks) {
    if (c.ok) continue;
    const [head, ...rest] = c.check.split('.');
    const sub = rest.join('.');
    switch (head) {
      case 'error':
        if (!sub && c.expected === 'a result' && answer.error) {
          // A result was expected; an error came: the expectation becomes an error expectation.
          for (const k of RESULT_CHECKS) doc.deleteIn(at('expect', k));
          doc.setIn(at('expect', 'error'), { code: answer.error.code });
          note.updated.push(`error {code: ${answer.error.code}} (the checks of a result removed)`);
        } else if (!sub && answer.result) {
          doc.deleteIn(at('expect', 'error'));
          doc.setIn(at('expect', 'isError'), answer.result.isError === true);
          note.updated.push(`error removed, isError ${answer.result.isError === true}`);
        } else if (sub === 'code' || sub === 'message') {
          doc.setIn(at('expect', 'error', sub), c.actual);
          note.updated.push(`error.${sub} ${JSON.stringify(c.actual)} (was ${JSON.stringify(c.expected)})`);
        } else note.left.push(c.check);
        break;
      case 'isError':
      case 'text':
      case 'structuredContent':
      case 'result':
        if (c.actual === undefined) { note.left.push(`${c.check} (the answer has none)`); break; }
        doc.setIn(at('expect', head), c.actual);
        note.updated.push(head === 'structuredContent' || head === 'result' ? `${head} (${(c.diff ?? []).map((d) => d.at || '/').join(', ')})` : `${head} ${JSON.stringify(c.actual)} (was ${JSON.stringify(c.expected)})`);
        break;
      case 'paths': {
        const op = c.expected !== null && typeof c.expected === 'object' && !Array.isArray(c.expected) && Object.keys(c.expected).some((k) => k.startsWith('$'));
        if (op) { note.left.push(c.check); break; }
        if (c.actual === undefined) {
          doc.deleteIn(at('expect', 'paths', sub));
          note.updated.push(`paths ${sub} removed (nothing is there now)`);
        } else {
          doc.setIn(at('expect', 'paths', sub), c.actual);
          note.updated.push(`paths ${sub} ${JSON.stringify(c.actual)}`);
        }
        break;
      }
      case 'tools': {
        const names = c.actual as string[];
        const given = doc.getIn(at('tools', sub)) as { toJSON(): string[] } | undefined;
        const list = given ? given.toJSON() : [];
        const next = sub === 'exactly' ? [...names] : sub === 'includes' ? list.filter((n) => names.includes(n)) : list.filter((n) => !names.includes(n));
        doc.setIn(at('tools', sub), next);
        note.updated.push(`tools.${sub}`);
        break;
      }
      default:
        note.left.push(c.check);
    }
  }
  // An expect mapping left empty by the edits goes.
  const e = doc.getIn(at('expect'));
  if (isMap(e) && !e.items.length) doc.deleteIn(at('expect'));
  return note;
}

/** Writes the edited file (YAML as edited, JSON re-serialized with two spaces), through a temporary file. */
export function writeExpectFile(f: ExpectFile): void {
  const text = f.json ? `${JSON.stringify(f.doc.toJS(), null, 2)}\n` : f.doc.toString({ lineWidth: 0 });
  const tmp = join(dirname(f.file), `.${basename(f.file)}.${process.pid}.tmp`);
  writeFileSync(tmp, text);
  renameSync(tmp, f.file);
}
