import { describe, expect, it } from 'vitest';
import { shellWords } from '../core/shell-words.js';

describe('shellWords splits a command line as a shell would', () => {
  it.each([
    ['python3 server.py', ['python3', 'server.py']],
    ['  node   a.js  ', ['node', 'a.js']],
    [`python3 "my server.py" --name 'two words'`, ['python3', 'my server.py', '--name', 'two words']],
    [`echo "a \\"quoted\\" word"`, ['echo', 'a "quoted" word']],
    [`echo 'no $expansion \\here'`, ['echo', 'no $expansion \\here']],
    ['echo a\\ b', ['echo', 'a b']],
    [`echo ""`, ['echo', '']],
    [`echo pre"mid"'post'`, ['echo', 'premidpost']],
    ['uv run --with mcp server.py', ['uv', 'run', '--with', 'mcp', 'server.py']],
  ])('%s', (line, words) => {
    expect(shellWords(line)).toEqual(words);
  });

  it('rejects unterminated quotes with a clear message', () => {
    expect(() => shellWords(`python3 "server.py`)).toThrow(/unterminated double quote/);
    expect(() => shellWords(`python3 'server.py`)).toThrow(/unterminated single quote/);
  });
});
