//! What a check finds: the problems of one container (at most `MAX_LISTED` of a kind named,
//! every one counted), its report, and the verdict on them all for the CLI's exit status.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::error::Error;

/// What `check` found in one container.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ContainerReport {
    pub database: String,
    pub container: String,
    pub items: u64,
    pub index_entries: u64,
    /// How many problems of each kind were found: the true totals, ahead of the list (which
    /// names at most 20 of a kind).
    pub problem_counts: BTreeMap<String, u64>,
    /// Each problem found, as a sentence naming the item, partition or key.
    pub problems: Vec<String>,
}

/// The name of the report holding what belongs to no container (keys of any table under an
/// unknown container id).
pub const NO_CONTAINER: &str = "(no container)";

/// Stops listing problems of one kind past this many (the count is still reported).
const MAX_LISTED: usize = 20;

/// The problems found in one container, in the order found.
#[derive(Default)]
pub(super) struct Problems {
    listed: Vec<String>,
    counts: BTreeMap<&'static str, u64>,
}

impl Problems {
    pub(super) fn note(&mut self, kind: &'static str, text: String) {
        let n = self.counts.entry(kind).or_insert(0);
        *n += 1;
        if *n as usize <= MAX_LISTED {
            self.listed.push(text);
        } else if *n as usize == MAX_LISTED + 1 {
            self.listed.push(format!(
                "… more problems of the kind '{kind}' (counted below)"
            ));
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// The total of each kind.
    pub(super) fn counts(&self) -> BTreeMap<String, u64> {
        self.counts
            .iter()
            .map(|(k, n)| ((*k).to_owned(), *n))
            .collect()
    }

    /// The listed problems, then the total of each kind listed only in part.
    pub(super) fn into_list(mut self) -> Vec<String> {
        for (kind, n) in self
            .counts
            .iter()
            .filter(|(_, n)| **n as usize > MAX_LISTED)
        {
            self.listed
                .push(format!("{n} problems of the kind '{kind}' in all"));
        }
        self.listed
    }
}

/// A check that found problems, as an error for the CLI's exit status: the true totals, per
/// kind, before anything else.
pub fn failed(reports: &[ContainerReport]) -> Option<Error> {
    let mut kinds: BTreeMap<&str, u64> = BTreeMap::new();
    for r in reports {
        for (kind, n) in &r.problem_counts {
            *kinds.entry(kind).or_insert(0) += n;
        }
    }
    let total: u64 = kinds.values().sum();
    let containers = reports.iter().filter(|r| !r.problems.is_empty()).count();
    (total > 0).then(|| {
        let per_kind: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
        Error::Corrupt(format!(
            "check found {total} problem{} in {containers} report{}: {} (listed above, at most \
             {MAX_LISTED} of each kind per container)",
            if total == 1 { "" } else { "s" },
            if containers == 1 { "" } else { "s" },
            per_kind.join(", ")
        ))
    })
}
