//! A script's compiled code, made once: its text compiled to bytecode once per thread, and that
//! bytecode read into a realm once and kept there for the realm's later calls of the same text.
//!
//! What is kept is the compiled *code* (QuickJS's function bytecode), never a function object a
//! call could touch: each call evaluates the code anew and gets a new function, with a new
//! `prototype`, new closures and new object and array literals, exactly as when the bytecode is
//! read for every call. Bytecode itself cannot change once made (quickjs-ng 0.16 keeps no
//! inline caches or other run-time state in it); what it can hold that a call could change is
//! an object in its constant pool — a tagged template's strings array is one, made once per
//! site and handed to every evaluation of it, and QuickJS leaves its `length` writable. So code
//! is kept only when reading its bytecode makes no object at all (counted by QuickJS itself,
//! [`makes_objects`]); a script with a tagged template, or anything else kept as an object in
//! its code, has its bytecode read for every call as before.
//!
//! Kept per realm and by text: a replaced script is a new text, read anew; its old code goes
//! with the realm (a database's realm lives for at most a thousand calls, `call.rs`).

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::CString;
use std::rc::Rc;

use rquickjs::{qjs, Ctx, Persistent};

/// Texts a thread keeps compiled (the scripts it ran).
const MAX_CACHED: usize = 256;
/// Scripts a realm keeps read (a database's procedures and triggers).
const MAX_KEPT: usize = 64;

/// A script's bytecode, and whether a realm may keep the code read from it ([`makes_objects`]).
#[derive(Clone)]
struct Bytecode {
    bytes: Rc<[u8]>,
    keepable: bool,
}

thread_local! {
    /// Bytecode by source text, for the realms this thread runs code in. Reading bytecode into a
    /// realm costs about a tenth of compiling the text again (the prelude: ~30 µs against
    /// ~400 µs), and bytecode read into a realm belongs to that realm: nothing compiled once is
    /// shared between realms but the bytes (which any runtime of this QuickJS can read).
    static BYTECODE: RefCell<HashMap<String, Bytecode>> = RefCell::default();
}

/// The code of the scripts a realm ran, by their text.
#[derive(Default)]
pub(super) struct Compiled {
    code: HashMap<Box<str>, Persistent<rquickjs::Value<'static>>>,
    /// Calls that read their script's bytecode into the realm, since the pool last counted them
    /// (`fresh.rs`: a test's evidence that a kept script served a call).
    pub reads: u64,
}

impl Compiled {
    /// What `body` (one function expression) evaluates to in `js`'s realm, evaluated anew: a
    /// new function object. A syntax error or a throw is the realm's pending exception
    /// (`rquickjs::Error::Exception`), as with `Ctx::eval`.
    pub fn function<'js>(
        &mut self,
        js: &Ctx<'js>,
        body: &str,
    ) -> Result<rquickjs::Value<'js>, rquickjs::Error> {
        if let Some(code) = self.code.get(body) {
            return evaluate(js, code.clone().restore(js)?);
        }
        self.reads += 1;
        let source = format!("({body}\n)");
        let bytecode = bytecode_of(js, &source)?;
        let code = read(js, &bytecode.bytes)?;
        if bytecode.keepable {
            if self.code.len() >= MAX_KEPT {
                self.code.clear();
            }
            self.code
                .insert(body.into(), Persistent::save(js, code.clone()));
        }
        evaluate(js, code)
    }
}

/// This thread's bytecode of `source`, compiled on first use.
fn bytecode_of(js: &Ctx<'_>, source: &str) -> Result<Bytecode, rquickjs::Error> {
    if let Some(b) = BYTECODE.with(|c| c.borrow().get(source).cloned()) {
        return Ok(b);
    }
    let bytes: Rc<[u8]> = compile(js, source, false)?.into();
    let keepable = !makes_objects(js, &bytes)?;
    let b = Bytecode { bytes, keepable };
    BYTECODE.with(|c| {
        let mut cache = c.borrow_mut();
        if cache.len() >= MAX_CACHED {
            cache.clear();
        }
        cache.insert(source.to_owned(), b.clone());
    });
    Ok(b)
}

/// Whether reading `bytes` into `js`'s realm makes any object (an object in the code's constant
/// pool, such as a tagged template's strings array). QuickJS counts the runtime's objects; after
/// a full collection nothing can be freed while the bytes are read but what the read itself
/// made and let go, so the count grows exactly by the objects the code holds.
fn makes_objects(js: &Ctx<'_>, bytes: &[u8]) -> Result<bool, rquickjs::Error> {
    let objects = |rt| {
        // SAFETY: `rt` is this realm's live runtime; QuickJS fills the struct.
        unsafe {
            let mut usage: qjs::JSMemoryUsage = std::mem::zeroed();
            qjs::JS_ComputeMemoryUsage(rt, &mut usage);
            usage.obj_count
        }
    };
    // SAFETY: as `read`; the value read is freed here.
    unsafe {
        let rt = qjs::JS_GetRuntime(js.as_raw().as_ptr());
        qjs::JS_RunGC(rt);
        let before = objects(rt);
        let code = read(js, bytes)?;
        let after = objects(rt);
        drop(code);
        Ok(after != before)
    }
}

