//! Partial document update, with the operations and rules of Cosmos DB's patch API:
//! `add`, `set`, `replace`, `remove`, `incr` (increment) and `move`, at JSON Pointer paths.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};

/// Cosmos DB accepts at most 10 operations in one patch request.
pub const MAX_PATCH_OPERATIONS: usize = 10;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum PatchOperation {
    /// Creates the property, or inserts into an array at an index (`-` appends).
    Add { path: String, value: Value },
    /// Creates or overwrites the property; in an array, overwrites the element at the index.
    Set { path: String, value: Value },
    /// Overwrites a value that must exist.
    Replace { path: String, value: Value },
    /// Removes a value that must exist.
    Remove { path: String },
    /// Adds a number to a numeric value, creating it when absent.
    #[serde(rename = "incr")]
    Increment { path: String, value: Value },
    /// Moves a value that must exist to another path.
    Move { from: String, path: String },
}

impl PatchOperation {
    pub fn add(path: &str, value: impl Into<Value>) -> Self {
        PatchOperation::Add {
            path: path.into(),
            value: value.into(),
        }
    }
    pub fn set(path: &str, value: impl Into<Value>) -> Self {
        PatchOperation::Set {
            path: path.into(),
            value: value.into(),
        }
    }
    pub fn replace(path: &str, value: impl Into<Value>) -> Self {
        PatchOperation::Replace {
            path: path.into(),
            value: value.into(),
        }
    }
    pub fn remove(path: &str) -> Self {
        PatchOperation::Remove { path: path.into() }
    }
    pub fn increment(path: &str, value: impl Into<Value>) -> Self {
        PatchOperation::Increment {
            path: path.into(),
            value: value.into(),
        }
    }
    pub fn move_to(from: &str, path: &str) -> Self {
        PatchOperation::Move {
            from: from.into(),
            path: path.into(),
        }
    }

    fn path(&self) -> &str {
        match self {
            PatchOperation::Add { path, .. }
            | PatchOperation::Set { path, .. }
            | PatchOperation::Replace { path, .. }
            | PatchOperation::Remove { path }
            | PatchOperation::Increment { path, .. }
            | PatchOperation::Move { path, .. } => path,
        }
    }
}

/// Applies `ops` in order to `doc`. `protected` are top-level paths no operation may touch (the
/// partition key path, `/id`); an error names the operation's index and path.
pub fn apply(doc: &mut Value, ops: &[PatchOperation], protected: &[&str]) -> Result<()> {
    if ops.is_empty() {
        return Err(Error::bad(
            "operations",
            "a patch needs at least one operation",
        ));
    }
    if ops.len() > MAX_PATCH_OPERATIONS {
        return Err(Error::bad(
            "operations",
            format!(
                "a patch has at most {MAX_PATCH_OPERATIONS} operations, got {}",
                ops.len()
            ),
        ));
    }
    for (i, op) in ops.iter().enumerate() {
        let fail = |msg: String| {
            Error::bad(
                format!("operations[{i}].path"),
                format!("patch operation {i} ({}): {msg}", op.path()),
            )
        };
        let mut touched = vec![op.path()];
        if let PatchOperation::Move { from, .. } = op {
            touched.push(from);
        }
        for p in touched {
            if protected
                .iter()
                .any(|x| p == *x || p.starts_with(&format!("{x}/")))
                || p.starts_with("/_")
            {
                return Err(fail(format!("'{p}' cannot be patched")));
            }
        }
        apply_one(doc, op).map_err(fail)?;
    }
    Ok(())
}

fn apply_one(doc: &mut Value, op: &PatchOperation) -> Result<(), String> {
    match op {
        PatchOperation::Add { path, value } => {
            let (parent, last) = parent_of(doc, path)?;
            match parent {
                Value::Object(m) => {
                    m.insert(last, value.clone());
                }
                Value::Array(a) => {
                    let at = if last == "-" {
                        a.len()
                    } else {
                        index(&last, a.len() + 1)?
                    };
                    a.insert(at, value.clone());
                }
                _ => return Err("the parent is not an object or array".into()),
            }
        }
        PatchOperation::Set { path, value } => {
            let (parent, last) = parent_of(doc, path)?;
            match parent {
                Value::Object(m) => {
                    m.insert(last, value.clone());
                }
                Value::Array(a) => {
                    let at = index(&last, a.len())?;
                    a[at] = value.clone();
                }
                _ => return Err("the parent is not an object or array".into()),
            }
        }
        PatchOperation::Replace { path, value } => {
            let target = pointer_mut(doc, path)?.ok_or("the path does not exist")?;
            *target = value.clone();
        }
        PatchOperation::Remove { path } => {
            remove(doc, path)?;
        }
        PatchOperation::Increment { path, value } => {
            let by = value
                .as_number()
                .ok_or("incr needs a number value")?
                .clone();
            let (parent, last) = parent_of(doc, path)?;
            let slot = match parent {
                Value::Object(m) => m.entry(last).or_insert(Value::from(0)),
                Value::Array(a) => {
                    let at = index(&last, a.len())?;
                    &mut a[at]
                }
                _ => return Err("the parent is not an object or array".into()),
            };
            let cur = slot
                .as_number()
                .ok_or("incr target is not a number")?
                .clone();
            *slot = match (cur.as_i64(), by.as_i64()) {
                (Some(a), Some(b)) => a
                    .checked_add(b)
                    .map(Value::from)
                    .unwrap_or(Value::from(a as f64 + b as f64)),
                _ => Value::from(cur.as_f64().unwrap_or(0.0) + by.as_f64().unwrap_or(0.0)),
            };
        }
        PatchOperation::Move { from, path } => {
            if path.starts_with(&format!("{from}/")) {
                return Err("cannot move a value into itself".into());
            }
            let v = remove(doc, from)?;
            apply_one(
                doc,
                &PatchOperation::Add {
                    path: path.clone(),
                    value: v,
                },
            )?;
        }
    }
    Ok(())
}

