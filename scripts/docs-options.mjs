// The options a command's `--help` lists, read from the yargs help text of the built CLI, and the Markdown table of
// them that the docs pages carry (scripts/docs-generate.mjs writes it; test/docs.test.ts checks the pages against
// --help with the same reader).
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const CLI = join(ROOT, 'dist', 'bin', 'mcp-conform.js');

/** What `node dist/bin/mcp-conform.js …args` prints on stdout (NO_COLOR, no terminal: yargs wraps at 110). */
export function cliOutput(args) {
  return execFileSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, NO_COLOR: '1' },
  });
}

/**
 * The options of a yargs help text, in order: `{ name, description, type, choices, default, required }`, without
 * --version and --help. An option starts a line indented by 6 (`      --name`) or with an alias (`  -h, --name`);
 * the lines below it, indented further, continue its description; the bracketed tags at the end (`[number]`,
 * `[choices: "a", "b"]`, `[default: 30000]`, `[required]`) are read apart from it.
 */
export function helpOptions(help) {
  const section = /\nOptions:\n([\s\S]*?)(?:\n\n|$)/.exec(help);
  if (!section) return [];
  const blocks = [];
  for (const line of section[1].split('\n')) {
    const m = /^ {2}(?:-\w, | {4})--([a-z][a-z0-9-]*)\s*(.*)$/.exec(line);
    if (m) blocks.push({ name: m[1], text: m[2] });
    else if (blocks.length) blocks[blocks.length - 1].text += ' ' + line.trim();
  }
  return blocks
    .filter((b) => b.name !== 'version' && b.name !== 'help')
    .map(({ name, text }) => {
      const tags = {};
      let rest = text.replace(/\s+/g, ' ').trim();
      // Tags are at the end, each in brackets; a description may itself end in a bracket, so take only known tags.
      for (;;) {
        const t =
          /\s*\[(string|number|boolean|array|count|required|default: (?:"[^"]*"|[^\]]*)|choices: [^\]]*)\]$/.exec(rest);
        if (!t) break;
        const tag = t[1];
        if (tag.startsWith('default: ')) tags.default = tag.slice(9).replace(/^"(.*)"$/, '$1');
        else if (tag.startsWith('choices: ')) tags.choices = [...tag.slice(9).matchAll(/"([^"]*)"/g)].map((c) => c[1]);
        else if (tag === 'required') tags.required = true;
        else tags.type = tag;
        rest = rest.slice(0, t.index);
      }
      return { name, description: rest.trim(), ...tags };
    });
}

/** The options of `mcp-conform <command> --help`. */
export function commandOptions(command) {
  return helpOptions(cliOutput([command, '--help']));
}

const cell = (s) => s.replace(/\|/g, '\\|');

/** The options of a command as the docs' table: option (with its value), meaning (the --help description), default. */
export function optionsTable(options) {
  const rows = options.map((o) => {
    const value = o.choices
      ? ` ${o.choices.join('|')}`
      : o.type === 'number'
        ? ' <n>'
        : o.type === 'string' || o.type === 'array'
          ? ' <value>'
          : '';
    const dflt =
      o.default === undefined
        ? o.required
          ? 'required'
          : ''
        : o.type === 'boolean' && o.default === 'false'
          ? 'off'
          : `\`${o.default}\``;
    return `| \`--${cell(o.name + value)}\` | ${cell(o.description)} | ${dflt} |`;
  });
  return ['| option | meaning | default |', '|---|---|---|', ...rows].join('\n') + '\n';
}
