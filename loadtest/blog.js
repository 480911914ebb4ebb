// Load test of the blog (V3 of Azure Cosmos DB's "How to model and partition data on Azure
// Cosmos DB using a real-world example"), through its real pages and forms.
//
//   k6 run -e PROFILE=smoke|load|soak -e BASE_URL=http://127.0.0.1:8081 loadtest/blog.js
//
// Two open-model scenarios:
//   readers  anonymous visitors: the feed (Q6), posts (Q2+Q4), authors' pages (Q1+Q3), likes (Q5)
//   members  each VU signs up its own account through the form on its first iteration (C1),
//            then reads like a reader (signed in) and writes: posts (C2), edits, comments (C3),
//            likes and unlikes (C4), now and then a sign-out/sign-in or a username change (C1)
//
// BASE_PATH (default '') prefixes every path, so that the same mix runs against the article's V1
// and V2 models (`-e BASE_PATH=/v1`, `/v2`), each held to the article's figures for that model.

import exec from 'k6/execution';
import { arrival, baseUrl, newRunId, randomItem, weighted } from './lib/config.js';
import { definePatterns, patternThresholds } from './lib/metrics.js';
import { crawl, csrfToken, matchAll, page, resolve, submit } from './lib/http.js';
import { summaryFor } from './lib/summary.js';

const ORIGIN = baseUrl('http://127.0.0.1:8081');
const BASE_PATH = (__ENV.BASE_PATH || '').replace(/\/+$/, '');
const BASE = ORIGIN + BASE_PATH;
const MODEL = __ENV.MODEL || { '': 'v3', '/v1': 'v1', '/v2': 'v2' }[BASE_PATH] || 'v3';

// ---- patterns and their RU budgets ------------------------------------------------------------

const ARTICLE = "article V3 (004_*)";
const DOC = 'blog/ACCESS_PATTERNS.md (measured; the app does more than the article here)';

// RU per request for each model: the article's V3 figures for the queries (our pages combine
// Q1+Q3 and Q2+Q4 in one request, so the budget is the sum); writes use ACCESS_PATTERNS.md when
// the app's write is larger than the article's (the username claim, stored procedures).
// Every signed-in request first checks its session: one point read of the account document
// (sitekit::sessions, `read account (session)` in the footer). Sign-in, sign-up and sign-out
// write the session into that document: a read and a replace (measured 1 + 4.30 on the demo).
const SESSION = 1.0;
const SESSION_WRITE = 5.3;
const S = ' + the session check (1 point read)';
const SW = ' + the session written into the user document (read + replace, 5.30)';

