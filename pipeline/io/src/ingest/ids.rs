//! What a source's own record ids must be: not empty, free of control characters, and
//! distinct from every earlier id of the source once both are normalised (NFKC: `café`
//! written precomposed and decomposed, or `ａ1` and `a1`, are one id to a reader).

use super::seen_ids_flat::SeenIds;
use super::{Malformed, Problem};
use kcurate_core::record::Record;
use unicode_normalization::UnicodeNormalization;

/// The `ingest.bad_id` problem of `r` when its own id (after the `scope` bytes of
/// `<source>-`) is empty or holds a control character.
pub(super) fn bad_id(r: &Record, scope: usize) -> Option<Malformed> {
    let own = r.id.get(scope..).unwrap_or_default();
    let why = if own.is_empty() {
        "an empty record id"
    } else if own.chars().any(char::is_control) {
        "a record id with a control character (newline, tab, NUL...)"
    } else {
        return None;
    };
    Some(Malformed {
        file: r.origin.file.to_string(),
        line: r.origin.line,
        field: "id".into(),
        reason: format!("{why} ({own:?}): this record is quarantined"),
        kind: Problem::BadId,
    })
}

/// `seen.check` on `r`'s id after NFKC normalisation: the released id stays as given, but
/// two ids a reader cannot tell apart are one (`ingest.duplicate_id`). An ASCII id is its
/// own normal form, so only other ids pay for normalising.
pub(super) fn check_normalised(seen: &mut SeenIds, r: &mut Record) -> Option<Malformed> {
    if r.id.is_ascii() {
        return seen.check(r);
    }
    let key: String = r.id.nfkc().collect();
    if key == r.id {
        return seen.check(r);
    }
    let given = std::mem::replace(&mut r.id, key);
    let found = seen.check(r);
    let normal = std::mem::replace(&mut r.id, given);
    found.map(|mut m| {
        if m.kind == Problem::DuplicateId {
            m.reason = format!(
                "record id {:?} is {normal:?} after Unicode normalisation (NFKC), and {}",
                r.id, m.reason
            );
        }
        m
    })
}
