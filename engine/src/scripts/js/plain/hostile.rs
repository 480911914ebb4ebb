//! Hostile values a script can make, read by [`Plain`] and by `JSON.stringify` (issue 32): a
//! generative test of the reader's side of the sandbox's wall.
//!
//! Each case is a small JavaScript program, made from a grammar of what a script can throw at
//! the reader: getters that change the object or array being read (delete and add keys, change
//! `length`, replace a parent's value, freeze it, throw, count their calls), holes and huge
//! lengths, values shared many times and cycles (a getter may answer an ancestor, or answer it
//! only its first few times), proxies whose traps lie or throw, symbols, `toJSON` own and
//! inherited (a function, a getter, a plain value), boxed primitives, dates, BigInt, lone
//! surrogates and non-ASCII keys, numeric-like and `__proto__` keys, nesting deeper than the
//! reader goes, functions and `undefined` in arrays and objects, frozen, sealed and
//! prototype-less objects, and attempts to pollute `Array.prototype` indices and
//! `Object.prototype` (which fail silently in a hardened realm, and work in a bare one: both
//! kinds are tried).
//!
//! The property, for every program:
//! - the reader answers a value only if `JSON.stringify` of a fresh evaluation of the same
//!   program (in a realm of its own) answers the same value, key order included;
//! - the reader fails (an exception) only if that `JSON.stringify` fails;
//! - when the reader leaves the value to `JSON.stringify` (`None`), what the engine then reads
//!   (`JSON.stringify` of the value it already walked) is what a fresh `JSON.stringify` writes,
//!   for programs whose getters and traps have no side effect;
//! - a program the generator knows to be plain data (none of what the module's header leaves to
//!   `JSON.stringify`) is read, not left to it.
//!
//! Why the fresh evaluation, and why side effects matter only in the third rule: a getter runs
//! when read, so the value a program made changes as it is read, and reading it twice is not
//! reading the same value. The reader walks a value in `JSON.stringify`'s own order (each
//! `toJSON` looked up, each key list taken, each property read at the same step), so up to the
//! moment it answers a value or fails, the script code it ran is exactly what `JSON.stringify`
//! would have run: its answer must be `JSON.stringify`'s, side effects or not. Leaving a value to
//! `JSON.stringify` after walking part of it runs the getters walked so far a second time: a
//! getter that counts its calls then answers differently, as documented in the module's
//! header, so that rule is asserted only where no getter or trap changes anything.

use proptest::prelude::*;
use serde_json::Value;

use super::Plain;
use crate::scripts::js::fresh::Fresh;
use crate::scripts::js::sandbox::{sloppy, Sandbox};

/// A piece of a generated program, and what the generator knows of it.
#[derive(Clone, Debug)]
struct Js {
    src: String,
    /// No getter, trap or `toJSON` in it changes anything when it runs.
    pure: bool,
    /// None of what the reader leaves to `JSON.stringify` (a `Date`, a `Proxy`, a cycle, ...).
    plain: bool,
    /// About how many values reading it builds (saturating).
    size: u64,
}

impl Js {
    fn new(src: impl Into<String>, pure: bool, plain: bool, size: u64) -> Js {
        Js {
            src: src.into(),
            pure,
            plain,
            size,
        }
    }

    /// `self` with what `other` brings (its flags and size; not its text).
    fn with(mut self, other: &Js) -> Js {
        self.pure &= other.pure;
        self.plain &= other.plain;
        self.size = self.size.saturating_add(other.size);
        self
    }
}

/// More than this many values (~8 bytes each) may exceed the reader's budget ([`super::MAX_READ`]
/// counts at least 8 bytes a value): such a program is not known to be read.
const PLAIN_SIZE: u64 = 200_000;

/// Programs estimated past this many values are not run: twice what the reader's budget walks
/// before it leaves a value to `JSON.stringify` (so that path is still reached), where a
/// larger one (60 000 copies of 60 000 copies) only has `JSON.stringify` run to the realm's
/// cap or the 30 s deadline in both realms — a minute a case, and a test run of minutes.
const MAX_SIZE: u64 = 4_000_000;