const BUDGETS = {
  v3: {
    Q6: [16.97, ARTICLE],
    'Q1+Q3': [1 + 6.46, `${ARTICLE}: Q1 1 + Q3 6.46`],
    'Q2+Q4': [1 + 7.72, `${ARTICLE}: Q2 1 + Q4 7.72 (anonymous reader)`],
    'Q2+Q4 signed in': [1 + 7.72 + 5 + SESSION, `${ARTICLE}: Q2 1 + Q4 7.72, + 5 for the query of the reader's own like in the post's partition (the Like/Unlike button)${S}`],
    Q5: [8.92, ARTICLE],
    'C1 sign-up': [10.9 + SESSION_WRITE, `${DOC}: name claim + look-alike (skeleton) claim + user (article 5.71, one write)${SW}`],
    'C1 rename': [26.83 + SESSION, `${DOC}: read the user, mark it renaming, claim the name and its skeleton, patch, release the old claims (article 5.71)${S}`],
    'C2 post': [8.76, ARTICLE],
    'C2 edit': [null, 'not in the article or ACCESS_PATTERNS.md: recorded, not checked'],
    'C3 comment': [11.40 + SESSION, `${DOC}: createComment procedure (article 8.57 + procedure)${S}`],
    'C4 like': [11.61 + SESSION, `${DOC}: createLike procedure (article 7.05 + procedure)${S}`],
    'C4 unlike': [1 + 16.88 + SESSION, `${DOC}: Q2 point read + deleteLike procedure (which queries the user's like)${S}`],
    'sign-in': [2.0 + SESSION_WRITE, `two point reads (claim, user), as WebStore sign-in in webstore/ACCESS_PATTERNS.md${SW}`],
    'sign-out': [SESSION + SESSION_WRITE, `the session check and the session removed from the user document (read + replace)`],
    'sign-up form': [0, 'no engine call'],
    'sign-in form': [0, 'no engine call'],
    'new post form': [SESSION, 'the session check (1 point read)'],
    'edit form': [1.0 + SESSION, `Q2 point read (ownership check)${S}`],
    account: [1.0 + SESSION, `Q1 point read (the change-feed workers' pending count costs no RU)${S}`],
  },
  // V2: usernames and counts denormalized into posts; Q3 and Q6 still fan out over `posts`.
  v2: {
    Q6: [532.33, 'article V2 (004_*): fan-out over every physical partition'],
    'Q1+Q3': [1 + 201.54, 'article V2: Q1 1 + Q3 201.54 (fan-out)'],
    'Q2+Q4': [1 + 7.72, 'article V2: Q2 1 + Q4 7.72'],
    'Q2+Q4 signed in': [1 + 7.72 + 5 + SESSION, `article V2: Q2 1 + Q4 7.72, + 5 for the query of the reader's own like${S}`],
    Q5: [8.92, 'article V2'],
    'C1 sign-up': [10.9 + SESSION_WRITE, `${DOC}: claims + user, as V3${SW}`],
    'C1 rename': [26.83 + SESSION, `${DOC}: as V3${S}`],
    'C2 post': [8.76 + SESSION, `article V2${S}`],
    'C2 edit': [null, 'not in the article: recorded, not checked'],
    'C3 comment': [15.27 + SESSION, `article V2: createComment procedure${S}`],
    'C4 like': [14.67 + SESSION, `article V2: createLike procedure${S}`],
    'C4 unlike': [1 + 16.88 + SESSION, `${DOC}: Q2 point read + deleteLike procedure, as V3${S}`],
    'sign-in': [2.0 + SESSION_WRITE, `two point reads (claim, user), as V3${SW}`],
    'sign-out': [SESSION + SESSION_WRITE, `the session check and the session removed from the user document (read + replace)`],
    'sign-up form': [0, 'no engine call'],
    'sign-in form': [0, 'no engine call'],
    'new post form': [SESSION, 'the session check (1 point read)'],
    'edit form': [1.0 + SESSION, `Q2 point read (ownership check)${S}`],
    account: [1.0 + SESSION, `Q1 point read${S}`],
  },
  // V1: nothing denormalized: usernames and counts are extra queries; Q3 and Q6 fan out.
  v1: {
    Q6: [2063.54, 'article V1: fan-out, then each post\'s author and counts'],
    'Q1+Q3': [1 + 619.41, 'article V1: Q1 1 + Q3 619.41'],
    'Q2+Q4': [19.54 + 27.72, 'article V1: Q2 19.54 + Q4 27.72'],
    'Q2+Q4 signed in': [19.54 + 27.72 + 5 + SESSION, `article V1: Q2 19.54 + Q4 27.72, + 5 for the query of the reader's own like${S}`],
    Q5: [58.92, 'article V1'],
    'C1 sign-up': [10.9 + SESSION_WRITE, `${DOC}: claims + user, as V3${SW}`],
    'C1 rename': [26.83 + SESSION, `${DOC}: as V3${S}`],
    'C2 post': [8.76 + SESSION, `article V1${S}`],
    'C2 edit': [null, 'not in the article: recorded, not checked'],
    'C3 comment': [1 + 8.57 + SESSION, `article V1 8.57, + 1 for our point read of the post (404 for a missing post)${S}`],
    'C4 like': [1 + 7.05 + SESSION, `article V1 7.05, + 1 for our point read of the post${S}`],
    'C4 unlike': [19.54 + 5 + 7.05 + SESSION, `V1 Q2 19.54 (the page checks the post) + the query of the user's like (5) + one delete (about a write)${S}`],
    'sign-in': [2.0 + SESSION_WRITE, `two point reads (claim, user), as V3${SW}`],
    'sign-out': [SESSION + SESSION_WRITE, `the session check and the session removed from the user document (read + replace)`],
    'sign-up form': [0, 'no engine call'],
    'sign-in form': [0, 'no engine call'],
    'new post form': [SESSION, 'the session check (1 point read)'],
    'edit form': [19.54 + SESSION, `V1 Q2 (ownership check): post, author, two counts${S}`],
    account: [1.0 + SESSION, `Q1 point read${S}`],
  },
};

