//! Freezing everything a script can reach in a realm, transitively: the last step of hardening
//! it (`harden.js` does the rest). Done here rather than in JavaScript because a walk in the
//! realm made a descriptor object and a key array for every property it looked at: ~20 M
//! instructions per realm, against a few here.
//!
//! From each root it follows every own property (string and symbol keys; the value, or the
//! getter and the setter) and the prototype, and freezes each object it meets but the global
//! object, which `harden.js` handles (it stays extensible for sloppy-mode globals).

use std::collections::HashSet;

use rquickjs::{qjs, Ctx};

/// Freezes every object reachable from `roots` except `global`; answers how many it froze.
pub(super) fn freeze_reachable<'js>(
    js: &Ctx<'js>,
    global: &rquickjs::Value<'js>,
    roots: &[rquickjs::Value<'js>],
) -> rquickjs::Result<usize> {
    let ctx = js.as_raw().as_ptr();
    let mut seen: HashSet<*mut std::ffi::c_void> = HashSet::new();
    // SAFETY: every `JSValue` in `todo` and `found` is an owned reference of this realm (a dup
    // of a root, or what `JS_GetOwnProperty` / `JS_GetPrototype` returned), freed exactly once:
    // when it is not an object or already seen, or after the freezing pass. The property table
    // is freed with its atoms.
    unsafe {
        let global_ptr = qjs::JS_VALUE_GET_PTR(global.as_raw());
        let mut todo: Vec<qjs::JSValue> = roots
            .iter()
            .map(|r| qjs::JS_DupValue(ctx, r.as_raw()))
            .collect();
        let mut found: Vec<qjs::JSValue> = Vec::new();
        let mut failed = false;
        while let Some(v) = todo.pop() {
            if !qjs::JS_IsObject(v) || !seen.insert(qjs::JS_VALUE_GET_PTR(v)) {
                qjs::JS_FreeValue(ctx, v);
                continue;
            }
            let mut tab: *mut qjs::JSPropertyEnum = std::ptr::null_mut();
            let mut len: u32 = 0;
            let flags = (qjs::JS_GPN_STRING_MASK | qjs::JS_GPN_SYMBOL_MASK) as i32;
            if qjs::JS_GetOwnPropertyNames(ctx, &mut tab, &mut len, v, flags) < 0 {
                failed = true;
                found.push(v);
                break;
            }
            for i in 0..len as usize {
                let atom = (*tab.add(i)).atom;
                let mut d: qjs::JSPropertyDescriptor = std::mem::zeroed();
                match qjs::JS_GetOwnProperty(ctx, &mut d, v, atom) {
                    r if r > 0 => {
                        todo.push(d.value);
                        todo.push(d.getter);
                        todo.push(d.setter);
                    }
                    0 => {}
                    _ => failed = true,
                }
            }
            qjs::JS_FreePropertyEnum(ctx, tab, len);
            todo.push(qjs::JS_GetPrototype(ctx, v));
            found.push(v);
            if failed {
                break;
            }
        }
        let mut frozen = 0;
        for v in found {
            if !failed && qjs::JS_VALUE_GET_PTR(v) != global_ptr {
                if qjs::JS_FreezeObject(ctx, v) < 0 {
                    failed = true;
                } else {
                    frozen += 1;
                }
            }
            qjs::JS_FreeValue(ctx, v);
        }
        for v in todo {
            qjs::JS_FreeValue(ctx, v);
        }
        if failed {
            return Err(rquickjs::Error::Exception);
        }
        Ok(frozen)
    }
}
