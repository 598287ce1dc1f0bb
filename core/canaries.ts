/**
 * Canary files: files the harness makes just outside a server's served folder, each holding a random token, so that a
 * server that reads outside its folder shows it by answering with a token (security/resource-escape, path-escape).
 *
 * For a served folder /x/served it makes:
 * - the prefix canary `/x/served-<rand>/canary-<name>.txt`: a sibling folder whose name starts with the served
 *   folder's, which a containment check by string prefix ("starts with /x/served") lets through (CVE-2025-53110);
 * - the outside canary `/x/.mcp-conform-canary-<rand>/canary-<name>.txt`, named so that no prefix check lets it
 *   through: reached as `/x/served/../.mcp-conform-canary-<rand>/…`, it shows a server that does not resolve `..`;
 * - where the harness can, a symlink inside the folder, `/x/served/.mcp-conform-link-<rand>`, pointing at the outside
 *   canary: a server that checks the path but not where a link leads reads through it (CVE-2025-53109).
 *
 * What is made is removed on every exit path: by the case that made it (remove(), in a finally); on SIGINT, SIGTERM
 * or SIGHUP at once, while any canary is on disk (the CLI's own handler then stops the run as usual; in a program
 * with no handler of its own the signal is raised again once they are gone, so it ends the process as it would have);
 * and, should the process end any other way (a forced exit, an uncaught error), by a process 'exit' hook that removes
 * every canary still there, synchronously. Only SIGKILL of the harness can leave one behind: nothing can run then.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

export interface CanaryFile {
  /** Absolute path of the canary file. */
  path: string;
  /** The token its content holds: a token in an answer means the server read this file. */
  token: string;
}

export interface CanarySet {
  /** The served folder (absolute, as given). */
  root: string;
  /** The sibling folder whose name starts with the root's, and the file in it. */
  prefixDir: string;
  prefix: CanaryFile;
  /** A folder next to the root whose name shares no prefix with it, and the file in it. */
  outsideDir: string;
  outside: CanaryFile;
  /** The symlink inside the root pointing at the outside canary, when the harness could make one. */
  link?: string;
  /** Why there is no symlink (the folder is not writable, say). */
  linkProblem?: string;
  /** The canary files' base name (the same in both folders): a listing that names it lists a canary folder. */
  fileName: string;
  /** Remove everything made; idempotent. */
  remove(): void;
}

/** Thrown when the canaries cannot be made next to a folder: why, in words. */
export class CanaryError extends Error {}

/** Paths made and not yet removed (files and links first, then folders), for the exit hook. */
const made = new Set<string>();
let hooked = false;

function removePath(p: string): void {
  try {
    const st = lstatSync(p);
    if (st.isDirectory()) rmSync(p, { recursive: true, force: true });
    else unlinkSync(p);
  } catch {
    /* already gone */
  }
  made.delete(p);
  if (!made.size) unhookSignals();
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
let signalsHooked = false;

function onSignal(sig: NodeJS.Signals): void {
  removeAllCanaries();
  unhookSignals();
  // Nobody else handles it: the default action (the process ends by the signal) as if we had not been there.
  if (process.listenerCount(sig) === 0) process.kill(process.pid, sig);
}

function hookSignals(): void {
  if (signalsHooked) return;
  signalsHooked = true;
  for (const s of SIGNALS) process.on(s, onSignal);
}

function unhookSignals(): void {
  if (!signalsHooked) return;
  signalsHooked = false;
  for (const s of SIGNALS) process.off(s, onSignal);
}

/** Remove every canary still on disk (the exit hook; tests call it too). */
export function removeAllCanaries(): void {
  // Links and files before folders (a set keeps the order made: remove the later ones first).
  for (const p of [...made].reverse()) removePath(p);
}

/** The canary paths made and not removed yet (tests). */
export function canariesOnDisk(): string[] {
  return [...made].filter((p) => {
    try {
      lstatSync(p);
      return true;
    } catch {
      return false;
    }
  });
}

const hex = (n: number) => randomBytes(n).toString('hex');

function content(token: string): string {
  return `mcp-conform canary ${token}\nThis file was made by mcp-conform outside the folder a server serves; a server that returns it read outside that folder. It is removed when the run ends.\n`;
}

/**
 * Make the canaries next to `folder` (an existing directory on this machine). Throws CanaryError when it cannot
 * (the folder is / or its parent is not writable); a symlink that cannot be made is only noted (linkProblem).
 */
export function makeCanaries(folder: string): CanarySet {
  const root = resolve(folder).replace(/\/+$/, '') || '/';
  let st;
  try {
    st = statSync(root);
  } catch (e) {
    throw new CanaryError(
      `${root} is not a folder on this machine (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
    );
  }
  if (!st.isDirectory()) throw new CanaryError(`${root} is not a folder`);
  const parent = dirname(root);
  if (parent === root) throw new CanaryError(`${root} has no parent folder to put canaries in`);
  if (!hooked) {
    hooked = true;
    process.once('exit', removeAllCanaries);
  }
  const rand = hex(4);
  const fileName = `canary-${hex(6)}.txt`;
  const prefixDir = `${root}-${rand}`;
  let outsideName = `.mcp-conform-canary-${rand}`;
  // The outside folder must not start with the root's name, or a prefix bug would read it too.
  if (outsideName.startsWith(basename(root))) outsideName = `_${outsideName}`;
  const outsideDir = join(parent, outsideName);
  const made1: string[] = [];
  const mk = (dir: string, file: string, token: string) => {
    try {
      mkdirSync(dir, { mode: 0o700 }); // fails if it exists: never write into a folder the harness did not make
      made.add(dir);
      hookSignals();
      made1.push(dir);
      writeFileSync(join(dir, file), content(token), { mode: 0o600, flag: 'wx' });
    } catch (e) {
      for (const p of made1.reverse()) removePath(p);
      throw new CanaryError(
        `cannot make a canary folder next to ${root} (${dir}): ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      );
    }
  };
  const prefix: CanaryFile = { path: join(prefixDir, fileName), token: hex(16) };
  const outside: CanaryFile = { path: join(outsideDir, fileName), token: hex(16) };
  mk(prefixDir, fileName, prefix.token);
  mk(outsideDir, fileName, outside.token);
  let link: string | undefined;
  let linkProblem: string | undefined;
  const linkPath = join(root, `.mcp-conform-link-${rand}`);
  if (existsSync(linkPath)) linkProblem = `${linkPath} exists already`;
  else {
    try {
      made.add(linkPath); // before it exists: the exit hook must not miss it
      symlinkSync(outside.path, linkPath);
      link = linkPath;
    } catch (e) {
      made.delete(linkPath);
      linkProblem = `cannot make a symlink in ${root}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`;
    }
  }
  const all = [prefixDir, outsideDir, ...(link ? [link] : [])];
  return {
    root,
    prefixDir,
    prefix,
    outsideDir,
    outside,
    fileName,
    ...(link ? { link } : {}),
    ...(linkProblem ? { linkProblem } : {}),
    remove() {
      for (const p of [...all].reverse()) removePath(p);
    },
  };
}
