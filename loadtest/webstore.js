// Load test of WebStore (the Cosmos DB modeling articles' shop), through its real pages and forms.
//
//   k6 run -e PROFILE=smoke|load|soak -e BASE_URL=http://127.0.0.1:8080 loadtest/webstore.js
//
// Three open-model scenarios, a read-heavy mix like a real shop:
//   browsers   anonymous visitors: home, category pages (three sorts, next pages), product pages,
//              some tag pages and searches (the two fan-outs)
//   customers  each VU signs up its own account through the form on its first iteration, then
//              browses, fills its cart, checks out (the createOrder procedure), reads its orders
//              and account, adds addresses, now and then signs out and in again
//   backoffice one admin now and then: top customers (a fan-out), categories, tags, products
//
// Product, category and tag ids come from crawling the home and category pages in setup().

import exec from 'k6/execution';
import { arrival, baseUrl, newRunId, randomItem, weighted } from './lib/config.js';
import { definePatterns, patternThresholds } from './lib/metrics.js';
import { crawl, csrfToken, matchAll, page, resolve, submit } from './lib/http.js';
import { summaryFor } from './lib/summary.js';

const BASE = baseUrl('http://127.0.0.1:8080');
const ADMIN_EMAIL = __ENV.ADMIN_EMAIL || 'admin@webstore.example';
const ADMIN_PASSWORD = __ENV.ADMIN_PASSWORD || 'admin-password';

// ---- patterns and their RU budgets ------------------------------------------------------------

const DOC = 'webstore/ACCESS_PATTERNS.md';
// The largest cart a customer builds before checking out (the cart page and checkout read one
// product per line, so their budgets are per number of lines).
const MAX_LINES = 3;

const perLines = (base, perLine, from = 0) => {
  const b = {};
  for (let n = from; n <= MAX_LINES; n++) b[n] = Math.round((base + perLine * n) * 100) / 100;
  return b;
};

// Every signed-in request first checks its session: one point read of the customer document
// (sitekit::sessions, `read account (session)` in the footer). Sign-up, sign-in and sign-out
// write the session into that document: a read and a replace (measured 1 + 4.30).
const SESSION = 1.0;
const SESSION_WRITE = 5.3;
const S = ' + the session check (1 point read)';
const SW = ' + the session written into the customer (read + replace, 5.30)';

// [RU, source, latency kind]
const PATTERNS = {
  home: [8.99, `${DOC}: list_categories 7.96 + featured point read 1.03`],
  'category (price)': [5.71, `${DOC}: products_by_category, composite index`],
  'category (price_desc)': [5.71, `${DOC}: the price index read backwards (listed as sort=price)`],
  'category (name)': [5.62, `${DOC}: products_by_category, composite index`],
  // A page that ends exactly at the category's last product still offers "next": that page
  // comes back empty and reads the category's name instead (a point read).
  'category next page': [5.71 + 1.0, `${DOC}: a continuation of products_by_category (as sort=price); an empty last page + the category's name (1 point read)`],
  product: [1.0, `${DOC}: point read`],
  tag: [28.29, `${DOC}: products_by_tag, fan-out`],
  search: [28.29, `${DOC}: search_products, fan-out`],
  'sign-up form': [0, 'no engine call'],
  'sign-up': [9.95 + SESSION_WRITE, `${DOC}: email lookup + customer, two creates${SW}`, 'argon2'],
  'sign-in form': [0, 'no engine call'],
  'sign-in': [2.0 + SESSION_WRITE, `${DOC}: two point reads${SW}`, 'argon2'],
  'sign-out': [SESSION + SESSION_WRITE, 'the session check and the session removed from the customer (read + replace)', 'write'],
  account: [1.0 + SESSION, `${DOC}: point read${S}`],
  'add address': [6.3 + SESSION, `${DOC}: point read + patch${S}`, 'write'],
  'add to cart': [1.0 + SESSION, `${DOC}: point read of the product${S} (signed-in shoppers)`, 'write'],
  cart: [{ tag: 'lines', budgets: perLines(SESSION, 1.0) }, `${DOC}: 1.00 per cart line (budget per number of lines)${S} (signed-in shoppers)`],
  checkout: [{ tag: 'lines', budgets: perLines(13.4 - 1.0 + SESSION, 1.0, 1) }, `${DOC}: createOrder 13.40 for 1 line, + 1 per further line read${S}`, 'write'],
  orders: [5.32 + SESSION, `${DOC}: customer_with_orders, single-partition${S}`],
  order: [1.0 + SESSION, `${DOC}: point read${S}`],
  'admin top customers': [201.54 + SESSION, `${DOC}: TOP 25 fan-out, figure at 2 000 customers (grows with customers)`, 'fanout'],
  'admin categories': [7.96 + SESSION, `${DOC}: list_categories (+ change-feed lag)`],
  'admin tags': [24.71 + SESSION, `${DOC}: list_tags (+ change-feed lag)`],
  'admin products': [8.81 + SESSION, `${DOC}: all_products, 50 per page, fan-out`],
};

