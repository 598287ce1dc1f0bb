/** The case catalogue as Markdown: the table of cases in docs/suites.md (`mcp-conform list --format markdown`). */

export interface CatalogueCase {
  id: string;
  title: string;
  level: string;
  spec: string;
  requirement?: string;
}

export interface CatalogueSuite {
  id: string;
  title: string;
  cases: CatalogueCase[];
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

/** One table, a row per case: the id (linked to its spec section), the level, what it checks. */
export function casesMarkdown(suites: CatalogueSuite[]): string {
  const out = ['| id | level | checks |', '|---|---|---|'];
  for (const s of suites) {
    for (const c of s.cases) out.push(`| [\`${c.id}\`](${c.spec}) | ${c.level} | ${cell(c.title)} |`);
  }
  return out.join('\n') + '\n';
}
