// After tsc: the token table of the o200k_base encoding (suites/compat/token-table.ts) in
// dist/suites/compat/tokenizer/o200k_base.table, made from gpt-tokenizer's own data: its ranks (the array its
// `encoding/o200k_base` module builds its encoder from) and its split pattern. The quality suite
// counts from it (suites/compat/cost.ts) instead of loading the package's encoder, ~150–250 ms of CPU in every run.
// (Tokens the package can never find, kept as bytes that are valid UTF-8, get no slot in the table.)
// Before writing, the table must count a set of texts exactly as the package does with special-token lookalikes
// taken as ordinary text (countTokens(text, { disallowedSpecial: new Set() })); if it does not (another gpt-tokenizer
// that counts otherwise), no table is written and the package counts, as before. test/token-table.test.ts compares
// many more texts. Nothing here is committed: dist/ is build output.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const compat = join(root, 'dist', 'suites', 'compat');
const { TABLE_FILE, tableFingerprint, toolText } = await import(pathToFileURL(join(compat, 'cost.js')).href);
const { buildTokenTable, TokenTable } = await import(pathToFileURL(join(compat, 'token-table.js')).href);
const { default: ranks } = await import('gpt-tokenizer/bpeRanks/o200k_base');
const { O200KBase } = await import('gpt-tokenizer/encodingParams/o200k_base');
const { tryConvertToString } = await import('gpt-tokenizer/utfUtil');
const packaged = await import('gpt-tokenizer/encoding/o200k_base');

const out = join(compat, TABLE_FILE);
rmSync(dirname(out), { recursive: true, force: true });

const params = O200KBase(ranks);
const fingerprint = tableFingerprint();
// A token kept as bytes that are valid UTF-8 (by the package's own test) is looked up as a string, and not found.
const unreachable = (r) => typeof ranks[r] !== 'string' && tryConvertToString(Uint8Array.from(ranks[r])) !== undefined;
const bytes = buildTokenTable(
  ranks,
  { fingerprint, pattern: params.tokenSplitRegex.source, flags: params.tokenSplitRegex.flags },
  unreachable,
);
const table = new TokenTable(bytes);

// Texts of every kind a run counts: tool definitions (JSON), tool results (prose, code, numbers, other scripts,
// emoji, control characters, long runs, unpaired surrogates, special tokens), and files of the repository.
const texts = [
  '',
  ' ',
  '\n',
  'hello world',
  'Hello, World! 123 4567 89.01',
  '  leading and trailing  ',
  'tabs\tand\r\nnewlines\n\n',
  'Ünïcödé — “quotes” ‘single’ … café naïve façade',
  '日本語のテキストとカタカナ、ひらがな',
  '中文文本，标点符号。',
  '한국어 텍스트',
  'Русский текст с пунктуацией.',
  'العربية نص',
  'עברית',
  'हिन्दी पाठ',
  'emoji 😀👍🏽👨‍👩‍👧‍👦 🇫🇷 ✅',
  '\u0000\u0001\u001f\u007f\u00a0\u200b\ufeff',
  'lone \ud800 surrogate \udfff here',
  'function add(a, b) { return a + b; }\nconst x = { "k": [1, 2, 3] };',
  'SELECT * FROM users WHERE id = 42;',
  'x'.repeat(5000),
  'ab '.repeat(3000),
  '<|endoftext|> and <|im_start|>',
  'https://example.com/path?q=1&r=two#frag',
  '0x1F 1e-9 -3.14159 1,000,000',
  toolText({
    name: 'add',
    description: 'Add two numbers',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  }),
];
for (const file of ['fixtures/servers/calc.py', 'bench/fixtures/server.py', 'README.md', 'core/session.ts']) {
  try {
    texts.push(readFileSync(join(root, file), 'utf8'));
  } catch {
    /* a text fewer */
  }
}
const count = (f, t) => {
  try {
    return f(t);
  } catch (e) {
    return `error: ${e.message.replace(/^counting tokens: /, '')}`;
  }
};
const ordinary = { disallowedSpecial: new Set() };
const differs = texts.find(
  (t) => count((x) => table.count(x), t) !== count((x) => packaged.countTokens(x, ordinary), t),
);
if (differs !== undefined) {
  console.warn(
    `precompile-tokenizer: the table counts ${JSON.stringify(differs.slice(0, 60))} otherwise than ${fingerprint}: no table written (the package counts)`,
  );
} else {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, bytes);
  console.log(
    `token table: ${fingerprint}, ${Math.round(bytes.length / 1024)} kB, ${texts.length} texts counted alike`,
  );
}
