/**
 * The token table the build makes of gpt-tokenizer's data (scripts/precompile-tokenizer.mjs, suites/compat/
 * token-table.ts): a run counts from it instead of loading the package's encoder, and must count exactly
 * as the package does on any text, with text that looks like a special token counted as ordinary text
 * (`countTokens(text, { disallowedSpecial: new Set() })`: what a tool sends is not a control token).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { countTokens as packageCount } from 'gpt-tokenizer/encoding/o200k_base';
import { TokenTable } from '../suites/compat/token-table.js';
import { py, run } from './helpers/cli.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const TABLE = join(root, 'dist', 'suites', 'compat', 'tokenizer', 'o200k_base.table');
const ORDINARY = { disallowedSpecial: new Set<string>() };
/** gpt-tokenizer's count with special-token lookalikes as ordinary text: what the quality suite reports. */
const countTokens = (t: string) => packageCount(t, ORDINARY);

/** A count, or the error message (without the prefix cost.ts adds). */
function outcome(count: (t: string) => number, text: string): number | string {
  try {
    return count(text);
  } catch (e) {
    return `error: ${(e as Error).message.replace(/^counting tokens: /, '')}`;
  }
}

describe("the build's token table", () => {
  const table = new TokenTable(readFileSync(TABLE));
  const ours = (t: string) => table.count(t);

  it('is made from the installed gpt-tokenizer', () => {
    const { version } = JSON.parse(
      readFileSync(join(root, 'node_modules', 'gpt-tokenizer', 'package.json'), 'utf8'),
    ) as { version: string };
    expect(table.header.fingerprint).toBe(`gpt-tokenizer ${version} o200k_base`);
    expect(table.header.count).toBeGreaterThan(199_000);
  });

  it('counts 30,000 random strings as gpt-tokenizer does (scripts, emoji, controls, surrogates, special tokens)', () => {
    const alphabet = [
      ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 \t\n\r.,;:!?\'"`~@#$%^&*()-_=+[]{}<>/\\|éüñçøßàè日本語中文한국어Русскийالعربيةעבריתहिन्दी😀👍🏽🇫🇷✅\u0000\u0001\u001f\u007f\u00a0\u200b\ufeff\u2028',
    ];
    alphabet.push('\ud800', '\udfff', '<|endoftext|>', '<|im_start|>', "'s", "'LL", '\r\n', '    ');
    let seed = 17;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const differing: string[] = [];
    for (let k = 0; k < 30_000; k++) {
      let s = '';
      for (let i = 1 + rnd(40); i > 0; i--) s += alphabet[rnd(alphabet.length)];
      if (outcome(ours, s) !== outcome(countTokens, s)) differing.push(s);
    }
    // Random bytes read as UTF-8 (replacement characters, every script).
    for (let k = 0; k < 5_000; k++) {
      const s = new TextDecoder().decode(Uint8Array.from({ length: 1 + rnd(30) }, () => rnd(256)));
      if (outcome(ours, s) !== outcome(countTokens, s)) differing.push(s);
    }
    expect(differing.slice(0, 5)).toEqual([]);
  });

  it('counts every file of the repository as gpt-tokenizer does', () => {
    const files = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .filter((f) => f && existsSync(join(root, f)));
    expect(files.length).toBeGreaterThan(100);
    const differing = files.filter((f) => {
      const text = readFileSync(join(root, f), 'utf8');
      return outcome(ours, text) !== outcome(countTokens, text);
    });
    expect(differing).toEqual([]);
  });

  it('never finds a token gpt-tokenizer cannot find (U+FEFF: kept as bytes that are valid UTF-8)', () => {
    expect(countTokens('\ufeff')).toBe(2);
    expect(table.count('\ufeff')).toBe(2);
  });

  it("counts a special-token lookalike as ordinary text (gpt-tokenizer's default refuses it)", () => {
    expect(() => packageCount('a <|endoftext|> b')).toThrow('Disallowed special token found: <|endoftext|>');
    expect(table.count('a <|endoftext|> b')).toBe(countTokens('a <|endoftext|> b'));
    expect(table.count('<|endoftext|>')).toBeGreaterThan(1); // not the one special token
  });

  it('rejects bytes that are not a table', () => {
    expect(() => new TokenTable(Buffer.from('not a table at all'))).toThrow(/not a token table/);
    const cut = readFileSync(TABLE).subarray(0, 100_000);
    expect(() => new TokenTable(cut)).toThrow();
  });
});

