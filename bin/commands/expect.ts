/**
 * `mcp-conform expect --from-cassette FILE | --from-report FILE [--out FILE]`: an expectation file of what the server
 * answered in a recorded session (lib/expect-from-session.ts), for `run --expect`. Registered in bin/cli.ts.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { Argv } from 'yargs';

export function expectOptions(y: Argv): Argv {
  return y
    .option('from-cassette', {
      type: 'string',
      describe:
        'A cassette (run --record, or record between a client and the server): its requests and the answers they got',
    })
    .option('from-report', {
      type: 'string',
      describe:
        "A report.json (--reporter json, --report-bodies full): the run's own requests and the answers they got",
    })
    .option('out', {
      type: 'string',
      describe: 'Write the expectation file here (.yaml, or .json for JSON); default: standard output',
    })
    .option('force', { type: 'boolean', default: false, describe: 'With --out: replace a file that is there' })
    .example(
      '$0 expect --from-cassette session.cassette.jsonl --out server.expect.yaml',
      'Expectations from a recorded session',
    )
    .example('$0 run --stdio "python server.py" --expect server.expect.yaml', 'Check them');
}

export async function expectCommand(
  a: Record<string, unknown>,
  io: { stdout(s: string): Promise<void>; stderr(s: string): Promise<void> },
  usage: (m: string) => Error,
): Promise<number> {
  const from = [a['from-cassette'], a['from-report']].filter((x) => x !== undefined);
  if (from.length !== 1) throw usage('expect needs one of --from-cassette FILE or --from-report FILE');
  const out = typeof a.out === 'string' ? resolve(a.out) : undefined;
  if (out && existsSync(out) && a.force !== true)
    throw usage(
      `--out: ${out} is there already (--force replaces it; --update-expect of run rewrites the values of an expectation file)`,
    );
  const { expectationsFromSession, recordedFromCassette, recordedFromReport } = await import(
    '../../lib/expect-from-session.js'
  );
  const { MockInputError } = await import('../../core/formats/cassette.js');
  const file = resolve(String(from[0]));
  let made: ReturnType<typeof expectationsFromSession>;
  try {
    const recorded = a['from-cassette'] !== undefined ? recordedFromCassette(file) : recordedFromReport(file);
    made = expectationsFromSession(recorded, {
      json: out !== undefined && /\.json$/i.test(out),
      source: basename(file),
    });
  } catch (e) {
    if (e instanceof MockInputError || (e as NodeJS.ErrnoException).code === undefined)
      throw usage((e as Error).message);
    throw e;
  }
  if (out) writeFileSync(out, made.text);
  else await io.stdout(made.text);
  const left = Object.entries(made.leftOut)
    .map(([m, n]) => `${n} ${m}`)
    .join(', ');
  await io.stderr(
    `mcp-conform: ${made.count} expectation${made.count === 1 ? '' : 's'}${out ? ` written to ${out}` : ''}${left ? `; left out: ${left}` : ''}\n`,
  );
  return 0;
}