// p(95) latency budgets in ms; sign-up and sign-in hash or verify an argon2id password.
const LATENCY = { read: 250, write: 400, argon2: 1500, fanout: 1000 };

definePatterns(Object.entries(PATTERNS).map(([name, [ru, source, kind]]) => ({
  name,
  ru: typeof ru === 'object' ? null : ru,
  ruBy: typeof ru === 'object' ? ru : undefined,
  source,
  latencyMs: LATENCY[kind || 'read'],
})));

// ---- options ----------------------------------------------------------------------------------

export const options = {
  scenarios: {
    browsers: arrival({ exec: 'browser', rate: { smoke: 6, load: 40, soak: 25 }, vus: { smoke: 5, load: 12, soak: 10 }, maxVUs: 100 }),
    customers: arrival({ exec: 'customer', rate: { smoke: 3, load: 12, soak: 8 }, vus: { smoke: 4, load: 8, soak: 6 }, maxVUs: 60 }),
    backoffice: arrival({ exec: 'backoffice', rate: { smoke: 0.25, load: 0.5, soak: 0.2 }, vus: 1, maxVUs: 3 }),
  },
  thresholds: patternThresholds({
    // 429s are "expected" responses (see lib/http.js): this is every other 4xx/5xx.
    http_req_failed: ['rate<0.01'],
    checks: ['rate>0.99'],
  }),
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(50)', 'p(95)', 'p(99)', 'count'],
  setupTimeout: '120s',
  // Sessions (sign-in, cart) must outlive the iteration: k6 empties the jar per iteration by
  // default.
  noCookiesReset: true,
  userAgent: 'k6-loadtest (cosmos-lmdb webstore)',
};

// ---- setup: real ids from the site ------------------------------------------------------------

const CATEGORY_RE = /href="\/categories\/([A-Za-z0-9_.-]+)"/g;
const PRODUCT_RE = /href="\/products\/([A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+)"/g;
const TAG_RE = /href="\/tags\/([A-Za-z0-9_.-]+)"/g;
const NAME_RE = /class="card-title">([^<]+)</g;

export function setup() {
  const home = crawl(`${BASE}/`);
  const categories = matchAll(home.body, CATEGORY_RE);
  if (categories.length === 0) throw new Error(`setup: no categories on ${BASE}/ (seeded data missing?)`);
  const products = new Set(matchAll(home.body, PRODUCT_RE));
  const tags = new Set();
  const terms = new Set();
  const limit = Number(__ENV.CRAWL_CATEGORIES || categories.length);
  for (const c of categories.slice(0, limit)) {
    const res = crawl(`${BASE}/categories/${c}?sort=name`);
    matchAll(res.body, PRODUCT_RE).forEach((p) => products.add(p));
    matchAll(res.body, TAG_RE).forEach((t) => tags.add(t));
    for (const name of matchAll(res.body, NAME_RE)) {
      for (const w of name.split(/\s+/)) if (/^[A-Za-z]{4,}$/.test(w)) terms.add(w.toLowerCase());
    }
  }
  if (products.size === 0) throw new Error('setup: no products found on the category pages');
  return {
    runId: newRunId(),
    categories,
    products: [...products].map((p) => p.split('/')),
    tags: [...tags],
    terms: [...terms],
  };
}

// ---- shared steps -----------------------------------------------------------------------------

const SORTS = [
  ['price', 'category (price)'],
  ['price_desc', 'category (price_desc)'],
  ['name', 'category (name)'],
];

