// Requests that record themselves: every request is tagged with its access pattern, its
// `x-ms-request-charge` goes to the pattern's RU Trend, its duration to the pattern's latency
// Trend, and it is checked (status, and page content for pages).

import http from 'k6/http';
import { check } from 'k6';
import { pattern as lookup, ruTotal } from './metrics.js';

// A 429 is the server's legitimate answer to overload (the engine's RU budget) or to repeated
// failed sign-ins: counted per pattern (throttled_<p>), not a failed request.
http.setResponseCallback(http.expectedStatuses({ min: 200, max: 399 }, 429));

/** The request charge of a response (NaN when the header is missing). */
export function requestCharge(res) {
  const h = res.headers['X-Ms-Request-Charge'];
  return h === undefined ? NaN : parseFloat(h);
}

const CSRF_RE = /name="csrf_token"\s+value="([^"]+)"/;

/** The form token of the session, from any page showing a form (null when none). */
export function csrfToken(res) {
  if (!res || typeof res.body !== 'string') return null;
  const m = CSRF_RE.exec(res.body);
  if (m) return m[1];
  // Attribute order or quoting changed: fall back to the HTML parser.
  const v = res.html().find('input[name=csrf_token]').first().attr('value');
  return v || null;
}

/**
 * Records a response under `name`: RU, latency, 429 and error counters, checks.
 *   expect     the status a success has (200 for pages, 303 for form posts)
 *   contains   strings the page must contain (checked only on a success)
 *   location   RegExp the `Location` of a redirect must match
 *   tags       extra tags for the RU/latency samples (e.g. {lines: '2'}), or a function of the
 *              response returning them (a cart page's line count is only known from the page)
 */
export function record(name, res, { expect = 200, contains = [], location = null, tags = {} } = {}) {
  const p = lookup(name);
  const sampleTags = { pattern: name, ...(typeof tags === 'function' ? tags(res) : tags) };
  const ru = requestCharge(res);
  if (Number.isFinite(ru)) {
    p.ruTrend.add(ru, sampleTags);
    ruTotal.add(ru, { pattern: name });
  }
  p.latencyTrend.add(res.timings.duration, sampleTags);
  const throttled = res.status === 429;
  if (throttled) p.throttled.add(1, { pattern: name });
  const ok = res.status === expect;
  if (!ok && !throttled) p.errors.add(1, { pattern: name, status: String(res.status) });

  const checks = {};
  checks[`${name}: status ${expect}`] = () => ok || throttled;
  checks[`${name}: has x-ms-request-charge`] = () => throttled || Number.isFinite(ru);
  for (const text of [].concat(contains)) {
    checks[`${name}: shows "${text}"`] = (r) => throttled || (ok && typeof r.body === 'string' && r.body.includes(text));
  }
  if (location) {
    checks[`${name}: redirects to ${location}`] = (r) => throttled || (ok && location.test(r.headers.Location || ''));
  }
  check(res, checks, { pattern: name });
  if (!ok && !throttled && __ENV.DEBUG) {
    console.warn(`${name}: ${res.request.method} ${res.url} -> ${res.status} ${String(res.body).slice(0, 300)}`);
  }
  return ok;
}

function params(name, urlName, extra = {}) {
  return { tags: { pattern: name, name: urlName || name }, ...extra };
}

/**
 * GET a page and record it. `urlName` groups URLs in k6's own metrics (`/posts/{postId}`),
 * keeping the number of distinct `name` tags small.
 */
export function page(url, name, opts = {}) {
  const res = http.get(url, params(name, opts.urlName, { redirects: 0 }));
  const ok = record(name, res, opts);
  return { res, ok };
}

/**
 * POST a url-encoded form with the session's CSRF token, without following the redirect (so the
 * recorded RU is the POST's own). Success is a 303 by default.
 */
export function submit(url, fields, csrf, name, opts = {}) {
  const body = { csrf_token: csrf || '', ...fields };
  const res = http.post(url, body, params(name, opts.urlName, { redirects: 0 }));
  const ok = record(name, res, { expect: 303, ...opts });
  return { res, ok, location: res.headers.Location || null };
}

/** Absolute URL for a redirect's `Location` (the apps answer with paths). */
export function resolve(base, location) {
  if (!location) return null;
  if (/^https?:\/\//.test(location)) return location;
  return base + (location.startsWith('/') ? '' : '/') + location;
}

/** Unique matches of the first group of `re` (a global RegExp) in `text`. */
export function matchAll(text, re) {
  const out = new Set();
  if (typeof text !== 'string') return [];
  re.lastIndex = 0;
  let m;
  while ((m = re.exec(text)) !== null) out.add(m[1]);
  return [...out];
}

/** A GET outside the measured mix (setup crawling): tagged `pattern: setup`, not recorded. */
export function crawl(url) {
  const res = http.get(url, { tags: { pattern: 'setup', name: 'setup crawl' } });
  if (res.status !== 200) {
    throw new Error(`setup: GET ${url} answered ${res.status}; is the server up (BASE_URL)?`);
  }
  return res;
}
