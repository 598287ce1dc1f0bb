/**
 * The WWW-Authenticate header (RFC 9110 §11.6.1): one or more challenges, each a scheme followed by either a token68
 * or comma-separated auth-params whose values are tokens or quoted strings (backslash escapes). Several challenges
 * may share one header line, separated by commas too: a new challenge starts where a bare token is followed by a
 * space and something other than "=".
 * https://www.rfc-editor.org/rfc/rfc9110#section-11.6.1 · Bearer's parameters: RFC 6750 §3, RFC 9728 §5.1.
 */

export interface Challenge {
  /** As written (compare case-insensitively). */
  scheme: string;
  /** Parameter names lowercased; the last of a repeated name wins. */
  params: Record<string, string>;
  token68?: string;
}

const TOKEN = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;

/** Every challenge of a WWW-Authenticate value (header lines joined with ", "). Never throws: junk is skipped. */
export function parseChallenges(header: string | undefined): Challenge[] {
  const s = header ?? '';
  const out: Challenge[] = [];
  let i = 0;
  const ws = () => {
    while (i < s.length && (s[i] === ' ' || s[i] === '\t')) i++;
  };
  const token = () => {
    const start = i;
    while (i < s.length && TOKEN.test(s[i]!)) i++;
    return s.slice(start, i);
  };
  const quoted = () => {
    let v = '';
    i++; // opening quote
    while (i < s.length && s[i] !== '"') {
      if (s[i] === '\\' && i + 1 < s.length) i++;
      v += s[i++];
    }
    i++; // closing quote (or the end)
    return v;
  };
  while (i < s.length) {
    ws();
    if (s[i] === ',') {
      i++;
      continue;
    }
    const scheme = token();
    if (!scheme) {
      i++;
      continue;
    } // junk: skip a character
    const c: Challenge = { scheme, params: {} };
    out.push(c);
    ws();
    // token68: the rest up to a comma, when it is not name=value
    const save = i;
    const t68 = /^[A-Za-z0-9\-._~+/]+=*/.exec(s.slice(i));
    if (t68) {
      const after = s.slice(i + t68[0].length).trimStart();
      if ((after === '' || after.startsWith(',')) && !/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+\s*=\s*[^=]/.test(s.slice(i))) {
        c.token68 = t68[0];
        i += t68[0].length;
        continue;
      }
    }
    i = save;
    // auth-params
    for (;;) {
      ws();
      const before = i;
      const name = token();
      if (!name) break;
      ws();
      if (s[i] !== '=') {
        i = before;
        break;
      } // the start of the next challenge
      i++;
      ws();
      const value = s[i] === '"' ? quoted() : token();
      c.params[name.toLowerCase()] = value;
      ws();
      if (s[i] === ',') {
        i++;
        continue;
      }
      break;
    }
  }
  return out;
}

/** The Bearer challenge of a WWW-Authenticate value, if there is one. */
export function bearerChallenge(header: string | undefined): Challenge | undefined {
  return parseChallenges(header).find((c) => c.scheme.toLowerCase() === 'bearer');
}