function category(data) {
  const [sort, name] = randomItem(SORTS);
  const r = page(`${BASE}/categories/${randomItem(data.categories)}?sort=${sort}`, name, {
    contains: 'Sort by:',
    urlName: `/categories/{categoryId}?sort=${sort}`,
  });
  // One visitor in four goes on to the next page, when there is one.
  const next = r.ok && /href="(\/categories\/[^"]+page=[^"]+)"/.exec(r.res.body);
  if (next && Math.random() < 0.25) {
    page(BASE + next[1].replace(/&amp;/g, '&'), 'category next page', {
      contains: 'Sort by:',
      urlName: '/categories/{categoryId}?sort=&page=',
    });
  }
  return r;
}

function product(data) {
  const [cat, id] = randomItem(data.products);
  const r = page(`${BASE}/products/${cat}/${id}`, 'product', { contains: 'Add to cart', urlName: '/products/{categoryId}/{productId}' });
  return { ...r, cat, id };
}

function tag(data) {
  return page(`${BASE}/tags/${randomItem(data.tags)}`, 'tag', { contains: 'fanout-note', urlName: '/tags/{tagId}' });
}

function search(data) {
  const q = Math.random() < 0.9 && data.terms.length > 0 ? randomItem(data.terms) : 'no-such-product';
  return page(`${BASE}/search?q=${encodeURIComponent(q)}`, 'search', { contains: 'fanout-note', urlName: '/search?q=' });
}

function home() {
  return page(`${BASE}/`, 'home', { contains: 'Featured', urlName: '/' });
}

// ---- browsers: anonymous, read-only ----------------------------------------------------------

export function browser(data) {
  weighted([
    [15, () => home()],
    [30, () => category(data)],
    [38, () => product(data)],
    [8, () => tag(data)],
    [7, () => search(data)],
    [2, () => page(`${BASE}/signup`, 'sign-up form', { contains: 'id="signup"', urlName: '/signup' })],
  ]);
}

// ---- customers: one account per VU ------------------------------------------------------------

// Per-VU state (each VU has its own JavaScript runtime and cookie jar). `accounts` numbers the
// accounts this VU created, so that a VU signing up again never reuses an address.
let me = null;
let accounts = 0;

function keepToken(res) {
  const t = csrfToken(res);
  if (t) me.csrf = t;
  return res;
}

/** Lines in the cart page (one remove form per line). */
function cartLines(res) {
  return (String(res.body).match(/action="\/cart\/remove"/g) || []).length;
}

function signUp(data) {
  const n = accounts++;
  me = { n, csrf: null, orders: [], addresses: 0, lines: 0 };
  me.email = `k6-${data.runId}-${exec.vu.idInTest}-${n}@loadtest.example`;
  me.password = `pw-${data.runId}-${exec.vu.idInTest}-secret`;
  keepToken(page(`${BASE}/signup`, 'sign-up form', { contains: 'id="signup"', urlName: '/signup' }).res);
  const r = submit(`${BASE}/signup`, {
    title: randomItem(['', 'Mr.', 'Ms.', 'Dr.']),
    first_name: `K6vu${exec.vu.idInTest}`,
    last_name: `Run${data.runId}`,
    email: me.email,
    phone: `555-01${String(exec.vu.idInTest % 100).padStart(2, '0')}`,
    password: me.password,
  }, me.csrf, 'sign-up', { urlName: '/signup', location: /\/account$/ });
  if (!r.ok) {
    me = null;
    return;
  }
  // The browser follows the redirect to the account page (and gets the rotated token).
  keepToken(page(resolve(BASE, r.location), 'account', { contains: 'Addresses', urlName: '/account' }).res);
}

function addToCart(data) {
  const p = product(data);
  keepToken(p.res);
  if (!p.ok) return false;
  const r = submit(`${BASE}/cart/add`, {
    category_id: p.cat,
    product_id: p.id,
    quantity: String(1 + Math.floor(Math.random() * 3)),
  }, me.csrf, 'add to cart', { urlName: '/cart/add', location: /\/cart$/ });
  if (r.ok) viewCart();
  return r.ok;
}

function viewCart() {
  // The RU budget depends on the number of lines, read from the page itself.
  const res = page(`${BASE}/cart`, 'cart', {
    contains: 'Your cart',
    urlName: '/cart',
    tags: (r) => ({ lines: String(cartLines(r)) }),
  });
  keepToken(res.res);
  me.lines = cartLines(res.res);
  return res;
}

function shop(data) {
  // A full cart goes to checkout rather than growing past MAX_LINES.
  if (me.lines >= MAX_LINES) return checkout(data);
  return addToCart(data);
}

