/**
 * A bounded pool: items worked on at most `limit` at a time, results in the items' order. Used by `run
 * --concurrency` (targets side by side). Once `stop` is aborted, or a task has rejected, no further item starts; the
 * tasks already started are waited for, then the first rejection is rethrown (else the results of the items that ran,
 * in order: a stopped pool gives fewer results than items).
 */
export async function mapPool<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<R>,
  o: { stop?: AbortSignal } = {},
): Promise<R[]> {
  const results: (R | undefined)[] = new Array(items.length);
  const ran: boolean[] = new Array(items.length).fill(false);
  let next = 0;
  let failed: { error: unknown } | undefined;
  const worker = async () => {
    while (next < items.length && !failed && !o.stop?.aborted) {
      const i = next++;
      try {
        results[i] = await task(items[i], i);
        ran[i] = true;
      } catch (error) {
        failed ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failed) throw failed.error;
  return results.filter((_, i) => ran[i]) as R[];
}
