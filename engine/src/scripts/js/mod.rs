//! JavaScript stored procedures and triggers, run by QuickJS (`rquickjs`) inside the engine's
//! transaction, against the same [`ScriptContext`] the Rust closures use: a JavaScript script
//! is one more implementation of [`StoredProcedure`] / a trigger, so its writes, RU, budget,
//! partition confinement and rollback are the closures' own.
//!
//! Each call gets a fresh QuickJS runtime (no state leaks from one call to the next), with a
//! memory cap, a stack cap and an interrupt at the script's time budget: an endless loop is
//! stopped and everything it did rolled back. Scripts reach nothing but `getContext()`: QuickJS
//! has no file, network or process access unless the host adds it, and this host adds none.

use std::collections::HashMap;
use std::time::Instant;

use rquickjs::{Context, Function, Runtime};
use serde::Deserialize;
use serde_json::Value;

use super::{ScriptContext, StoredProcedure};

pub mod udf;
use crate::error::{Error, Result};

const PRELUDE: &str = include_str!("prelude.js");

/// What one script may allocate (Cosmos DB does not publish its figure; this is generous for
/// the documents a transaction of one logical partition can touch).
pub const MEMORY_LIMIT: usize = 64 << 20;
const STACK_LIMIT: usize = 512 << 10;

/// A stored procedure or trigger written in JavaScript, as Cosmos DB stores it: the text of one
/// function (`function createComment(postId, comment) { ... }`).
///
/// ```no_run
/// # async fn demo(posts: engine::ContainerClient) -> engine::Result<()> {
/// use engine::JavaScript;
/// posts.scripts().upsert_stored_procedure(
///     "hello",
///     JavaScript::new("function hello(name) { getContext().getResponse().setBody('hi ' + name); }")?,
/// )?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct JavaScript {
    body: std::sync::Arc<str>,
}

impl JavaScript {
    /// Checks that `body` is one JavaScript function (a 400 naming the syntax error if not).
    pub fn new(body: &str) -> Result<Self> {
        let rt = Runtime::new().map_err(|e| js_setup("", e))?;
        let context = Context::full(&rt).map_err(|e| js_setup("", e))?;
        context.with(|js| -> Result<()> {
            let v: rquickjs::Value = js
                .eval_with_options(format!("({body}\n)"), sloppy())
                .map_err(|e| {
                    let detail = match e {
                        rquickjs::Error::Exception => exception_text(&js, js.catch()),
                        e => e.to_string(),
                    };
                    Error::bad("body", format!("the script does not parse: {detail}"))
                })?;
            if !v.is_function() {
                return Err(Error::bad(
                    "body",
                    "the script must be one function: function name(args) { ... }",
                ));
            }
            Ok(())
        })?;
        Ok(JavaScript { body: body.into() })
    }

    pub fn body(&self) -> &str {
        &self.body
    }

    /// This script as a pre-trigger for `operation`.
    pub fn pre_trigger(self, operation: super::TriggerOperation) -> super::Trigger {
        let source = self.body.clone();
        super::Trigger::pre(operation, move |item| {
            run_pre_trigger("pre-trigger", &self.body, item)
        })
        .with_source(source)
    }

    /// This script as a post-trigger for `operation`.
    pub fn post_trigger(self, operation: super::TriggerOperation) -> super::Trigger {
        let source = self.body.clone();
        super::Trigger::post(operation, move |ctx, written| {
            let name = ctx.name.clone();
            run_post_trigger(ctx, &name, &self.body, written)
        })
        .with_source(source)
    }
}

impl StoredProcedure for JavaScript {
    fn execute(&self, ctx: &mut ScriptContext<'_, '_, '_>, args: &[Value]) -> Result<Value> {
        let name = ctx.name.clone();
        let out = run(Some(ctx), &name, &self.body, args, None)?;
        Ok(out.response.unwrap_or(Value::Null))
    }

    fn source(&self) -> Option<&str> {
        Some(&self.body)
    }
}

