//! One call of a stored procedure or trigger: its database's hardened realm (`fresh.rs`), whose
//! prelude (`prelude.js`) gives it Cosmos DB's `getContext()` with state made new for the call,
//! the script's function called with its arguments, then the operations it queued performed in
//! order and their callbacks called, until none are left; then the realm is kept for the next
//! call or, when the call may have left something behind, retired.

use std::collections::HashMap;
use std::time::Instant;

use rquickjs::{Function, Object};
use serde_json::Value;

use super::collection::{perform, Op};
use super::compiled::Compiled;
use super::fresh::{self, Fresh};
use super::plain::{to_js, Plain};
use super::sandbox::{exception_text, script_error, setup_failed, Sandbox};
use crate::error::{Error, Result};
use crate::scripts::{PreTriggerCall, ScriptContext};

struct Outcome {
    request: Option<Value>,
    response: Option<Value>,
    /// What the script wrote with `console.log`.
    log: String,
    /// Whether the call left its realm as it found it (harden.js), so the realm may serve the
    /// database's next call.
    clean: bool,
}

/// A stored procedure: what it set as the response body.
pub(super) fn procedure(
    ctx: &mut ScriptContext<'_, '_, '_>,
    id: &str,
    body: &str,
    args: &[Value],
) -> Result<Value> {
    let out = run(Caller::Context(&mut *ctx), id, body, args, None)?;
    ctx.log = out.log;
    Ok(out.response.unwrap_or(Value::Null))
}

/// A pre-trigger: reads and may replace `getContext().getRequest().getBody()`.
/// Its CPU is charged to `pre`, whether it succeeds or fails.
pub(super) fn pre_trigger(
    pre: &mut PreTriggerCall,
    id: &str,
    body: &str,
    item: &mut Value,
) -> Result<()> {
    let out = run(Caller::Pre(pre), id, body, &[], Some(item.clone()))?;
    if let Some(changed) = out.request {
        *item = changed;
    }
    Ok(())
}

/// A post-trigger: sees the written item as `getContext().getResponse().getBody()` and works on
/// the collection in the same transaction; a throw rolls the write back.
pub(super) fn post_trigger(
    ctx: &mut ScriptContext<'_, '_, '_>,
    id: &str,
    body: &str,
    written: &Value,
) -> Result<()> {
    run(Caller::Context(ctx), id, body, &[], Some(written.clone())).map(|_| ())
}

/// Runs `body` (a function) with `args`. A trigger passes `item` (the request body for a
/// pre-trigger, the response body for a post-trigger); without `ctx` the collection is off
/// limits (pre-triggers only change the item).
fn run(
    caller: Caller<'_, '_, '_, '_>,
    id: &str,
    body: &str,
    args: &[Value],
    item: Option<Value>,
) -> Result<Outcome> {
    let (mut ctx, pre) = match caller {
        Caller::Context(c) => (Some(c), None),
        Caller::Pre(p) => (None, Some(p)),
    };
    let (budget, started, database) = match (&ctx, &pre) {
        (Some(c), _) => (c.budget, c.started, c.def.database.clone()),
        (None, Some(p)) => (p.budget, p.started, p.database.clone()),
        (None, None) => (Default::default(), Instant::now(), String::new()),
    };
    let mut fresh: Fresh = fresh::take(&database).map_err(|e| setup_failed(id, e))?;
    fresh.calls += 1;
    let sandbox = &fresh.sandbox;
    // Out of `fresh` while the realm runs the call (the code it holds stays values of the
    // realm), back before the realm is kept or retired.
    let mut compiled = std::mem::take(&mut fresh.compiled);
    let call = std::cell::RefCell::new(
        sandbox.begin_budgeted(started + budget.max_duration, budget.max_javascript),
    );
    let deadline = call.borrow().deadline;
    let outcome = fresh.realm.with(|js| {
        let failures = Default::default();
        let caught = |e: rquickjs::Error| script_error(id, &js, e, deadline, &failures);
        // The prelude hands its engine-side functions to the engine only: no global a script
        // could replace.
        let host: Object = fresh.host(&js).map_err(|e| setup_failed(id, e))?;
        let clean = fresh.clean(&js).map_err(|e| setup_failed(id, e))?;
        let run = Run {
            sandbox,
            compiled: &mut compiled,
            globals: fresh.globals,
            call: &call,
            id,
            body,
            args,
            item: &item,
            ctx: ctx.as_deref_mut(),
            budget,
            started,
            failures: &failures,
            caught: &caught,
        };
        run.go(&js, host, clean)
    });
    fresh.compiled = compiled;
    let mut call = call.into_inner();
    // The last stretch of JavaScript ends with the call, or with its failure.
    sandbox.leave(&mut call);
    let ticks = sandbox.ticks(&call);
    fresh::give_back(&database, fresh, matches!(&outcome, Ok(o) if o.clean));
    // Charged whether the call succeeded or not.
    match (ctx, pre) {
        (Some(c), _) => c.meter.script_ticks += ticks,
        (None, Some(p)) => p.meter.script_ticks += ticks,
        (None, None) => {}
    }
    match outcome {
        Err(Error::RequestTimeout(_)) if call.javascript_spent() => {
            Err(Error::RequestTimeout(format!(
                "script '{id}' ran its own JavaScript for more than {:?}, what one call may hold the engine's single writer for (its operations do not count); everything it did was rolled back",
                budget.max_javascript
            )))
        }
        outcome => outcome,
    }
}

