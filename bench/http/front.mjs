// What a front in Node for every request would cost: the HTTP edges uWebSockets.js 20.30 gets wrong
// (HTTP/1.0, requests pipelined behind one that waits, unknown methods, 48+ header fields) are all
// handled by Node's own HTTP parser, so the fix would be node:http in front of uWS, or in its place.
// This measures, on one small reply, uWS alone against: a bare TCP pipe in front of it (the least any
// front costs), node:http forwarding to it on keep-alive connections (a front that fixes the edges), and
// node:http answering by itself (the edge replaced). The servers share one process, as a front would
// share the service's; autocannon runs in this one. On a machine where the client is the bottleneck,
// req/s says little: the servers' CPU time per request (read from /proc, Linux) is the figure that counts.
// Rounds alternate so that a busy machine hurts all alike.
// Usage: node bench/http/front.mjs [--duration 5] [--connections 50] [--rounds 3]
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import http from 'node:http';
import net from 'node:net';
import { parseArgs } from 'node:util';
import uws from '@trufflesuite/uws-js-unofficial';
import autocannon from 'autocannon';

const { values: opts } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '3' },
    serve: { type: 'boolean', default: false },
  },
});
if (opts.serve) await serve();
else await bench();

async function serve() {
  const body = '{"hello":"world"}';
  const listen = (server) => new Promise((done) => server.listen(0, '127.0.0.1', () => done(server.address().port)));

  const uwsPort = await new Promise((done) => {
    uws
      .App()
      .get('/*', (res) => res.end(body))
      .listen('127.0.0.1', 0, (s) => done(uws.us_socket_local_port(s)));
  });
  const pipePort = await listen(
    net.createServer((client) => {
      const upstream = net.connect(uwsPort, '127.0.0.1');
      client.pipe(upstream).pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    }),
  );
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const frontPort = await listen(
    http.createServer((req, res) => {
      const up = http.request({ host: '127.0.0.1', port: uwsPort, method: req.method, path: req.url, headers: req.headers, agent }, (r) => {
        res.writeHead(r.statusCode, r.headers);
        r.pipe(res);
      });
      up.on('error', () => res.destroy());
      req.pipe(up);
    }),
  );
  const nodePort = await listen(
    http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Length': body.length });
      res.end(body);
    }),
  );

  console.log(JSON.stringify({ 'uWS alone': uwsPort, 'TCP pipe -> uWS': pipePort, 'node:http -> uWS': frontPort, 'node:http alone': nodePort }));
}

async function bench() {
  const child = spawn(process.execPath, [new URL(import.meta.url).pathname, '--serve'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const setups = await new Promise((done) => child.stdout.once('data', (c) => done(JSON.parse(String(c)))));
  const results = Object.fromEntries(Object.keys(setups).map((k) => [k, []]));
  /** CPU seconds (user + system) the server process has used. */
  const cpu = () => {
    const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  };
  const run = (port, duration) => autocannon({ url: `http://127.0.0.1:${port}/`, connections: Number(opts.connections), duration, pipelining: 1 });
  for (let round = 0; round < Number(opts.rounds); round++) {
    for (const [name, port] of Object.entries(setups)) {
      await run(port, 1);
      const before = cpu();
      const r = await run(port, Number(opts.duration));
      const cpuUs = ((cpu() - before) * 1e6) / r.requests.total;
      results[name].push({ rps: r.requests.average, cpuUs, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx });
      process.stderr.write(
        `round ${round + 1} ${name}: ${Math.round(r.requests.average)} req/s, server CPU ${cpuUs.toFixed(1)} µs/request, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms\n`,
      );
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const base = median(results['uWS alone'].map((r) => r.cpuUs));
  const table = Object.entries(results).map(([name, rs]) => {
    const cpuUs = median(rs.map((r) => r.cpuUs));
    return {
      setup: name,
      'server CPU µs/request': Number(cpuUs.toFixed(1)),
      'vs uWS alone': `×${(cpuUs / base).toFixed(2)}`,
      'req/s': Math.round(median(rs.map((r) => r.rps))),
      'p50 ms': median(rs.map((r) => r.p50)),
      'p99 ms': median(rs.map((r) => r.p99)),
      errors: rs.reduce((n, r) => n + r.errors, 0),
    };
  });
  console.table(table);
  const out = {
    machine: { cores: cpus().length, node: process.version, load_1min_at_end: Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]) },
    connections: Number(opts.connections),
    duration_s: Number(opts.duration),
    rounds: Number(opts.rounds),
    table,
    runs: results,
  };
  const dir = new URL('../results/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  writeFileSync(new URL('http-front.json', dir), `${JSON.stringify(out, null, 2)}\n`);
  child.kill();
}
