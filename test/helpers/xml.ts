/**
 * A small, strict XML reader for tests (elements, attributes, text, CDATA, comments, the five entities and character
 * references). It throws on what a real XML parser would refuse: mismatched or unclosed tags, a raw '<' or '&' in
 * text, duplicate attributes, characters XML 1.0 forbids, content after the root.
 */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const NAME = /^[A-Za-z_:][\w.:-]*/;

function decode(s: string, where: number): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);|&/g, (_m, ref: string | undefined) => {
    if (!ref) throw new Error(`bare & at ${where}`);
    if (ref[0] === '#')
      return String.fromCodePoint(ref[1] === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10));
    const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
    if (!(ref in named)) throw new Error(`unknown entity &${ref}; at ${where}`);
    return named[ref];
  });
}

export function parseXml(xml: string): XmlElement {
  const bad = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u.exec(xml);
  if (bad)
    throw new Error(`character U+${bad[0].codePointAt(0)!.toString(16)} is not allowed in XML (at ${bad.index})`);
  let i = 0;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  const ws = () => {
    while (i < xml.length && /\s/.test(xml[i])) i++;
  };
  if (xml.startsWith('<?xml')) {
    i = xml.indexOf('?>') + 2;
  }
  while (i < xml.length) {
    if (xml.startsWith('<!--', i)) {
      const e = xml.indexOf('-->', i);
      if (e < 0) throw new Error('unclosed comment');
      i = e + 3;
      continue;
    }
    if (xml.startsWith('<![CDATA[', i)) {
      const e = xml.indexOf(']]>', i);
      if (e < 0 || !stack.length) throw new Error('bad CDATA');
      stack[stack.length - 1].text += xml.slice(i + 9, e);
      i = e + 3;
      continue;
    }
    if (xml.startsWith('</', i)) {
      i += 2;
      const m = NAME.exec(xml.slice(i));
      if (!m) throw new Error(`bad end tag at ${i}`);
      i += m[0].length;
      ws();
      if (xml[i] !== '>') throw new Error(`bad end tag at ${i}`);
      i++;
      const open = stack.pop();
      if (!open || open.name !== m[0]) throw new Error(`</${m[0]}> does not close <${open?.name}>`);
      continue;
    }
    if (xml[i] === '<') {
      i++;
      const m = NAME.exec(xml.slice(i));
      if (!m) throw new Error(`bad tag at ${i}`);
      i += m[0].length;
      const el: XmlElement = { name: m[0], attrs: {}, children: [], text: '' };
      for (;;) {
        ws();
        if (xml.startsWith('/>', i)) {
          i += 2;
          break;
        }
        if (xml[i] === '>') {
          i++;
          stack.push(el);
          break;
        }
        const a = NAME.exec(xml.slice(i));
        if (!a) throw new Error(`bad attribute at ${i} in <${el.name}>`);
        i += a[0].length;
        ws();
        if (xml[i] !== '=') throw new Error(`attribute without = at ${i}`);
        i++;
        ws();
        const q = xml[i];
        if (q !== '"' && q !== "'") throw new Error(`unquoted attribute at ${i}`);
        const end = xml.indexOf(q, i + 1);
        if (end < 0) throw new Error('unclosed attribute');
        const raw = xml.slice(i + 1, end);
        if (raw.includes('<')) throw new Error(`< in attribute at ${i}`);
        if (a[0] in el.attrs) throw new Error(`duplicate attribute ${a[0]}`);
        el.attrs[a[0]] = decode(raw.replace(/[\t\n\r]/g, ' '), i);
        i = end + 1;
      }
      const parent = stack[stack.length - (stack[stack.length - 1] === el ? 2 : 1)];
      if (parent) parent.children.push(el);
      else if (root) throw new Error('two root elements');
      else root = el;
      continue;
    }
    const next = xml.indexOf('<', i);
    const text = xml.slice(i, next < 0 ? xml.length : next);
    if (stack.length) stack[stack.length - 1].text += decode(text, i);
    else if (text.trim()) throw new Error(`text outside the root at ${i}`);
    i = next < 0 ? xml.length : next;
  }
  if (stack.length) throw new Error(`<${stack[stack.length - 1].name}> is not closed`);
  if (!root) throw new Error('no root element');
  return root;
}

export function all(el: XmlElement, name: string): XmlElement[] {
  const out: XmlElement[] = [];
  const walk = (e: XmlElement) => {
    if (e.name === name) out.push(e);
    e.children.forEach(walk);
  };
  walk(el);
  return out;
}
