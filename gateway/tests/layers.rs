//! The gateway's files use each other one way: no file, followed through the files it names,
//! comes back to itself. A loop is a house with no ground floor: a reader cannot start anywhere
//! in it, and a change to any of its files may reach all of them (issue 38 found two:
//! `error.rs` <-> `headers.rs`, and 18 files through `routes/`, the route handlers calling each
//! other and the router). A new loop fails here with its files.
//!
//! Read as text, as a reviewer would: a file names another by a path (`crate::headers::get`,
//! `super::scope::addressed`, `use crate::{auth, paths}`), or, in a `mod.rs`, by a child's name
//! (`items::read`), `lib.rs` included: the crate root starts the server, so nothing below may
//! name it (the state the handlers share is `state.rs`, below them).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every `.rs` file under `dir`, as its module path (`routes/items`, `routes` for
/// `routes/mod.rs`, `` for `lib.rs`) → its text.
fn modules(dir: &Path, prefix: &str, out: &mut BTreeMap<String, String>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let join = |n: &str| match prefix {
            "" => n.to_string(),
            p => format!("{p}/{n}"),
        };
        if path.is_dir() {
            modules(&path, &join(&name), out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let module = match name.as_str() {
                "mod" | "lib" => prefix.to_string(),
                n => join(n),
            };
            out.insert(module, std::fs::read_to_string(&path).unwrap());
        }
    }
}

/// The code of a file without its comments and its `#[cfg(test)]` module.
fn code(src: &str) -> String {
    let mut out = String::new();
    let mut lines = src.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]"
            && lines
                .peek()
                .is_some_and(|next| next.trim_start().starts_with("mod "))
        {
            break;
        }
        out.push_str(line.split("//").next().unwrap_or_default());
        out.push('\n');
    }
    out
}

fn parent(module: &str) -> &str {
    module.rsplit_once('/').map_or("", |(p, _)| p)
}

/// The paths a piece of code names, from `start` (`crate`, `super`, `self`, or a child's name),
/// with `use a::{b, c::d}` spread into one path each.
fn paths(code: &str, start: &str) -> Vec<Vec<String>> {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find(&format!("{start}::")) {
        let before = rest[..i].chars().next_back();
        let tail = &rest[i + start.len() + 2..];
        rest = tail;
        if before.is_some_and(|c| ident(c) || c == ':') {
            continue;
        }
        spread(vec![start.to_string()], tail, &mut out);
    }
    fn spread(head: Vec<String>, tail: &str, out: &mut Vec<Vec<String>>) {
        if let Some(group) = tail.strip_prefix('{') {
            let mut depth = 0;
            let mut piece = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        spread(head.clone(), piece.trim(), out);
                        piece.clear();
                        continue;
                    }
                    _ => {}
                }
                piece.push(c);
            }
            spread(head, piece.trim(), out);
            return;
        }
        let name: String = tail
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let mut path = head;
        if !name.is_empty() {
            path.push(name.clone());
        }
        match tail[name.len()..].strip_prefix("::") {
            Some(more) => spread(path, more, out),
            None => out.push(path),
        }
    }
    out
}

/// The file a path leads to: the deepest module it names.
fn target(from: &str, path: &[String], modules: &BTreeMap<String, String>) -> String {
    let mut at = match path[0].as_str() {
        "crate" => String::new(),
        "self" => from.to_string(),
        "super" => parent(from).to_string(),
        child => match from {
            "" => child.to_string(),
            f => format!("{f}/{child}"),
        },
    };
    for segment in &path[1..] {
        let next = match (segment.as_str(), at.as_str()) {
            ("super", a) => parent(a).to_string(),
            (s, "") => s.to_string(),
            (s, a) => format!("{a}/{s}"),
        };
        if !modules.contains_key(&next) {
            break;
        }
        at = next;
    }
    at
}

/// Who names whom: module → the modules it names (`` is `lib.rs`).
fn arrows(modules: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let mut arrows = BTreeMap::new();
    for (module, text) in modules {
        let code = code(text);
        let children: Vec<String> = modules
            .keys()
            .filter(|m| !m.is_empty() && parent(m) == module && *m != module)
            .map(|m| m.rsplit('/').next().unwrap().to_string())
            .collect();
        let starts = ["crate", "super", "self"]
            .into_iter()
            .map(str::to_string)
            .chain(children);
        let mut named = BTreeSet::new();
        for start in starts {
            for path in paths(&code, &start) {
                let to = target(module, &path, modules);
                if to != *module {
                    named.insert(to);
                }
            }
        }
        arrows.insert(module.clone(), named);
    }
    arrows
}

/// The loops: sets of two files or more that reach each other (Tarjan's strongly connected
/// components).
fn loops(arrows: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    struct Walk<'a> {
        arrows: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        found: Vec<BTreeSet<String>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, v: &'a str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            for w in self.arrows.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    self.low.insert(v, self.low[v].min(self.low[w]));
                } else if self.stack.contains(&w) {
                    self.low.insert(v, self.low[v].min(self.index[w]));
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = BTreeSet::new();
                while let Some(w) = self.stack.pop() {
                    component.insert(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    self.found.push(component);
                }
            }
        }
    }
    let mut walk = Walk {
        arrows,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for v in arrows.keys() {
        if !walk.index.contains_key(v.as_str()) {
            walk.visit(v);
        }
    }
    walk.found
}

#[test]
fn no_file_of_the_gateway_comes_back_to_itself() {
    let mut all = BTreeMap::new();
    modules(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        "",
        &mut all,
    );
    let arrows = arrows(&all);
    assert!(all.len() > 30, "gateway/src was walked: {}", all.len());
    // The reading itself: the router names its handlers, a handler the request it is given.
    assert!(
        arrows["routes"].contains("routes/items"),
        "{:?}",
        arrows["routes"]
    );
    assert!(
        arrows["routes/items"].contains("request"),
        "{:?}",
        arrows["routes/items"]
    );
    assert!(arrows["routes/bulk"].contains("routes/batch_ops"));
    assert!(arrows[""].contains("server"), "{:?}", arrows[""]);
    let loops = loops(&arrows);
    let shown: Vec<String> = loops
        .iter()
        .map(|l| {
            l.iter()
                .map(|m| {
                    let named: Vec<&String> = arrows[m].intersection(l).collect();
                    format!("{m} -> {named:?}")
                })
                .collect::<Vec<_>>()
                .join("; ")
        })
        .collect();
    assert!(
        loops.is_empty(),
        "files that name each other in a loop: {shown:#?}"
    );
}

#[test]
fn the_reading_finds_a_loop_where_there_is_one() {
    let mut all = BTreeMap::new();
    all.insert("a".to_string(), "use crate::b::{self, f};".to_string());
    all.insert("b".to_string(), "fn g() { super::a::h() }".to_string());
    all.insert("c".to_string(), "use crate::{a, b};".to_string());
    let found = loops(&arrows(&all));
    assert_eq!(found.len(), 1);
    assert_eq!(found[0], BTreeSet::from(["a".to_string(), "b".to_string()]));
}
