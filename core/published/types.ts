/**
 * What a server's author publishes about it, as a run is told (run --server-json, run --manifest): the file, how it
 * fared against its published schema, and what it declares. Read by the suites `registry` and `manifest`; the
 * command line reads the files (and chooses how to start the server from them) before the run.
 */
import type { RunInput } from '../inputs.js';

/** A published file, checked against its schema before the run. */
export interface PublishedFile {
  file: string;
  /** The schema it was checked against (its address or package path), or why it could not be (then no problems). */
  schema: string;
  /** The schema could not be loaded (the case says so rather than pass or fail). */
  schemaUnavailable?: string;
  /** Where the file does not fit its schema (instance path: message), in plain words; [] when it fits. */
  problems: string[];
  /** Notes on reading it (the $schema it declares is another version, say). */
  notes?: string[];
}

export interface ServerJsonRun extends PublishedFile {
  /** The entry tested: `packages[i]` or `remotes[i]`, and how it was turned into a target. */
  entry: string;
  how: string;
}

export interface ManifestRun extends PublishedFile {
  /** The tools and prompts the manifest declares (names), when it declares them. */
  tools?: string[];
  prompts?: string[];
  /** tools_generated / prompts_generated: the server makes more at run time than the manifest lists. */
  toolsGenerated?: boolean;
  promptsGenerated?: boolean;
}

export interface PublishedRunOptions {
  serverJson?: ServerJsonRun;
  manifest?: ManifestRun;
}

/** The published files as a run input: suites `registry` and `manifest` read it (ctx.input(publishedInput)). */
export const publishedInput: RunInput<PublishedRunOptions> = { id: 'published' };