/// QuickJS's code of `bytes` (a function bytecode value, not yet a function), in `js`'s realm.
fn read<'js>(js: &Ctx<'js>, bytes: &[u8]) -> Result<rquickjs::Value<'js>, rquickjs::Error> {
    // SAFETY: the bytes are QuickJS's own serialization of code this process compiled (never
    // bytes from outside); the value read is owned by the `Value` made from it.
    unsafe {
        let ctx = js.as_raw().as_ptr();
        let flags = qjs::JS_READ_OBJ_BYTECODE as i32;
        let code = qjs::JS_ReadObject(ctx, bytes.as_ptr(), bytes.len() as _, flags);
        if qjs::JS_IsException(code) {
            return Err(rquickjs::Error::Exception);
        }
        Ok(rquickjs::Value::from_raw(js.clone(), code))
    }
}

/// Runs `code` (from [`read`]) as a global script: its value, or the realm's pending exception.
fn evaluate<'js>(
    js: &Ctx<'js>,
    code: rquickjs::Value<'js>,
) -> Result<rquickjs::Value<'js>, rquickjs::Error> {
    // SAFETY: `JS_EvalFunction` takes the reference it is given (a dup: `code` frees its own);
    // it makes a new function object of the code and calls it.
    unsafe {
        let ctx = js.as_raw().as_ptr();
        let v = qjs::JS_EvalFunction(ctx, qjs::JS_DupValue(ctx, code.as_raw()));
        if qjs::JS_IsException(v) {
            return Err(rquickjs::Error::Exception);
        }
        Ok(rquickjs::Value::from_raw(js.clone(), v))
    }
}

/// Runs bytecode [`compile`] made, in `js`'s realm: its value, or the realm's pending exception.
pub(super) fn eval_bytecode<'js>(
    js: &Ctx<'js>,
    bytes: &[u8],
) -> Result<rquickjs::Value<'js>, rquickjs::Error> {
    evaluate(js, read(js, bytes)?)
}

/// `source` compiled (not run) and serialized as bytecode; `strip` leaves out its source text
/// and line numbers (smaller, faster to read; for the engine's own prelude, whose functions a
/// script has no business printing).
pub(super) fn compile(js: &Ctx<'_>, source: &str, strip: bool) -> Result<Vec<u8>, rquickjs::Error> {
    let text = CString::new(source)?;
    let flags = (qjs::JS_EVAL_TYPE_GLOBAL | qjs::JS_EVAL_FLAG_COMPILE_ONLY) as i32;
    // SAFETY: `text` is NUL-terminated and outlives the call; the compiled function is freed
    // after it is written, the written buffer after it is copied.
    unsafe {
        let ctx = js.as_raw().as_ptr();
        let f = qjs::JS_Eval(
            ctx,
            text.as_ptr(),
            source.len() as _,
            c"script".as_ptr(),
            flags,
        );
        if qjs::JS_IsException(f) {
            return Err(rquickjs::Error::Exception);
        }
        let mut size = 0;
        let mut write = qjs::JS_WRITE_OBJ_BYTECODE as i32;
        if strip {
            write |= (qjs::JS_WRITE_OBJ_STRIP_SOURCE | qjs::JS_WRITE_OBJ_STRIP_DEBUG) as i32;
        }
        let p = qjs::JS_WriteObject(ctx, &mut size, f, write);
        qjs::JS_FreeValue(ctx, f);
        if p.is_null() {
            return Err(rquickjs::Error::Exception);
        }
        let bytes = std::slice::from_raw_parts(p, size as usize).to_vec();
        qjs::js_free(ctx, p.cast());
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scripts::js::sandbox::Sandbox;

    /// Whether the code of `body` holds objects, as a realm that ran other code first sees it.
    fn holds_objects(body: &str) -> bool {
        let sandbox = Sandbox::new().unwrap();
        let realm = sandbox.realm().unwrap();
        let _call = sandbox.begin(std::time::Instant::now() + std::time::Duration::from_secs(10));
        realm.with(|js| {
            // A cycle left for the collector: nothing it frees may hide what the code holds.
            let _: rquickjs::Value = js
                .eval("(function () { var a = [{}]; a[0].self = a; })()")
                .unwrap();
            let bytes = compile(&js, &format!("({body}\n)"), false).unwrap();
            makes_objects(&js, &bytes).unwrap()
        })
    }

    #[test]
    fn only_code_that_holds_objects_is_told_apart() {
        for plain in [
            "function f(a) { return `${a}/docs/${a}` + /x/g.source + [1, {b: 2}].length + 1e300; }",
            "function f() { return function g() { return 'text'; }; }",
        ] {
            assert!(!holds_objects(plain), "{plain}");
        }
        for tagged in [
            "function f() { return String.raw`a${1}b`; }",
            "function f() { function g() { return ((s) => s)`nested`; } return g; }",
        ] {
            assert!(holds_objects(tagged), "{tagged}");
        }
    }
}
