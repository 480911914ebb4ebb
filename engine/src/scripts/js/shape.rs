//! Is a script's text one function expression, as Cosmos DB stores a script? Checked when a
//! script is created or loaded, without letting its text run for long:
//!
//! 1. It compiles (QuickJS's compile-only mode: nothing runs) both as `( text )` and as
//!    `[ text ]`. A text that closes the bracket around it to smuggle in code of its own —
//!    `function a(){}) , (function(){ while(true){} })(), (function b(){}` — cannot be valid in
//!    both, so it is refused before anything runs.
//! 2. What is left is an expression, possibly with more than the function in it
//!    (`function(){}, loop()`). It is evaluated in a throw-away realm under [`CHECK_BUDGET`]
//!    and the heap cap: a function expression evaluates in microseconds; anything that loops
//!    or allocates is stopped. The value must be a function whose own source text (taken with
//!    the realm's original `Function.prototype.toString`, before the text ran) is the whole
//!    text, comments and white space aside.

use std::time::{Duration, Instant};

use rquickjs::{Ctx, Function};

use super::sandbox::{exception_text, setup_failed, sloppy, with_sandbox, MEMORY_LIMIT};
use crate::error::{Error, Result};

/// How long evaluating a script's text may take when it is checked.
pub const CHECK_BUDGET: Duration = Duration::from_millis(250);

const ONE_FUNCTION: &str =
    "the script must be one function expression: function name(args) { ... }";

pub(super) fn check(body: &str) -> Result<()> {
    if body.contains('\0') {
        return Err(Error::bad("body", "the script contains a NUL character"));
    }
    with_sandbox("", |sandbox| {
        let realm = sandbox.realm().map_err(|e| setup_failed("", e))?;
        let call = sandbox.begin(Instant::now() + CHECK_BUDGET);
        realm.with(|js| {
            let source = format!("({body}\n)");
            compiles(&js, &source)
                .map_err(|e| bad(format!("the script does not parse: {e}")))?;
            compiles(&js, &format!("[{body}\n]")).map_err(|_| {
                bad(format!(
                    "{ONE_FUNCTION}; this text closes the parenthesis around it"
                ))
            })?;
            let to_string: Function = js
                .eval("Function.prototype.toString")
                .map_err(|e| setup_failed("", e))?;
            let value: rquickjs::Value = js.eval_with_options(source, sloppy()).map_err(|e| {
                let detail = match e {
                    rquickjs::Error::Exception => exception_text(&js, js.catch()),
                    e => e.to_string(),
                };
                if std::time::Instant::now() > call.deadline || detail.contains("interrupted") {
                    bad(format!(
                        "{ONE_FUNCTION}; evaluating this text ran code for more than {CHECK_BUDGET:?}"
                    ))
                } else if detail == "null" || detail.contains("out of memory") {
                    // "out of memory" also tells the sandbox to start the next call afresh.
                    bad(format!(
                        "{ONE_FUNCTION}; evaluating this text ran out of memory (limit {} MB)",
                        MEMORY_LIMIT >> 20
                    ))
                } else {
                    bad(format!("{ONE_FUNCTION}; evaluating this text threw {detail}"))
                }
            })?;
            if !value.is_function() {
                return Err(bad(ONE_FUNCTION.to_owned()));
            }
            let own: String = to_string
                .call((rquickjs::function::This(value),))
                .map_err(|e| setup_failed("", e))?;
            if !is_whole_text(body, &own) {
                return Err(bad(format!(
                    "{ONE_FUNCTION}; this text has more in it than the function"
                )));
            }
            Ok(())
        })
    })
}

fn bad(message: String) -> Error {
    Error::bad("body", message)
}

/// Compiles `source` as a global script without running it; the syntax error if it does not.
fn compiles(js: &Ctx<'_>, source: &str) -> std::result::Result<(), String> {
    super::compiled::compile(js, source, false)
        .map(drop)
        .map_err(|_| exception_text(js, js.catch()))
}

/// Whether `own` (a function's source text) is all of `text` but comments and white space.
fn is_whole_text(text: &str, own: &str) -> bool {
    text.match_indices(own)
        .any(|(at, _)| only_comments(&text[..at]) && only_comments(&text[at + own.len()..]))
}

fn only_comments(mut s: &str) -> bool {
    loop {
        s = s.trim_start();
        if s.is_empty() {
            return true;
        }
        if let Some(rest) = s.strip_prefix("//") {
            s = rest.split_once('\n').map_or("", |(_, after)| after);
        } else if let Some(rest) = s.strip_prefix("/*") {
            match rest.split_once("*/") {
                Some((_, after)) => s = after,
                None => return false,
            }
        } else {
            return false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_space_only() {
        assert!(only_comments("  // a\n /* b */\n"));
        assert!(!only_comments("/* open"));
        assert!(!only_comments("x = "));
        assert!(is_whole_text(
            "// doc\nfunction f() {}\n",
            "function f() {}"
        ));
        assert!(!is_whole_text("function f() {}, g()", "function f() {}"));
    }
}