/// Leaves: `(source, plain)`, all pure. `n` is the program's counter (as it stands when the leaf
/// is made).
const LEAVES: &[(&str, bool)] = &[
    ("null", true),
    ("true", true),
    ("false", true),
    ("0", true),
    ("-0", true),
    ("1.5", true),
    ("-2147483649", true),
    ("9007199254740993", true),
    ("18446744073709551616", true),
    ("1e21", true),
    ("-1.7976931348623157e308", true),
    ("5e-324", true),
    ("0.1", true),
    ("NaN", true),
    ("-Infinity", true),
    ("n", true),
    ("'text'", true),
    (
        "'é ü \\u{1F600} \"q\" \\\\ \\n \\u0000 \\u2028 \\u007f'",
        true,
    ),
    ("'x'.repeat(300)", true),
    ("''", true),
    ("'\\ud83d\\ude00'", true),
    ("'\\ud800'", false),
    ("'a\\udc00'", false),
    ("undefined", true),
    ("(function () {})", true),
    ("(() => 1)", true),
    ("(class {})", true),
    ("Symbol('s')", true),
    ("Symbol.iterator", true),
    ("10n", false),
    ("Object(10n)", false),
    ("new Date(0)", false),
    ("new Date(NaN)", false),
    ("new Number(1)", false),
    ("new String('s')", false),
    ("new Boolean(false)", false),
    ("new Map([[1, 2]])", false),
    ("/re/g", false),
    ("new Error('e')", false),
    ("(function () { return arguments; })(1, 2)", false),
    ("Promise.resolve(1)", false),
    ("Math", false),
    ("JSON", false),
    ("globalThis", false),
    ("Object.create(null)", true),
    ("Object.freeze({a: [1, {b: 2}]})", true),
    (
        "JSON.parse('{\"__proto__\": {\"x\": 1}, \"a\": [1, 2], \"01\": 3}')",
        true,
    ),
    ("[]", true),
    ("({})", true),
];

/// Property names: `(JavaScript string literal, plain)`.
const KEYS: &[(&str, bool)] = &[
    ("'a'", true),
    ("'b'", true),
    ("'01'", true),
    ("'1'", true),
    ("'0'", true),
    ("'4294967295'", true),
    ("'4294967294'", true),
    ("'-0'", true),
    ("'__proto__'", true),
    ("'length'", true),
    ("'constructor'", true),
    ("'é'", true),
    ("'e\\u0301'", true),
    ("'😀'", true),
    ("''", true),
    ("'1.5'", true),
    ("'-1'", true),
    ("'9007199254740993'", true),
    ("'\\ud800'", false),
    // A `toJSON` key with a function value makes the object not plain data.
    ("'toJSON'", false),
];

/// What a getter does before it answers: `(statement, pure)`. `self` is the object or array
/// it is defined on, `up1` that one's parent when it was made, `K` a property name.
const ACTIONS: &[(&str, bool)] = &[
    ("", true),
    ("", true),
    ("n++;", false),
    ("delete self[K];", false),
    ("self[K] = 'added';", false),
    ("if (Array.isArray(self)) self.length = 0;", false),
    ("if (Array.isArray(self)) self.length = 4294967295;", false),
    ("if (Array.isArray(self)) self.push(1, [2]);", false),
    ("if (up1) up1[K] = 'replaced';", false),
    ("if (Array.isArray(up1)) up1.length = 1;", false),
    (
        "try { Object.defineProperty(self, K, {enumerable: false}); } catch (e) {}",
        false,
    ),
    ("try { Object.freeze(self); } catch (e) {}", false),
    ("throw new Error('getter');", true),
    ("if (++n > 2) throw new Error('late');", false),
];