if (!BUDGETS[MODEL]) {
  throw new Error(`MODEL=${MODEL} (BASE_PATH=${BASE_PATH}): add the article's ${MODEL.toUpperCase()} figures to BUDGETS in blog.js first`);
}

// p(95) latency budgets in ms: reads are single-partition queries and point reads; sign-up and
// sign-in hash or verify an argon2id password (~40 ms of CPU each).
const LATENCY = { read: 250, write: 400, argon2: 1500 };
const KIND = {
  'C1 sign-up': 'argon2',
  'sign-in': 'argon2',
  'C1 rename': 'write',
  'C2 post': 'write',
  'C2 edit': 'write',
  'C3 comment': 'write',
  'C4 like': 'write',
  'C4 unlike': 'write',
  'sign-out': 'write',
};

definePatterns(Object.entries(BUDGETS[MODEL]).map(([name, [ru, source]]) => ({
  name,
  ru,
  source,
  latencyMs: LATENCY[KIND[name] || 'read'],
})));

// ---- options ----------------------------------------------------------------------------------

export const options = {
  scenarios: {
    readers: arrival({ exec: 'reader', rate: { smoke: 6, load: 40, soak: 25 }, vus: { smoke: 5, load: 12, soak: 10 }, maxVUs: 100 }),
    members: arrival({ exec: 'member', rate: { smoke: 3, load: 12, soak: 8 }, vus: { smoke: 4, load: 8, soak: 6 }, maxVUs: 60 }),
  },
  thresholds: patternThresholds({
    // 429s are "expected" responses (see lib/http.js): this is every other 4xx/5xx.
    http_req_failed: ['rate<0.01'],
    checks: ['rate>0.99'],
  }),
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(50)', 'p(95)', 'p(99)', 'count'],
  setupTimeout: '60s',
  // A member's session cookie must outlive the iteration (k6 empties the jar per iteration by
  // default); readers keep theirs too, like returning visitors.
  noCookiesReset: true,
  userAgent: 'k6-loadtest (cosmos-lmdb blog)',
};

// ---- setup: real ids from the site ------------------------------------------------------------

const POST_RE = /href="[^"]*\/posts\/([A-Za-z0-9_.-]+)"/g;
const USER_RE = /href="[^"]*\/users\/([A-Za-z0-9_.-]+)"/g;

export function setup() {
  const feed = crawl(`${BASE}/`);
  const posts = matchAll(feed.body, POST_RE).filter((id) => id !== 'new');
  const users = matchAll(feed.body, USER_RE);
  if (posts.length === 0 || users.length === 0) {
    throw new Error(`setup: no posts or users on ${BASE}/ (seeded data missing?)`);
  }
  return { runId: newRunId(), posts, users };
}

// ---- shared steps -----------------------------------------------------------------------------

const WORDS = ('partition key request unit feed change container query index item stored procedure ' +
  'trigger denormalize copy throughput latency consistency session model article cosmos lmdb engine ' +
  'comment like post user blog markdown write read point fan-out logical physical').split(' ');

function words(n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(randomItem(WORDS));
  return out.join(' ');
}

