//! Duplicate record ids within a source, the plain form: every id of the source in a map
//! with the place of its first record. The test oracle of `seen_ids_flat.rs`, what a run
//! uses (the same verdicts and places in bounded memory).

use super::Malformed;
use super::seen_ids_flat::duplicate;
use kcurate_core::record::Record;
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::Arc;

/// The ids a source's records had so far, each with its first record's file and line.
#[derive(Default)]
pub(super) struct PlainSeenIds {
    first: HashMap<String, (Arc<str>, u64)>,
}

impl PlainSeenIds {
    /// The duplicate-id problem of `r`, when an earlier record of the source had its id.
    pub(super) fn check(&mut self, r: &Record) -> Option<Malformed> {
        match self.first.entry(r.id.clone()) {
            Entry::Vacant(v) => {
                v.insert((r.origin.file.clone(), r.origin.line));
                None
            }
            Entry::Occupied(o) => {
                let (file, line) = o.get();
                Some(duplicate(r, &format!("{file}:{line}")))
            }
        }
    }
}
