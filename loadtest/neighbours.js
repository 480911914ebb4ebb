// A 1 RU page beside heavy ones (issue 19): N clients load a fan-out page of the blog's V1 model
// in a loop while a probe reads one post page at a steady rate; the report is the probe's
// latency. Before the engine moved storage work off the async threads, the probe's p99 went
// from 0.4 ms to seconds (one heavy request held an actix worker).
//
//   HEAVY=4 k6 run loadtest/neighbours.js      (BASE_URL, HEAVY_PATH, PROBE_PATH, DURATION)
//
// HEAVY_URL points the heavy clients at another server, with no sign-up: e.g. the explorer's
// partitions page of the blog's posts, which walks every logical partition for its charts:
//   HEAVY=4 SIGN_UP= HEAVY_URL=http://127.0.0.1:8082/dbs/blog/colls/posts/partitions \
//     HEAVY_TOKEN=<the explorer token the launcher prints> k6 run loadtest/neighbours.js
//
// Each heavy client signs up its own user of the V1 model first, so the V1 feed (~1 800 RU, a
// fan-out plus ~200 queries) runs live (anonymous visitors get a 5-second cache of it). Start
// the demo with `--signups-per-minute 0` for N > 10.
import http from 'k6/http';
import { check } from 'k6';
import { Trend } from 'k6/metrics';
import { parseHTML } from 'k6/html';

const BASE = (__ENV.BASE_URL || 'http://127.0.0.1:8081').replace(/\/+$/, '');
const HEAVY = Number(__ENV.HEAVY || 4);
const HEAVY_PATH = __ENV.HEAVY_PATH || '/v1';
const HEAVY_URL = __ENV.HEAVY_URL || BASE + HEAVY_PATH;
// The explorer's token, sent as `Authorization: Bearer` (as Prometheus does).
const HEAVY_HEADERS = __ENV.HEAVY_TOKEN ? { Authorization: `Bearer ${__ENV.HEAVY_TOKEN}` } : {};
const SIGN_UP = __ENV.SIGN_UP === undefined ? '/v1/signup' : __ENV.SIGN_UP;
const PROBE_PATH = __ENV.PROBE_PATH || '/posts/post-000001-00';
const DURATION = __ENV.DURATION || '30s';

const probeMs = new Trend('probe_ms', true);
const heavyMs = new Trend('heavy_ms', true);

export const options = {
  scenarios: {
    probe: { executor: 'constant-arrival-rate', exec: 'probe', rate: 20, timeUnit: '1s', duration: DURATION, preAllocatedVUs: 4 },
    ...(HEAVY > 0 ? { heavy: { executor: 'constant-vus', exec: 'heavy', vus: HEAVY, duration: DURATION } } : {}),
  },
  summaryTrendStats: ['med', 'p(95)', 'p(99)', 'max', 'count'],
  noCookiesReset: true, // the heavy clients stay signed in across iterations
  thresholds: { probe_ms: ['p(99)<20'], http_req_failed: ['rate<0.01'] },
};

export function probe() {
  const r = http.get(BASE + PROBE_PATH, { tags: { name: 'probe' } });
  check(r, { 'probe 200': (x) => x.status === 200 });
  probeMs.add(r.timings.duration);
}

let signedIn = false;

export function heavy() {
  if (!signedIn && SIGN_UP) {
    const form = http.get(BASE + SIGN_UP);
    const token = parseHTML(form.body).find('input[name=csrf_token]').attr('value');
    const username = `nb_${__VU}_${Date.now() % 1000000}`;
    const r = http.post(BASE + SIGN_UP, { username, password: 'a long password', csrf_token: token }, { redirects: 0 });
    check(r, { 'signed up': (x) => x.status === 303 });
    signedIn = true;
  }
  const r = http.get(HEAVY_URL, { tags: { name: 'heavy' }, headers: HEAVY_HEADERS });
  check(r, { 'heavy 200': (x) => x.status === 200 });
  heavyMs.add(r.timings.duration);
}
