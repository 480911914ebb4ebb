//! Post content is Markdown, rendered to HTML and then sanitized (ammonia's allow-list), so a
//! post can format text but never run script or inject markup into the page.
//!
//! What rendering may cost is bounded whatever the Markdown: nesting is checked before parsing
//! ([`check_nesting`]: block quotes, list markers, indentation), and the render itself counts
//! what it produces ([`MAX_EVENTS`], [`MAX_HTML`]) against a time budget ([`RENDER_BUDGET`]), off
//! the async workers. A post past a limit is a 400 naming it. A render whose request is gone (the
//! client hung up: the server drops the handler's future) stops at its next batch of events
//! rather than running on to its budget with nobody waiting.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Deepest nesting of block quotes, list items and indented blocks accepted in a post.
/// pulldown-cmark's time grows with nesting: 49 KB of `>` took 9 s to render, and 50 KB of
/// `- ` (a list in a list, 25 000 deep) 11.5 s.
pub const MAX_NESTING: usize = 16;

/// Most parser events a post may make (text runs, emphasis, cells...): a 50 KB post of prose
/// makes a few thousand; tables pad short rows to the header's width, so a few KB could ask for
/// millions of cells.
pub const MAX_EVENTS: usize = 200_000;

/// Largest HTML a post may render to.
pub const MAX_HTML: usize = 1_000_000;

/// Longest a render may take (it runs on the blocking pool, where nothing can interrupt it: it
/// checks its budget, and whether its request is still there, between batches of events).
pub const RENDER_BUDGET: Duration = Duration::from_millis(500);

/// Renders stopped because their request was dropped (see [`renders_abandoned`]).
static ABANDONED: AtomicU64 = AtomicU64::new(0);

/// How many renders stopped early because the request that asked for them was gone.
pub fn renders_abandoned() -> u64 {
    ABANDONED.load(Ordering::Relaxed)
}

/// Set when the future awaiting a render is dropped (the request is gone), read by the render
/// on the blocking pool between batches.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Why a render stopped early.
enum Stopped {
    /// Past a limit: the message names it.
    Limit(String),
    /// Nobody waits for it any more.
    Abandoned,
}

/// Runs `render` (given the cancel flag) on the blocking pool; dropping the returned future
/// sets the flag.
async fn off_the_workers<R: Send + 'static>(
    render: impl FnOnce(&AtomicBool) -> R + Send + 'static,
) -> Result<R, sitekit::WebError> {
    let cancelled = Arc::new(AtomicBool::new(false));
    let _on_drop = CancelOnDrop(cancelled.clone());
    actix_web::web::block(move || render(&cancelled))
        .await
        .map_err(|e| sitekit::WebError::Internal(format!("markdown: {e}")))
}

/// The list item marker at the start of `b`, if any (`-`, `*`, `+`, or up to nine digits and
/// `.` or `)`, followed by a space, a tab or the end of the line): its length.
fn list_marker(b: &[u8]) -> Option<usize> {
    let len = match b.first()? {
        b'-' | b'*' | b'+' => 1,
        c if c.is_ascii_digit() => {
            let digits = b.iter().take(10).take_while(|c| c.is_ascii_digit()).count();
            if digits > 9 || !matches!(b.get(digits), Some(b'.' | b')')) {
                return None;
            }
            digits + 1
        }
        _ => return None,
    };
    matches!(b.get(len), None | Some(b' ' | b'\t')).then_some(len)
}

/// Err(message) when a line of `markdown` nests deeper than [`MAX_NESTING`]: block quotes
/// (`>`), list items opened on the line (`- - -`, `1. 1.`) and indentation (4 columns a level).
pub fn check_nesting(markdown: &str) -> Result<(), String> {
    for (n, line) in markdown.lines().enumerate() {
        let b = line.as_bytes();
        let (mut depth, mut spaces, mut i) = (0, 0, 0);
        while i < b.len() && depth + spaces / 4 <= MAX_NESTING {
            match b[i] {
                b'>' => depth += 1,
                b' ' => spaces += 1,
                b'\t' => spaces += 4,
                _ => match list_marker(&b[i..]) {
                    Some(len) => {
                        depth += 1;
                        i += len - 1;
                    }
                    None => break,
                },
            }
            i += 1;
        }
        if depth + spaces / 4 > MAX_NESTING {
            return Err(format!(
                "nests deeper than {MAX_NESTING} levels (line {})",
                n + 1
            ));
        }
    }
    Ok(())
}

