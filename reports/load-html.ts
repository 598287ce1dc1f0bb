/**
 * report.html of `mcp-conform load`: one self-contained file with inline SVG plots — latency (p95) over time,
 * throughput over time, the latency histogram, errors by kind, and the server's memory over time — and the checks.
 */
import type { Report } from '../core/results.js';
import type { LoadSummary } from '../core/load/summary.js';

function esc(v: unknown): string {
  return String(v).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const W = 560,
  H = 180,
  PAD = 36;

/** A line plot of [x, y] points with axes and labels. */
export function linePlot(title: string, points: [number, number][], xLabel: string, yLabel: string): string {
  if (!points.length) return `<figure><figcaption>${esc(title)}</figcaption><p>no data</p></figure>`;
  const xmax = Math.max(...points.map((p) => p[0]), 1);
  const ymax = Math.max(...points.map((p) => p[1]), 1e-9);
  const x = (v: number) => PAD + (v / xmax) * (W - PAD * 2);
  const y = (v: number) => H - PAD + -(v / ymax) * (H - PAD * 2);
  const d = points.map((p, i) => `${i ? 'L' : 'M'}${x(p[0]).toFixed(1)},${y(p[1]).toFixed(1)}`).join(' ');
  return (
    `<figure><figcaption>${esc(title)}</figcaption><svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(title)}">` +
    `<line x1="${PAD}" y1="${H - PAD}" x2="${W - PAD}" y2="${H - PAD}" stroke="#888"/><line x1="${PAD}" y1="${PAD}" x2="${PAD}" y2="${H - PAD}" stroke="#888"/>` +
    `<path d="${d}" fill="none" stroke="#2563eb" stroke-width="2"/>` +
    `<text x="${PAD}" y="${PAD - 8}" font-size="11">${esc(`${round(ymax)} ${yLabel}`)}</text><text x="${W - PAD}" y="${H - 8}" font-size="11" text-anchor="end">${esc(`${round(xmax)} ${xLabel}`)}</text>` +
    `</svg></figure>`
  );
}

/** A bar chart of labelled values. */
export function barPlot(title: string, bars: [string, number][]): string {
  if (!bars.length) return `<figure><figcaption>${esc(title)}</figcaption><p>none</p></figure>`;
  const max = Math.max(...bars.map((b) => b[1]), 1);
  const bw = (W - PAD * 2) / bars.length;
  const rects = bars
    .map(([label, v], i) => {
      const h = (v / max) * (H - PAD * 2);
      return `<rect x="${(PAD + i * bw + 1).toFixed(1)}" y="${(H - PAD - h).toFixed(1)}" width="${Math.max(1, bw - 2).toFixed(1)}" height="${h.toFixed(1)}" fill="#2563eb"><title>${esc(`${label}: ${v}`)}</title></rect>`;
    })
    .join('');
  const step = Math.max(1, Math.ceil(bars.length / 8));
  const labels = bars
    .map(([label], i) =>
      i % step === 0
        ? `<text x="${(PAD + i * bw).toFixed(1)}" y="${H - PAD + 14}" font-size="10">${esc(label)}</text>`
        : '',
    )
    .join('');
  return (
    `<figure><figcaption>${esc(title)}</figcaption><svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(title)}">` +
    `<line x1="${PAD}" y1="${H - PAD}" x2="${W - PAD}" y2="${H - PAD}" stroke="#888"/>${rects}${labels}<text x="${PAD}" y="${PAD - 8}" font-size="11">${esc(String(max))}</text></svg></figure>`
  );
}

function round(v: number): number {
  return Math.round(v * 100) / 100;
}

export function renderLoadHtml(r: Report): string {
  const l = r.load as unknown as LoadSummary | undefined;
  const checks = r.suites
    .flatMap((s) => s.cases)
    .map((c) => `<tr><td>${esc(c.verdict)}</td><td>${esc(c.id)}</td><td>${esc(c.message)}</td></tr>`)
    .join('');
  const body = l
    ? [
        `<p>${l.requests} requests in ${l.durationS} s · ${l.throughput} answered/s · ${l.mode} · ${l.sessions.opened} sessions · crossed ${l.crossed}</p>`,
        `<p>latency ms: p50 ${l.latencyMs.p50} · p90 ${l.latencyMs.p90} · p95 ${l.latencyMs.p95} · p99 ${l.latencyMs.p99} · max ${l.latencyMs.max}</p>`,
        linePlot(
          'p95 latency per second',
          l.timeline.map((t) => [t.s, t.p95]),
          's',
          'ms',
        ),
        linePlot(
          'throughput per second',
          // whole seconds of the load only: the answers of the grace after its end fall in a second of their own
          l.timeline.filter((t) => t.s <= Math.max(1, Math.floor(l.durationS))).map((t) => [t.s, t.requests]),
          's',
          'req/s',
        ),
        barPlot(
          'latency histogram (upper bound of each bucket, ms)',
          l.histogram.buckets
            .filter((b, i, all) => b[1] > 0 || (i > 0 && all[i - 1]![1] > 0))
            .map(([ub, n]) => [String(ub), n]),
        ),
        barPlot('errors by kind', Object.entries(l.errors)),
        l.memory
          ? linePlot('server memory (RSS of its process tree)', l.memory.samples, 's', 'MB')
          : '<p>server memory: not sampled (load did not start the server)</p>',
      ].join('\n')
    : `<p>${esc(r.aborted ?? 'no load figures')}</p>`;
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>mcp-conform load · ${esc(r.server.name ?? r.target.url ?? '')}</title>` +
    `<style>body{font:14px system-ui,sans-serif;margin:24px;max-width:900px}figure{margin:16px 0}figcaption{font-weight:600}td{padding:2px 8px;vertical-align:top}</style></head><body>` +
    `<h1>mcp-conform load</h1><p>${esc(r.server.name ?? '')} ${esc(r.server.version ?? '')} · ${esc(r.target.transport)} · ${esc(r.startedAt)}</p>${body}<h2>Checks</h2><table>${checks}</table></body></html>\n`
  );
}