/// Who runs a script: a procedure or post-trigger with its transaction's context, or a
/// pre-trigger, which only changes the request body.
enum Caller<'s, 'c, 'a, 't> {
    Context(&'s mut ScriptContext<'c, 'a, 't>),
    Pre(&'s mut PreTriggerCall),
}

struct Run<'r, 's, 'c, 'a, 't> {
    sandbox: &'r Sandbox,
    /// The code of the scripts the realm ran.
    compiled: &'r mut Compiled,
    /// The hardened global object's own property count.
    globals: u32,
    call: &'r std::cell::RefCell<super::sandbox::Call>,
    id: &'r str,
    body: &'r str,
    args: &'r [Value],
    item: &'r Option<Value>,
    ctx: Option<&'s mut ScriptContext<'c, 'a, 't>>,
    budget: crate::scripts::ScriptBudget,
    started: Instant,
    /// The engine errors of failed operations, by the index their JavaScript error carries: a
    /// script that rethrows one (`if (err) throw err;`) answers with that error's own status (a
    /// 409 stays a 409), as the operation would have.
    failures: &'r std::cell::RefCell<Vec<Error>>,
    caught: &'r dyn Fn(rquickjs::Error) -> Error,
}

impl Run<'_, '_, '_, '_, '_> {
    /// Runs `f`, a stretch of the script's own JavaScript, counted against its budget. The
    /// count runs on until an operation is performed ([`Run::pause`]) or the call ends
    /// (`run`): the engine's few steps between two stretches count as the script's, and the
    /// clocks are read twice per operation instead of twice per stretch.
    fn javascript<T>(&self, f: impl FnOnce() -> T) -> T {
        self.sandbox.enter();
        f()
    }

    /// Stops the count of the script's JavaScript: an operation runs now, in the engine, or
    /// the call's own after-call check.
    fn pause(&self) {
        self.sandbox.leave(&mut self.call.borrow_mut());
    }

    fn go<'js>(
        mut self,
        js: &rquickjs::Ctx<'js>,
        host: Object<'js>,
        clean: Function<'js>,
    ) -> Result<Outcome> {
        let caught = self.caught;
        let id = self.id;
        let host_fn = |name: &str| host.get::<_, Function>(name).map_err(caught);
        let (self_link, alt_link) = match &self.ctx {
            Some(c) => (
                format!("dbs/{}/colls/{}/", c.def.database, c.def.id),
                format!("dbs/{}/colls/{}", c.def.database, c.def.id),
            ),
            None => (String::new(), String::new()),
        };
        let json = |v: &Option<Value>| v.as_ref().map(Value::to_string);
        let post_trigger = self.ctx.is_some() && self.item.is_some();
        let (request, response) = if post_trigger {
            let request = self.ctx.as_ref().and_then(|c| c.request.clone());
            (json(&request), json(self.item))
        } else {
            (json(self.item), None)
        };
        // Accepting stops at 80% of the time budget (in the script's clock, Unix milliseconds)
        // and of the RU budget (prelude.js).
        let soft_deadline = std::time::SystemTime::now()
            + self
                .budget
                .max_duration
                .mul_f64(0.8)
                .saturating_sub(self.started.elapsed());
        let soft_deadline_ms = soft_deadline
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_millis() as f64);
        let max_ru = self.ctx.as_ref().map(|c| c.budget.max_request_units);
        host_fn("begin")?
            .call::<_, ()>((
                self_link,
                alt_link,
                request,
                response,
                max_ru,
                self.ctx.as_ref().map(|_| soft_deadline_ms),
            ))
            .map_err(caught)?;
        let function: Function = self
            .compiled
            .function(js, self.body)
            .and_then(Function::from_value)
            .map_err(|e| match e {
                rquickjs::Error::Exception => {
                    let detail = exception_text(js, js.catch());
                    Error::bad(
                        "body",
                        format!("script '{id}' is not a JavaScript function: {detail}"),
                    )
                }
                e => caught(e),
            })?;
        let mut call_args = rquickjs::function::Args::new(js.clone(), self.args.len());
        for a in self.args {
            call_args
                .push_arg(to_js(js, a).map_err(caught)?)
                .map_err(caught)?;
        }
        self.javascript(|| function.call_arg::<rquickjs::Value>(call_args))
            .map_err(caught)?;
        // Run the queued operations in order, then their callbacks, until none are left.
        let take = host_fn("takeOps")?;
        let complete = host_fn("complete")?;
        let stringify = host_fn("json")?;
        let plain = Plain::of(js).map_err(caught)?;
        let mut known = HashMap::new();
        let mut queued = true;
        while queued {
            let queue: rquickjs::Value = self.javascript(|| take.call(())).map_err(caught)?;
            // Plain data is read as it is; anything else as JSON.stringify writes it.
            let ops = match self.javascript(|| plain.ops(&queue)).map_err(caught)? {
                Some(ops) => ops,
                None => {
                    let text: String = self
                        .javascript(|| stringify.call((queue,)))
                        .map_err(caught)?;
                    serde_json::from_str(&text)
                        .map_err(|e| e.to_string())
                        .and_then(Op::list)
                        .map_err(|e| Error::bad("script", format!("script '{id}': {e}")))?
                }
            };
            queued = false;
            for op in ops {
                let (op_id, cb) = (op.id, op.cb);
                self.pause();
                let result = match self.ctx.as_deref_mut() {
                    Some(c) => perform(c, op, &mut known),
                    None => Err(Error::bad(
                        "script",
                        format!("pre-trigger '{id}' cannot use the collection here; it may only change the request body"),
                    )),
                };
                // What an operation read is handed in parsed, outside the script's budget:
                // its size is the operation's cost, not the script's. Without a callback
                // nothing would receive it.
                let (err, res, continuation) = match result {
                    Ok(done) if cb => (
                        None,
                        Some(to_js(js, &done.resource).map_err(caught)?),
                        done.continuation,
                    ),
                    Ok(done) => (None, None, done.continuation),
                    // Budget overruns are not the script's to catch.
                    Err(e @ Error::RequestTimeout(_)) => return Err(e),
                    Err(e) => {
                        let mut f = self.failures.borrow_mut();
                        let err = serde_json::json!({
                            "number": e.status_code(), "message": e.to_string(), "index": f.len(),
                        });
                        f.push(e);
                        (Some(err.to_string()), None, None)
                    }
                };
                let spent = self.ctx.as_ref().map_or(0.0, |c| c.meter.charge());
                // How many operations the callbacks so far have queued.
                let pending: f64 = self
                    .javascript(|| complete.call((op_id, err, res, spent, continuation)))
                    .map_err(caught)?;
                queued = pending > 0.0;
            }
        }
        // The bodies and the log, in one object: a body that is absent stays absent (a
        // pre-trigger that left the request alone), one set to null is null.
        let finish = host_fn("finish")?;
        let finished: rquickjs::Value = self.javascript(|| finish.call(())).map_err(caught)?;
        let out = match self.javascript(|| plain.read(&finished)).map_err(caught)? {
            Some(Value::Object(out)) => Ok(out),
            _ => {
                let text: String = self
                    .javascript(|| stringify.call((finished,)))
                    .map_err(caught)?;
                serde_json::from_str(&text)
            }
        };
        let mut out: serde_json::Map<String, Value> =
            out.map_err(|e| Error::bad("script", format!("script '{id}': {e}")))?;
        let log = match out.remove("log") {
            Some(Value::String(log)) => log,
            _ => String::new(),
        };
        self.pause();
        let compiled = out.remove("compiled") != Some(Value::Bool(false));
        let added = super::fresh::global_keys(js) != Some(self.globals);
        let clean: bool = clean.call((compiled, added)).map_err(caught)?;
        Ok(Outcome {
            request: out.remove("request"),
            response: out.remove("response"),
            log,
            clean,
        })
    }
}