describe('where counts come from', () => {
  it('the built module counts from the table; without one (from source) gpt-tokenizer counts; the same counts', async () => {
    const built = (await import(
      join(root, 'dist', 'suites', 'compat', 'cost.js')
    )) as typeof import('../suites/compat/cost.js');
    const source = await import('../suites/compat/cost.js');
    const texts = ['hello world', readFileSync(join(root, 'README.md'), 'utf8'), 'emoji 😀 and \ufeff'];
    const a = await built.countTokensOf(texts);
    const b = await source.countTokensOf(texts);
    expect(a).toEqual(texts.map((t) => countTokens(t)));
    expect(b).toEqual(a);
    expect(built.tokenizerUse).toEqual(['table']);
    expect(source.tokenizerUse).toEqual(['package']);
    // A tool about tokenizers may well name one: counted, not refused (it was a harness error before).
    expect(await built.countTokensOf(['x <|im_start|> y'])).toEqual(await source.countTokensOf(['x <|im_start|> y']));
    expect(await built.countTokensOf(['x <|im_start|> y'])).toEqual([countTokens('x <|im_start|> y')]);
  });
});

describe('several targets in one invocation (holdTokenizer)', () => {
  it("a hold keeps the table read once across the runs' releases; its end lets it go", async () => {
    const built = (await import(
      join(root, 'dist', 'suites', 'compat', 'cost.js')
    )) as typeof import('../suites/compat/cost.js');
    const reads = () => built.tokenizerUse.length;
    built.releaseTokenizer();
    const before = reads();
    const unhold = built.holdTokenizer();
    await built.countTokensOf(['the first target']);
    built.releaseTokenizer(); // the first target's quality suite is done
    await built.countTokensOf(['the second target']);
    built.releaseTokenizer();
    expect(reads() - before).toBe(1);
    unhold();
    unhold(); // a second call is no second end
    await built.countTokensOf(['after the invocation']);
    expect(reads() - before).toBe(2); // let go: read again
    built.releaseTokenizer();
    await built.countTokensOf(['without a hold']);
    expect(reads() - before).toBe(3);
    built.releaseTokenizer();
  });
});

describe('a server whose tools talk about tokenizers (fixtures/servers/tokenizer-text.py)', () => {
  it('its special-token lookalikes are counted as text: quality/token-cost and result-size are info, the run exits 0', async () => {
    const r = await run(py('tokenizer-text.py'), ['--suite', 'calling,quality']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.verdicts('quality/')).toMatchObject({ 'quality/token-cost': 'info', 'quality/result-size': 'info' });
    const { toolText, resultText } = await import('../suites/compat/cost.js');
    const listed = r.report.messages
      .filter((m) => m.method === 'tools/list' && m.direction === 'from-server')
      .flatMap((m) => (m.json as { result: { tools: never[] } }).result.tools);
    const perTool = r.c('quality/token-cost').details!.perTool as { tool: string; tokens: number }[];
    expect(listed.map((t: { name: string }) => t.name).sort()).toEqual(['chat_markup', 'split_documents']);
    for (const t of listed)
      expect(perTool.find((x) => x.tool === (t as { name: string }).name)!.tokens).toBe(countTokens(toolText(t)));
    const results = r.c('quality/result-size').details!.results as { tool: string; tokens: number }[];
    const answers = r.report.messages.filter(
      (m) => m.method === 'tools/call' && m.direction === 'from-server' && (m.json as { result?: unknown }).result,
    );
    expect(results.map((x) => x.tokens).sort()).toEqual(
      answers.map((m) => countTokens(resultText((m.json as { result: unknown }).result))).sort(),
    );
    expect(answers.some((m) => m.raw.includes('<|im_start|>'))).toBe(true);
  }, 60_000);
});