function checkout(data) {
  if (me.lines === 0 && !addToCart(data)) return;
  const cart = viewCart();
  if (!cart.ok || me.lines === 0) return;
  const lines = me.lines;
  const r = submit(`${BASE}/checkout`, {}, me.csrf, 'checkout', {
    urlName: '/checkout',
    location: /\/orders\/order-[0-9a-f]+$/,
    tags: { lines: String(lines) },
  });
  if (!r.ok) return;
  me.lines = 0;
  const id = r.location.split('/').pop();
  me.orders.push(id);
  keepToken(page(resolve(BASE, r.location), 'order', { contains: `Order ${id}`, urlName: '/orders/{orderId}' }).res);
}

function orders() {
  const r = page(`${BASE}/orders`, 'orders', { contains: 'Your orders', urlName: '/orders' });
  keepToken(r.res);
  return r;
}

function order() {
  if (me.orders.length === 0) {
    const list = orders();
    me.orders = matchAll(list.res.body, /href="\/orders\/(order-[A-Za-z0-9_.-]+)"/g);
    if (me.orders.length === 0) return;
  }
  const id = randomItem(me.orders);
  keepToken(page(`${BASE}/orders/${id}`, 'order', { contains: `Order ${id}`, urlName: '/orders/{orderId}' }).res);
}

function account() {
  const r = page(`${BASE}/account`, 'account', { contains: 'Addresses', urlName: '/account' });
  keepToken(r.res);
  return r;
}

function addAddress() {
  const acct = account();
  if (!acct.ok || !acct.res.body.includes('id="address"')) return; // at the limit
  const n = (me.addresses += 1);
  const r = submit(`${BASE}/account/addresses`, {
    address_line1: `${n} Load Test Road`,
    address_line2: '',
    city: randomItem(['Seattle', 'Lyon', 'Osaka', 'Porto', 'Leeds']),
    state: '',
    country: randomItem(['US', 'FR', 'JP', 'PT', 'UK']),
    zip_code: String(10000 + Math.floor(Math.random() * 89999)),
  }, me.csrf, 'add address', { urlName: '/account/addresses', location: /\/account$/ });
  if (r.ok) account();
}

function signOut() {
  return submit(`${BASE}/signout`, {}, me.csrf, 'sign-out', { urlName: '/signout', location: /\/$/ }).ok;
}

function signIn(email, password, landing) {
  keepToken(page(`${BASE}/signin`, 'sign-in form', { contains: 'id="signin"', urlName: '/signin' }).res);
  return submit(`${BASE}/signin`, { email, password }, me.csrf, 'sign-in', { urlName: '/signin', location: landing });
}

function relogin() {
  if (!signOut()) return;
  me.lines = 0; // the cart lives in the session
  const r = signIn(me.email, me.password, /\/$/);
  if (!r.ok) {
    me = null;
    return;
  }
  keepToken(home().res);
}

export function customer(data) {
  if (me === null) {
    signUp(data);
    return;
  }
  weighted([
    [28, () => shop(data)],
    [8, () => viewCart()],
    [10, () => checkout(data)],
    [12, () => orders()],
    [10, () => order()],
    [7, () => account()],
    [3, () => addAddress()],
    [8, () => keepToken(category(data).res)],
    [5, () => keepToken(home().res)],
    [3, () => keepToken(search(data).res)],
    [4, () => relogin()],
    // A new customer on the same device: sign out, create another account.
    [2, () => {
      if (signOut()) signUp(data);
    }],
  ]);
}

// ---- back office ------------------------------------------------------------------------------

let adminSignedIn = false;

export function backoffice() {
  if (!adminSignedIn) {
    me = { csrf: null };
    const r = signIn(ADMIN_EMAIL, ADMIN_PASSWORD, /\/admin\/customers\/top$/);
    if (!r.ok) {
      me = null;
      return;
    }
    adminSignedIn = true;
  }
  weighted([
    [40, () => page(`${BASE}/admin/customers/top`, 'admin top customers', { contains: 'Top customers', urlName: '/admin/customers/top' })],
    [20, () => page(`${BASE}/admin/categories`, 'admin categories', { contains: 'Categories', urlName: '/admin/categories' })],
    [20, () => page(`${BASE}/admin/tags`, 'admin tags', { contains: 'Tags', urlName: '/admin/tags' })],
    [20, () => page(`${BASE}/admin/products`, 'admin products', { contains: 'Products', urlName: '/admin/products' })],
  ]);
}

export const handleSummary = summaryFor('webstore');
