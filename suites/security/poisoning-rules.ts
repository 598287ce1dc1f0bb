/**
 * The tool-poisoning rules: deterministic, offline judgements of the text a server gives a model (a tool's name,
 * title, description and parameter descriptions; the server's instructions). Each finding quotes the words that
 * triggered it and says why they are a risk. docs/security.md lists the rules.
 *
 * The rules are written for few false positives: strong ordinary wording ("IMPORTANT: paths must be absolute", "use
 * the search tool first for better results") matches none of them. Hidden characters and requests to send secrets
 * somewhere fail; the softer signals (a directive to keep something from the user, an <IMPORTANT>-style block,
 * "ignore previous instructions", directives about other tools, encoded blobs, look-alike names) warn.
 */
import type { Tool } from '../../core/tools.js';
import { describeCodePoint, hiddenRuns, lookAlikes, revealHidden, skeleton, withoutHidden } from './unicode.js';

export type PoisoningRule =
  | 'hidden-unicode'
  | 'exfiltration'
  | 'conceal-from-user'
  | 'override-instructions'
  | 'instruction-block'
  | 'hidden-comment'
  | 'shadowing'
  | 'encoded-blob'
  | 'confusable-name';

export interface PoisoningFinding {
  rule: PoisoningRule;
  severity: 'fail' | 'warn';
  /** Where: "description", "inputSchema.properties.path.description", "name", "instructions"… */
  field: string;
  /** The words (or characters) that triggered the rule, quoted as found (hidden characters made visible). */
  quote: string;
  /** Why they are a risk, in one sentence. */
  why: string;
}

/** The rules, for docs and the SARIF reporter: id, severity, what it matches. */
export const POISONING_RULES: { rule: PoisoningRule; severity: 'fail' | 'warn' | 'fail or warn'; matches: string }[] = [
  {
    rule: 'hidden-unicode',
    severity: 'fail or warn',
    matches:
      "Unicode tag characters (U+E0000–E007F, decoded), variation selectors supplement (U+E0100–E01EF, decoded as bytes), bidi overrides and isolates (U+202A–202E, U+2066–2069): fail. Zero-width characters (U+200B–200D, U+2060–2064, U+FEFF, U+180E, U+00AD): warn, fail from 8 in one field (enough to encode text). ZWJ inside an emoji sequence, a leading BOM and a subdivision flag's tags pass.",
  },
  {
    rule: 'exfiltration',
    severity: 'fail',
    matches:
      'In one sentence: a sensitive local file (~/.ssh, id_rsa, .env, .aws/credentials, .npmrc, .netrc, .git-credentials, /etc/passwd, mcp.json, claude_desktop_config.json…) with an imperative to read, pass, send or include it; or a secret (private key, SSH key, seed phrase, environment variables, conversation history, system prompt) with such an imperative and a destination (a parameter, a URL, an e-mail address); or a directive to keep something from the user in a text that also asks for a secret',
  },
  {
    rule: 'conceal-from-user',
    severity: 'warn',
    matches:
      '"do not tell/inform/mention … the user", "without telling the user", "hide/keep … from the user", "the user must not know", "secretly/silently send…"',
  },
  {
    rule: 'override-instructions',
    severity: 'warn',
    matches: '"ignore/disregard/forget (all) previous/prior/above/system instructions (prompts, rules)"',
  },
  {
    rule: 'instruction-block',
    severity: 'warn',
    matches:
      'An XML-like block addressed to the model: <IMPORTANT>, <system>, <instructions>, <secret>, <hidden>, <admin>, <critical>, <override>, <prompt> (a plain "IMPORTANT:" passes)',
  },
  {
    rule: 'hidden-comment',
    severity: 'warn',
    matches: 'An HTML comment (<!-- … -->): a client that renders Markdown hides it from the user, the model reads it',
  },
  {
    rule: 'shadowing',
    severity: 'fail or warn',
    matches:
      'A directive that changes what another tool (of this server, or a common one: send_email, bash, read_file…) is sent or does: "when/before/after/whenever (you use|calling) X …, add/include/set/change/replace/send/cc/bcc/append/redirect…", "always add … to every call of X", "the X tool must send / include / bcc …": warn; with an e-mail address or a URL in it (redirecting what the other tool sends): fail. Mentioning another tool or an order of calls ("use the search tool first", "before calling write_file, call read_file") passes',
  },
  {
    rule: 'encoded-blob',
    severity: 'warn',
    matches:
      'A base64 run of 40+ characters or a hex run of 48+ that decodes to readable text (quoted decoded); random keys and hashes that decode to nothing readable pass',
  },
  {
    rule: 'confusable-name',
    severity: 'warn',
    matches:
      "A tool name with characters that imitate Latin ones (Cyrillic а, Greek ο, fullwidth forms…), or whose skeleton (look-alikes mapped, rn→m, 1→l, 0→o) equals another tool's name or a common tool name while the names differ",
  },
];

