//! Plain data across a realm's wall, both ways, without JSON text.
//!
//! Out: a script's plain data read straight out of its realm: what
//! `JSON.parse(JSON.stringify(v))` would give, without writing and parsing the text. The
//! operations a script queues (their documents included) crossed as JSON text, and
//! `JSON.stringify` was the largest piece of a call's JavaScript overhead on the writer
//! (BENCHMARKS.md, issue 32).
//!
//! Only what `JSON.stringify` treats as plain data is read here: objects and arrays of the
//! realm's own plain classes without a `toJSON` method, strings, numbers, booleans, null, and
//! the `undefined`, functions and symbols it leaves out (or writes as `null` in an array).
//! Anything else — a `Date`, a boxed primitive, a `Proxy`, a BigInt, a string with a lone
//! surrogate, nesting deeper than [`MAX_DEPTH`] — answers `None`, and the caller stringifies
//! the value as before, so what the engine reads never differs (but for a getter with side
//! effects, which then runs a second time). A cycle fails the read as it fails
//! `JSON.stringify`. `hostile.rs` tests this against what a script can make.
//!
//! In: a JSON value made in the realm ([`to_js`]) as the realm's `JSON.parse` of its text makes
//! it — the same objects, arrays, strings and numbers, each property defined (not assigned, so
//! a `__proto__` key is a plain property and no setter runs) — without writing the text and
//! tokenizing it again (arguments and what operations read, ~50 K instructions a call).

use rquickjs::{qjs, Array, Ctx, Object};

use super::collection::Op;
use serde_json::{Map, Number, Value};

/// Deeper than this, the value is left to `JSON.stringify`.
const MAX_DEPTH: usize = 64;
/// The most one read builds, in bytes of the JSON text it stands for (each value counted at
/// least [`NODE_COST`]): beyond it the value is left to `JSON.stringify`, which the realm's
/// memory cap bounds. Without it, values a realm holds cheaply would be built out here without
/// any bound: an array whose `length` was set to 2^32 − 1 (holes cost the realm nothing, each
/// is a `null` here), or one array referenced 50 000 times from another (shared in the realm,
/// copied here: 2.5 × 10^9 values from 1 MB of the realm's memory).
const MAX_READ: usize = 16 << 20;
/// What one value counts against [`MAX_READ`] at least (a Rust `Value` is 32 bytes).
const NODE_COST: usize = 8;
/// Deeper than this, a value goes in as JSON text (`JSON.parse` then stops it as too deep, as
/// before; serde_json's own parser stops at 128).
const MAX_DEPTH_IN: usize = 128;

/// The class ids of this realm's plain objects and arrays.
pub(super) struct Plain<'js> {
    js: Ctx<'js>,
    object: qjs::JSClassID,
    array: qjs::JSClassID,
    /// The atoms `toJSON`, then [`OP_FIELDS`] (references this reader owns).
    atoms: [qjs::JSAtom; 6],
    to_json: qjs::JSAtom,
    /// What the current read may still build ([`MAX_READ`] at its start).
    left: std::cell::Cell<usize>,
    /// The objects and arrays being read, outermost first (at most [`MAX_DEPTH`]): one met
    /// again inside itself is a cycle.
    path: std::cell::RefCell<Vec<*mut std::ffi::c_void>>,
}

/// The fields of an operation `prelude.js` queues.
const OP_FIELDS: [&str; 5] = ["id", "kind", "args", "options", "cb"];

impl Drop for Plain<'_> {
    fn drop(&mut self) {
        for atom in self.atoms {
            // SAFETY: the references `of` took, freed once (the null atom is never freed).
            unsafe { qjs::JS_FreeAtom(self.ctx(), atom) }
        }
    }
}

/// One value read: a JSON value, nothing (left out of an object), or not plain data.
enum Read {
    Json(Value),
    Absent,
    NotPlain,
}

/// A value of the realm this reader owns a reference to (what a property read answered).
struct Owned {
    ctx: *mut qjs::JSContext,
    value: qjs::JSValue,
}

impl Drop for Owned {
    fn drop(&mut self) {
        // SAFETY: an owned reference of this live realm, freed once.
        unsafe { qjs::JS_FreeValue(self.ctx, self.value) }
    }
}