/// What a composite does once its properties are made: `(statement, pure, plain)`; `o` is it.
const POSTS: &[(&str, bool, bool)] = &[
    ("", true, true),
    ("", true, true),
    ("Object.freeze(o);", true, true),
    ("Object.seal(o);", true, true),
    ("Object.preventExtensions(o);", true, true),
    ("Object.setPrototypeOf(o, null);", true, true),
    ("o.toJSON = 5;", true, true),
    (
        "Object.setPrototypeOf(o, {get toJSON() { n++; return undefined; }});",
        false,
        true,
    ),
    (
        "Object.setPrototypeOf(o, new Proxy({}, {get: function () { n++; return undefined; }}));",
        false,
        true,
    ),
    (
        "Object.setPrototypeOf(o, {toJSON: function (k) { return 'proto:' + k; }});",
        true,
        false,
    ),
    (
        "o.toJSON = function (k) { return {key: k, n: ++n}; };",
        false,
        false,
    ),
];

/// What an array does once its items are made, besides [`POSTS`].
const ARRAY_POSTS: &[(&str, bool, bool, u64)] = &[
    ("o.extra = 1;", true, true, 0),
    ("o.length = 1000;", true, true, 1000),
    ("o.length = 2100000;", true, false, 2_100_000),
    (
        "Object.setPrototypeOf(o, {get 1() { return 'inherited'; }});",
        true,
        true,
        0,
    ),
    (
        "Object.setPrototypeOf(o, {get 1() { return ++n; }});",
        false,
        true,
        0,
    ),
];

/// Proxy handlers: `(source, pure)`.
const HANDLERS: &[(&str, bool)] = &[
    ("{}", true),
    ("{ownKeys: function () { return ['a', 'ghost']; }}", true),
    ("{ownKeys: function () { return ['a', 'a']; }}", true),
    ("{get: function () { throw new Error('trap'); }}", true),
    (
        "{get: function (t, k) { n++; return k === 'toJSON' ? undefined : n; }}",
        false,
    ),
    (
        "{getOwnPropertyDescriptor: function () { return {value: 1, enumerable: true, configurable: true}; }}",
        true,
    ),
];

/// Changes to the realm tried before the value is made: `(statement, pure, plain)`. A hardened
/// realm refuses them all (its prototypes are frozen); a bare realm takes them.
const PREAMBLES: &[(&str, bool, bool)] = &[
    ("", true, true),
    ("", true, true),
    // With a setter: QuickJS's own JSON.stringify keeps its stack in an array, which a
    // setter-less index accessor would break (in a bare realm only).
    (
        "try { Object.defineProperty(Array.prototype, '1', {get: function () { return 'polluted'; }, set: function (v) { def(this, '1', v); }, configurable: true}); } catch (e) {}",
        true,
        true,
    ),
    (
        "try { Object.defineProperty(Object.prototype, 'inherited', {value: 1, enumerable: true, configurable: true}); } catch (e) {}",
        true,
        true,
    ),
    (
        "try { Object.defineProperty(Object.prototype, 'toJSON', {get: function () { n++; }, configurable: true}); } catch (e) {}",
        false,
        true,
    ),
    (
        "try { Object.prototype.toJSON = function () { return 'T'; }; } catch (e) {}",
        true,
        false,
    ),
];

/// The helpers every program has: `S` the composites being made (innermost last), `pool` those
/// made (stacks without a prototype, and arrays filled by definition: a polluted
/// `Array.prototype` index has no setter), `n` a counter.
const HELPERS: &str = r#"
  var n = 0, S = Object.create(null), pool = Object.create(null);
  S.len = 0; pool.len = 0;
  function push(s, x) { s[s.len++] = x; }
  function pop(s) { s.len--; }
  function up(k) { return S[S.len - 1 - k]; }
  function def(o, k, v) { Object.defineProperty(o, k, {value: v, writable: true, enumerable: true, configurable: true}); }
  function hide(o, k, v) { try { Object.defineProperty(o, k, {value: v, enumerable: false, configurable: true}); } catch (e) {} }
  function get(o, k, f) { var up1 = S[S.len - 2]; Object.defineProperty(o, k, {get: function () { return f(o, up1); }, enumerable: true, configurable: true}); }
  function deep(d, x) { for (var i = 0; i < d; i++) x = i % 2 ? [x] : {k: x}; return x; }
  function share(k, x) { var a = []; for (var i = 0; i < k; i++) def(a, i, x); return a; }
  function proxy(t, h) { return (typeof t === 'object' && t !== null) || typeof t === 'function' ? new Proxy(t, h) : t; }
