/**
 * Split a command line into words the way a POSIX shell would for a simple command: whitespace separates words,
 * single quotes keep everything literally, double quotes keep everything but allow \" \\ \$ \` escapes, and a
 * backslash outside quotes escapes the next character. No expansion of variables, globs or ~ is done.
 */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let i = 0;
  while (i < line.length) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated single quote in command: ${line}`);
      word += line.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (c === '"') {
      i++;
      let closed = false;
      while (i < line.length) {
        const d = line[i]!;
        if (d === '"') {
          closed = true;
          i++;
          break;
        }
        if (d === '\\' && i + 1 < line.length && '"\\$`\n'.includes(line[i + 1]!)) {
          if (line[i + 1] !== '\n') word += line[i + 1];
          i += 2;
          continue;
        }
        word += d;
        i++;
      }
      if (!closed) throw new Error(`unterminated double quote in command: ${line}`);
      inWord = true;
    } else if (c === '\\') {
      if (i + 1 < line.length) {
        if (line[i + 1] !== '\n') {
          word += line[i + 1];
          inWord = true;
        }
        i += 2;
      } else {
        i++;
      }
    } else if (c === ' ' || c === '\t' || c === '\n') {
      if (inWord) {
        words.push(word);
        word = '';
        inWord = false;
      }
      i++;
    } else {
      word += c;
      inWord = true;
      i++;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** Quote words as a POSIX shell would read them back (shellWords gives the same words). */
export function shellQuote(words: string[]): string {
  return words.map((w) => (/^[A-Za-z0-9_/.:=@%+,-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ');
}