/** Names of tools in common hosts and servers that a description may try to steer (shadowing); lowercase. */
export const COMMON_TOOL_NAMES = [
  'send_email',
  'send_message',
  'send_mail',
  'email',
  'bash',
  'shell',
  'run_command',
  'execute_command',
  'run_shell_command',
  'exec',
  'terminal',
  'read_file',
  'write_file',
  'edit_file',
  'create_file',
  'delete_file',
  'fetch',
  'http_request',
  'web_fetch',
  'web_search',
  'browser',
  'git_commit',
  'git_push',
  'create_pull_request',
  'transfer',
  'send_transaction',
  'slack_post_message',
  'post_message',
];

// ---------------------------------------------------------------------------------------------- word patterns
const SENSITIVE_FILE =
  /(?:~|\$HOME|%USERPROFILE%)?\/?\.ssh\b[\w./-]*|\bid_(?:rsa|dsa|ecdsa|ed25519)\b(?:\.pub)?|(?<![\w.-])\.env(?![\w-])(?:\.\w+)?|\.aws\/credentials\b|\bcredentials\.json\b|(?<![\w-])\.npmrc\b|(?<![\w-])\.netrc\b|(?<![\w-])\.pgpass\b|\.git-credentials\b|\/etc\/(?:passwd|shadow)\b|\.kube\/config\b|\.docker\/config\.json\b|(?<![\w-])mcp\.json\b|claude_desktop_config\.json|\.(?:bash|zsh)_history\b|\bwallet\.dat\b/i;
const SECRET_THING =
  /\b(?:private keys?|ssh keys?|seed phrases?|mnemonic(?: phrase)?|recovery phrase|environment variables|conversation history|chat history|previous messages|system prompt|session cookies?)\b/i;
