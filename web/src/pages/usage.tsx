import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { call, qs } from '../api';
import { Message, PageHeading, TableHead } from '../components';

interface Usage {
  range: '24h' | '30d';
  buckets: number[];
  total: number[];
  endpoints: Array<{ endpoint: string; series: number[]; total: number }>;
  status_classes: Array<{ status_class: string; series: number[]; total: number }>;
  keys: Array<{ id: string; count: number; deleted: boolean }>;
  plan: { name: string; active: boolean };
  rate: { limit: number | null; used: number; remaining: number | null; window_resets_at: string | null };
  pois: { count: number; limit: number | null };
}

const COLORS = ['#1d4ed8', '#b45309', '#047857', '#be123c', '#6d28d9', '#0e7490'];

const CLASS_COLORS: Record<string, string> = { '2xx': '#047857', '3xx': '#6d28d9', '4xx': '#b45309', '5xx': '#be123c', '1xx': '#0e7490', unknown: '#6b7280' };

function Chart({ usage, split }: { usage: Usage; split: 'endpoint' | 'status' }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current!;
    const top =
      split === 'endpoint'
        ? usage.endpoints.slice(0, 5).map((e, i) => ({ label: e.endpoint, series: e.series, color: COLORS[(i + 1) % COLORS.length] }))
        : usage.status_classes.map((c) => ({ label: c.status_class, series: c.series, color: CLASS_COLORS[c.status_class] ?? '#111827' }));
    const opts: uPlot.Options = {
      width: Math.max(320, el.clientWidth),
      height: 280,
      scales: { x: { time: true } },
      axes: [{}, { label: 'requests', size: 60 }],
      series: [
        {},
        { label: 'All endpoints', stroke: COLORS[0], width: 2, fill: 'rgba(29,78,216,0.08)' },
        ...top.map((e) => ({ label: e.label, stroke: e.color, width: 1.5 })),
      ],
    };
    const data = [usage.buckets, usage.total, ...top.map((e) => e.series)] as uPlot.AlignedData;
    const plot = new uPlot(opts, data, el);
    const resize = () => plot.setSize({ width: Math.max(320, el.clientWidth), height: 280 });
    addEventListener('resize', resize);
    return () => {
      removeEventListener('resize', resize);
      plot.destroy();
    };
  }, [usage, split]);
  return (
    <div
      ref={box}
      class="chart"
      role="img"
      aria-label={`Requests per ${usage.range === '24h' ? 'hour over the last 24 hours' : 'day over the last 30 days'}: ${usage.total.reduce((a, b) => a + b, 0)} in total`}
    />
  );
}

const n = (v: number | null) => (v === null ? 'unlimited' : v.toLocaleString());

export function UsagePage() {
  const [range, setRange] = useState<'24h' | '30d'>('24h');
  const [keyId, setKeyId] = useState('');
  const [split, setSplit] = useState<'endpoint' | 'status'>('endpoint');
  const [keys, setKeys] = useState<Array<{ id: string; name: string; last_four: string }>>([]);
  const [usage, setUsage] = useState<Usage>();
  const [error, setError] = useState<unknown>();

  useEffect(() => {
    call<{ data: typeof keys }>('GET', '/keys').then((r) => setKeys(r.data), setError);
  }, []);
  useEffect(() => {
    setError(undefined);
    call<{ data: Usage }>('GET', `/usage${qs({ range, key_id: keyId })}`).then((r) => setUsage(r.data), setError);
  }, [range, keyId]);

  const total = usage ? usage.total.reduce((a, b) => a + b, 0) : 0;
  const keyName = (id: string) => keys.find((k) => k.id === id)?.name ?? id;
  return (
    <>
      <PageHeading>Usage</PageHeading>
      <Message error={error} />
      {usage && (
        <div class="cards">
          <section class="card stat" aria-labelledby="plan-title">
            <h2 id="plan-title">Plan</h2>
            <p class="big">{usage.plan.name}</p>
            <p>{usage.plan.active ? 'active' : 'not active: API requests are refused'}</p>
          </section>
          <section class="card stat" aria-labelledby="rate-title">
            <h2 id="rate-title">Rate limit (rolling hour)</h2>
            <p class="big">{usage.rate.limit === null ? 'unlimited' : `${n(usage.rate.remaining)} left`}</p>
            <p>
              {n(usage.rate.used)} used of {n(usage.rate.limit)} per hour
            </p>
            {usage.rate.limit !== null && <meter min={0} max={usage.rate.limit} value={usage.rate.used} aria-label="Rate limit used" />}
          </section>
          <section class="card stat" aria-labelledby="poi-title">
            <h2 id="poi-title">POIs</h2>
            <p class="big">{n(usage.pois.count)}</p>
            <p>of {n(usage.pois.limit)} allowed</p>
            {usage.pois.limit !== null && <meter min={0} max={usage.pois.limit} value={usage.pois.count} aria-label="POI limit used" />}
          </section>
        </div>
      )}
      <section class="card" aria-labelledby="requests-title">
        <h2 id="requests-title">Requests</h2>
        <div class="filters">
          <div class="field">
            <label for="usage-range">Period</label>
            <select id="usage-range" value={range} onChange={(e) => setRange(e.currentTarget.value as '24h' | '30d')}>
              <option value="24h">Last 24 hours (per hour)</option>
              <option value="30d">Last 30 days (per day)</option>
            </select>
          </div>
          <div class="field">
            <label for="usage-key">API key</label>
            <select id="usage-key" value={keyId} onChange={(e) => setKeyId(e.currentTarget.value)}>
              <option value="">All keys of the team</option>
              {keys.map((k) => (
                <option key={k.id} value={k.id}>
                  {k.name} (…{k.last_four})
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="usage-split">Lines by</label>
            <select id="usage-split" value={split} onChange={(e) => setSplit(e.currentTarget.value as 'endpoint' | 'status')}>
              <option value="endpoint">Endpoint (top 5)</option>
              <option value="status">Status class</option>
            </select>
          </div>
          <p class="total" role="status">
            {usage ? `${total.toLocaleString()} requests` : 'Loading…'}
          </p>
        </div>
        {usage && <Chart usage={usage} split={split} />}
        {usage && usage.endpoints.length > 0 && (
          <div class="split">
            <CountTable
              caption="By endpoint"
              label="Endpoint"
              rows={usage.endpoints.map((e) => ({ key: e.endpoint, name: <code>{e.endpoint}</code>, count: e.total }))}
            />
            <CountTable
              caption="By status class"
              label="Status"
              rows={usage.status_classes.map((c) => ({ key: c.status_class, name: c.status_class, count: c.total }))}
            />
            {!keyId && (
              <CountTable
                caption="By key"
                label="Key"
                rows={usage.keys.map((k) => ({ key: k.id, name: k.deleted ? 'deleted key' : keyName(k.id), count: k.count }))}
              />
            )}
          </div>
        )}
      </section>
    </>
  );
}

/** A table of request counts by one grouping (endpoint, status class, key). */
function CountTable({ caption, label, rows }: { caption: string; label: string; rows: Array<{ key: string; name: ComponentChildren; count: number }> }) {
  return (
    <div class="table-wrap">
      <table>
        <caption>{caption}</caption>
        <TableHead columns={[label, 'Requests']} numeric={['Requests']} />
        <tbody>
          {rows.map((r) => (
            <tr key={r.key}>
              <td>{r.name}</td>
              <td class="num">{r.count}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
