//! Post content is Markdown, rendered to HTML and then sanitized (ammonia's allow-list), so a
//! post can format text but never run script or inject markup into the page.

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
    use super::to_safe_html;

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
