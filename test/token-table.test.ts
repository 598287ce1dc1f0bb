/**
 * The token table the build makes of gpt-tokenizer's data (scripts/precompile-tokenizer.mjs, suites/compat/
 * token-table.ts): a run counts from it instead of loading the package's encoder (issue 17), and must count exactly
 * as the package does — the same number, or the same refusal of a special token — on any text.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { TokenTable } from '../suites/compat/token-table.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const TABLE = join(root, 'dist', 'suites', 'compat', 'tokenizer', 'o200k_base.table');

/** A count, or the error message (without the prefix cost.ts adds). */
function outcome(count: (t: string) => number, text: string): number | string {
  try {
    return count(text);
  } catch (e) {
    return `error: ${(e as Error).message.replace(/^counting tokens: /, '')}`;
  }
}

describe('the build\'s token table', () => {
  const table = new TokenTable(readFileSync(TABLE));
  const ours = (t: string) => table.count(t);

  it('is made from the installed gpt-tokenizer', () => {
    const { version } = JSON.parse(readFileSync(join(root, 'node_modules', 'gpt-tokenizer', 'package.json'), 'utf8')) as { version: string };
    expect(table.header.fingerprint).toBe(`gpt-tokenizer ${version} o200k_base`);
    expect(table.header.count).toBeGreaterThan(199_000);
  });

  it('counts 30,000 random strings as gpt-tokenizer does (scripts, emoji, controls, surrogates, special tokens)', () => {
    const alphabet = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 \t\n\r.,;:!?\'"`~@#$%^&*()-_=+[]{}<>/\\|éüñçøßàè日本語中文한국어Русскийالعربيةעבריתहिन्दी😀👍🏽🇫🇷✅\u0000\u0001\u001f\u007f\u00a0\u200b\ufeff\u2028'];
    alphabet.push('\ud800', '\udfff', '<|endoftext|>', '<|im_start|>', "'s", "'LL", '\r\n', '    ');
    let seed = 17;
    const rnd = (n: number) => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed % n; };
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
    const files = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' }).split('\n').filter((f) => f && existsSync(join(root, f)));
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

  it('refuses text with a special token, as gpt-tokenizer does', () => {
    expect(() => countTokens('a <|endoftext|> b')).toThrow('Disallowed special token found: <|endoftext|>');
    expect(() => table.count('a <|endoftext|> b')).toThrow('Disallowed special token found: <|endoftext|>');
  });

  it('rejects bytes that are not a table', () => {
    expect(() => new TokenTable(Buffer.from('not a table at all'))).toThrow(/not a token table/);
    const cut = readFileSync(TABLE).subarray(0, 100_000);
    expect(() => new TokenTable(cut)).toThrow();
  });
});

describe('where counts come from', () => {
  it('the built module counts from the table; without one (from source) gpt-tokenizer counts; the same counts', async () => {
    const built = (await import(join(root, 'dist', 'suites', 'compat', 'cost.js'))) as typeof import('../suites/compat/cost.js');
    const source = await import('../suites/compat/cost.js');
    const texts = ['hello world', readFileSync(join(root, 'README.md'), 'utf8'), 'emoji 😀 and \ufeff'];
    const a = await built.countTokensOf(texts);
    const b = await source.countTokensOf(texts);
    expect(a).toEqual(texts.map((t) => countTokens(t)));
    expect(b).toEqual(a);
    expect(built.tokenizerUse).toEqual(['table']);
    expect(source.tokenizerUse).toEqual(['package']);
    await expect(built.countTokensOf(['x <|im_start|> y'])).rejects.toThrow('counting tokens: Disallowed special token found: <|im_start|>');
  });
});