impl<'js> Plain<'js> {
    pub fn of(js: &Ctx<'js>) -> rquickjs::Result<Plain<'js>> {
        let object = Object::new(js.clone())?;
        let array = Array::new(js.clone())?;
        // SAFETY: both values are live objects of this realm; the atoms are freed on drop (a
        // null atom, which a failure leaves, is not).
        unsafe {
            let mut plain = Plain {
                js: js.clone(),
                object: qjs::JS_GetClassID(object.as_raw()),
                array: qjs::JS_GetClassID(array.as_raw()),
                atoms: [qjs::JS_ATOM_NULL; 6],
                to_json: qjs::JS_ATOM_NULL,
                left: std::cell::Cell::new(MAX_READ),
                path: std::cell::RefCell::new(Vec::with_capacity(MAX_DEPTH)),
            };
            let ctx = js.as_raw().as_ptr();
            for (i, name) in std::iter::once("toJSON").chain(OP_FIELDS).enumerate() {
                plain.atoms[i] = qjs::JS_NewAtomLen(ctx, name.as_ptr().cast(), name.len() as _);
                if plain.atoms[i] == qjs::JS_ATOM_NULL {
                    return Err(rquickjs::Error::Exception);
                }
            }
            plain.to_json = plain.atoms[0];
            Ok(plain)
        }
    }

    /// `v` as `JSON.parse(JSON.stringify(v))` gives it, or `None` when it is not plain data
    /// (see the module's header). A getter on the way runs, as it would for `JSON.stringify`.
    pub fn read(&self, v: &rquickjs::Value<'js>) -> rquickjs::Result<Option<Value>> {
        self.left.set(MAX_READ);
        // SAFETY: `v` is a live value of this reader's realm, borrowed for the read.
        Ok(match unsafe { self.value(v.as_raw(), 0)? } {
            Read::Json(j) => Some(j),
            Read::Absent | Read::NotPlain => None,
        })
    }

    /// The operations of a `takeOps()` list (`prelude.js`), or `None` when what a script gave
    /// them (their arguments and options) is not plain data. The prelude makes each operation
    /// (`{id, kind, args, options, cb}`, its own literal in a frozen realm), so those five are
    /// read by name, and only the script's parts as plain data: no map is built for the
    /// operation itself.
    pub fn ops(&self, queue: &rquickjs::Value<'js>) -> rquickjs::Result<Option<Vec<Op>>> {
        self.left.set(MAX_READ);
        let ctx = self.ctx();
        let queue = queue.as_raw();
        // SAFETY: `queue` is a live value of this realm; every property read is owned by an
        // `Owned`.
        unsafe {
            if !qjs::JS_IsObject(queue) || qjs::JS_GetClassID(queue) != self.array {
                return Ok(None);
            }
            let mut len = 0i64;
            if qjs::JS_GetLength(ctx, queue, &mut len) < 0 {
                return Err(rquickjs::Error::Exception);
            }
            let mut ops = Vec::with_capacity(len.clamp(0, 1 << 10) as usize);
            for i in 0..len.max(0) {
                let op = qjs::JS_GetPropertyInt64(ctx, queue, i);
                if qjs::JS_IsException(op) {
                    return Err(rquickjs::Error::Exception);
                }
                let op = Owned { ctx, value: op };
                let [_, id, kind, args, options, cb] = self.atoms;
                let field = |atom| self.get(op.value, atom);
                let (id, kind, args, options, cb) = (
                    self.value(field(id)?.value, 2)?,
                    self.value(field(kind)?.value, 2)?,
                    self.value(field(args)?.value, 2)?,
                    self.value(field(options)?.value, 2)?,
                    self.value(field(cb)?.value, 2)?,
                );
                let options = match options {
                    Read::Json(o) => o,
                    Read::Absent => Value::Null,
                    Read::NotPlain => return Ok(None),
                };
                match (id, kind, args, cb) {
                    (
                        Read::Json(Value::Number(id)),
                        Read::Json(Value::String(kind)),
                        Read::Json(Value::Array(args)),
                        Read::Json(Value::Bool(cb)),
                    ) if id.as_u64().is_some() => {
                        ops.push(Op::new(id.as_u64().unwrap_or(0), kind, args, options, cb));
                    }
                    _ => return Ok(None),
                }
            }
            Ok(Some(ops))
        }
    }

    fn ctx(&self) -> *mut qjs::JSContext {
        self.js.as_raw().as_ptr()
    }

    /// # Safety
    /// `v` is a live value of this reader's realm (borrowed: the caller keeps its reference).
    unsafe fn value(&self, v: qjs::JSValue, depth: usize) -> rquickjs::Result<Read> {
        if !self.spend(NODE_COST) {
            return Ok(Read::NotPlain);
        }
        // SAFETY: as the caller promised; QuickJS's accessors of a live value.
        unsafe {
            Ok(match qjs::JS_VALUE_GET_NORM_TAG(v) {
                qjs::JS_TAG_UNDEFINED | qjs::JS_TAG_SYMBOL => Read::Absent,
                qjs::JS_TAG_NULL => Read::Json(Value::Null),
                qjs::JS_TAG_BOOL => Read::Json(Value::Bool(qjs::JS_VALUE_GET_BOOL(v))),
                qjs::JS_TAG_INT => Read::Json(Value::from(qjs::JS_VALUE_GET_INT(v))),
                qjs::JS_TAG_FLOAT64 => Read::Json(number(qjs::JS_VALUE_GET_FLOAT64(v))),
                qjs::JS_TAG_STRING | qjs::JS_TAG_STRING_ROPE => match self.string(v) {
                    Some(s) => Read::Json(Value::String(s)),
                    // Lone surrogates: JSON.stringify escapes them, and the engine refuses them.
                    None => Read::NotPlain,
                },
                // Left out, unless a `toJSON` (its own or a polluted prototype's) makes it data.
                qjs::JS_TAG_OBJECT if qjs::JS_IsFunction(self.ctx(), v) => {
                    if self.has_to_json(v)? {
                        Read::NotPlain
                    } else {
                        Read::Absent
                    }
                }
                qjs::JS_TAG_OBJECT if depth < MAX_DEPTH => self.object(v, depth)?,
                _ => Read::NotPlain,
            })
        }
    }

    /// Counts `bytes` against what the current read may still build; `false` when that is spent.
    fn spend(&self, bytes: usize) -> bool {
        match self.left.get().checked_sub(bytes) {
            Some(left) => {
                self.left.set(left);
                true
            }
            None => false,
        }
    }

    /// A string value as UTF-8, or `None` when it holds a lone surrogate or is more than the
    /// current read may still build.
    ///
    /// # Safety
    /// `v` is a live string of this reader's realm.
    unsafe fn string(&self, v: qjs::JSValue) -> Option<String> {
        let mut len = 0;
        // SAFETY: QuickJS answers a buffer of `len` bytes (for an ASCII string its own bytes).
        unsafe {
            let p = qjs::JS_ToCStringLen2(self.ctx(), &mut len, v, false);
            self.take_c_string(p, len as usize)
        }
    }

    /// A property name as UTF-8, or `None` when it holds a lone surrogate or is more than the
    /// current read may still build.
    unsafe fn name(&self, atom: qjs::JSAtom) -> Option<String> {
        let mut len = 0;
        // SAFETY: as `string`.
        unsafe {
            let p = qjs::JS_AtomToCStringLen(self.ctx(), &mut len, atom);
            self.take_c_string(p, len as usize)
        }
    }

    /// The `len` bytes at `p` as an owned UTF-8 string (counted against the read), then `p`
    /// freed; `None` for a null `p`, bytes that are not UTF-8 or a read already spent.
    ///
    /// # Safety
    /// `p` is null or a C string of this realm `len` bytes long, not used after this call.
    unsafe fn take_c_string(&self, p: *const std::ffi::c_char, len: usize) -> Option<String> {
        if p.is_null() {
            return None;
        }
        // SAFETY: as the caller promised; freed once, after the copy.
        unsafe {
            let bytes = std::slice::from_raw_parts(p.cast::<u8>(), len);
            let s = (self.spend(len))
                .then(|| std::str::from_utf8(bytes).ok().map(str::to_owned))
                .flatten();
            qjs::JS_FreeCString(self.ctx(), p);
            s
        }
    }

    /// Whether `o`'s `toJSON` (its own or inherited) is a function.
    ///
    /// # Safety
    /// `o` is a live object of this reader's realm.
    unsafe fn has_to_json(&self, o: qjs::JSValue) -> rquickjs::Result<bool> {
        // SAFETY: the property read is owned, and freed by `Owned`.
        unsafe {
            let to_json = self.get(o, self.to_json)?;
            Ok(qjs::JS_IsFunction(self.ctx(), to_json.value))
        }
    }

    /// `o[atom]`, running a getter as `JSON.stringify` would.
    unsafe fn get(&self, o: qjs::JSValue, atom: qjs::JSAtom) -> rquickjs::Result<Owned> {
        // SAFETY: `o` is live (the caller's); the answer is an owned reference or an exception.
        unsafe {
            let value = qjs::JS_GetProperty(self.ctx(), o, atom);
            if qjs::JS_IsException(value) {
                return Err(rquickjs::Error::Exception);
            }
            Ok(Owned {
                ctx: self.ctx(),
                value,
            })
        }
    }

    /// # Safety
    /// `o` is a live object of this reader's realm.
    unsafe fn object(&self, o: qjs::JSValue, depth: usize) -> rquickjs::Result<Read> {
        // SAFETY: `o` is live; every property read is owned by an `Owned`, the name table is
        // freed with its atoms by `Names`.
        unsafe {
            if self.has_to_json(o)? {
                return Ok(Read::NotPlain);
            }
            // A cycle fails the read, as it fails JSON.stringify, at the same step (once
            // `toJSON` is looked up, before the keys are): left to it instead, a getter that
            // answers an object being read only its first few times would be read a few levels
            // deep here — a value where JSON.stringify fails — and a cycle walked until the
            // budget is spent.
            let _entered = match Entered::new(&self.path, qjs::JS_VALUE_GET_PTR(o)) {
                Some(entered) => entered,
                None => {
                    qjs::JS_ThrowTypeError(self.ctx(), c"circular reference".as_ptr());
                    return Err(rquickjs::Error::Exception);
                }
            };
            let class = qjs::JS_GetClassID(o);
            let ctx = self.ctx();
            if class == self.array {
                let mut len = 0i64;
                if qjs::JS_GetLength(ctx, o, &mut len) < 0 {
                    return Err(rquickjs::Error::Exception);
                }
                // Every item counts, holes too: a length past what is left ends the read here,
                // before a loop over 2^32 holes.
                if (len.max(0) as u64).saturating_mul(NODE_COST as u64) > self.left.get() as u64 {
                    return Ok(Read::NotPlain);
                }
                let mut out = Vec::with_capacity(len.clamp(0, 1 << 16) as usize);
                for i in 0..len.max(0) {
                    let item = qjs::JS_GetPropertyInt64(ctx, o, i);
                    if qjs::JS_IsException(item) {
                        return Err(rquickjs::Error::Exception);
                    }
                    let item = Owned { ctx, value: item };
                    match self.value(item.value, depth + 1)? {
                        Read::Json(j) => out.push(j),
                        Read::Absent => out.push(Value::Null),
                        Read::NotPlain => return Ok(Read::NotPlain),
                    }
                }
                return Ok(Read::Json(Value::Array(out)));
            }
            if class != self.object {
                return Ok(Read::NotPlain);
            }
            let mut names = Names {
                ctx,
                tab: std::ptr::null_mut(),
                len: 0,
            };
            let flags = (qjs::JS_GPN_STRING_MASK | qjs::JS_GPN_ENUM_ONLY) as i32;
            if qjs::JS_GetOwnPropertyNames(ctx, &mut names.tab, &mut names.len, o, flags) < 0 {
                return Err(rquickjs::Error::Exception);
            }
            let mut out = Map::with_capacity(names.len as usize);
            for i in 0..names.len as usize {
                let atom = (*names.tab.add(i)).atom;
                let item = self.get(o, atom)?;
                match self.value(item.value, depth + 1)? {
                    Read::Json(j) => match self.name(atom) {
                        Some(name) => {
                            out.insert(name, j);
                        }
                        None => return Ok(Read::NotPlain),
                    },
                    Read::Absent => {}
                    Read::NotPlain => return Ok(Read::NotPlain),
                }
            }
            Ok(Read::Json(Value::Object(out)))
        }
    }
}

/// An object or array on the path being read, taken off it when dropped.
struct Entered<'a>(&'a std::cell::RefCell<Vec<*mut std::ffi::c_void>>);

