/** URL facts several layers need. */

/** The TCP port a URL names: its own, else its scheme's default (443 for https, 80 otherwise). */
export function portOf(url: URL): number {
  return Number(url.port || (url.protocol === 'https:' ? 443 : 80));
}