function markdownBody() {
  return `## ${words(3)}\n\n${words(40)}.\n\n- ${words(5)}\n- ${words(6)}\n\n**${words(4)}** and \`${randomItem(WORDS)}\`: ${words(30)}.`;
}

function feed(tags = {}) {
  const r = page(`${BASE}/`, 'Q6', { contains: 'Recent posts', urlName: '/', ...tags });
  return r;
}

function showPost(postId, signedIn) {
  return page(`${BASE}/posts/${postId}`, signedIn ? 'Q2+Q4 signed in' : 'Q2+Q4', {
    contains: 'id="counts"',
    urlName: '/posts/{postId}',
  });
}

function showUser(userId) {
  return page(`${BASE}/users/${userId}`, 'Q1+Q3', { contains: '<h2>Posts</h2>', urlName: '/users/{userId}' });
}

function showLikes(postId) {
  return page(`${BASE}/posts/${postId}/likes`, 'Q5', { contains: 'Liked by', urlName: '/posts/{postId}/likes' });
}

// ---- readers: anonymous, read-only ------------------------------------------------------------

export function reader(data) {
  weighted([
    [30, () => feed()],
    [45, () => showPost(randomItem(data.posts), false)],
    [17, () => showUser(randomItem(data.users))],
    [8, () => showLikes(randomItem(data.posts))],
  ]);
}

// ---- members: one account per VU, reading and writing -------------------------------------------

// Per-VU state (each VU has its own JavaScript runtime and cookie jar). `accounts` numbers the
// accounts this VU created, so that a VU signing up again never reuses a name.
let me = null;
let accounts = 0;

function userName(data, n) {
  // <= 30 chars of letters, digits, '_', '-', '.': k6_<run>_<vu>_<n>
  return `k6_${data.runId}_${exec.vu.idInTest}_${n}`;
}

/** Keeps the session's CSRF token (it changes at sign-in) from any page showing a form. */
function keepToken(res) {
  const t = csrfToken(res);
  if (t) me.csrf = t;
}

function signUp(data) {
  me = { n: accounts++, csrf: null, posts: [], seen: [], userId: null, renames: 0 };
  me.username = userName(data, me.n);
  me.password = `pw-${data.runId}-${exec.vu.idInTest}-secret`;
  const form = page(`${BASE}/signup`, 'sign-up form', { contains: 'Join the blog', urlName: '/signup' });
  keepToken(form.res);
  const r = submit(`${BASE}/signup`, { username: me.username, password: me.password }, me.csrf, 'C1 sign-up', {
    urlName: '/signup',
    location: /\/posts\/new$/,
  });
  if (!r.ok) {
    me = null;
    return false;
  }
  // The browser follows the redirect to the new-post form (and gets the rotated token).
  const next = page(resolve(ORIGIN, r.location), 'new post form', { contains: 'id="post"', urlName: '/posts/new' });
  keepToken(next.res);
  const m = /href="[^"]*\/users\/([A-Za-z0-9_.-]+)">/.exec(next.res.body || '');
  if (m) me.userId = m[1];
  if (Math.random() < 0.5) writePost(true);
  return true;
}

function writePost(formShown = false) {
  if (!formShown) {
    const form = page(`${BASE}/posts/new`, 'new post form', { contains: 'id="post"', urlName: '/posts/new' });
    keepToken(form.res);
  }
  const title = `k6 ${words(4)}`;
  const r = submit(`${BASE}/posts/new`, { title, content: markdownBody() }, me.csrf, 'C2 post', {
    urlName: '/posts/new',
    location: /\/posts\/[A-Za-z0-9_.-]+$/,
  });
  if (!r.ok) return;
  const id = r.location.split('/').pop();
  me.posts.push(id);
  keepToken(showPost(id, true).res);
}