/// The Markdown extensions posts and comments are rendered with (and excerpts read with).
const OPTIONS: pulldown_cmark::Options =
    pulldown_cmark::Options::ENABLE_STRIKETHROUGH.union(pulldown_cmark::Options::ENABLE_TABLES);

/// Comments rendered as posts are (the same sanitizer), on the blocking pool in one go. A
/// stored comment past a limit (written before comments were Markdown) shows as escaped text
/// rather than failing the page.
pub async fn render_comments(comments: Vec<String>) -> Result<Vec<String>, sitekit::WebError> {
    off_the_workers(move |cancelled| {
        let mut html = Vec::with_capacity(comments.len());
        for c in &comments {
            match render_until(c, cancelled, |_| {}) {
                Ok(h) => html.push(h),
                Err(Stopped::Limit(_)) => html.push(escape_text(c)),
                // Nobody will see the page: stop here.
                Err(Stopped::Abandoned) => break,
            }
        }
        html
    })
    .await
}

/// `text` as an HTML paragraph of plain text.
fn escape_text(text: &str) -> String {
    format!("<p>{}</p>", ammonia::clean_text(text))
}

/// [`to_safe_html`] on the blocking pool: rendering is CPU work that must not hold an async
/// worker (every other request on that worker would wait). A post past a limit is a 400.
pub async fn render(markdown: String) -> Result<String, sitekit::WebError> {
    render_watched(markdown, |_| {}).await
}

/// [`render`], calling `after_batch(n)` after the `n`-th batch of events is rendered (the tests
/// count batches with it).
async fn render_watched(
    markdown: String,
    after_batch: impl FnMut(usize) + Send + 'static,
) -> Result<String, sitekit::WebError> {
    match off_the_workers(move |cancelled| render_until(&markdown, cancelled, after_batch)).await? {
        Ok(html) => Ok(html),
        Err(Stopped::Limit(m)) => Err(sitekit::WebError::BadRequest(m)),
        // Unseen: the request's future is gone.
        Err(Stopped::Abandoned) => Err(sitekit::WebError::Internal("render abandoned".into())),
    }
}

/// Plain text of the start of `markdown`, at most `max` characters (an ellipsis when cut): what
/// a listing shows of a post. Only the first few KB are parsed (the excerpt needs no more), so
/// its cost is bounded whatever the post's length; the text is escaped where it is shown.
/// It is parsed with the options the post is rendered with, so a table is its cells' text (not
/// pipes), and each block and list item ends a sentence rather than running into the next.
pub fn excerpt(markdown: &str, max: usize) -> String {
    use pulldown_cmark::{Event, Parser, TagEnd};
    let head: String = markdown.chars().take(max * 8).collect();
    let mut text = String::new();
    for event in Parser::new_ext(&head, OPTIONS) {
        match event {
            Event::Text(t) | Event::Code(t) => text.push_str(&t),
            Event::SoftBreak | Event::HardBreak => text.push(' '),
            Event::End(TagEnd::TableCell) => text.push(CELL_END),
            Event::End(
                TagEnd::Paragraph
                | TagEnd::Heading(_)
                | TagEnd::Item
                | TagEnd::CodeBlock
                | TagEnd::TableHead
                | TagEnd::TableRow,
            ) => text.push(BLOCK_END),
            _ => {}
        }
        if text.chars().count() > max {
            break;
        }
    }
    let text = punctuate(&text);
    if text.chars().count() > max || head.len() < markdown.len() {
        let mut cut: String = text.chars().take(max).collect();
        cut.push('…');
        cut
    } else {
        text
    }
}

/// Marks where a block (paragraph, heading, list item, table row) and a table cell end.
const BLOCK_END: char = '\u{1}';
const CELL_END: char = '\u{2}';