fn segments(path: &str) -> Result<Vec<String>, String> {
    let rest = path.strip_prefix('/').ok_or("a path starts with '/'")?;
    if rest.is_empty() {
        return Err("the document root cannot be patched".into());
    }
    Ok(rest
        .split('/')
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect())
}

fn index(seg: &str, len: usize) -> Result<usize, String> {
    let i: usize = seg
        .parse()
        .map_err(|_| format!("'{seg}' is not an array index"))?;
    if i >= len {
        return Err(format!("array index {i} is out of bounds"));
    }
    Ok(i)
}

fn pointer_mut<'a>(doc: &'a mut Value, path: &str) -> Result<Option<&'a mut Value>, String> {
    let mut cur = doc;
    for seg in segments(path)? {
        cur = match cur {
            Value::Object(m) => match m.get_mut(&seg) {
                Some(v) => v,
                None => return Ok(None),
            },
            Value::Array(a) => match seg.parse::<usize>().ok().and_then(|i| a.get_mut(i)) {
                Some(v) => v,
                None => return Ok(None),
            },
            _ => return Ok(None),
        };
    }
    Ok(Some(cur))
}

/// The container holding the last segment, which must exist, and that segment.
fn parent_of<'a>(doc: &'a mut Value, path: &str) -> Result<(&'a mut Value, String), String> {
    let mut segs = segments(path)?;
    let last = segs.pop().expect("segments is never empty");
    let parent_path: String = segs
        .iter()
        .map(|s| format!("/{}", s.replace('~', "~0").replace('/', "~1")))
        .collect();
    let parent = if parent_path.is_empty() {
        doc
    } else {
        pointer_mut(doc, &parent_path)?.ok_or("the parent of the path does not exist")?
    };
    Ok((parent, last))
}

fn remove(doc: &mut Value, path: &str) -> Result<Value, String> {
    let (parent, last) = parent_of(doc, path)?;
    match parent {
        Value::Object(m) => m
            .shift_remove(&last)
            .ok_or_else(|| "the path does not exist".to_string()),
        Value::Array(a) => {
            let at = index(&last, a.len())?;
            Ok(a.remove(at))
        }
        _ => Err("the path does not exist".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn operations_follow_cosmos_rules() {
        let mut d = json!({"id": "1", "n": 1, "tags": ["a"], "o": {"x": 1}});
        apply(
            &mut d,
            &[
                PatchOperation::increment("/n", 2),
                PatchOperation::add("/tags/-", "b"),
                PatchOperation::add("/tags/0", "z"),
                PatchOperation::set("/o/y", true),
                PatchOperation::remove("/o/x"),
                PatchOperation::move_to("/o", "/p"),
                PatchOperation::increment("/fresh", 1.5),
            ],
            &["/id"],
        )
        .unwrap();
        assert_eq!(
            d,
            json!({"id": "1", "n": 3, "tags": ["z", "a", "b"], "p": {"y": true}, "fresh": 1.5})
        );
    }

    #[test]
    fn errors_name_the_operation() {
        let mut d = json!({"id": "1", "pk": "a"});
        let e = apply(
            &mut d,
            &[
                PatchOperation::set("/x", 1),
                PatchOperation::replace("/missing", 1),
            ],
            &["/id", "/pk"],
        )
        .unwrap_err();
        assert!(e.to_string().contains("operation 1"), "{e}");
        assert!(apply(&mut d, &[PatchOperation::set("/pk", "b")], &["/id", "/pk"]).is_err());
        assert!(apply(&mut d, &[PatchOperation::set("/_etag", "b")], &["/id"]).is_err());
        assert!(apply(&mut d, &[PatchOperation::increment("/pk", 1)], &["/id"]).is_err());
        let many: Vec<_> = (0..11)
            .map(|i| PatchOperation::set(&format!("/f{i}"), 1))
            .collect();
        assert!(apply(&mut d, &many, &[]).is_err());
    }
}
