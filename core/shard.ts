/**
 * `run --shard i/n`: a config's targets split over n CI machines. A target's shard comes from a hash of its identity
 * (its name, else the command or URL that names its server), never from its position: adding, removing or reordering
 * other targets moves no target to another shard. Every target is in exactly one shard; with few targets the shards
 * are uneven, and a shard may have none (it writes an empty report and exits 0).
 */
import { createHash } from 'node:crypto';

export class ShardError extends Error {}

export interface ShardSpec {
  /** 1-based. */
  index: number;
  count: number;
}

/** What a shard's report.json says about the split (report.json `shard`; `merge` checks it). */
export interface ShardInfo extends ShardSpec {
  /** How many targets the whole config has (over every shard). */
  of: number;
  /** The position in the config (0-based) of each run of this report, in order. */
  targets: number[];
}

/** Reads `i/n` (1 ≤ i ≤ n). */
export function parseShard(spec: string): ShardSpec {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(spec);
  if (!m) throw new ShardError(`--shard ${spec}: expected INDEX/COUNT, e.g. 1/3 (the first of three shards)`);
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1) throw new ShardError(`--shard ${spec}: the number of shards must be at least 1`);
  if (index < 1) throw new ShardError(`--shard ${spec}: shards count from 1 (1/${count} … ${count}/${count})`);
  if (index > count)
    throw new ShardError(
      `--shard ${spec}: there ${count === 1 ? 'is only 1 shard' : `are only ${count} shards`} (1/${count} … ${count}/${count})`,
    );
  return { index, count };
}

/** The identity of a planned target: its name, else what names its server (stdio command, URL). */
export function targetIdentity(t: { name?: string; argv: Record<string, unknown> }): string {
  if (t.name !== undefined) return `name:${t.name}`;
  for (const k of ['stdio', 'http', 'sse', 'url', 'server-json', 'manifest']) {
    const v = t.argv[k];
    if (typeof v === 'string' && v) return `${k}:${v}`;
  }
  return 'target';
}

/** The shard (1-based) of an identity among `count`. */
export function shardOf(identity: string, count: number): number {
  const h = createHash('sha256').update(identity, 'utf8').digest();
  return (h.readUInt32BE(0) % count) + 1;
}

/** The targets of one shard, with their positions in the config. */
export function selectShard<T extends { name?: string; argv: Record<string, unknown> }>(
  targets: T[],
  spec: ShardSpec,
): { targets: T[]; info: ShardInfo } {
  const picked: T[] = [];
  const positions: number[] = [];
  targets.forEach((t, i) => {
    if (shardOf(targetIdentity(t), spec.count) === spec.index) {
      picked.push(t);
      positions.push(i);
    }
  });
  return { targets: picked, info: { ...spec, of: targets.length, targets: positions } };
}
