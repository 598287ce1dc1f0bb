/**
 * The commands `snapshot` and `diff`, and what `run --snapshot FILE` / `run --baseline-snapshot FILE` add to a run.
 * `snapshot` is a run of the suite `surface` alone (the run's connection, negotiation, listing and shutdown; no tool
 * is called), so a snapshot is listed exactly as `run` lists.
 */
import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Argv } from 'yargs';
import type { Report, UpdatedFile } from '../results.js';
import type { RunOptions } from '../run.js';
import { PROTOCOL_VERSIONS } from '../schema/versions.js';
import { diffExitCode, diffSnapshots } from './diff.js';
import { diffMarkdown, diffText } from './render.js';
import {
  parseSurfaceFile,
  stringifySnapshot,
  surfaceInput,
  SurfaceInputError,
  type Snapshot,
  type SurfaceRunOptions,
} from './snapshot.js';
import { withInput } from '../inputs.js';

export { SurfaceInputError };

/** Runs one target the way `run` does (bin/mcp-conform.ts runTarget), with extra run options. */
export type RunTarget = (argv: Record<string, unknown>, hooks: { extra?: Partial<RunOptions> }) => Promise<Report>;

/** Reads a snapshot (or a report.json) given on the command line; SurfaceInputError when it cannot. */
export function readSurfaceFile(file: string): ReturnType<typeof parseSurfaceFile> {
  const abs = resolve(file);
  let text: string;
  try {
    text = readFileSync(abs, 'utf8');
  } catch (e) {
    throw new SurfaceInputError(`cannot read ${abs}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return parseSurfaceFile(text, abs);
}

/** Writes a file whole or not at all (a temporary file renamed over it): an old snapshot is never left half written. */
function writeWhole(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

/** A file can be written there (its directory exists); else the error in words. */
function unwritable(file: string): string | undefined {
  const dir = dirname(file);
  try {
    if (!statSync(dir).isDirectory()) return `${dir} is not a directory`;
  } catch {
    return `the directory ${dir} does not exist`;
  }
  if (existsSync(file) && statSync(file).isDirectory()) return `${file} is a directory`;
  return undefined;
}

/**
 * What writing `text` over `file` changes (report.updatedFiles): nothing when the file already holds it; else the
 * surface changes from the snapshot there (core/surface/diff.ts), or, for a new file, what it holds.
 */
function snapshotUpdate(file: string, text: string, next: Snapshot): UpdatedFile {
  let old: string | undefined;
  try {
    old = readFileSync(file, 'utf8');
  } catch {
    /* a new file */
  }
  if (old === text) return { file, by: 'snapshot', written: false, changed: 0, unit: 'changes', details: [] };
  if (old === undefined)
    return { file, by: 'snapshot', written: true, changed: 1, unit: 'new file', details: [summaryLine(next)] };
  try {
    const d = diffSnapshots(parseSurfaceFile(old, file).snapshot, next);
    return {
      file,
      by: 'snapshot',
      written: true,
      changed: d.changes.length,
      unit: d.changes.length === 1 ? 'surface change' : 'surface changes',
      details: d.changes.map((c) => `${c.severity} ${c.name}${c.path ? c.path : ''}`),
    };
  } catch {
    return {
      file,
      by: 'snapshot',
      written: true,
      changed: 1,
      unit: 'file replaced',
      details: ['the file there was no snapshot'],
    };
  }
}

function summaryLine(s: Snapshot): string {
  const n = (l: unknown[] | undefined, w: string) => (l ? `${l.length} ${w}${l.length === 1 ? '' : 's'}` : undefined);
  return [
    n(s.tools, 'tool'),
    n(s.prompts, 'prompt'),
    n(s.resources, 'resource'),
    n(s.resourceTemplates, 'resource template'),
  ]
    .filter(Boolean)
    .join(', ');
}

export interface SurfaceForRun {
  options: SurfaceRunOptions;
  /** After the run: writes --snapshot FILE; a snapshot that could not be taken makes the run fail (exit 1). */
  finish(report: Report, stderr: (s: string) => void): void;
}

/**
 * `run --snapshot FILE` / `--baseline-snapshot FILE`: the baseline is read before the run (a bad file is a usage
 * error, not a lost run). Throws SurfaceInputError.
 */
export function surfaceForRun(argv: Record<string, unknown>): SurfaceForRun | undefined {
  const out = typeof argv.snapshot === 'string' ? resolve(argv.snapshot) : undefined;
  const baseFile = typeof argv['baseline-snapshot'] === 'string' ? resolve(argv['baseline-snapshot']) : undefined;
  if (!out && !baseFile) return undefined;
  if (argv['all-versions'] === true)
    throw new SurfaceInputError(
      '--snapshot and --baseline-snapshot compare one protocol version: leave out --all-versions',
    );
  if (out) {
    const why = unwritable(out);
    if (why) throw new SurfaceInputError(`--snapshot: cannot write ${out}: ${why}`);
  }
  const options: SurfaceRunOptions = {};
  if (baseFile) {
    const { snapshot, notes } = readSurfaceFile(baseFile);
    options.baseline = { file: baseFile, snapshot, notes: notes.map((n) => `baseline: ${n}`) };
  }
  let taken: { snapshot?: Snapshot; problems: string[] } | undefined;
  if (out)
    options.onSnapshot = (s) => {
      taken = s;
    };
  return {
    options,
    finish(report, stderr) {
      if (!out) return;
      if (!taken?.snapshot) {
        const why = taken ? taken.problems.join('; ') : (report.aborted ?? 'the surface suite did not run');
        stderr(`mcp-conform: no snapshot written to ${out}: ${why}\n`);
        if (report.exitCode === 0) report.exitCode = 1;
        return;
      }
      try {
        const text = stringifySnapshot(taken.snapshot);
        const u = snapshotUpdate(out, text, taken.snapshot);
        if (u.written) writeWhole(out, text);
        report.updatedFiles = [...(report.updatedFiles ?? []), u];
      } catch (e) {
        stderr(`mcp-conform: could not write the snapshot ${out}: ${(e as Error).message}\n`);
        if (report.exitCode === 0) report.exitCode = 1;
      }
    },
  };
}

/**
 * Options of `snapshot` besides the target options (bin/target-options.ts adds those, as for `run`; the snapshot
 * goes through run's target handling).
 */
export function snapshotOptions<T>(y: Argv<T>) {
  return y
    .option('timeout', { type: 'number', default: 30000, describe: 'Timeout of each request (ms)' })
    .option('protocol-version', {
      choices: [...PROTOCOL_VERSIONS],
      describe: 'Speak only this protocol version (default: as run negotiates)',
    })
    .option('shutdown-grace', {
      type: 'number',
      default: 2000,
      describe: 'How long each shutdown step waits for the server to exit (ms)',
    })
    .option('max-duration', { type: 'number', default: 600000, describe: 'Bound on the whole snapshot (ms)' })
    .option('max-message-bytes', {
      type: 'number',
      default: 64 * 1024 * 1024,
      describe: 'Longest message accepted from the server (bytes)',
    })
    .option('out', { type: 'string', describe: 'Write the snapshot to this file (default: stdout)' })
    .example('$0 snapshot --stdio "python server.py" --out mcp-surface.json', 'Take the snapshot to commit')
    .example('$0 snapshot --http http://127.0.0.1:8000/mcp', 'Print the surface of an HTTP server')
    .epilogue(
      'No tool is called. Exit codes: 0 written, 1 the server could not be listed (nothing written), 2 a usage error.',
    );
}

/**
 * `snapshot`: lists the surface (tools, prompts, resources, templates when declared) and writes it. Exit 0 when
 * written, 1 when the server could not be listed (nothing written), 2 for a usage error (thrown as SurfaceInputError
 * or by runTarget).
 */
export async function snapshotCommand(
  argv: Record<string, unknown>,
  runTarget: RunTarget,
  io: { stdout: (s: string) => Promise<void>; stderr: (s: string) => Promise<void> },
): Promise<number> {
  if (!['stdio', 'http', 'sse', 'url'].some((k) => argv[k] !== undefined))
    throw new SurfaceInputError('snapshot needs a server: --stdio "<command>", --http URL, --sse URL or --url URL');
  const out = typeof argv.out === 'string' ? resolve(argv.out) : undefined;
  if (out) {
    const why = unwritable(out);
    if (why) throw new SurfaceInputError(`--out: cannot write ${out}: ${why}`);
  }
  let taken: { snapshot?: Snapshot; problems: string[]; notes: string[] } | undefined;
  const report = await runTarget(
    {
      ...argv,
      suite: ['surface'],
      case: undefined,
      'call-tools': 'none',
      strict: false,
      reporter: ['console'],
      'out-dir': '.',
      'all-versions': false,
      snapshot: undefined,
      'baseline-snapshot': undefined,
    },
    {
      extra: {
        inputs: withInput(undefined, surfaceInput, {
          onSnapshot: (s) => {
            taken = s;
          },
        }),
      },
    },
  );
  if (report.exitCode > 1) {
    await io.stderr(`mcp-conform: no snapshot written: ${report.aborted ?? 'interrupted'}\n`);
    return report.exitCode;
  }
  if (!taken?.snapshot) {
    const why = taken?.problems.length ? taken.problems.join('; ') : (report.aborted ?? 'the server was not listed');
    await io.stderr(`mcp-conform: no snapshot taken: ${why}\n`);
    return Math.max(report.exitCode, 1);
  }
  const text = stringifySnapshot(taken.snapshot);
  for (const n of taken.notes) await io.stderr(`mcp-conform: note: ${n}\n`);
  if (!out) {
    await io.stdout(text);
    return 0;
  }
  const u = snapshotUpdate(out, text, taken.snapshot);
  try {
    if (u.written) writeWhole(out, text);
  } catch (e) {
    throw new SurfaceInputError(`--out: could not write ${out}: ${(e as Error).message}`);
  }
  const what = u.details.length
    ? ` (${u.details.slice(0, 6).join(', ')}${u.details.length > 6 ? `, and ${u.details.length - 6} more` : ''})`
    : '';
  await io.stderr(
    u.written
      ? `mcp-conform: updated ${out}: ${u.unit === 'new file' ? `a new file, ${summaryLine(taken.snapshot)}` : `${u.changed} ${u.unit}${what}`}\n`
      : `mcp-conform: ${out} unchanged (${summaryLine(taken.snapshot)})\n`,
  );
  return 0;
}

export function diffOptions(y: Argv) {
  return y
    .positional('old', {
      type: 'string',
      demandOption: true,
      describe: 'The snapshot before (or a report.json of one run)',
    })
    .positional('new', {
      type: 'string',
      demandOption: true,
      describe: 'The snapshot after (or a report.json of one run)',
    })
    .option('format', {
      choices: ['text', 'json', 'markdown'],
      default: 'text',
      describe: 'Output format (markdown: a PR comment)',
    })
    .option('fail-on', {
      choices: ['breaking', 'compatible'],
      default: 'breaking',
      describe: 'Exit 1 on a breaking change (default), or on any change at all (compatible)',
    })
    .example('$0 diff mcp-surface.json new-surface.json', 'What changed, and whether it breaks clients')
    .example(
      '$0 diff mcp-surface.json mcp-conform-report/report.json --format markdown',
      'A PR comment against the last run',
    )
    .epilogue(
      'Exit codes: 0 no breaking change (with --fail-on compatible: no change at all), 1 a breaking change (or any change), 2 a file that cannot be read or is neither a snapshot nor a report.json. The rule table: docs/snapshots.md.',
    );
}

/** `diff OLD NEW`: exit 1 on a change at the --fail-on level, 0 otherwise; unreadable input: SurfaceInputError (2). */
export async function diffCommand(
  argv: Record<string, unknown>,
  io: { stdout: (s: string) => Promise<void> },
): Promise<number> {
  const oldFile = String(argv.old);
  const newFile = String(argv.new);
  const a = readSurfaceFile(oldFile);
  const b = readSurfaceFile(newFile);
  const d = diffSnapshots(a.snapshot, b.snapshot, [
    ...a.notes.map((n) => `OLD: ${n}`),
    ...b.notes.map((n) => `NEW: ${n}`),
  ]);
  const labels = { old: oldFile, new: newFile };
  if (argv.format === 'json') await io.stdout(JSON.stringify({ old: oldFile, new: newFile, ...d }, null, 2) + '\n');
  else if (argv.format === 'markdown') await io.stdout(diffMarkdown(d, labels));
  else await io.stdout(diffText(d, labels));
  return diffExitCode(d, argv['fail-on'] === 'compatible' ? 'compatible' : 'breaking');
}
