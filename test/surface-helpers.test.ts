/** The small checks the surface suites rest on: RFC 6570 syntax, template variables and matching, base64. */
import { describe, expect, it } from 'vitest';
import { isBase64, templateMatches, templateVariables, uriTemplateProblem } from '../core/surface.js';
import { featuresOf } from '../core/features.js';
import { contentProblems } from '../suites/resources.js';
import { promptMessageProblems } from '../suites/prompts.js';
import { completionProblems } from '../suites/completion.js';

describe('RFC 6570 URI templates', () => {
  it.each([
    'file:///{path}',
    'demo://resource/dynamic/text/{resourceId}',
    'http://x/{+path}/here{?q,lang}',
    'x://{var:3}',
    'x://{list*}',
    'x://{#frag}{.ext}{/seg}{;p}{&more}',
    'no-expressions',
    'x://{a%20b}',
    'x://{a.b}',
  ])('%s is well-formed', (t) => {
    expect(uriTemplateProblem(t)).toBeUndefined();
  });
  it.each([
    ['note://{id', /never closed/],
    ['note://id}', /closes no expression/],
    ['x://{}', /empty expression/],
    ['x://{a b}', /not a valid variable name/],
    ['x://{=a}', /reserved by RFC 6570/],
    ['x://{a:0}', /not 1–9999/],
    ['x://{a:10000}', /not 1–9999/],
    ['x://{a{b}}', /inside the expression/],
  ] as const)('%s is not', (t, re) => {
    expect(uriTemplateProblem(t)).toMatch(re);
  });
  it('variables and a loose match', () => {
    expect(templateVariables('http://x/{+path}/here{?q,lang}{list*}')).toEqual(['path', 'q', 'lang', 'list']);
    expect(templateMatches('greeting://{name}', 'greeting://Ada')).toBe(true);
    expect(templateMatches('greeting://{name}', 'mcp-conform-missing://nowhere')).toBe(false);
    expect(templateMatches('{+uri}', 'mcp-conform-missing://nowhere')).toBe(true);
  });
});

describe('contents, prompt messages, completion results', () => {
  it('base64', () => {
    for (const ok of ['', 'AA==', 'AAE=', 'AAEC', 'iVBORw0KGgo=']) expect(isBase64(ok), ok).toBe(true);
    for (const bad of ['not base64!', 'A', 'AA=A', 'A===']) expect(isBase64(bad), bad).toBe(false);
  });
  it('resource contents', () => {
    expect(contentProblems({ uri: 'a://b', text: 'x' }, 0)).toEqual([]);
    expect(contentProblems({ uri: 'a://b', blob: 'AA==' }, 0)).toEqual([]);
    expect(contentProblems({ uri: 'a://b' }, 0)).toEqual(['contents[0] has neither text nor blob']);
    expect(contentProblems({ uri: 'a://b', text: 'x', blob: 'AA==' }, 1)).toEqual([
      'contents[1] has both text and blob',
    ]);
    expect(contentProblems({ text: 3 }, 0)).toEqual([
      'contents[0].uri is missing, not a string',
      'contents[0].text is number, not a string',
    ]);
  });
  it('prompt messages', () => {
    expect(promptMessageProblems({ role: 'user', content: { type: 'text', text: 'hi' } }, 0)).toEqual([]);
    expect(
      promptMessageProblems(
        { role: 'assistant', content: { type: 'resource', resource: { uri: 'a://b', blob: 'AA==' } } },
        0,
      ),
    ).toEqual([]);
    expect(
      promptMessageProblems({ role: 'system', content: { type: 'image', data: '!', mimeType: 'image/png' } }, 2),
    ).toEqual(['messages[2].role is "system", not "user" or "assistant"', 'messages[2].content.data is not base64']);
  });
  it('completion results: at most 100 values (fail), total and hasMore consistent (warn)', () => {
    expect(completionProblems({ completion: { values: ['a'], total: 1, hasMore: false } })).toEqual({
      hard: [],
      soft: [],
      count: 1,
    });
    expect(completionProblems({ completion: { values: Array(101).fill('v') } }).hard).toEqual([
      'completion.values has 101 values; at most 100 are allowed',
    ]);
    expect(completionProblems({ completion: { values: ['a'], total: 5, hasMore: false } }).soft).toEqual([
      'hasMore is false but total 5 is more than the 1 values sent',
    ]);
    expect(completionProblems({ completion: { values: ['a', 'b'], total: 1 } }).soft).toEqual([
      'completion.total 1 is less than the 2 values sent',
    ]);
  });
  it('the version table: resource not found is -32002 (SHOULD) up to 2025-11-25, -32602 (MUST) in 2026-07-28', () => {
    expect(featuresOf('2025-11-25')).toMatchObject({
      resourceNotFoundCode: -32002,
      resourceNotFoundStrength: 'SHOULD',
      setLevel: true,
      mrtr: false,
    });
    expect(featuresOf('2026-07-28')).toMatchObject({
      resourceNotFoundCode: -32602,
      resourceNotFoundStrength: 'MUST',
      setLevel: false,
      resourceSubscribe: false,
      mrtr: true,
    });
    expect(featuresOf('2024-11-05').completionsCapability).toBe(false);
  });
});