/// The excerpt's text with its marks made punctuation: a block ends a sentence (a "." unless
/// its text already ends one), cells are separated by " · ", nothing trails.
fn punctuate(marked: &str) -> String {
    let mut out = String::with_capacity(marked.len());
    let mut pending: Option<char> = None;
    for word in marked.split_whitespace() {
        for piece in word.split_inclusive([BLOCK_END, CELL_END]) {
            let mark = piece
                .chars()
                .last()
                .filter(|c| matches!(*c, BLOCK_END | CELL_END));
            let piece = piece.trim_end_matches([BLOCK_END, CELL_END]);
            if !piece.is_empty() {
                match pending.take() {
                    Some(BLOCK_END) if !out.ends_with(['.', '!', '?', ':', ';', '…']) => {
                        out.push_str(". ")
                    }
                    Some(CELL_END) => out.push_str(" · "),
                    Some(_) => out.push(' '),
                    None if !out.is_empty() && !out.ends_with(' ') => out.push(' '),
                    None => {}
                }
                out.push_str(piece);
            }
            // A block's end wins over a cell's (the last cell of a row).
            if let Some(m) = mark {
                if out.is_empty() {
                    continue;
                }
                out.truncate(out.trim_end().len());
                pending = match (pending, m) {
                    (Some(BLOCK_END), _) => Some(BLOCK_END),
                    _ => Some(m),
                };
            }
        }
        if pending.is_none() && !out.is_empty() && !out.ends_with(' ') {
            out.push(' ');
        }
    }
    out.trim_end().to_owned()
}

/// Sanitized HTML of `markdown`, or Err(message naming the limit) past [`MAX_NESTING`],
/// [`MAX_EVENTS`], [`MAX_HTML`] or [`RENDER_BUDGET`].
pub fn to_safe_html(markdown: &str) -> Result<String, String> {
    render_until(markdown, &AtomicBool::new(false), |_| {}).map_err(|e| match e {
        Stopped::Limit(m) => m,
        // Nothing sets this render's flag.
        Stopped::Abandoned => "abandoned".into(),
    })
}

/// [`to_safe_html`], stopping after the batch during which `cancelled` was set.
fn render_until(
    markdown: &str,
    cancelled: &AtomicBool,
    mut after_batch: impl FnMut(usize),
) -> Result<String, Stopped> {
    check_nesting(markdown).map_err(Stopped::Limit)?;
    let started = Instant::now();
    let too_complex = |what: String| Stopped::Limit(format!("is too complex to render ({what})"));
    let parser = pulldown_cmark::Parser::new_ext(markdown, OPTIONS);
    let mut html = String::new();
    let mut events = Vec::with_capacity(1024);
    let (mut total, mut batches) = (0, 0);
    let mut parser = parser.peekable();
    while parser.peek().is_some() {
        // Rendered a thousand events at a time, each batch checked.
        events.extend(parser.by_ref().take(1024));
        total += events.len();
        pulldown_cmark::html::push_html(&mut html, events.drain(..));
        batches += 1;
        after_batch(batches);
        if cancelled.load(Ordering::Relaxed) {
            ABANDONED.fetch_add(1, Ordering::Relaxed);
            return Err(Stopped::Abandoned);
        }
        if total > MAX_EVENTS {
            return Err(too_complex(format!("more than {MAX_EVENTS} elements")));
        }
        if html.len() > MAX_HTML {
            return Err(too_complex(format!("more than {MAX_HTML} bytes of HTML")));
        }
        if started.elapsed() > RENDER_BUDGET {
            return Err(too_complex(format!(
                "more than {} ms",
                RENDER_BUDGET.as_millis()
            )));
        }
    }
    Ok(ammonia::clean(&html))
}

#[cfg(test)]
mod tests {
    use super::{check_nesting, to_safe_html, RENDER_BUDGET};

    #[test]
    fn excerpts_are_plain_text() {
        let e = super::excerpt("# Hello\n\n**bold** and <script>x</script> `code`", 280);
        assert_eq!(e, "Hello. bold and x code");
        let long = super::excerpt(&"word ".repeat(200), 20);
        assert_eq!(long.chars().count(), 21);
        assert!(long.ends_with('…'));
    }

    #[test]
    fn excerpts_read_tables_and_lists_as_rendered() {
        let table = super::excerpt("| a | b |\n|---|---|\n| 1 | 2 |\n\nAfter", 280);
        assert_eq!(table, "a · b. 1 · 2. After");
        let list = super::excerpt("Pack:\n\n- a tent\n- *two* bags!\n- `stove`\n\nGo.", 280);
        assert_eq!(list, "Pack: a tent. two bags! stove. Go.");
        let code = super::excerpt("Run\n\n```\nengine serve\n```\n\n> quoted", 280);
        assert_eq!(code, "Run. engine serve. quoted");
    }