impl<'a> Entered<'a> {
    /// `object` put on `path`, or `None` when it is already on it.
    fn new(
        path: &'a std::cell::RefCell<Vec<*mut std::ffi::c_void>>,
        object: *mut std::ffi::c_void,
    ) -> Option<Entered<'a>> {
        let mut p = path.borrow_mut();
        if p.contains(&object) {
            return None;
        }
        p.push(object);
        Some(Entered(path))
    }
}

impl Drop for Entered<'_> {
    fn drop(&mut self) {
        self.0.borrow_mut().pop();
    }
}

/// An object's own property names, as `JS_GetOwnPropertyNames` answers them.
struct Names {
    ctx: *mut qjs::JSContext,
    tab: *mut qjs::JSPropertyEnum,
    len: u32,
}

impl Drop for Names {
    fn drop(&mut self) {
        // SAFETY: the table QuickJS made (or null, with no entries), freed once with its atoms.
        unsafe { qjs::JS_FreePropertyEnum(self.ctx, self.tab, self.len) }
    }
}

/// `v` made in `js`'s realm, as `JSON.parse` of its text makes it.
pub(super) fn to_js<'js>(js: &Ctx<'js>, v: &Value) -> rquickjs::Result<rquickjs::Value<'js>> {
    let ctx = js.as_raw().as_ptr();
    // SAFETY: `ctx` is the live realm of `js`; `raw` answers an owned value or an exception.
    unsafe {
        let raw = raw(ctx, v, 0);
        if qjs::JS_IsException(raw) {
            return Err(rquickjs::Error::Exception);
        }
        Ok(rquickjs::Value::from_raw(js.clone(), raw))
    }
}