/** A verb in the imperative: at the start of the sentence or clause, or after a modal ("you must read…"). */
const IMPERATIVE_TRANSFER =
  /(?:^|[,;:(]\s*|\b(?:and|then|first|also|please|must|should|always|to|need to|have to)\s+)(?:read|pass|send|include|upload|provide|attach|put|add|copy|forward|transmit|post|append|embed|leak|share|give|bcc|cc)\b/i;
const DESTINATION =
  /\bas (?:an? |the )?(?:\w+ )?(?:parameter|argument|field|input)\b|\bin(?:to)? (?:the |an? )?['"`]?\w+['"`]? (?:parameter|argument|field)\b|https?:\/\/[^\s"'`)]+|\b[\w.+-]+@[\w-]+\.[\w.-]+\b|\bto (?:this|our|the following|my) (?:url|server|endpoint|address|email|webhook)\b/i;
const CONCEAL = [
  /\b(?:do not|don't|never|must not|mustn't|should not|shouldn't)\s+(?:tell|inform|notify|alert|let|warn)\s+(?:the\s+)?user\b/i,
  /\b(?:do not|don't|never|must not|mustn't|should not|shouldn't)\s+(?:mention|reveal|disclose|show|say|explain)\b[^.!?\n]{0,60}?\bto\s+the\s+user\b/i,
  /\bwithout\s+(?:telling|informing|notifying|alerting|showing)\s+(?:the\s+)?user\b/i,
  /\b(?:hide|conceal|keep)\b[^.!?\n]{0,50}?\bfrom\s+(?:the\s+)?user\b/i,
  /\b(?:the\s+)?user\s+(?:must|should|will)\s+(?:not|never)\s+(?:know|see|be told|notice|find out|learn)\b/i,
  /\b(?:secretly|covertly|silently|quietly)\s+(?:send|read|include|add|pass|upload|forward|copy|transmit|post|append)\b/i,
];
const OVERRIDE =
  /\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:(?:the|your|of the)\s+)?(?:previous|prior|above|earlier|preceding|system|original)\s+(?:instructions?|prompts?|rules|directives|guidelines|messages)\b/i;
const BLOCK =
  /<\s*(important|system|instructions?|secret|hidden|admin|critical|override|prompt)\b[^>]*>([\s\S]*?)(?:<\s*\/\s*\1\s*>|$)/i;
const COMMENT = /<!--([\s\S]*?)(?:-->|$)/;
const EMAIL_OR_URL = /https?:\/\/[^\s"'`)]+|\b[\w.+-]+@[\w-]+\.[\w.-]+\b/;

const cut = (s: string, n = 160) => (s.length > n ? `${s.slice(0, n)}…` : s);
const sentences = (t: string) =>
  t
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter(Boolean);
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A base64 or hex run that decodes to mostly readable text, decoded; undefined when it does not. */
function readableDecoding(run: string, kind: 'base64' | 'hex'): string | undefined {
  let b: Buffer;
  try {
    b = kind === 'hex' ? Buffer.from(run, 'hex') : Buffer.from(run, 'base64');
  } catch {
    return undefined;
  }
  if (b.length < 16) return undefined;
  const text = b.toString('utf8');
  const printable = [...text].filter((c) => /[\p{L}\p{N}\p{P}\p{Zs}\n\t~`$^+=<>|]/u.test(c)).length;
  const letters = (text.match(/\p{L}/gu) ?? []).length;
  return printable / [...text].length >= 0.9 && letters / [...text].length >= 0.5 && /\s/.test(text) ? text : undefined;
}

export interface TextOptions {
  /** The names of the other tools of the server (shadowing); empty for the instructions, which speak of them by design. */
  otherTools?: string[];
  /** The tool's own name (never "another tool"). */
  self?: string;
  /** The list's index (listIndex), made once for every tool of a list; else made from otherTools. */
  index?: ListIndex;
}

/** What the rules look names up in, made once per tool list: names by lower case, and by skeleton. */
export interface ListIndex {
  /** The list's names. */
  names: ReadonlySet<string>;
  /** Lower-cased name → name, for the list's names and the common tool names (3 characters or more). */
  byLower: ReadonlyMap<string, string>;
  /** Skeleton → the names (list and common) that have it. */
  bySkeleton: ReadonlyMap<string, string[]>;
}

const indexes = new WeakMap<readonly string[], ListIndex>();
/** The index of a list of tool names (memoized by the array). */
export function listIndex(names: readonly string[]): ListIndex {
  let ix = indexes.get(names);
  if (ix) return ix;
  const byLower = new Map<string, string>();
  const bySkeleton = new Map<string, string[]>();
  for (const n of [...names, ...COMMON_TOOL_NAMES]) {
    if (n.length >= 3 && !byLower.has(n.toLowerCase())) byLower.set(n.toLowerCase(), n);
    const k = skeleton(n);
    const l = bySkeleton.get(k);
    if (!l) bySkeleton.set(k, [n]);
    else if (!l.includes(n)) l.push(n);
  }
  ix = { names: new Set(names), byLower, bySkeleton };
  indexes.set(names, ix);
  return ix;
}

/** The findings of the text rules on one field's text. */
export function judgeText(raw: string, field: string, o: TextOptions = {}): PoisoningFinding[] {
  const out: PoisoningFinding[] = [];
  // Hidden characters: decoded and quoted.
  const runs = hiddenRuns(raw);
  if (runs.length) {
    const strong = runs.filter((r) => r.kind !== 'zero-width');
    const zw = runs.filter((r) => r.kind === 'zero-width').reduce((a, r) => a + r.codePoints.length, 0);
    const parts = runs
      .slice(0, 6)
      .map((r) =>
        r.decoded !== undefined
          ? `${r.codePoints.length} ${r.kind === 'tag' ? 'tag characters' : 'variation selectors'} spelling ${JSON.stringify(cut(r.decoded, 200))}`
          : `${r.kind === 'bidi' ? 'bidi control' : 'zero-width'} ${r.codePoints.map(describeCodePoint).join(' ')}`,
      );
    const fail = strong.length > 0 || zw >= 8;
    out.push({
      rule: 'hidden-unicode',
      severity: fail ? 'fail' : 'warn',
      field,
      quote: cut(revealHidden(raw), 300),
      why: `${parts.join('; ')}${runs.length > 6 ? `; and ${runs.length - 6} more runs` : ''}: a person reading the ${field} in a client does not see ${runs.length === 1 && runs[0]!.codePoints.length === 1 ? 'it' : 'them'}, the model reads ${fail ? (strong.some((r) => r.kind === 'bidi') ? 'the text in another order than shown' : 'what they carry') : 'them (a stray zero-width character is often pasted by accident; remove it)'}`,
    });
  }
  const text = withoutHidden(raw);
  const ss = sentences(text);
  const hasSecretAsk = ss.some(
    (s) =>
      (SENSITIVE_FILE.test(s) && IMPERATIVE_TRANSFER.test(s)) ||
      (SECRET_THING.test(s) && IMPERATIVE_TRANSFER.test(s) && DESTINATION.test(s)),
  );
  for (const s of ss) {
    const file = SENSITIVE_FILE.exec(s);
    const verb = IMPERATIVE_TRANSFER.exec(s);
    if (file && verb) {
      out.push({
        rule: 'exfiltration',
        severity: 'fail',
        field,
        quote: cut(s, 240),
        why: `asks the model to ${verb[0].replace(/^[^a-z]*(?:\b(?:and|then|first|also|please|must|should|always|to|need to|have to)\s+)?/i, '').toLowerCase()} ${JSON.stringify(file[0])}, a file of secrets: describing a tool never needs that, carrying secrets out through its arguments does`,
      });
      continue;
    }
    const secret = SECRET_THING.exec(s);
    const dest = DESTINATION.exec(s);
    if (secret && verb && dest)
      out.push({
        rule: 'exfiltration',
        severity: 'fail',
        field,
        quote: cut(s, 240),
        why: `asks the model to hand over ${JSON.stringify(secret[0])} (${JSON.stringify(cut(dest[0], 60))}): a way to carry secrets out through a tool's arguments`,
      });
  }
  for (const re of CONCEAL) {
    const m = re.exec(text);
    if (!m) continue;
    const s = ss.find((x) => x.includes(m[0])) ?? m[0];
    out.push({
      rule: hasSecretAsk ? 'exfiltration' : 'conceal-from-user',
      severity: hasSecretAsk ? 'fail' : 'warn',
      field,
      quote: cut(s, 240),
      why: hasSecretAsk
        ? `tells the model to keep what it does from the user (${JSON.stringify(m[0])}) in a text that also asks for secrets`
        : `tells the model to keep something from the user (${JSON.stringify(m[0])}): text that describes tools to the model has no reason to steer what the user is told`,
    });
    break;
  }
  const ov = OVERRIDE.exec(text);
  if (ov)
    out.push({
      rule: 'override-instructions',
      severity: 'warn',
      field,
      quote: cut(ss.find((x) => x.includes(ov[0])) ?? ov[0], 240),
      why: `"${ov[0]}" is a prompt-injection phrase: it tries to replace the instructions the model was given`,
    });
  const bl = BLOCK.exec(text);
  if (bl)
    out.push({
      rule: 'instruction-block',
      severity: 'warn',
      field,
      quote: cut(bl[0].replace(/\s+/g, ' '), 240),
      why: `a <${bl[1]}> block addresses the model, not the reader: the usual wrapper of instructions hidden in tool descriptions`,
    });
  const cm = COMMENT.exec(text);
  if (cm && cm[1]!.trim())
    out.push({
      rule: 'hidden-comment',
      severity: 'warn',
      field,
      quote: cut(cm[0].replace(/\s+/g, ' '), 240),
      why: 'an HTML comment is hidden where the description is rendered as Markdown; the model still reads it',
    });
  // Shadowing: a directive about how another tool is used.
  if (o.otherTools || o.index) {
    const index = o.index ?? listIndex([...(o.otherTools ?? []), ...(o.self ? [o.self] : [])]);
    for (const s of ss) {
      const hit = shadowingIn(s, index, o.self);
      if (!hit) continue;
      const exfil = EMAIL_OR_URL.exec(s);
      out.push({
        rule: 'shadowing',
        severity: exfil ? 'fail' : 'warn',
        field,
        quote: cut(s, 240),
        why: exfil
          ? `tells the model how to use another tool, "${hit}", and names where to send things (${JSON.stringify(exfil[0])}): a tool that redirects another tool's output`
          : `tells the model how to use another tool, "${hit}": a tool's description that changes how other tools behave can steer calls the user approved for them`,
      });
      break;
    }
  }
  // Encoded blobs that decode to readable text.
  for (const m of text.matchAll(
    /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/]{40,}={0,2}(?![A-Za-z0-9+/_-])|(?<![0-9a-fA-F])[0-9a-fA-F]{48,}(?![0-9a-fA-F])/g,
  )) {
    const kind = /^[0-9a-fA-F]+$/.test(m[0]) ? 'hex' : 'base64';
    const dec = readableDecoding(m[0], kind);
    if (dec) {
      out.push({
        rule: 'encoded-blob',
        severity: 'warn',
        field,
        quote: cut(m[0], 80),
        why: `a ${kind} run that decodes to readable text, hidden from a reader: ${JSON.stringify(cut(dec, 200))}`,
      });
      break;
    }
  }
  return out;
}

/** The two shadowing patterns for a set of tool names (one alternation of them), made once per set. */
const shadowingPatterns = new Map<string, RegExp[]>();
function patternsFor(others: string[]): RegExp[] {
  const key = others.join('\u0000');
  let res = shadowingPatterns.get(key);
  if (!res) {
    const n = `\`?['"]?(${[...others]
      .sort((a, b) => b.length - a.length)
      .map(escapeRe)
      .join('|')})['"]?\`?(?:\\s+tool)?`;
    res = [
      new RegExp(
        `\\b(?:when|whenever|before|after|each time|every time|if)\\s+(?:you\\s+)?(?:use|call|invoke|run|using|calling|invoking|running)?\\s*(?:the\\s+)?${n}(?![\\w-])[^.!?]{0,60}?\\b(?:add|include|set|change|replace|send|cc|bcc|append|prepend|redirect|forward)\\b`,
        'i',
      ),
      new RegExp(
        `(?:^|\\b(?:always|must|never)\\s+)(?:add|include|set|change|replace|cc|bcc|append|prepend|redirect)\\b[^.!?]{0,60}\\b(?:to|in|of)\\s+(?:every|each|all|any)\\s+(?:call|use)s?\\s+(?:of|to)\\s+(?:the\\s+)?${n}(?![\\w-])`,
        'i',
      ),
    ];
    // "the X tool must send all e-mails to …": another tool made the subject of a directive.
    res.push(
      new RegExp(
        `(?:^|\\s)(?:the\\s+)?${n}(?![\\w-])\\s+(?:must|should|shall|will|needs to|has to)\\s+(?:always\\s+|now\\s+|also\\s+)?(?:send|include|add|set|cc|bcc|forward|redirect|append|prepend|replace)\\b`,
        'i',
      ),
    );
    res = res.map((r) => new RegExp(r.source, 'gi'));
    if (shadowingPatterns.size > 64) shadowingPatterns.clear();
    shadowingPatterns.set(key, res);
  }
  return res;
}

/** The other tool a sentence gives a directive about (never `self`), or undefined. */
function shadowingIn(s: string, index: ListIndex, self?: string): string | undefined {
  // Only the names the sentence mentions enter the patterns (most sentences mention none): a list of thousands of
  // tools costs a lookup per word, not an alternation of thousands of names.
  const present = new Set<string>();
  for (const w of s.match(/[\w./:-]+/g) ?? []) {
    const n = index.byLower.get(w.replace(/[.:]+$/, '').toLowerCase());
    if (n && n !== self) present.add(n);
  }
  if (!present.size) return undefined;
  const names = [...present].sort();
  for (const re of patternsFor(names)) {
    for (const m of s.matchAll(re)) {
      const hit = index.byLower.get(m[1]!.toLowerCase()) ?? m[1]!;
      if (hit !== self) return hit;
    }
  }
  return undefined;
}

/** Every text field of a tool a model reads, with where it is: name, title, description, the schema's descriptions. */
export function toolTexts(t: Tool): { field: string; text: string }[] {
  const out: { field: string; text: string }[] = [];
  if (typeof t.title === 'string') out.push({ field: 'title', text: t.title });
  if (typeof t.description === 'string') out.push({ field: 'description', text: t.description });
  if (t.annotations && typeof t.annotations.title === 'string')
    out.push({ field: 'annotations.title', text: t.annotations.title });
  const walk = (v: unknown, path: string, depth: number) => {
    if (depth > 8 || !v || typeof v !== 'object') return;
    if (Array.isArray(v)) {
      v.forEach((x, i) => walk(x, `${path}[${i}]`, depth + 1));
      return;
    }
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if ((k === 'description' || k === 'title') && typeof x === 'string') out.push({ field: `${path}.${k}`, text: x });
      else if ((k === 'default' || k === 'const') && typeof x === 'string')
        out.push({ field: `${path}.${k}`, text: x });
      else if (k === 'enum' && Array.isArray(x))
        x.forEach((e, i) => {
          if (typeof e === 'string') out.push({ field: `${path}.enum[${i}]`, text: e });
        });
      else if (typeof x === 'object') walk(x, `${path}.${k}`, depth + 1);
    }
  };
  walk(t.inputSchema, 'inputSchema', 0);
  walk(t.outputSchema, 'outputSchema', 0);
  return out;
}

/** The findings on a tool's name: hidden characters, and characters or a skeleton that imitate another tool's name. */
export function judgeName(name: string, all: readonly string[], index = listIndex(all)): PoisoningFinding[] {
  const out: PoisoningFinding[] = [];
  if (hiddenRuns(name).length)
    out.push(
      ...judgeText(name, 'name')
        .filter((f) => f.rule === 'hidden-unicode')
        .map((f) => ({ ...f, severity: 'fail' as const })),
    );
  const looks = lookAlikes(name);
  const sk = skeleton(name);
  // A name with look-alike characters is compared with every name; a plain ASCII one only with other ASCII names
  // (the 1/l, 0/o, rn/m kind), so that the genuine tool is not reported for its imitator.
  const ascii = (n: string) => !lookAlikes(n).length;
  const twin = (index.bySkeleton.get(sk) ?? [])
    .filter((n) => n !== name && (looks.length || ascii(n)))
    .find(
      (n) =>
        skeleton(n) === sk &&
        n.toLowerCase() !== name.toLowerCase() &&
        n.replace(/[-_.\s]/g, '').toLowerCase() !== name.replace(/[-_.\s]/g, '').toLowerCase(),
    );
  if (looks.length) {
    out.push({
      rule: 'confusable-name',
      severity: 'warn',
      field: 'name',
      quote: name,
      why: `${looks
        .slice(0, 4)
        .map(([c, a]) => `"${c}" (${describeCodePoint(c.codePointAt(0)!)}) looks like "${a}"`)
        .join(
          ', ',
        )}${twin ? `: the name reads as "${twin}", ${index.names.has(twin) ? 'another tool of this server' : 'a common tool name'}` : ''}; a name that imitates ASCII can pass for another tool in a list the user approves`,
    });
  } else if (twin && index.names.has(twin)) {
    out.push({
      rule: 'confusable-name',
      severity: 'warn',
      field: 'name',
      quote: name,
      why: `reads like "${twin}", another tool of this server (the same letters once 1/l, 0/o, rn/m are read alike): a user approving one may be approving the other`,
    });
  }
  return out;
}

/** Every finding on one tool of a list. */
export function judgeTool(t: Tool, names: readonly string[]): PoisoningFinding[] {
  const index = listIndex(names);
  return [
    ...judgeName(t.name, names, index),
    ...toolTexts(t).flatMap(({ field, text }) => judgeText(text, field, { index, self: t.name })),
  ];
}

/** The findings on the server's instructions (no shadowing rule: instructions speak of the server's tools by design). */
export function judgeInstructions(text: string): PoisoningFinding[] {
  return judgeText(text, 'instructions');
}

export const worstOf = (fs: readonly PoisoningFinding[]): 'fail' | 'warn' | 'pass' =>
  fs.some((f) => f.severity === 'fail') ? 'fail' : fs.length ? 'warn' : 'pass';

/** One line per finding: "rule (field): "quote" — why". */
export function findingLine(f: PoisoningFinding): string {
  return `${f.rule} in ${f.field}: "${f.quote}" — ${f.why}`;
}
