//! Indexing policies in Cosmos DB's shape: consistent or none, included and excluded paths
//! (`/*`, `/name/?`, `/tags/[]/?`, `/"_etag"/?`), composite indexes, spatial indexes
//! (`{"path": "/location/*", "types": ["Point", ...]}`). Where an included and an excluded path
//! both match, the more precise one wins (more segments; `?` over `*`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexingPolicy {
    #[serde(default = "consistent")]
    pub indexing_mode: String,
    #[serde(default = "yes")]
    pub automatic: bool,
    #[serde(default)]
    pub included_paths: Vec<IndexPath>,
    #[serde(default)]
    pub excluded_paths: Vec<IndexPath>,
    #[serde(default)]
    pub composite_indexes: Vec<Vec<CompositePath>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spatial_indexes: Vec<SpatialPath>,
    /// Full-text indexes (`[{"path": "/text"}]`): the paths `FULLTEXTSCORE` may rank by.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub full_text_indexes: Vec<IndexPath>,
}

/// A spatial index: the GeoJSON at `path` is indexed by the cells it lies in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpatialPath {
    pub path: String,
    #[serde(default)]
    pub types: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexPath {
    pub path: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompositePath {
    pub path: String,
    #[serde(default = "ascending")]
    pub order: String,
}

fn consistent() -> String {
    "consistent".into()
}
fn yes() -> bool {
    true
}
fn ascending() -> String {
    "ascending".into()
}

impl Default for IndexingPolicy {
    /// Cosmos DB's default: every path indexed, `_etag` excluded.
    fn default() -> Self {
        IndexingPolicy {
            indexing_mode: consistent(),
            automatic: true,
            included_paths: vec![IndexPath { path: "/*".into() }],
            excluded_paths: vec![IndexPath {
                path: "/\"_etag\"/?".into(),
            }],
            composite_indexes: Vec::new(),
            spatial_indexes: Vec::new(),
            full_text_indexes: Vec::new(),
        }
    }
}

/// A policy path, parsed: segments and whether it ends in `?` (this value) or `*` (all below).
#[derive(Debug, Clone, PartialEq)]
pub struct Pattern {
    pub segments: Vec<String>,
    pub wildcard: bool,
}

impl Pattern {
    pub fn parse(path: &str) -> Result<Pattern> {
        let bad = |why: &str| Error::bad("indexingPolicy", format!("index path '{path}' {why}"));
        let rest = path
            .strip_prefix('/')
            .ok_or_else(|| bad("must start with /"))?;
        let mut segments: Vec<String> = split_path(rest);
        let last = segments.pop().ok_or_else(|| bad("is empty"))?;
        let wildcard = match last.as_str() {
            "*" => true,
            "?" => false,
            _ => return Err(bad("must end with /? or /*")),
        };
        if segments
            .iter()
            .any(|s| s.is_empty() || s == "*" || s == "?")
        {
            return Err(bad("has an empty or wildcard segment in the middle"));
        }
        Ok(Pattern { segments, wildcard })
    }

    /// Whether this pattern covers a leaf at `path`, and how precisely.
    fn precision(&self, path: &[String]) -> Option<(usize, bool)> {
        let n = self.segments.len();
        let matches = if self.wildcard {
            path.len() >= n
        } else {
            path.len() == n
        };
        (matches && self.segments.iter().zip(path).all(|(a, b)| a == b))
            .then_some((n, !self.wildcard))
    }
}

/// `a/"b c"/[]` → `["a", "b c", "[]"]`.
fn split_path(rest: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for ch in rest.chars() {
        match ch {
            '"' => quoted = !quoted,
            '/' if !quoted => out.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// A policy ready to answer "is this leaf indexed?".
#[derive(Debug, Clone)]
pub struct CompiledPolicy {
    pub consistent: bool,
    included: Vec<Pattern>,
    excluded: Vec<Pattern>,
    pub composites: Vec<Vec<(Vec<String>, bool)>>,
    /// Paths of the spatial indexes (segments of the GeoJSON object's path).
    pub spatial: Vec<Vec<String>>,
    /// Paths of the full-text indexes.
    pub full_text: Vec<Vec<String>>,
}

impl CompiledPolicy {
    /// Parses a stored policy (`{}` or missing = the default).
    pub fn from_json(v: &Value) -> Result<CompiledPolicy> {
        let policy: IndexingPolicy = if v.as_object().is_some_and(|o| o.is_empty()) || v.is_null() {
            IndexingPolicy::default()
        } else {
            serde_json::from_value(v.clone())
                .map_err(|e| Error::bad("indexingPolicy", e.to_string()))?
        };
        policy.compile()
    }

    /// Whether the GeoJSON at `path` has a spatial index.
    pub fn spatially_indexes(&self, path: &[String]) -> bool {
        self.consistent && self.spatial.iter().any(|p| p == path)
    }

    /// Whether a scalar at `path` (segments, array elements as `[]`) is indexed.
    pub fn indexes(&self, path: &[String]) -> bool {
        if !self.consistent {
            return false;
        }
        let best = |ps: &[Pattern]| ps.iter().filter_map(|p| p.precision(path)).max();
        match (best(&self.included), best(&self.excluded)) {
            (Some(i), Some(e)) => i > e,
            (Some(_), None) => true,
            _ => false,
        }
    }
}

/// A policy as Cosmos DB completes the one it is given, before storing it: a consistent policy
/// with no included path and the root not excluded includes `/*`; the legacy root `/` (and any
/// path ending in `/`) means everything under it (`/*`); `/"_etag"/?` is always excluded; the
/// legacy per-path `indexes` (kind, data type, precision) are dropped, as the service ignores them
/// (the Python SDK's own tests: `test_crud_container.py`, `_check_default_indexing_policy_paths`).
/// `{}` stays `{}`: the default policy, shown completed by the gateway.
pub fn complete(v: &Value) -> Result<Value> {
    if v.is_null() || v.as_object().is_some_and(|o| o.is_empty()) {
        return Ok(Value::Object(Default::default()));
    }
    let mut policy: IndexingPolicy = serde_json::from_value(v.clone())
        .map_err(|e| Error::bad("indexingPolicy", e.to_string()))?;
    let legacy = |p: &mut IndexPath| {
        if p.path.ends_with('/') {
            p.path.push('*');
        }
    };
    policy.included_paths.iter_mut().for_each(legacy);
    policy.excluded_paths.iter_mut().for_each(legacy);
    let is_root = |p: &IndexPath| p.path == "/*";
    if policy.indexing_mode.eq_ignore_ascii_case("consistent")
        && policy.included_paths.is_empty()
        && !policy.excluded_paths.iter().any(is_root)
    {
        policy.included_paths.push(IndexPath { path: "/*".into() });
    }
    let etag = r#"/"_etag"/?"#;
    let consistent = policy.indexing_mode.eq_ignore_ascii_case("consistent");
    if consistent && !policy.excluded_paths.iter().any(|p| p.path == etag) {
        policy.excluded_paths.push(IndexPath { path: etag.into() });
    }
    policy.compile()?;
    serde_json::to_value(&policy).map_err(|e| Error::bad("indexingPolicy", e.to_string()))
}

impl IndexingPolicy {
    pub(crate) fn compile(&self) -> Result<CompiledPolicy> {
        let mode = self.indexing_mode.to_ascii_lowercase();
        if mode != "consistent" && mode != "none" {
            return Err(Error::bad(
                "indexingPolicy.indexingMode",
                "indexingMode must be consistent or none",
            ));
        }
        let included = self
            .included_paths
            .iter()
            .map(|p| Pattern::parse(&p.path))
            .collect::<Result<Vec<_>>>()?;
        let excluded = self
            .excluded_paths
            .iter()
            .map(|p| Pattern::parse(&p.path))
            .collect::<Result<Vec<_>>>()?;
        let root = |ps: &[Pattern]| ps.iter().any(|p| p.segments.is_empty() && p.wildcard);
        if mode == "consistent" && !root(&included) && !root(&excluded) {
            return Err(Error::bad(
                "indexingPolicy",
                "the root path /* must be either included or excluded",
            ));
        }
        let composites = self
            .composite_indexes
            .iter()
            .map(|c| {
                if c.len() < 2 {
                    return Err(Error::bad(
                        "indexingPolicy.compositeIndexes",
                        "a composite index has at least two paths",
                    ));
                }
                c.iter()
                    .map(|p| {
                        let rest = p.path.strip_prefix('/').ok_or_else(|| {
                            Error::bad(
                                "indexingPolicy.compositeIndexes",
                                format!("path '{}' must start with /", p.path),
                            )
                        })?;
                        let desc = match p.order.to_ascii_lowercase().as_str() {
                            "ascending" => false,
                            "descending" => true,
                            other => {
                                return Err(Error::bad(
                                    "indexingPolicy.compositeIndexes",
                                    format!("order '{other}' must be ascending or descending"),
                                ))
                            }
                        };
                        Ok((split_path(rest), desc))
                    })
                    .collect()
            })
            .collect::<Result<Vec<_>>>()?;
        let spatial = self
            .spatial_indexes
            .iter()
            .map(|sp| {
                let bad = |why: String| Error::bad("indexingPolicy.spatialIndexes", why);
                let rest = sp
                    .path
                    .strip_prefix('/')
                    .and_then(|r| r.strip_suffix("/*").or_else(|| r.strip_suffix("/?")))
                    .filter(|r| !r.is_empty())
                    .ok_or_else(|| {
                        bad(format!(
                            "spatial index path '{}' must look like /location/*",
                            sp.path
                        ))
                    })?;
                if let Some(t) = sp.types.iter().find(|t| {
                    !matches!(
                        t.as_str(),
                        "Point" | "LineString" | "Polygon" | "MultiPolygon"
                    )
                }) {
                    return Err(bad(format!(
                        "spatial type '{t}' must be Point, LineString, Polygon or MultiPolygon"
                    )));
                }
                Ok(split_path(rest))
            })
            .collect::<Result<Vec<_>>>()?;
        // Cosmos DB takes no wildcards (`*`, `[]`) in full-text paths.
        let full_text = self
            .full_text_indexes
            .iter()
            .map(|ft| {
                let rest = ft.path.strip_prefix('/').unwrap_or("");
                let segments = split_path(rest);
                if rest.is_empty()
                    || segments
                        .iter()
                        .any(|s| s.is_empty() || s == "*" || s == "?" || s == "[]")
                {
                    return Err(Error::bad(
                        "indexingPolicy.fullTextIndexes",
                        format!(
                            "full-text index path '{}' must be a property path like /text, without wildcards",
                            ft.path
                        ),
                    ));
                }
                Ok(segments)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(CompiledPolicy {
            consistent: mode == "consistent",
            included,
            excluded,
            composites,
            spatial,
            full_text,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn p(s: &str) -> Vec<String> {
        s.split('/')
            .filter(|x| !x.is_empty())
            .map(String::from)
            .collect()
    }

    #[test]
    fn the_most_precise_path_wins() {
        let policy = CompiledPolicy::from_json(&json!({
            "includedPaths": [{"path": "/*"}, {"path": "/category/name/?"}],
            "excludedPaths": [{"path": "/category/*"}, {"path": "/\"_etag\"/?"}]
        }))
        .unwrap();
        assert!(policy.indexes(&p("title")));
        assert!(policy.indexes(&p("tags/[]")));
        assert!(!policy.indexes(&p("category/id")));
        assert!(policy.indexes(&p("category/name")));
        assert!(!policy.indexes(&p("_etag")));
        let default = CompiledPolicy::from_json(&json!({})).unwrap();
        assert!(default.indexes(&p("a/b/c")));
        assert!(!default.indexes(&p("_etag")));
    }

    #[test]
    fn bad_policies_are_400() {
        for bad in [
            json!({"includedPaths": [{"path": "/name/?"}]}),
            json!({"includedPaths": [{"path": "name/?"}]}),
            json!({"includedPaths": [{"path": "/*"}], "indexingMode": "lazy"}),
            json!({"includedPaths": [{"path": "/*"}], "compositeIndexes": [[{"path": "/a"}]]}),
            json!({"includedPaths": [{"path": "/*"}], "spatialIndexes": [{"path": "/loc"}]}),
            json!({"includedPaths": [{"path": "/*"}], "spatialIndexes": [{"path": "/loc/*", "types": ["Circle"]}]}),
        ] {
            assert_eq!(
                CompiledPolicy::from_json(&bad).unwrap_err().status_code(),
                400,
                "{bad}"
            );
        }
        let none = CompiledPolicy::from_json(&json!({"indexingMode": "none"})).unwrap();
        assert!(!none.indexes(&p("a")));
    }
}

#[cfg(test)]
mod completion {
    use super::complete;
    use serde_json::json;

    #[test]
    fn policies_are_completed_as_cosmos_db_completes_them() {
        let defaults = json!({
            "indexingMode": "consistent", "automatic": true,
            "includedPaths": [{"path": "/*"}], "excludedPaths": [{"path": "/\"_etag\"/?"}],
            "compositeIndexes": [],
        });
        let partial = json!({"indexingMode": "consistent", "automatic": true});
        assert_eq!(complete(&partial).unwrap(), defaults);
        assert_eq!(complete(&json!({})).unwrap(), json!({}));
        // The legacy root and its per-path indexes (test_orderby.py's policy).
        let legacy = json!({"includedPaths": [{"path": "/", "indexes": [{"kind": "Range", "dataType": "Number"}]}],
                            "excludedPaths": [{"path": "/\"systemMetadata\"/*"}]});
        let done = complete(&legacy).unwrap();
        assert_eq!(done["includedPaths"], json!([{"path": "/*"}]));
        assert_eq!(done["excludedPaths"].as_array().unwrap().len(), 2);
        // Still refused: a policy that neither includes nor excludes the root.
        assert!(complete(&json!({"includedPaths": [{"path": "/name/?"}]})).is_err());
        let none = complete(&json!({"indexingMode": "none", "automatic": false})).unwrap();
        assert_eq!(none["includedPaths"], json!([]));
        assert_eq!(none["excludedPaths"], json!([]));
    }
}
