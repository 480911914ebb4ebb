//! Post content is Markdown, rendered to HTML and then sanitized (ammonia's allow-list), so a
//! post can format text but never run script or inject markup into the page.

/// Deepest nesting of block quotes and indented blocks accepted in a post. pulldown-cmark's
/// time grows with nesting: 49 KB of `>` took 9 s to render.
pub const MAX_NESTING: usize = 16;

/// Err(message) when a line of `markdown` nests deeper than [`MAX_NESTING`].
pub fn check_nesting(markdown: &str) -> Result<(), String> {
    for (n, line) in markdown.lines().enumerate() {
        let mut depth = 0;
        let mut spaces = 0;
        for c in line.chars() {
            match c {
                '>' => depth += 1,
                ' ' => spaces += 1,
                '\t' => spaces += 4,
                _ => break,
            }
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
/// worker (every other request on that worker would wait).
pub async fn render(markdown: String) -> Result<String, sitekit::WebError> {
    actix_web::web::block(move || to_safe_html(&markdown))
        .await
        .map_err(|e| sitekit::WebError::Internal(format!("markdown: {e}")))
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

pub fn to_safe_html(markdown: &str) -> String {
    let parser = pulldown_cmark::Parser::new_ext(
        markdown,
        pulldown_cmark::Options::ENABLE_STRIKETHROUGH | pulldown_cmark::Options::ENABLE_TABLES,
    );
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, parser);
    ammonia::clean(&html)
}

#[cfg(test)]
mod tests {
    use super::{check_nesting, to_safe_html};

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
    fn markdown_renders_and_script_does_not() {
        let html = to_safe_html("# Hi\n\n**bold** <script>alert(1)</script> [x](javascript:alert(1)) <img src=x onerror=alert(1)>");
        assert!(html.contains("<h1>Hi</h1>"));
        assert!(html.contains("<strong>bold</strong>"));
        assert!(!html.contains("<script"));
        assert!(!html.contains("javascript:"));
        assert!(!html.contains("onerror"));
    }
}