/// A pre-trigger in JavaScript: reads and may replace `getContext().getRequest().getBody()`.
fn run_pre_trigger(id: &str, body: &str, item: &mut Value) -> Result<()> {
    let out = run(None, id, body, &[], Some(item.clone()))?;
    if let Some(changed) = out.request {
        *item = changed;
    }
    Ok(())
}

/// A post-trigger in JavaScript: sees the written item as `getContext().getResponse().getBody()`
/// and works on the collection in the same transaction; a throw rolls the write back.
fn run_post_trigger(
    ctx: &mut ScriptContext<'_, '_, '_>,
    id: &str,
    body: &str,
    written: &Value,
) -> Result<()> {
    run(Some(ctx), id, body, &[], Some(written.clone())).map(|_| ())
}

struct Outcome {
    request: Option<Value>,
    response: Option<Value>,
}

#[derive(Deserialize)]
struct Op {
    id: u64,
    kind: String,
    args: Vec<Value>,
    #[serde(default)]
    options: Value,
}

/// A QuickJS runtime kept by the thread that runs scripts (the writer): creating one, loading
/// the prelude and compiling a script cost about a millisecond, which the writer would otherwise
/// pay on every call while every other write waits. Compiled scripts are kept by their text.
struct Cached {
    // Field order is drop order: the values of a runtime go before it.
    compiled: HashMap<u64, rquickjs::Persistent<Function<'static>>>,
    context: Context,
    /// Owns the heap the context lives in.
    _runtime: Runtime,
    /// The running call's deadline, read by the interrupt handler.
    deadline: std::sync::Arc<std::sync::Mutex<Instant>>,
    /// Interrupt-handler calls so far: QuickJS calls it once per 10 000 jumps and calls, so
    /// the count measures a script's work (charged as `ru::rate::SCRIPT_TICK`).
    ticks: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl Cached {
    fn new() -> std::result::Result<Cached, rquickjs::Error> {
        let runtime = Runtime::new()?;
        runtime.set_memory_limit(MEMORY_LIMIT);
        runtime.set_max_stack_size(STACK_LIMIT);
        // Loading the prelude runs JavaScript too: give it time (each call sets its own deadline).
        let deadline = std::sync::Arc::new(std::sync::Mutex::new(
            Instant::now() + std::time::Duration::from_secs(60),
        ));
        let d = deadline.clone();
        let ticks = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let t = ticks.clone();
        runtime.set_interrupt_handler(Some(Box::new(move || {
            t.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            d.lock().map(|d| Instant::now() > *d).unwrap_or(true)
        })));
        let context = Context::full(&runtime)?;
        context.with(|js| js.eval::<(), _>(PRELUDE))?;
        Ok(Cached {
            compiled: HashMap::new(),
            context,
            _runtime: runtime,
            deadline,
            ticks,
        })
    }
}

thread_local! {
    static CACHED: std::cell::RefCell<Option<Cached>> = const { std::cell::RefCell::new(None) };
}

/// Runs `body` (a function) with `args`. A trigger passes `item` (the request body for a
/// pre-trigger, the response body for a post-trigger); without `ctx` the collection is off
/// limits (pre-triggers only change the item).
fn run(
    ctx: Option<&mut ScriptContext<'_, '_, '_>>,
    id: &str,
    body: &str,
    args: &[Value],
    item: Option<Value>,
) -> Result<Outcome> {
    CACHED.with(|cell| {
        let Ok(mut slot) = cell.try_borrow_mut() else {
            // A script inside a script (not something the engine does today): a runtime of its own.
            let mut fresh = Cached::new().map_err(|e| js_setup(id, e))?;
            return run_in(&mut fresh, ctx, id, body, args, item);
        };
        if slot.is_none() {
            *slot = Some(Cached::new().map_err(|e| js_setup(id, e))?);
        }
        let cached = slot.as_mut().expect("just made");
        let out = run_in(cached, ctx, id, body, args, item);
        // After a stop or an exhausted heap, start the next call on a fresh runtime.
        if matches!(&out, Err(Error::RequestTimeout(_)))
            || matches!(&out, Err(e) if e.to_string().contains("out of memory"))
        {
            *slot = None;
        }
        out
    })
}

fn run_in(
    cached: &mut Cached,
    mut ctx: Option<&mut ScriptContext<'_, '_, '_>>,
    id: &str,
    body: &str,
    args: &[Value],
    item: Option<Value>,
) -> Result<Outcome> {
    let budget = ctx.as_ref().map(|c| c.budget).unwrap_or_default();
    let started = ctx.as_ref().map(|c| c.started).unwrap_or_else(Instant::now);
    let deadline = started + budget.max_duration;
    if let Ok(mut d) = cached.deadline.lock() {
        *d = deadline;
    }
    let post_trigger = ctx.is_some() && item.is_some();
    let ticks_before = cached.ticks.load(std::sync::atomic::Ordering::Relaxed);
    let key = xxhash_rust::xxh3::xxh3_64(body.as_bytes());
    let compiled = &mut cached.compiled;
    let outcome = cached.context.with(|js| -> Result<Outcome> {
        // The engine errors of failed operations, by the index their JavaScript error carries:
        // a script that rethrows one (`if (err) throw err;`) answers with that error's own
        // status (a 409 stays a 409), as the operation would have.
        let failures: std::cell::RefCell<Vec<Error>> = Default::default();
        let caught = |e: rquickjs::Error| script_error(id, &js, e, deadline, &failures);
        let globals = js.globals();
        let (self_link, alt_link) = match &ctx {
            Some(c) => (
                format!("dbs/{}/colls/{}/", c.def.database, c.def.id),
                format!("dbs/{}/colls/{}", c.def.database, c.def.id),
            ),
            None => (String::new(), String::new()),
        };
        let json = |v: &Option<Value>| v.as_ref().map(Value::to_string);
        let (request, response) = if post_trigger {
            (None, json(&item))
        } else {
            (json(&item), None)
        };
        // Accepting stops at 80% of the time budget (in the script's clock, Unix milliseconds)
        // and of the RU budget (prelude.js).
        let soft_deadline = std::time::SystemTime::now()
            + budget.max_duration.mul_f64(0.8).saturating_sub(started.elapsed());
        let soft_deadline_ms = soft_deadline
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_millis() as f64);
        let max_ru = ctx.as_ref().map(|c| c.budget.max_request_units);
        let begin: Function = globals.get("__begin").map_err(caught)?;
        begin
            .call::<_, ()>((
                self_link,
                alt_link,
                request,
                response,
                max_ru,
                ctx.as_ref().map(|_| soft_deadline_ms),
            ))
            .map_err(caught)?;
        let function = compile(&js, compiled, key, id, body, &caught)?;
        let result = (|| {
        let mut call_args = rquickjs::function::Args::new(js.clone(), args.len());
        for a in args {
            call_args
                .push_arg(js.json_parse(a.to_string()).map_err(caught)?)
                .map_err(caught)?;
        }
        function
            .call_arg::<rquickjs::Value>(call_args)
            .map_err(caught)?;
        // Run the queued operations in order, then their callbacks, until none are left.
        let take: Function = globals.get("__takeOps").map_err(caught)?;
        let complete: Function = globals.get("__complete").map_err(caught)?;
        let mut known = HashMap::new();
        loop {
            let text: String = take.call(()).map_err(caught)?;
            let ops: Vec<Op> = serde_json::from_str(&text)
                .map_err(|e| Error::bad("script", format!("script '{id}': {e}")))?;
            if ops.is_empty() {
                break;
            }
            for op in ops {
                let result = match ctx.as_deref_mut() {
                    Some(c) => perform(c, &op, &mut known),
                    None => Err(Error::bad(
                        "script",
                        format!("pre-trigger '{id}' cannot use the collection here; it may only change the request body"),
                    )),
                };
                let (err, res) = match result {
                    Ok(v) => (None, Some(v.to_string())),
                    // Budget overruns are not the script's to catch.
                    Err(e @ Error::RequestTimeout(_)) => return Err(e),
                    Err(e) => {
                        let mut f = failures.borrow_mut();
                        let err = serde_json::json!({
                            "number": e.status_code(), "message": e.to_string(), "index": f.len(),
                        });
                        f.push(e);
                        (Some(err.to_string()), None)
                    }
                };
                let spent = ctx.as_ref().map_or(0.0, |c| c.meter.charge());
                complete
                    .call::<_, ()>((op.id, err, res, spent))
                    .map_err(caught)?;
            }
        }
        let get = |name: &str| -> Result<Option<Value>> {
            let f: Function = globals.get(name).map_err(caught)?;
            let json: Option<String> = f.call(()).map_err(caught)?;
            json.map(|j| {
                serde_json::from_str(&j)
                    .map_err(|e| Error::bad("script", format!("script '{id}': {e}")))
            })
            .transpose()
        };
        Ok(Outcome {
            request: get("__requestBodyJson")?,
            response: get("__responseBodyJson")?,
        })
        })();
        // Clean up the script's stray globals; a failure here matters only if the call succeeded.
        let end = globals
            .get::<_, Function>("__end")
            .and_then(|end| end.call::<_, ()>(()));
        match (end, result) {
            (Err(e), Ok(_)) => Err(caught(e)),
            (Err(_), Err(first)) => {
                let _ = js.catch();
                Err(first)
            }
            (Ok(()), result) => result,
        }
    });
    // The first tick of a call is free: where QuickJS's countdown stands when a call starts
    // depends on the calls before it, so a short script costs nothing for its own code.
    let ticks = cached
        .ticks
        .load(std::sync::atomic::Ordering::Relaxed)
        .saturating_sub(ticks_before)
        .saturating_sub(1);
    if let Some(c) = ctx {
        c.meter.script_ticks += ticks;
    }
    outcome
}