"#;

fn leaf() -> impl Strategy<Value = Js> {
    prop_oneof![
        8 => proptest::sample::select(LEAVES).prop_map(|(s, plain)| {
            let size = if s.contains("repeat") { 40 } else { 1 };
            Js::new(s, true, plain, size)
        }),
        // An ancestor being made: a cycle.
        1 => (0..3usize).prop_map(|k| Js::new(format!("up({k})"), true, false, 1)),
        // A composite made earlier: shared (and what it holds is not known here).
        1 => (0..3usize).prop_map(|k| Js::new(format!("pool[pool.len - 1 - {k}]"), true, false, 1)),
    ]
}

/// What a getter answers: the value it was given, or itself / its parent (a cycle), or itself
/// only its first two times (a cycle `JSON.stringify` meets at once).
fn getter(o: &str, key: &str, action: usize, answer: usize, value: &Js) -> Js {
    let (stmt, pure) = ACTIONS[action];
    let stmt = stmt.replace('K', key);
    let (ret, ret_pure, ret_plain) = match answer {
        0 => ("self".to_owned(), true, false),
        1 => ("up1".to_owned(), true, false),
        2 => (format!("(++n < 3 ? self : {})", value.src), false, false),
        _ => (value.src.clone(), true, true),
    };
    // A composite made when the getter runs joins `pool`, which later `pool` references read:
    // a second read would see another pool.
    let builds = value.src.contains("push(pool");
    Js::new(
        format!("get({o}, {key}, function (self, up1) {{ {stmt} return {ret}; }});"),
        pure && ret_pure && !builds,
        ret_plain,
        1,
    )
    .with(value)
}

fn object(inner: BoxedStrategy<Js>) -> impl Strategy<Value = Js> {
    let prop = (0..5usize, 0..KEYS.len(), inner, 0..ACTIONS.len(), 0..8usize);
    (proptest::collection::vec(prop, 0..5), 0..POSTS.len()).prop_map(|(props, post)| {
        let mut out = Js::new("", true, true, 1);
        let mut body = String::new();
        for (kind, key, value, action, answer) in props {
            let (k, key_plain) = KEYS[key];
            out.plain &= key_plain;
            let stmt = match kind {
                0 => Js::new(format!("def(o, {k}, {});", value.src), true, true, 0),
                // Assigned: a `__proto__` key sets the prototype (refused for an ancestor).
                1 => Js::new(format!("try {{ o[{k}] = {}; }} catch (e) {{}}", value.src), true, true, 0),
                2 => Js::new(format!("hide(o, {k}, {});", value.src), true, true, 0),
                3 => Js::new(format!("o[Symbol({k})] = {};", value.src), true, true, 0),
                _ => getter("o", k, action, answer, &value),
            };
            body.push_str(&stmt.src);
            body.push(' ');
            out = out.with(&stmt).with(&value);
        }
        let (post, pure, plain) = POSTS[post];
        out.pure &= pure;
        out.plain &= plain;
        out.src = format!(
            "(function () {{ var o = {{}}; push(S, o); {body}pop(S); try {{ {post} }} catch (e) {{}} push(pool, o); return o; }})()"
        );
        out
    })
}

