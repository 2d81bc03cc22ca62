import { type Sql, retryable } from '../db/client.js';
import { effectiveLimits } from '../auth/plans.js';
import { isUlid } from '../lib/ids.js';
import { badRequest, notFound } from '../http/errors.js';
import type { Session } from './sessions.js';

export type UsageRange = '24h' | '30d';

/**
 * The team's (or one key's) requests per hour over 24 hours or per day over 30 days, in total and by
 * endpoint, with the plan, the rolling-hour rate window and the POI limit. Minutes come from key_usage
 * (24 hours kept), days from key_usage_daily (fed by a trigger on key_usage, migration 015).
 */
export async function teamUsage(sql: Sql, session: Session, range: string | undefined, keyId: string | undefined) {
  const r: UsageRange =
    range === '30d'
      ? '30d'
      : range === undefined || range === '24h'
        ? '24h'
        : (() => {
            throw badRequest("range must be '24h' or '30d'.");
          })();
  let key: string | null = null;
  if (keyId) {
    // A deleted key's usage stays the team's: it is found in the counts once the key is gone.
    const [row] = isUlid(keyId)
      ? await retryable(sql`SELECT id FROM api_keys WHERE id = ${keyId.toUpperCase()} AND team_id = ${session.teamId}
          UNION ALL SELECT key_id FROM key_usage_daily WHERE key_id = ${keyId.toUpperCase()} AND team_id = ${session.teamId} LIMIT 1`)
      : [];
    if (!row) throw notFound('API key');
    key = row.id as string;
  }
  const step = r === '24h' ? 3_600_000 : 86_400_000;
  const count = r === '24h' ? 24 : 30;
  const end = Math.floor(Date.now() / step) * step;
  const start = end - (count - 1) * step;
  const buckets = Array.from({ length: count }, (_, i) => start + i * step);

  const rows =
    r === '24h'
      ? await retryable(sql<{ bucket: Date; method: string; endpoint: string; key_id: string; status_class: number; n: number }[]>`
        SELECT date_trunc('hour', u.minute) AS bucket, u.method, u.endpoint, u.key_id, u.status_class, sum(u.count)::int AS n
        FROM key_usage u
        WHERE u.team_id = ${session.teamId} AND (${key}::text IS NULL OR u.key_id = ${key})
          AND u.minute >= ${new Date(start)}
        GROUP BY 1, 2, 3, 4, 5`)
      : await retryable(sql<{ bucket: Date; method: string; endpoint: string; key_id: string; status_class: number; n: number }[]>`
        SELECT (u.day::timestamp AT TIME ZONE 'UTC') AS bucket, u.method, u.endpoint, u.key_id, u.status_class, sum(u.count)::int AS n
        FROM key_usage_daily u
        WHERE u.team_id = ${session.teamId} AND (${key}::text IS NULL OR u.key_id = ${key})
          AND u.day >= (${new Date(start)}::timestamptz AT TIME ZONE 'UTC')::date
        GROUP BY 1, 2, 3, 4, 5`);

  const total = new Array<number>(count).fill(0);
  const byEndpoint = new Map<string, number[]>();
  const byKey = new Map<string, number>();
  const byClass = new Map<string, number[]>();
  for (const row of rows) {
    if (row.n === 0) continue;
    const i = Math.round((row.bucket.getTime() - start) / step);
    if (i < 0 || i >= count) continue;
    total[i] += row.n;
    const name = `${row.method} ${row.endpoint}`;
    let series = byEndpoint.get(name);
    if (!series) byEndpoint.set(name, (series = new Array<number>(count).fill(0)));
    series[i] += row.n;
    byKey.set(row.key_id, (byKey.get(row.key_id) ?? 0) + row.n);
    // Class 0: counted, reply not yet settled (or recorded before status classes were kept).
    const cls = row.status_class > 0 ? `${row.status_class}xx` : 'unknown';
    let classSeries = byClass.get(cls);
    if (!classSeries) byClass.set(cls, (classSeries = new Array<number>(count).fill(0)));
    classSeries[i] += row.n;
  }
  const endpoints = [...byEndpoint]
    .map(([endpoint, series]) => ({ endpoint, series, total: series.reduce((a, b) => a + b, 0) }))
    .sort((a, b) => b.total - a.total || a.endpoint.localeCompare(b.endpoint));

  // The rolling hour as the limiter counts it (per minute), from the requests recorded: the limiter's own
  // counters (rate_counters) also hold quota that processes have leased but not used yet.
  const [team] = await retryable(sql<{ poi_count: number; used: number; oldest: Date | null }[]>`
    SELECT t.poi_count, coalesce(w.used, 0)::int AS used, w.oldest
    FROM teams t LEFT JOIN LATERAL (
      SELECT sum(u.count) AS used, min(u.minute) AS oldest FROM key_usage u
      WHERE u.team_id = t.id AND u.minute > date_trunc('minute', now()) - interval '60 minutes') w ON true
    WHERE t.id = ${session.teamId}`);
  const live = new Set(
    byKey.size
      ? (await retryable(sql<{ id: string }[]>`SELECT id FROM api_keys WHERE team_id = ${session.teamId} AND id = ANY(${[...byKey.keys()]}::text[])`)).map(
          (k) => k.id,
        )
      : [],
  );
  const limits = effectiveLimits(session.plan, session.rateLimit, session.poiLimit);
  return {
    range: r,
    step_seconds: step / 1000,
    buckets: buckets.map((b) => b / 1000),
    total,
    endpoints,
    status_classes: [...byClass]
      .map(([status_class, series]) => ({ status_class, series, total: series.reduce((a, b) => a + b, 0) }))
      .filter((c) => c.total !== 0)
      .sort((a, b) => a.status_class.localeCompare(b.status_class)),
    // A deleted key's requests stay counted (the dashboard names it "deleted key").
    keys: [...byKey].map(([id, n]) => ({ id, count: n, deleted: !live.has(id) })).filter((k) => k.count !== 0),
    plan: { name: session.plan, active: session.planActive },
    rate: {
      limit: limits.rateLimit,
      used: team.used,
      remaining: limits.rateLimit === null ? null : Math.max(0, limits.rateLimit - team.used),
      window_resets_at: team.oldest ? new Date(team.oldest.getTime() + 3_600_000).toISOString() : null,
    },
    pois: { count: team.poi_count, limit: limits.poiLimit },
  };
}