/// One queued collection operation, on the transaction's logical partition.
fn perform(
    c: &mut ScriptContext<'_, '_, '_>,
    op: &Op,
    known: &mut HashMap<String, String>,
) -> Result<Value> {
    let arg = |i: usize| op.args.get(i).cloned().unwrap_or(Value::Null);
    let if_match = op
        .options
        .get("accessCondition")
        .filter(|a| a.get("type").and_then(Value::as_str) == Some("IfMatch"))
        .and_then(|a| a.get("condition"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let out = match op.kind.as_str() {
        "read" => {
            let id = resolve(c, &arg(0), known)?;
            c.read_item(&id)?.ok_or_else(|| Error::NotFound {
                what: format!("item '{id}'"),
            })?
        }
        "readAll" => Value::Array(c.read_all_items()?),
        "create" => c.create_item(with_id(arg(1), &op.options)?)?,
        "upsert" => c.upsert_item(with_id(arg(1), &op.options)?)?,
        "replace" => {
            let doc = arg(1);
            let id = match doc.get("id").and_then(Value::as_str) {
                Some(id) => id.to_owned(),
                None => resolve(c, &arg(0), known)?,
            };
            c.replace_item(&id, doc, if_match)?
        }
        "delete" => {
            let id = resolve(c, &arg(0), known)?;
            c.delete_item(&id)?;
            Value::Null
        }
        "query" => {
            let spec = arg(1);
            let sql = spec.get("query").and_then(Value::as_str).unwrap_or("");
            let params: Vec<(String, Value)> = spec
                .get("parameters")
                .and_then(Value::as_array)
                .map(|ps| {
                    ps.iter()
                        .filter_map(|p| {
                            Some((p.get("name")?.as_str()?.to_owned(), p.get("value")?.clone()))
                        })
                        .collect()
                })
                .unwrap_or_default();
            let refs: Vec<(&str, Value)> = params
                .iter()
                .map(|(k, v)| (k.as_str(), v.clone()))
                .collect();
            Value::Array(c.query(sql, &refs)?)
        }
        other => {
            return Err(Error::bad(
                "script",
                format!("unknown collection operation '{other}'"),
            ))
        }
    };
    remember(&out, known);
    Ok(out)
}

/// Records `_rid → id` of every item handed to the script, so the `_self` links it passes back
/// (`replaceDocument(doc._self, …)`) name their items.
fn remember(v: &Value, known: &mut HashMap<String, String>) {
    match v {
        Value::Array(items) => items.iter().for_each(|i| remember(i, known)),
        Value::Object(o) => {
            if let (Some(Value::String(rid)), Some(Value::String(id))) =
                (o.get("_rid"), o.get("id"))
            {
                known.insert(rid.clone(), id.clone());
            }
        }
        _ => {}
    }
}

/// The item id a document link names: `_self` (`docs/{rid}/`, of an item the script was given)
/// or the alt link `dbs/{db}/colls/{container}/docs/{id}`.
fn resolve(
    c: &mut ScriptContext<'_, '_, '_>,
    link: &Value,
    known: &HashMap<String, String>,
) -> Result<String> {
    let link = link
        .as_str()
        .ok_or_else(|| Error::bad("link", "a document link is a string"))?;
    let last = link.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    if let Some(id) = known.get(last) {
        return Ok(id.clone());
    }
    let alt = format!("dbs/{}/colls/{}/docs/", c.def.database, c.def.id);
    let id = link.trim_start_matches('/').strip_prefix(alt.as_str());
    match id {
        Some(id) if !id.trim_end_matches('/').is_empty() => Ok(id.trim_end_matches('/').to_owned()),
        _ => Err(Error::bad(
            "link",
            format!("'{link}' is neither the _self of an item this script read nor {alt}{{id}}"),
        )),
    }
}

/// Cosmos DB gives a document without an id a generated one, unless the script disables it.
fn with_id(mut doc: Value, options: &Value) -> Result<Value> {
    if let Value::Object(o) = &mut doc {
        if !o.contains_key("id") {
            if options.get("disableAutomaticIdGeneration") == Some(&Value::Bool(true)) {
                return Err(Error::bad(
                    "id",
                    "the document has no id and automatic id generation is disabled",
                ));
            }
            let n: u128 = rand::random();
            let s = format!("{n:032x}");
            let guid = format!(
                "{}-{}-{}-{}-{}",
                &s[..8],
                &s[8..12],
                &s[12..16],
                &s[16..20],
                &s[20..]
            );
            o.insert("id".into(), Value::String(guid));
        }
    }
    Ok(doc)
}

fn js_setup(id: &str, e: rquickjs::Error) -> Error {
    Error::Unavailable(format!(
        "script '{id}': the JavaScript runtime did not start: {e}"
    ))
}

/// A script's exception as Cosmos DB reports it (400 with the script's message), or, when the
/// interrupt stopped it, the budget's 408.
fn script_error(
    id: &str,
    js: &rquickjs::Ctx<'_>,
    e: rquickjs::Error,
    deadline: Instant,
    failures: &std::cell::RefCell<Vec<Error>>,
) -> Error {
    let message = match e {
        rquickjs::Error::Exception => {
            let v = js.catch();
            let index = v
                .as_object()
                .and_then(|o| o.get::<_, Option<f64>>("__failure").ok().flatten());
            if let Some(i) = index {
                let mut f = failures.borrow_mut();
                if (i as usize) < f.len() {
                    return std::mem::replace(&mut f[i as usize], Error::bad("script", "rethrown"));
                }
            }
            // Out of memory, QuickJS cannot even build its error: the exception is `null`.
            if v.is_null() {
                return Error::bad(
                    "script",
                    format!(
                        "script '{id}' ran out of memory (limit {} MB) or threw null; everything it did was rolled back",
                        MEMORY_LIMIT >> 20
                    ),
                );
            }
            exception_text(js, v)
        }
        other => other.to_string(),
    };
    if Instant::now() > deadline || message.contains("interrupted") {
        return Error::RequestTimeout(format!(
            "script '{id}' ran past its time budget and was stopped; everything it did was rolled back"
        ));
    }
    if message.contains("out of memory") {
        return Error::bad(
            "script",
            format!(
                "script '{id}' ran out of memory (limit {} MB); everything it did was rolled back",
                MEMORY_LIMIT >> 20
            ),
        );
    }
    Error::bad(
        "script",
        format!("Encountered exception while executing function '{id}'. Exception = {message}"),
    )
}

/// The pending exception as `Name: message` (or its JSON when a script threw a non-Error).
fn exception_text<'js>(js: &rquickjs::Ctx<'js>, v: rquickjs::Value<'js>) -> String {
    if let Some(x) = v.as_exception() {
        let name = x
            .get::<_, String>("name")
            .unwrap_or_else(|_| "Error".into());
        return format!("{name}: {}", x.message().unwrap_or_default());
    }
    js.json_stringify(v)
        .ok()
        .flatten()
        .and_then(|s| s.to_string().ok())
        .unwrap_or_else(|| "an exception".into())
}

/// Cosmos DB runs scripts as plain (sloppy-mode) JavaScript, as browsers run a `<script>`;
/// rquickjs evaluates in strict mode unless told otherwise.
fn sloppy() -> rquickjs::context::EvalOptions {
    let mut o = rquickjs::context::EvalOptions::default();
    o.strict = false;
    o
}

/// Calls `body` (a function) with `args` and returns what it returns: a user-defined function,
/// which has no collection and no response, only its value. Bounded like a procedure.
pub(crate) fn call_function(id: &str, body: &str, args: &[Option<Value>]) -> Result<Option<Value>> {
    CACHED.with(|cell| {
        let mut fresh = None;
        let mut slot = cell.try_borrow_mut().ok();
        let cached = match slot.as_deref_mut() {
            Some(s) => {
                if s.is_none() {
                    *s = Some(Cached::new().map_err(|e| js_setup(id, e))?);
                }
                s.as_mut().expect("just made")
            }
            None => fresh.insert(Cached::new().map_err(|e| js_setup(id, e))?),
        };
        let deadline = Instant::now() + super::ScriptBudget::default().max_duration;
        if let Ok(mut d) = cached.deadline.lock() {
            *d = deadline;
        }
        let key = xxhash_rust::xxh3::xxh3_64(body.as_bytes());
        let compiled = &mut cached.compiled;
        let out = cached.context.with(|js| -> Result<Option<Value>> {
            let failures = Default::default();
            let caught = |e: rquickjs::Error| script_error(id, &js, e, deadline, &failures);
            let function = compile(&js, compiled, key, id, body, &caught)?;
            let mut call_args = rquickjs::function::Args::new(js.clone(), args.len());
            for a in args {
                let v = match a {
                    Some(v) => js.json_parse(v.to_string()).map_err(caught)?,
                    None => rquickjs::Value::new_undefined(js.clone()),
                };
                call_args.push_arg(v).map_err(caught)?;
            }
            let result: rquickjs::Value = function.call_arg(call_args).map_err(caught)?;
            if result.is_undefined() {
                return Ok(None);
            }
            let json = js.json_stringify(result).map_err(caught)?;
            json.map(|s| {
                let s = s.to_string().map_err(caught)?;
                serde_json::from_str(&s).map_err(|e| Error::bad("udf", e.to_string()))
            })
            .transpose()
        });
        if matches!(&out, Err(Error::RequestTimeout(_))) {
            if let Some(s) = slot.as_deref_mut() {
                *s = None;
            }
        }
        out
    })
}

/// The function `body` defines, compiled once per text and kept by the runtime.
fn compile<'js>(
    js: &rquickjs::Ctx<'js>,
    compiled: &mut HashMap<u64, rquickjs::Persistent<Function<'static>>>,
    key: u64,
    id: &str,
    body: &str,
    caught: &dyn Fn(rquickjs::Error) -> Error,
) -> Result<Function<'js>> {
    if let Some(f) = compiled.get(&key) {
        return f.clone().restore(js).map_err(caught);
    }
    let f: Function = js
        .eval_with_options(format!("({body}\n)"), sloppy())
        .map_err(|e| match e {
            rquickjs::Error::Exception => {
                let _ = js.catch();
                Error::bad(
                    "body",
                    format!("script '{id}' is not a JavaScript function: it does not parse"),
                )
            }
            e => caught(e),
        })?;
    if compiled.len() >= 256 {
        compiled.clear();
    }
    compiled.insert(key, rquickjs::Persistent::save(js, f.clone()));
    Ok(f)
}