/// `v` as an owned value of `ctx`'s realm, or `JS_EXCEPTION` (out of memory; too deep), which
/// leaves nothing allocated behind.
///
/// # Safety
/// `ctx` is a live realm, used on the thread that runs it.
unsafe fn raw(ctx: *mut qjs::JSContext, v: &Value, depth: usize) -> qjs::JSValue {
    // SAFETY: every value made here is owned once: moved into its container (which owns it
    // even when defining it fails), returned, or freed on the way out of a failure.
    unsafe {
        match v {
            Value::Null => qjs::JS_NULL,
            Value::Bool(true) => qjs::JS_TRUE,
            Value::Bool(false) => qjs::JS_FALSE,
            // An integer is a JavaScript number: JSON.parse rounds the digits to the nearest
            // double, as `as f64` does; `JS_NewFloat64` keeps what fits as an int.
            Value::Number(n) => qjs::JS_NewFloat64(match n.as_i64() {
                Some(i) => i as f64,
                None => n.as_f64().unwrap_or(f64::NAN),
            }),
            Value::String(s) => qjs::JS_NewStringLen(ctx, s.as_ptr().cast(), s.len() as _),
            _ if depth >= MAX_DEPTH_IN => too_deep(ctx, v),
            Value::Array(items) => {
                let mut values = Vec::with_capacity(items.len());
                for item in items {
                    let x = raw(ctx, item, depth + 1);
                    if qjs::JS_IsException(x) {
                        for made in values {
                            qjs::JS_FreeValue(ctx, made);
                        }
                        return x;
                    }
                    values.push(x);
                }
                // Takes the values, on failure too.
                qjs::JS_NewArrayFrom(ctx, values.len() as _, values.as_ptr())
            }
            Value::Object(map) => {
                let object = qjs::JS_NewObject(ctx);
                if qjs::JS_IsException(object) {
                    return object;
                }
                for (key, item) in map {
                    let atom = atom(ctx, key);
                    if atom == qjs::JS_ATOM_NULL {
                        qjs::JS_FreeValue(ctx, object);
                        return qjs::JS_EXCEPTION;
                    }
                    let x = raw(ctx, item, depth + 1);
                    // Takes `x`, on failure too.
                    let defined = !qjs::JS_IsException(x)
                        && qjs::JS_DefinePropertyValue(
                            ctx,
                            object,
                            atom,
                            x,
                            qjs::JS_PROP_C_W_E as _,
                        ) >= 0;
                    qjs::JS_FreeAtom(ctx, atom);
                    if !defined {
                        qjs::JS_FreeValue(ctx, object);
                        return qjs::JS_EXCEPTION;
                    }
                }
                object
            }
        }
    }
}

