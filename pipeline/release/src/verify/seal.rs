//! `fields_sha256`: a sha256 of each top-level field of the manifest, recorded by the writer
//! and recomputed by `verify`. It covers the fields nothing else in the release can
//! recompute (the tool version, the recipe path as typed, metrics, precision, the parent,
//! inputs not at hand), and names the field an edit touched.
//!
//! A field's digest is over its compact JSON as parsed back from the manifest's text (keys
//! in the file's order), so whitespace does not count and a number reads back as it was
//! written.

use super::inconsistent;
use crate::manifest::Mismatch;
use serde_json::Value;
use std::collections::BTreeMap;

/// The manifest key the digests are recorded under.
pub const FIELDS_SHA256: &str = "fields_sha256";

/// sha256 of each top-level field of a manifest's JSON but [`FIELDS_SHA256`].
pub fn field_digests(manifest: &Value) -> BTreeMap<String, String> {
    let Some(obj) = manifest.as_object() else {
        return BTreeMap::new();
    };
    obj.iter()
        .filter(|(k, _)| k.as_str() != FIELDS_SHA256)
        .map(|(k, v)| {
            let bytes = serde_json::to_vec(v).expect("JSON values serialise");
            (k.clone(), kcurate_core::hash::sha256_hex(&bytes))
        })
        .collect()
}

/// Every field against its recorded digest: an edited, added or removed field is named.
pub(super) fn check(manifest: &Value, problems: &mut Vec<Mismatch>) {
    let recorded = match manifest.get(FIELDS_SHA256).map(Value::as_object) {
        Some(Some(r)) => r,
        _ => {
            inconsistent(
                problems,
                FIELDS_SHA256,
                "missing: the writer records a digest of every field here".into(),
            );
            return;
        }
    };
    let now = field_digests(manifest);
    for (k, d) in &now {
        match recorded.get(k).and_then(Value::as_str) {
            Some(r) if r == d => {}
            Some(r) => inconsistent(
                problems,
                k,
                format!(
                    "edited after the release was written: it hashes to {d}, {FIELDS_SHA256}.{k} records {r}"
                ),
            ),
            None => inconsistent(
                problems,
                k,
                format!("added after the release was written: {FIELDS_SHA256} has no digest of it"),
            ),
        }
    }
    for k in recorded.keys().filter(|k| !now.contains_key(*k)) {
        inconsistent(
            problems,
            k,
            format!("removed after the release was written ({FIELDS_SHA256}.{k} records it)"),
        );
    }
}