function editPost() {
  if (me.posts.length === 0) return writePost();
  const id = randomItem(me.posts);
  const form = page(`${BASE}/posts/${id}/edit`, 'edit form', { contains: 'Edit post', urlName: '/posts/{postId}/edit' });
  keepToken(form.res);
  const r = submit(`${BASE}/posts/${id}/edit`, { title: `k6 edited ${words(3)}`, content: markdownBody() }, me.csrf, 'C2 edit', {
    urlName: '/posts/{postId}/edit',
    location: new RegExp(`/posts/${id}$`),
  });
  if (r.ok) keepToken(showPost(id, true).res);
}

/** A post to interact with: one seen in this VU's feed, else one from setup. */
function somePost(data) {
  if (me.seen.length > 0 && Math.random() < 0.5) return randomItem(me.seen);
  return randomItem(data.posts);
}

function memberFeed() {
  const r = feed();
  keepToken(r.res);
  if (r.ok) me.seen = matchAll(r.res.body, POST_RE).filter((id) => id !== 'new');
}

function comment(data) {
  const id = somePost(data);
  const post = showPost(id, true);
  keepToken(post.res);
  if (!post.ok) return;
  const r = submit(`${BASE}/posts/${id}/comments`, { content: `k6 says: ${words(12)}` }, me.csrf, 'C3 comment', {
    urlName: '/posts/{postId}/comments',
    location: new RegExp(`/posts/${id}#comments$`),
  });
  if (r.ok) showPost(id, true);
}

function toggleLike(data) {
  const id = somePost(data);
  const post = showPost(id, true);
  keepToken(post.res);
  if (!post.ok) return;
  const liked = post.res.body.includes('id="unlike"');
  const action = liked ? 'unlike' : 'like';
  const r = submit(`${BASE}/posts/${id}/${action}`, {}, me.csrf, liked ? 'C4 unlike' : 'C4 like', {
    urlName: `/posts/{postId}/${action}`,
    location: new RegExp(`/posts/${id}$`),
  });
  if (r.ok) showPost(id, true);
}

function relogin() {
  const out = submit(`${BASE}/signout`, {}, me.csrf, 'sign-out', { urlName: '/signout' });
  if (!out.ok) return;
  const form = page(`${BASE}/signin`, 'sign-in form', { contains: 'id="signin"', urlName: '/signin' });
  keepToken(form.res);
  const r = submit(`${BASE}/signin`, { username: me.username, password: me.password }, me.csrf, 'sign-in', {
    urlName: '/signin',
    location: /\/$/,
  });
  if (!r.ok) {
    me = null; // signs up again next time
    return;
  }
  memberFeed();
}

function rename(data) {
  const acct = page(`${BASE}/account`, 'account', { contains: 'id="rename"', urlName: '/account' });
  keepToken(acct.res);
  if (!acct.ok) return;
  me.renames += 1;
  const next = `${userName(data, me.n)}r${me.renames}`;
  const r = submit(`${BASE}/account`, { username: next }, me.csrf, 'C1 rename', {
    urlName: '/account',
    location: /\/account$/,
  });
  if (r.ok) {
    me.username = next;
    keepToken(page(`${BASE}/account`, 'account', { contains: 'id="rename"', urlName: '/account' }).res);
  }
}

export function member(data) {
  if (me === null) {
    signUp(data);
    return;
  }
  weighted([
    [14, () => memberFeed()],
    [25, () => keepToken(showPost(somePost(data), true).res)],
    [8, () => keepToken(showUser(Math.random() < 0.2 && me.userId ? me.userId : randomItem(data.users)).res)],
    [3, () => keepToken(showLikes(somePost(data)).res)],
    [14, () => comment(data)],
    [18, () => toggleLike(data)],
    [8, () => writePost()],
    [4, () => editPost()],
    [3, () => relogin()],
    [1, () => rename(data)],
    [2, () => keepToken(page(`${BASE}/account`, 'account', { contains: 'id="rename"', urlName: '/account' }).res)],
  ]);
}

export const handleSummary = summaryFor(BASE_PATH ? `blog${BASE_PATH.replace(/\//g, '-')}` : 'blog');