/// The atom of a property name. `JS_NewAtomLen` looks an existing atom up by its bytes as if
/// they were Latin-1, so only ASCII goes that way; other names are made from a string, as
/// `JSON.parse` makes them.
unsafe fn atom(ctx: *mut qjs::JSContext, key: &str) -> qjs::JSAtom {
    // SAFETY: `key`'s bytes are valid for its length; the string made is freed here.
    unsafe {
        if key.is_ascii() {
            return qjs::JS_NewAtomLen(ctx, key.as_ptr().cast(), key.len() as _);
        }
        let s = qjs::JS_NewStringLen(ctx, key.as_ptr().cast(), key.len() as _);
        if qjs::JS_IsException(s) {
            return qjs::JS_ATOM_NULL;
        }
        let atom = qjs::JS_ValueToAtom(ctx, s);
        qjs::JS_FreeValue(ctx, s);
        atom
    }
}

/// A value nested deeper than [`MAX_DEPTH_IN`], through `JSON.parse` of its text.
unsafe fn too_deep(ctx: *mut qjs::JSContext, v: &Value) -> qjs::JSValue {
    let Ok(text) = std::ffi::CString::new(v.to_string()) else {
        return qjs::JS_EXCEPTION;
    };
    // SAFETY: `text` is NUL-terminated (JS_ParseJSON reads up to its length).
    unsafe {
        qjs::JS_ParseJSON(
            ctx,
            text.as_ptr(),
            text.as_bytes().len() as _,
            c"<input>".as_ptr(),
        )
    }
}

/// A JavaScript number as serde_json reads `JSON.stringify`'s text of it: not finite is `null`;
/// an integral value below 1e21 is written as digits (the shortest that read back to it, then
/// zeros), which serde_json reads as an integer when it fits.
fn number(f: f64) -> Value {
    if !f.is_finite() {
        return Value::Null;
    }
    if f.fract() == 0.0 {
        if f.abs() < 9_007_199_254_740_992.0 {
            // Exact below 2^53.
            return Value::from(f as i64);
        }
        if f.abs() < 1e21 {
            // Rust writes the same shortest digits as JavaScript here.
            if let Ok(v) = serde_json::from_str(&format!("{f}")) {
                return v;
            }
        }
    }
    Number::from_f64(f).map_or(Value::Null, Value::Number)
}

