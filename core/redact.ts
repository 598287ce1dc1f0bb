/**
 * Redaction at the point of writing, and a scan for anything that still looks like a credential.
 *
 * Placeholders are stable: every match of `--redact` rule N becomes `[redacted:N]`, the value of `--redact-env NAME`
 * becomes `[redacted:env:NAME]`. The replay engine applies the same rules to incoming messages before matching, so a
 * client that sends the real secret still matches the redacted recording.
 */

export interface RedactionNote {
  kind: 'regex' | 'env' | 'header';
  /** regex: the pattern (it is the user's, not a secret); env / header: the name. */
  pattern?: string;
  name?: string;
  placeholder?: string;
}

export interface RedactOptions {
  /** Regular expressions (JavaScript syntax) whose matches are replaced. */
  patterns?: string[];
  /** Names of environment variables whose values are replaced. */
  envNames?: string[];
  env?: NodeJS.ProcessEnv;
  /** Values to replace although no rule names them (e.g. the values of secret HTTP headers). */
  secrets?: { value: string; placeholder: string }[];
  /** Names of HTTP headers dropped (only noted in the header). */
  droppedHeaders?: string[];
}

export class Redactor {
  private readonly rules: { re: RegExp; placeholder: string }[] = [];
  private readonly literals: { value: string; placeholder: string }[] = [];
  private readonly notesList: RedactionNote[] = [];

  constructor(o: RedactOptions = {}) {
    (o.patterns ?? []).forEach((p, i) => {
      let re: RegExp;
      try {
        re = new RegExp(p, 'g');
      } catch (e) {
        throw new Error(`--redact: "${p}" is not a regular expression: ${(e as Error).message}`);
      }
      const placeholder = `[redacted:${i + 1}]`;
      this.rules.push({ re, placeholder });
      this.notesList.push({ kind: 'regex', pattern: p, placeholder });
    });
    const env = o.env ?? process.env;
    for (const name of o.envNames ?? []) {
      const placeholder = `[redacted:env:${name}]`;
      const value = env[name];
      if (value) this.literals.push({ value, placeholder });
      this.notesList.push({ kind: 'env', name, placeholder });
    }
    for (const s of o.secrets ?? []) if (s.value) this.literals.push(s);
    for (const h of o.droppedHeaders ?? []) this.notesList.push({ kind: 'header', name: h.toLowerCase() });
    // Longest literal first, so that a secret containing another is replaced whole.
    this.literals.sort((a, b) => b.value.length - a.value.length);
  }

  /** Rebuilds the matching side of a recording's redactions (regex rules from the header, env values from here). */
  static fromNotes(notes: RedactionNote[], env: NodeJS.ProcessEnv = process.env): Redactor {
    const r = new Redactor();
    for (const n of notes) {
      if (n.kind === 'regex' && n.pattern && n.placeholder) {
        try {
          r.rules.push({ re: new RegExp(n.pattern, 'g'), placeholder: n.placeholder });
        } catch {
          /* ignored */
        }
      } else if (n.kind === 'env' && n.name && n.placeholder && env[n.name])
        r.literals.push({ value: env[n.name]!, placeholder: n.placeholder });
    }
    r.literals.sort((a, b) => b.value.length - a.value.length);
    return r;
  }

  get active(): boolean {
    return this.rules.length > 0 || this.literals.length > 0;
  }

  notes(): RedactionNote[] {
    return [...this.notesList];
  }

  text(s: string): string {
    let out = s;
    for (const l of this.literals) out = out.split(l.value).join(l.placeholder);
    for (const r of this.rules) out = out.replace(r.re, r.placeholder);
    return out;
  }

  /** Redacts every string (and object key) inside a JSON value. */
  value<T>(v: T): T {
    if (!this.active) return v;
    const walk = (x: unknown): unknown => {
      if (typeof x === 'string') return this.text(x);
      if (Array.isArray(x)) return x.map(walk);
      if (x && typeof x === 'object') {
        const o: Record<string, unknown> = {};
        for (const [k, val] of Object.entries(x)) o[this.text(k)] = walk(val);
        return o;
      }
      return x;
    };
    return walk(v) as T;
  }
}

export interface SecretFinding {
  line: number;
  /** What it looks like. */
  kind: string;
  /** The match with its middle masked. */
  excerpt: string;
}

const SECRET_PATTERNS: { kind: string; re: RegExp }[] = [
  { kind: 'bearer token', re: /\bBearer\s+[A-Za-z0-9\-._~+/]{8,}=*/g },
  { kind: 'basic auth', re: /\bBasic\s+[A-Za-z0-9+/]{12,}={0,2}/g },
  { kind: 'JWT', re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { kind: 'private key', re: /-----BEGIN [A-Z ]*PRIVATE KEY-----/g },
  { kind: 'AWS access key id', re: /\b(AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { kind: 'GitHub token', re: /\b(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})\b/g },
  { kind: 'OpenAI/Anthropic-style API key', re: /\bsk-(ant-)?[A-Za-z0-9_-]{20,}/g },
  { kind: 'Slack token', re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { kind: 'Google API key', re: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { kind: 'URL with credentials', re: /\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@"]+:[^\s/@"]+@/g },
  {
    kind: 'secret-named field',
    re: /"(?:[A-Za-z_-]*(?:password|passwd|secret|token|api[_-]?key|apikey|authorization|cookie|credential)[A-Za-z_-]*)"\s*:\s*"(?!\[redacted)[^"]{6,}"/gi,
  },
];

function mask(s: string): string {
  if (s.length <= 12) return s.slice(0, 3) + '…';
  return `${s.slice(0, 8)}…${s.slice(-2)} (${s.length} chars)`;
}

/** Lists everything in a cassette (or any text) that looks like a credential. */
export function findSecrets(text: string): SecretFinding[] {
  const out: SecretFinding[] = [];
  text.split('\n').forEach((line, i) => {
    for (const p of SECRET_PATTERNS) {
      p.re.lastIndex = 0;
      for (const m of line.matchAll(p.re)) out.push({ line: i + 1, kind: p.kind, excerpt: mask(m[0]) });
    }
  });
  return out;
}