fn array(inner: BoxedStrategy<Js>) -> impl Strategy<Value = Js> {
    let item = (0..4usize, inner, 0..ACTIONS.len(), 0..8usize);
    (
        proptest::collection::vec(item, 0..6),
        0..POSTS.len() + ARRAY_POSTS.len(),
        0..3usize,
    )
        .prop_map(|(items, post, trailing)| {
            let mut out = Js::new("", true, true, 1);
            let mut body = String::new();
            let len = items.len() + trailing;
            for (i, (kind, value, action, answer)) in items.into_iter().enumerate() {
                let stmt = match kind {
                    // A hole.
                    0 => Js::new("", true, true, 1),
                    1 => getter("o", &i.to_string(), action, answer, &value),
                    _ => Js::new(format!("o[{i}] = {};", value.src), true, true, 0).with(&value),
                };
                body.push_str(&stmt.src);
                body.push(' ');
                out = out.with(&stmt);
            }
            let (post, pure, plain, size) = match post.checked_sub(POSTS.len()) {
                Some(i) => ARRAY_POSTS[i],
                None => {
                    let (p, pure, plain) = POSTS[post];
                    (p, pure, plain, 0)
                }
            };
            out.pure &= pure;
            out.plain &= plain;
            out.size = out.size.saturating_add(size + trailing as u64);
            out.src = format!(
                "(function () {{ var o = []; push(S, o); {body}o.length = Math.max(o.length, {len}); pop(S); try {{ {post} }} catch (e) {{}} push(pool, o); return o; }})()"
            );
            out
        })
}

fn any_js() -> impl Strategy<Value = Js> {
    leaf().prop_recursive(4, 48, 6, |inner| {
        let inner = inner.boxed();
        prop_oneof![
            4 => object(inner.clone()),
            3 => array(inner.clone()),
            1 => (inner.clone(), 0..HANDLERS.len()).prop_map(|(t, h)| {
                let (h, pure) = HANDLERS[h];
                let mut out = Js::new(format!("proxy({}, {h})", t.src), pure, false, 1).with(&t);
                out.plain = false;
                out
            }),
            1 => (
                inner.clone(),
                proptest::sample::select(&[3u64, 55, 60, 62, 63, 64, 65, 66, 127, 129, 1000, 30000][..]),
            )
                .prop_map(|(x, d)| Js::new(format!("deep({d}, {})", x.src), true, d < 50, d).with(&x)),
            // 60 000 copies of most values are more than the reader builds (a walk of its
            // whole budget, seconds in a debug build): rarer.
            1 => (inner, prop_oneof![4 => Just(2u64), 4 => Just(3), 3 => Just(100), 1 => Just(60000)])
                .prop_map(|(x, k)| {
                let mut out = Js::new(format!("share({k}, {})", x.src), x.pure, x.plain, 1);
                out.size = x.size.saturating_mul(k).saturating_add(1);
                out
            }),
        ]
    })
}

/// A whole program: the helpers, a preamble, then the value.
fn program() -> impl Strategy<Value = Js> {
    let value = any_js().prop_filter("a value JSON.stringify writes in seconds", |v| {
        v.size <= MAX_SIZE
    });
    (0..PREAMBLES.len(), value).prop_map(|(p, value)| {
        let (preamble, pure, plain) = PREAMBLES[p];
        let mut out = value.clone();
        out.pure &= pure;
        out.plain &= plain && value.size <= PLAIN_SIZE;
        out.src = format!(
            "(function () {{{HELPERS}  {preamble}\n  return {};\n}})()",
            value.src
        );
        out
    })
}

/// What reading a value answered: a value, nothing (left to `JSON.stringify`), or an
/// exception (its text).
type Answer<T> = Result<Option<T>, String>;

/// What one program gave: the reader's answer, what the engine read after it (`JSON.stringify`
/// of the same value, when the reader left it), and `JSON.stringify` of a fresh evaluation.
struct Outcome {
    read: Answer<Value>,
    fallback: Option<Answer<String>>,
    fresh: Answer<String>,
}

/// Runs `f` in a new realm, hardened as procedures' are or bare.
fn in_realm<R>(hardened: bool, f: impl FnOnce(&rquickjs::Ctx<'_>) -> R) -> R {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    if hardened {
        let fresh = Fresh::new().unwrap();
        let _call = fresh.sandbox.begin(deadline);
        fresh.realm.with(|js| f(&js))
    } else {
        let sandbox = Sandbox::new().unwrap();
        let realm = sandbox.realm().unwrap();
        let _call = sandbox.begin(deadline);
        realm.with(|js| f(&js))
    }
}