#[cfg(test)]
mod hostile;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_read_as_serde_reads_their_text() {
        for f in [
            0.0,
            -0.0,
            1.0,
            -1.0,
            1.5,
            1e20,
            1e21,
            1.8e19,
            -9.3e18,
            0.1,
            123456789.125,
            18446744073709550000.0,
            9007199254740993.0,
        ] {
            let text = if f == 0.0 { "0".to_owned() } else { js_text(f) };
            let parsed: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(number(f), parsed, "{f} written {text}");
        }
        assert_eq!(number(f64::NAN), Value::Null);
        assert_eq!(number(f64::INFINITY), Value::Null);
    }

    /// Runs `f` in a realm of its own.
    fn in_realm<R>(f: impl FnOnce(&Ctx<'_>) -> R) -> R {
        let sandbox = crate::scripts::js::sandbox::Sandbox::new().unwrap();
        let realm = sandbox.realm().unwrap();
        let _call = sandbox.begin(std::time::Instant::now() + std::time::Duration::from_secs(60));
        realm.with(|js| f(&js))
    }

    /// What `check` (a function of the made value and the parsed one) answers for `v` made by
    /// [`to_js`] and by `JSON.parse` of its text, in one realm.
    fn both(js: &Ctx<'_>, v: &Value, check: &str) -> String {
        let made = to_js(js, v).unwrap();
        let parsed = js.json_parse(v.to_string()).unwrap();
        let check: rquickjs::Function = js.eval(format!("({check})")).unwrap();
        check.call((made, parsed)).unwrap()
    }

    /// Writes a value with what JSON text cannot show: -0, property order, own and inherited
    /// names, prototypes, attributes.
    const DESCRIBE: &str = r#"function (made, parsed) {
      function d(v) {
        if (typeof v === "number") return Object.is(v, -0) ? "-0" : String(v);
        if (typeof v !== "object" || v === null) return typeof v + ":" + JSON.stringify(v);
        var proto = Object.getPrototypeOf(v) === Object.prototype ? "O" : Array.isArray(v) ? "A" : "?";
        return proto + "{" + Reflect.ownKeys(v).map(function (k) {
          var p = Object.getOwnPropertyDescriptor(v, k);
          var attrs = (p.writable ? "w" : "") + (p.enumerable ? "e" : "") + (p.configurable ? "c" : "");
          return JSON.stringify(k) + "/" + attrs + "=" + d(p.value);
        }).join(",") + "}";
      }
      var a = d(made), b = d(parsed);
      return a === b ? "same" : a + "\n  vs JSON.parse: " + b;
    }"#;

    fn corpus() -> Vec<Value> {
        vec![
            json!(null),
            json!(true),
            json!(0),
            json!(-0.0),
            json!(1.5),
            json!(2147483647),
            json!(2147483648_i64),
            json!(-2147483649_i64),
            json!(9007199254740993_i64),
            json!(u64::MAX),
            json!(i64::MIN),
            json!(1e300),
            json!(0.1),
            json!("text"),
            json!("é ü \u{1F600} \"quoted\" \\ \n"),
            json!(""),
            json!([]),
            json!({}),
            json!([1, [2, [3, {"a": null}]], "x"]),
            json!({"b": 1, "a": 2, "10": 3, "2": 4, "01": 5, "-1": 6, "4294967295": 7, "1.5": 8}),
            json!({"__proto__": {"polluted": true}, "constructor": 1, "toString": "s", "hasOwnProperty": 2}),
            json!({"Ã©": 2, "é": 1, "\u{1F600}": 3, "": 4, "length": 5}),
            json!({"id": "c1", "_rid": "AAAA", "_self": "dbs/x/colls/y/docs/AAAA/", "_etag": "\"0000\"", "_ts": 1764000000, "nested": {"tags": ["a", "b"], "n": -12.25}}),
        ]
    }

    #[test]
    fn values_go_in_as_json_parse_makes_them() {
        in_realm(|js| {
            for v in corpus() {
                assert_eq!(both(js, &v, DESCRIBE), "same", "{v}");
            }
            // An array's own `__proto__` entry in an object stays data; nothing is inherited.
            let proto = both(
                js,
                &json!({"__proto__": {"polluted": true}}),
                "function (m) { return String(m.polluted) + Object.getPrototypeOf(m).polluted; }",
            );
            assert_eq!(proto, "undefinedundefined");
        });
    }

    #[test]
    fn values_nested_deeper_than_json_allows_go_in_as_json_parse_takes_them() {
        let mut deep = json!(1);
        for _ in 0..MAX_DEPTH_IN + 10 {
            deep = json!([deep]);
        }
        in_realm(|js| {
            assert_eq!(both(js, &deep, DESCRIBE), "same");
            for depth in [300, 1_000] {
                let mut deeper = json!(1);
                for _ in 0..depth {
                    deeper = json!({ "a": deeper });
                }
                let made = to_js(js, &deeper).is_ok();
                let _ = js.catch();
                let parsed = js.json_parse(deeper.to_string()).is_ok();
                let _ = js.catch();
                assert_eq!(made, parsed, "{depth} deep");
            }
        });
    }

    #[test]
    fn plain_data_reads_as_json_stringify_writes_it() {
        in_realm(|js| {
            let plain = Plain::of(js).unwrap();
            for (source, is_plain) in [
                ("({a: 1, b: 'x', c: [1, 'two', null, true, -0, 1.5, 1e21, 2e9]})", true),
                ("({'10': 1, b: 2, '2': 3, 'é': 4, 'Ã©': 5, '😀': 6, '__proto__': 7})", true),
                ("JSON.parse('{\"__proto__\": {\"x\": 1}}')", true),
                ("({u: undefined, f: function () {}, s: Symbol('s'), n: NaN, i: -Infinity})", true),
                ("[undefined, function () {}, Symbol('s'), , 1]", true),
                ("(function () { var o = {a: 1}; Object.defineProperty(o, 'hidden', {value: 2}); o[Symbol('k')] = 3; return o; })()", true),
                ("({get g() { return [1, 2]; }})", true),
                ("({long: 'a'.repeat(1000) + 'b', nonAscii: 'ü€😀'})", true),
                ("Object.create(null)", true),
                ("({d: new Date(0)})", false),
                ("({t: {toJSON: function () { return 'x'; }}})", false),
                ("({boxed: new String('s')})", false),
                ("({lone: String.fromCharCode(0xd800)})", false),
                ("({m: new Map()})", false),
                ("new Proxy({}, {})", false),
                // More than one read builds (each left to JSON.stringify and the realm's cap):
                // holes a length made, one array shared 50 000 times, one long name shared.
                ("(function () { var a = []; a.length = 4294967295; return a; })()", false),
                ("(function () { var a = [], d = []; for (var i = 0; i < 50000; i++) a.push(i); for (var j = 0; j < 50000; j++) d.push(a); return d; })()", false),
                ("(function () { var o = {}; o['k'.repeat(60000)] = 1; var d = []; for (var j = 0; j < 50000; j++) d.push(o); return d; })()", false),
                ("(function () { var s = 'x'.repeat(1 << 20), d = []; for (var j = 0; j < 50000; j++) d.push(s); return d; })()", false),
            ] {
                let v: rquickjs::Value = js.eval(source).unwrap();
                let read = plain.read(&v).unwrap();
                let text: Option<String> = js.json_stringify(v).ok().flatten().map(|s| s.to_string().unwrap());
                if is_plain {
                    let want: Value = serde_json::from_str(&text.unwrap()).unwrap();
                    assert_eq!(read, Some(want), "{source}");
                } else {
                    assert_eq!(read, None, "{source}");
                }
            }
        });
    }

    /// Getters that change the value being read — delete what is still to be read, shrink or
    /// grow an array, replace a nested object, throw — read as `JSON.stringify` (on a second
    /// copy made by the same source) writes them, or fail as it fails: the reader holds its own
    /// references and its own snapshot of the names, so nothing it reads can go away under it.
    #[test]
    fn getters_that_change_what_is_being_read_read_as_json_stringify_writes_it() {
        in_realm(|js| {
            let plain = Plain::of(js).unwrap();
            for source in [
                "(function () { var o = {b: 2, c: {d: [1, 2]}}; Object.defineProperty(o, 'a', {enumerable: true, get: function () { delete o.b; delete o.c; o.e = 5; return 1; }}); return {first: o.a === 1 ? o : o, x: 0}; })()",
                "(function () { var o = {}; Object.defineProperty(o, 'a', {enumerable: true, get: function () { delete o.b; o.c = 'new'; return 'a'; }}); o.b = {big: 'x'.repeat(100)}; return o; })()",
                "(function () { var a = [1, 2, 3]; Object.defineProperty(a, 0, {enumerable: true, get: function () { a.length = 0; return 'first'; }}); return a; })()",
                "(function () { var a = [1, 2, 3]; Object.defineProperty(a, 0, {enumerable: true, get: function () { for (var i = 0; i < 100; i++) a.push(i); return 0; }}); return a; })()",
                "(function () { var a = [1]; Object.defineProperty(a, 0, {enumerable: true, get: function () { a.length = 4294967295; return 0; }}); return a; })()",
                "(function () { var inner = {k: [1, 2, 3]}, o = {inner: inner}; Object.defineProperty(inner, 'g', {enumerable: true, get: function () { o.inner = null; inner.k = 'gone'; return true; }}); return o; })()",
                "(function () { var o = {}; Object.defineProperty(o, 'a', {enumerable: true, get: function () { Object.defineProperty(o, 'b', {enumerable: false}); return 1; }}); o.b = 2; return o; })()",
            ] {
                let read: rquickjs::Value = js.eval(source).unwrap();
                let written: rquickjs::Value = js.eval(source).unwrap();
                let read = plain.read(&read).unwrap();
                let text = js.json_stringify(written).unwrap().unwrap().to_string().unwrap();
                let want: Value = serde_json::from_str(&text).unwrap();
                assert_eq!(read, Some(want), "{source}");
            }
            // A getter that throws fails the read, as it fails JSON.stringify.
            let v: rquickjs::Value = js
                .eval("({a: 1, get b() { throw new Error('no'); }})")
                .unwrap();
            assert!(plain.read(&v).is_err());
            let _ = js.catch();
        });
    }

    /// A cycle fails the read as it fails JSON.stringify, at the same step. Found by
    /// `hostile.rs` (the first source): the reader left cycles to its depth limit, so a getter
    /// answering the array being read only its first two times read as `[[[null]]]`, where
    /// JSON.stringify fails ("circular reference"). A value shared without a cycle is read.
    #[test]
    fn a_cycle_fails_the_read_as_it_fails_json_stringify() {
        in_realm(|js| {
            let plain = Plain::of(js).unwrap();
            for source in [
                "(function () { var n = 0, a = []; Object.defineProperty(a, 0, {enumerable: true, get: function () { return ++n < 3 ? a : null; }}); return a; })()",
                "(function () { var n = 0, o = {}; Object.defineProperty(o, 'a', {enumerable: true, get: function () { return ++n < 3 ? {o: o} : 1; }}); return [o]; })()",
                "(function () { var a = []; a.push(a); return {a: a}; })()",
                "(function () { var o = {}; o.a = o; o.b = o; return o; })()",
                "(function () { var a = [1], o = {a: a}; a.push({o: o}); return {o: o}; })()",
            ] {
                let read: rquickjs::Value = js.eval(source).unwrap();
                let written: rquickjs::Value = js.eval(source).unwrap();
                assert!(plain.read(&read).is_err(), "{source}");
                let e = js.catch();
                let message = e.as_exception().and_then(|e| e.message());
                assert_eq!(message.as_deref(), Some("circular reference"), "{source}");
                assert!(js.json_stringify(written).is_err(), "{source}");
                let _ = js.catch();
            }
            // The reader is left as it was: the same value shared, not in a cycle, is read.
            let v: rquickjs::Value = js
                .eval("(function () { var o = {x: [1]}; return {o: o, p: [o, o], q: {o: o}}; })()")
                .unwrap();
            let shared = json!({"x": [1]});
            let want = json!({"o": shared, "p": [shared, shared], "q": {"o": shared}});
            assert_eq!(plain.read(&v).unwrap(), Some(want));
        });
    }

    proptest::proptest! {
        #[test]
        fn any_value_goes_in_as_json_parse_makes_it(v in any_json()) {
            let same = in_realm(|js| both(js, &v, DESCRIBE));
            proptest::prop_assert_eq!(same, "same");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config {
            cases: cases(32),
            ..proptest::test_runner::Config::default()
        })]

        /// Values nested around the depth at which [`to_js`] hands over to `JSON.parse` (and
        /// serde_json's own limit), with numbers at the edges of f64 and integers and names
        /// that look alike: made in the realm, then written by its `JSON.stringify`, they come
        /// back as they went, numbers as f64 (what JavaScript has).
        #[test]
        fn deep_values_go_in_and_come_back_through_json_stringify(
            v in deep_json(),
        ) {
            let (same, text) = in_realm(|js| {
                let made = to_js(js, &v).unwrap();
                let text = js.json_stringify(made).unwrap().unwrap().to_string().unwrap();
                (both(js, &v, DESCRIBE), text)
            });
            proptest::prop_assert_eq!(same, "same");
            // serde_json reads 128 levels at most.
            if nesting(&v) < 128 {
                let back: Value = serde_json::from_str(&text).unwrap();
                proptest::prop_assert!(crate::sql::value::json_eq(&v, &back), "{} came back {}", v, back);
            }
        }
    }

    /// `PROPTEST_CASES`, or `default` (proptest's own default is 256 cases).
    pub(super) fn cases(default: u32) -> u32 {
        std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(default)
    }

    /// A value inside 116 to 135 levels of arrays and objects, each level with a sibling.
    fn deep_json() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let level = (any::<bool>(), edge_key(), any_leaf());
        (
            any_json(),
            116..136usize,
            proptest::collection::vec(level, 136),
        )
            .prop_map(|(mut v, depth, levels)| {
                for (array, key, sibling) in levels.into_iter().take(depth) {
                    v = if array {
                        Value::Array(vec![sibling, v])
                    } else {
                        let mut m = Map::new();
                        m.insert(key.clone() + "\u{0}", sibling);
                        m.insert(key, v);
                        Value::Object(m)
                    };
                }
                v
            })
    }

    /// Names that look alike, or like numbers, or like what JavaScript treats apart.
    fn edge_key() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        proptest::sample::select(
            &[
                "a",
                "A",
                "1",
                "01",
                "-0",
                "4294967295",
                "1e3",
                "__proto__",
                "",
                "é",
                "e\u{301}",
                "Ã©",
                "\u{1F600}",
                "length",
                "toJSON",
            ][..],
        )
        .prop_map(str::to_owned)
    }

    /// How many arrays and objects `v` nests at most.
    fn nesting(v: &Value) -> usize {
        match v {
            Value::Array(items) => 1 + items.iter().map(nesting).max().unwrap_or(0),
            Value::Object(map) => 1 + map.values().map(nesting).max().unwrap_or(0),
            _ => 0,
        }
    }

    /// Null, booleans, numbers (the edges of i64, u64 and f64 among them) and short strings.
    fn any_leaf() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(|f| Number::from_f64(f).map_or(Value::Null, Value::Number)),
            proptest::sample::select(
                &[
                    u64::MAX as f64,
                    -(i64::MIN as f64),
                    9007199254740993.0,
                    1e21,
                    1e300,
                    -1.7976931348623157e308,
                    5e-324,
                    -0.0,
                    0.1,
                ][..]
            )
            .prop_map(|f| Number::from_f64(f).map_or(Value::Null, Value::Number)),
            proptest::sample::select(&[u64::MAX, 1 << 53, (1 << 53) + 1][..]).prop_map(Value::from),
            proptest::sample::select(&[i64::MIN, -(1 << 53) - 1][..]).prop_map(Value::from),
            ".{0,8}".prop_map(Value::String),
        ]
    }

    fn any_json() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        any_leaf().prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                proptest::collection::vec(("(__proto__|[0-9]{1,3}|.{0,5})", inner), 0..6)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    /// How JavaScript writes these numbers (shortest round trip, as Rust's `{}` below 1e21;
    /// exponent from 1e21).
    fn js_text(f: f64) -> String {
        if f.abs() >= 1e21 {
            format!("{f:e}").replace('e', "e+")
        } else {
            format!("{f}")
        }
    }
}
