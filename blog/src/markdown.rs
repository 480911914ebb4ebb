//! Post content is Markdown, rendered to HTML and then sanitized (ammonia's allow-list), so a
//! post can format text but never run script or inject markup into the page.
//!
//! What rendering may cost is bounded whatever the Markdown: nesting is checked before parsing
//! ([`check_nesting`]: block quotes, list markers, indentation), and the render itself counts
//! what it produces ([`MAX_EVENTS`], [`MAX_HTML`]) against a time budget ([`RENDER_BUDGET`]), off
//! the async workers. A post past a limit is a 400 naming it.

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

/// Longest a render may take (it runs on the blocking pool, so a request hung up on still
/// renders; this bounds for how long).
pub const RENDER_BUDGET: Duration = Duration::from_millis(500);

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

/// [`to_safe_html`] on the blocking pool: rendering is CPU work that must not hold an async
/// worker (every other request on that worker would wait). A post past a limit is a 400.
pub async fn render(markdown: String) -> Result<String, sitekit::WebError> {
    actix_web::web::block(move || to_safe_html(&markdown))
        .await
        .map_err(|e| sitekit::WebError::Internal(format!("markdown: {e}")))?
        .map_err(sitekit::WebError::BadRequest)
}

/// Plain text of the start of `markdown`, at most `max` characters (an ellipsis when cut): what
/// a listing shows of a post. Only the first few KB are parsed (the excerpt needs no more), so
/// its cost is bounded whatever the post's length; the text is escaped where it is shown.
pub fn excerpt(markdown: &str, max: usize) -> String {
    use pulldown_cmark::{Event, Parser, TagEnd};
    let head: String = markdown.chars().take(max * 8).collect();
    let mut text = String::new();
    for event in Parser::new(&head) {
        match event {
            Event::Text(t) | Event::Code(t) => text.push_str(&t),
            Event::SoftBreak | Event::HardBreak => text.push(' '),
            Event::End(TagEnd::Paragraph | TagEnd::Heading(_) | TagEnd::Item) => text.push(' '),
            _ => {}
        }
        if text.chars().count() > max {
            break;
        }
    }
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.chars().count() > max || head.len() < markdown.len() {
        let mut cut: String = text.chars().take(max).collect();
        cut.push('…');
        cut
    } else {
        text
    }
}

/// Sanitized HTML of `markdown`, or Err(message naming the limit) past [`MAX_NESTING`],
/// [`MAX_EVENTS`], [`MAX_HTML`] or [`RENDER_BUDGET`].
pub fn to_safe_html(markdown: &str) -> Result<String, String> {
    check_nesting(markdown)?;
    let started = Instant::now();
    let too_complex = |what: String| format!("is too complex to render ({what})");
    let parser = pulldown_cmark::Parser::new_ext(
        markdown,
        pulldown_cmark::Options::ENABLE_STRIKETHROUGH | pulldown_cmark::Options::ENABLE_TABLES,
    );
    let mut html = String::new();
    let mut events = Vec::with_capacity(1024);
    let mut total = 0;
    let mut parser = parser.peekable();
    while parser.peek().is_some() {
        // Rendered a thousand events at a time, each batch checked.
        events.extend(parser.by_ref().take(1024));
        total += events.len();
        pulldown_cmark::html::push_html(&mut html, events.drain(..));
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
        assert_eq!(e, "Hello bold and x code");
        let long = super::excerpt(&"word ".repeat(200), 20);
        assert_eq!(long.chars().count(), 21);
        assert!(long.ends_with('…'));
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
