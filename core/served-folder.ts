/**
 * Where a local server keeps its files: the folders the security suite puts canaries next to (core/canaries.ts).
 *
 * Only a server the run started on this machine counts as local (a stdio command, or --start): its paths are this
 * machine's. The folder it serves is read from what the user gave the run — directories on the server's command line
 * (also as `--flag=DIR`), its --cwd, the roots the harness answers with — and from what the server says (a
 * list_allowed_directories-like tool, read by the suite). Only existing directories count.
 */
import { statSync } from 'node:fs';
import { isAbsolute, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Root } from './client-capabilities.js';
import type { RunInput } from './inputs.js';
import type { Target } from './transport/index.js';

/**
 * What the run was asked to test (ctx.input(targetInput)): the stdio command and its --cwd, or the URL and the --start
 * command. The run puts it in every run's inputs (core/run.ts inputsOf).
 */
export const targetInput: RunInput<Target> = { id: 'target' };
/** The roots the harness answers roots/list with, when it declares the roots capability (ctx.input(rootsInput)). */
export const rootsInput: RunInput<readonly Root[]> = { id: 'roots' };

export interface LocalServer {
  /** The server's command line (program first). */
  argv: readonly string[];
  /** Its working directory when the user set one (--cwd), else the harness's. */
  cwd?: string;
  /** How it was started, for messages: 'stdio' or '--start'. */
  how: string;
}

export interface Folder {
  /** Absolute path of an existing directory. */
  path: string;
  /** Where the run learnt of it, in words ("the server's command line", "--cwd", "roots", "tool list_allowed_directories"). */
  from: string;
}

/** The server's command line when the run started it on this machine; else why it is not probed (a sentence). */
export function localServer(target: Target | undefined): LocalServer | string {
  if (!target) return 'the run did not say how the server was started';
  if (target.transport === 'stdio')
    return { argv: target.argv, ...(target.cwd ? { cwd: target.cwd } : {}), how: 'stdio' };
  if (target.start)
    return { argv: target.start.argv, ...(target.start.cwd ? { cwd: target.start.cwd } : {}), how: '--start' };
  return `the server at ${hostOf(target.url)} was not started by this run (no stdio command, no --start): its paths need not be this machine's`;
}

/** Whether a URL names this machine's loopback (127.0.0.0/8, ::1, localhost). */
export function isLoopbackUrl(url: string): boolean {
  let h: string;
  try {
    h = new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the URL';
  }
}

/** An existing directory, as an absolute path (relative ones against base), else undefined. */
export function existingDir(p: string, base?: string): string | undefined {
  if (!p || p.includes('\0')) return undefined;
  const abs = isAbsolute(p) ? resolve(p) : base ? resolve(base, p) : undefined;
  if (!abs) return undefined;
  try {
    return statSync(abs).isDirectory() ? abs : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Directories named on the server's command line (after the program), then its --cwd. A word that is a directory
 * counts, and the value of `--flag=DIR`. Relative words are read against the server's working directory.
 */
export function foldersFromCommandLine(s: LocalServer): Folder[] {
  const base = s.cwd ? resolve(s.cwd) : process.cwd();
  const out: Folder[] = [];
  const add = (p: string | undefined, from: string) => {
    if (p && !out.some((f) => f.path === p)) out.push({ path: p, from });
  };
  for (const w of s.argv.slice(1)) {
    const value = /^--?[A-Za-z][\w-]*=(.+)$/.exec(w)?.[1];
    add(existingDir(value ?? w, base), "the server's command line");
  }
  if (s.cwd) add(existingDir(s.cwd, process.cwd()), '--cwd');
  return out;
}

/** file:// roots the harness answers roots/list with that are directories here. */
export function foldersFromRoots(roots: readonly { uri: string }[] | undefined): Folder[] {
  const out: Folder[] = [];
  for (const r of roots ?? []) {
    const p = filePath(r.uri);
    const d = p && existingDir(p);
    if (d && !out.some((f) => f.path === d)) out.push({ path: d, from: 'roots' });
  }
  return out;
}

/** Absolute paths in a text (a tool's answer) that are directories here. */
export function foldersInText(text: string, from: string): Folder[] {
  const out: Folder[] = [];
  for (const m of text.matchAll(/(?:^|[\s"'`:,([])(\/[^\s"'`,)\]]*)/g)) {
    const d = existingDir(m[1]!.replace(/[.;:]+$/, ''));
    if (d && d !== '/' && !out.some((f) => f.path === d)) out.push({ path: d, from });
  }
  return out;
}

/** The local path of a file: URI, or undefined (another scheme, a remote host, not a URI). */
export function filePath(uri: string): string | undefined {
  if (!/^file:/i.test(uri)) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

/** The deepest folder that holds every path (undefined for none). */
export function commonFolder(paths: readonly string[]): string | undefined {
  if (!paths.length) return undefined;
  let parts = paths[0]!.split(sep);
  for (const p of paths.slice(1)) {
    const q = p.split(sep);
    let i = 0;
    while (i < parts.length && i < q.length && parts[i] === q[i]) i++;
    parts = parts.slice(0, i);
  }
  return parts.join(sep) || sep;
}
