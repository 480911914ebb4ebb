//! Tokens of the Cosmos DB NoSQL query language. Every token keeps its byte span; positions
//! become line:column only when an error is reported.

use super::error::QueryError;

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Ident(String),
    /// A keyword, upper-cased (SELECT, FROM, ...).
    Keyword(&'static str),
    Param(String),
    Str(String),
    Num(f64),
    Sym(&'static str),
    Eof,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub tok: Tok,
    pub start: usize,
    pub end: usize,
}

const KEYWORDS: &[&str] = &[
    "SELECT",
    "FROM",
    "WHERE",
    "AND",
    "OR",
    "NOT",
    "IN",
    "BETWEEN",
    "LIKE",
    "ESCAPE",
    "ORDER",
    "BY",
    "ASC",
    "DESC",
    "TOP",
    "VALUE",
    "DISTINCT",
    "AS",
    "JOIN",
    "OFFSET",
    "LIMIT",
    "GROUP",
    "EXISTS",
    "ARRAY",
    "TRUE",
    "FALSE",
    "NULL",
    "UNDEFINED",
];

const SYMBOLS: &[&str] = &[
    ">>>", "<<", ">>", "<=", ">=", "!=", "<>", "||", "??", "=", "<", ">", "+", "-", "*", "/", "%",
    "&", "|", "^", "~", "(", ")", "[", "]", "{", "}", ",", ".", ":", "?",
];

pub fn tokenize(src: &str) -> Result<Vec<Token>, QueryError> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'-' && b.get(i + 1) == Some(&b'-') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        let start = i;
        let tok = if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] >= 0x80) {
                i += 1;
            }
            let word = &src[start..i];
            let upper = word.to_ascii_uppercase();
            match KEYWORDS.iter().find(|k| **k == upper) {
                Some(k) => Tok::Keyword(k),
                None => Tok::Ident(word.to_owned()),
            }
        } else if c == b'@' {
            i += 1;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            if i == start + 1 {
                return Err(QueryError::syntax(
                    src,
                    start,
                    "a parameter name must follow '@'",
                ));
            }
            Tok::Param(src[start..i].to_owned())
        } else if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            let (n, len) = number(&src[i..])
                .ok_or_else(|| QueryError::syntax(src, start, "malformed number"))?;
            // A literal no double holds (`1e999`, 316 digits) is refused, as a parameter that
            // is one is: never carried on as infinity, 1.8e308 or null.
            if !n.is_finite() {
                return Err(QueryError::syntax(
                    src,
                    start,
                    &format!(
                        "the number {} is beyond a double (at most ±{:e})",
                        shorten(&src[i..i + len]),
                        f64::MAX
                    ),
                ));
            }
            i += len;
            Tok::Num(n)
        } else if c == b'\'' || c == b'"' {
            let (s, len) = string(src, i)?;
            i += len;
            Tok::Str(s)
        } else if let Some(sym) = SYMBOLS.iter().find(|s| src[i..].starts_with(**s)) {
            i += sym.len();
            Tok::Sym(sym)
        } else {
            let ch = src[i..].chars().next().unwrap_or('?');
            return Err(QueryError::syntax(
                src,
                start,
                &format!("unexpected character '{ch}'"),
            ));
        };
        out.push(Token { tok, start, end: i });
    }
    out.push(Token {
        tok: Tok::Eof,
        start: src.len(),
        end: src.len(),
    });
    Ok(out)
}

/// A number's text for a message: a 316-digit literal is named by its first digits and length.
fn shorten(text: &str) -> String {
    if text.len() <= 24 {
        return text.to_owned();
    }
    format!("{}… ({} characters)", &text[..16], text.len())
}

fn number(s: &str) -> Option<(f64, usize)> {
    let b = s.as_bytes();
    if s.len() > 2 && (s.starts_with("0x") || s.starts_with("0X")) {
        let len = 2 + b[2..].iter().take_while(|c| c.is_ascii_hexdigit()).count();
        return i64::from_str_radix(&s[2..len], 16)
            .ok()
            .map(|n| (n as f64, len));
    }
    let mut i = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if b.get(i) == Some(&b'.') {
        i += 1;
        i += b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let digits = b[j..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits > 0 {
            i = j + digits;
        }
    }
    s[..i].parse().ok().map(|n| (n, i))
}

fn string(src: &str, start: usize) -> Result<(String, usize), QueryError> {
    let quote = src.as_bytes()[start] as char;
    let mut out = String::new();
    let mut chars = src[start + 1..].char_indices();
    while let Some((off, ch)) = chars.next() {
        match ch {
            c if c == quote => return Ok((out, off + 2)),
            '\\' => {
                let (_, e) = chars
                    .next()
                    .ok_or_else(|| QueryError::syntax(src, start, "unterminated string"))?;
                match e {
                    '\'' | '"' | '\\' | '/' => out.push(e),
                    'b' => out.push('\u{8}'),
                    'f' => out.push('\u{c}'),
                    'n' => out.push('\n'),
                    'r' => out.push('\r'),
                    't' => out.push('\t'),
                    'u' => {
                        let hex: String =
                            (0..4).filter_map(|_| chars.next().map(|c| c.1)).collect();
                        let code = u32::from_str_radix(&hex, 16).map_err(|_| {
                            QueryError::syntax(src, start + 1 + off, "bad \\u escape")
                        })?;
                        out.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
                    }
                    other => {
                        return Err(QueryError::syntax(
                            src,
                            start + 1 + off,
                            &format!("unknown escape '\\{other}'"),
                        ))
                    }
                }
            }
            c => out.push(c),
        }
    }
    Err(QueryError::syntax(src, start, "unterminated string"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens() {
        let t = tokenize(
            "SELECT c.id FROM c WHERE c.n >= 1.5e2 AND c.s = 'it\\'s' -- note\n AND c.x <> @p",
        )
        .unwrap();
        let kinds: Vec<_> = t.iter().map(|t| t.tok.clone()).collect();
        assert!(kinds.contains(&Tok::Num(150.0)));
        assert!(kinds.contains(&Tok::Str("it's".into())));
        assert!(kinds.contains(&Tok::Param("@p".into())));
        assert!(kinds.contains(&Tok::Sym("<>")));
        assert_eq!(tokenize("0x1F").unwrap()[0].tok, Tok::Num(31.0));
        let e = tokenize("SELECT 1e999").unwrap_err().to_string();
        assert!(
            e.contains("column 8") && e.contains("1e999 is beyond a double"),
            "{e}"
        );
        assert!(tokenize("'open").is_err());
        assert!(tokenize("SELECT #")
            .unwrap_err()
            .to_string()
            .contains("line 1, column 8"));
    }
}