fn exception(js: &rquickjs::Ctx<'_>) -> String {
    let e = js.catch();
    e.as_exception()
        .and_then(|e| e.message())
        .or_else(|| e.as_string().and_then(|s| s.to_string().ok()))
        .unwrap_or_else(|| format!("{e:?}"))
}

fn stringify<'js>(js: &rquickjs::Ctx<'js>, v: rquickjs::Value<'js>) -> Answer<String> {
    // The text read out fails as the engine's read of it does when the realm's memory cap
    // cannot hold its UTF-8 copy.
    match js
        .json_stringify(v)
        .and_then(|t| t.map(|s| s.to_string()).transpose())
    {
        Ok(text) => Ok(text),
        Err(_) => Err(exception(js)),
    }
}

/// The value `src` makes (an exception here means the program itself failed: none should).
fn make<'js>(js: &rquickjs::Ctx<'js>, src: &str) -> rquickjs::Value<'js> {
    match js.eval_with_options(src, sloppy()) {
        Ok(v) => v,
        Err(_) => panic!("the program failed: {}\n{src}", exception(js)),
    }
}

fn run(src: &str, hardened: bool) -> Outcome {
    let (read, fallback) = in_realm(hardened, |js| {
        let v = make(js, src);
        let plain = Plain::of(js).unwrap();
        let read = match plain.read(&v) {
            Ok(r) => Ok(r),
            Err(_) => Err(exception(js)),
        };
        let fallback = matches!(read, Ok(None)).then(|| stringify(js, v));
        (read, fallback)
    });
    let fresh = in_realm(hardened, |js| {
        let v = make(js, src);
        stringify(js, v)
    });
    Outcome {
        read,
        fallback,
        fresh,
    }
}

/// `a` and `b` equal, the order of each object's keys included.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|((k, v), (l, w))| k == l && same(v, w))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| same(v, w))
        }
        _ => a == b,
    }
}

/// The property (see the module's header); `Err` says how it failed.
fn check(js: &Js, o: &Outcome) -> Result<(), String> {
    match (&o.read, &o.fresh) {
        (Ok(Some(v)), Ok(Some(text))) => {
            let want: Value = serde_json::from_str(text)
                .map_err(|e| format!("read {v}, but JSON.stringify wrote {text} ({e})"))?;
            if !same(v, &want) {
                return Err(format!("read {v}\nJSON.stringify wrote {text}"));
            }
        }
        (Ok(Some(v)), fresh) => {
            return Err(format!("read {v}, but JSON.stringify answered {fresh:?}"));
        }
        (Err(e), Ok(fresh)) => {
            return Err(format!(
                "read failed ({e}), but JSON.stringify wrote {fresh:?}"
            ));
        }
        (Err(_), Err(_)) => {}
        (Ok(None), fresh) => {
            if js.pure && o.fallback.as_ref() != Some(fresh) {
                return Err(format!(
                    "left to JSON.stringify, which then wrote {:?}; fresh, it writes {fresh:?}",
                    o.fallback
                ));
            }
            if js.plain && fresh != &Ok(None) {
                return Err(format!(
                    "plain data left to JSON.stringify (which writes {fresh:?})"
                ));
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: super::tests::cases(96),
        // A failure is kept as a named case in plain.rs's corpus, not in a file of the tree.
        failure_persistence: None,
        // Shrinking runs cases again, a few of which take seconds here (a walk of the whole
        // read budget, a JSON.stringify up to the realm's memory cap): bounded.
        max_shrink_time: 120_000,
        ..ProptestConfig::default()
    })]

    #[test]
    fn hostile_values_read_as_json_stringify_writes_them(js in program(), hardened in any::<bool>()) {
        let outcome = run(&js.src, hardened);
        if let Err(e) = check(&js, &outcome) {
            let realm = if hardened { "hardened" } else { "bare" };
            prop_assert!(false, "{e}\nin a {realm} realm, program:\n{}", js.src);
        }
    }
}