    #[test]
    fn comments_render_as_posts_do() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let html = rt
            .block_on(super::render_comments(vec![
                "*x* and <script>alert(1)</script>".into(),
                format!("{}x", ">".repeat(40)),
            ]))
            .unwrap();
        assert_eq!(html[0].trim(), "<p><em>x</em> and </p>");
        // Too deep to render: the text, escaped.
        assert!(html[1].starts_with("<p>&gt;&gt;"), "{}", html[1]);
    }

    #[test]
    fn deep_nesting_is_refused_with_the_line() {
        assert!(check_nesting("> a\n>> b\n    code").is_ok());
        let deep = format!("ok\n{}", ">".repeat(17));
        assert_eq!(
            check_nesting(&deep).unwrap_err(),
            "nests deeper than 16 levels (line 2)"
        );
        assert!(check_nesting(&format!("{}x", " ".repeat(80))).is_err());
    }

    #[test]
    fn list_markers_count_as_nesting() {
        assert!(check_nesting("- a\n- b\n  - c\n1. one\n2) two\n- - - x").is_ok());
        let bomb = "- ".repeat(24_999);
        let started = std::time::Instant::now();
        assert_eq!(
            to_safe_html(&bomb).unwrap_err(),
            "nests deeper than 16 levels (line 1)"
        );
        assert!(check_nesting(&"1. ".repeat(20)).is_err());
        assert!(check_nesting(&"> * ".repeat(9)).is_err());
        assert!(started.elapsed() < std::time::Duration::from_millis(100));
        // Not list markers: a rule, emphasis, a number.
        assert!(check_nesting(&format!("{}\n*a* **b**\n1999. x", "-".repeat(100))).is_ok());
    }

    #[test]
    fn the_render_counts_what_it_makes() {
        // Past the post's size limit, as a check of the count itself: 240 000 elements.
        let many = "*a* ".repeat(60_000);
        let started = std::time::Instant::now();
        let refused = to_safe_html(&many).map(|h| h.len());
        assert_eq!(
            refused,
            Err("is too complex to render (more than 200000 elements)".into())
        );
        assert!(
            started.elapsed() < RENDER_BUDGET * 4,
            "{:?}",
            started.elapsed()
        );
    }

    /// A render whose request is dropped stops at its next batch, counted: not at its budget,
    /// not at the end. The render pauses after its first batch until the future awaiting it is
    /// dropped, so the count does not depend on timing.
    #[test]
    fn a_render_whose_request_is_dropped_stops_at_its_next_batch() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        use std::sync::{mpsc, Arc};
        // 36 000 events: about 36 batches, well within the limits.
        let post = "*a* ".repeat(12_000);
        let mut full = 0;
        super::render_until(&post, &Default::default(), |n| full = n)
            .ok()
            .unwrap();
        assert!(full > 30, "{full} batches");

        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let (started, started_rx) = mpsc::channel();
        let (go, go_rx) = mpsc::channel::<()>();
        let done = Arc::new(AtomicUsize::new(0));
        let seen = done.clone();
        let abandoned = super::renders_abandoned();
        rt.block_on(async {
            let mut request = Box::pin(super::render_watched(post, move |n| {
                seen.store(n, Ordering::SeqCst);
                if n == 1 {
                    started.send(()).unwrap();
                    let _ = go_rx.recv();
                }
            }));
            assert!(futures_util::poll!(request.as_mut()).is_pending());
            started_rx.recv().unwrap();
            // The client hung up: the server drops the handler's future, and with it this one.
            drop(request);
            go.send(()).unwrap();
        });
        // The hook (and its sender) is dropped when the render returns.
        assert!(started_rx.recv().is_err());
        assert_eq!(done.load(Ordering::SeqCst), 1, "batches rendered of {full}");
        assert!(super::renders_abandoned() > abandoned);
    }

    #[test]
    fn markdown_renders_and_script_does_not() {
        let html = to_safe_html("# Hi\n\n**bold** <script>alert(1)</script> [x](javascript:alert(1)) <img src=x onerror=alert(1)>").unwrap();
        assert!(html.contains("<h1>Hi</h1>"));
        assert!(html.contains("<strong>bold</strong>"));
        assert!(!html.contains("<script"));
        assert!(!html.contains("javascript:"));
        assert!(!html.contains("onerror"));
    }
}
