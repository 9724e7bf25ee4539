//! Duplicate record ids within a source, kept compactly for corpora of millions of records.

use super::{Malformed, Problem};
use crate::record::Record;
use std::sync::Arc;

/// The ids a source's records had so far, to find a second record with an id already used.
/// Kept compact for corpora of millions of records: per record a 64-bit hash of its id and
/// where it was, as a line number counted across the source's files (12 bytes, stored as
/// `u32`s so without padding, plus the table's control byte: 13 bytes a slot); freed when
/// the source is read. Two different ids with the same 64-bit hash (for a source of 10^7
/// records, a chance of about 3 in 10^6) would be taken for duplicates.
#[derive(Default)]
pub(super) struct SeenIds {
    first: std::collections::HashMap<IdKey, u32, IdentityBuild>,
    /// The source's files in the order they were read, each with the number of lines
    /// counted before it (a record's file is the last one, or a new one).
    files: Vec<(Arc<str>, u64)>,
    /// The last line seen in the last file.
    last_line: u64,
}

/// A 64-bit hash as two `u32`s: with a `u32` value, a table entry is 12 bytes, not 16.
#[derive(PartialEq, Eq)]
struct IdKey([u32; 2]);

impl std::hash::Hash for IdKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64((u64::from(self.0[0]) << 32) | u64::from(self.0[1]));
    }
}

type IdentityBuild = std::hash::BuildHasherDefault<IdentityHasher>;

/// A hasher for keys that are already hashes.
#[derive(Default)]
struct IdentityHasher(u64);

impl std::hash::Hasher for IdentityHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 << 8) | u64::from(*b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

impl SeenIds {
    /// The duplicate-id problem of `r`, when an earlier record of the source had its id.
    pub(super) fn check(&mut self, r: &Record) -> Option<Malformed> {
        use std::hash::Hasher;
        if !self
            .files
            .last()
            .is_some_and(|(f, _)| Arc::ptr_eq(f, &r.origin.file))
        {
            let before = self.files.last().map_or(0, |(_, b)| b + self.last_line);
            self.files.push((r.origin.file.clone(), before));
            self.last_line = 0;
        }
        self.last_line = self.last_line.max(r.origin.line);
        let before = self.files.last().map_or(0, |(_, b)| *b);
        // u32::MAX: past 4G lines in a source the first place is not kept.
        let counted = u32::try_from(before + r.origin.line).unwrap_or(u32::MAX);
        // SipHash with fixed keys: the table lives only as long as this process.
        let mut h = std::hash::DefaultHasher::new();
        h.write(r.id.as_bytes());
        let hash = h.finish();
        let key = IdKey([(hash >> 32) as u32, hash as u32]);
        let first = match self.first.entry(key) {
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(counted);
                return None;
            }
            std::collections::hash_map::Entry::Occupied(o) => *o.get(),
        };
        Some(Malformed {
            file: r.origin.file.to_string(),
            line: r.origin.line,
            field: "id".into(),
            reason: format!(
                "duplicate record id {:?}: the record at {} has it; this one is quarantined",
                r.id,
                self.place(first)
            ),
            kind: Problem::DuplicateId,
        })
    }

    /// `file:line` of a line counted across the source's files.
    fn place(&self, counted: u32) -> String {
        if counted == u32::MAX {
            return "an earlier line".into();
        }
        let counted = u64::from(counted);
        // File k holds the lines counted in (before_k, before_k+1].
        let k = self
            .files
            .partition_point(|(_, before)| *before < counted)
            .saturating_sub(1);
        match self.files.get(k) {
            Some((file, before)) => format!("{file}:{}", counted - before),
            None => "an earlier line".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Kind, Origin};
    use std::collections::BTreeMap;

    fn rec(file: &Arc<str>, line: u64, id: &str) -> Record {
        Record {
            id: id.into(),
            kind: Kind::Document,
            source: "s".into(),
            origin: Origin {
                file: file.clone(),
                line,
            },
            text: String::new(),
            date: None,
            label: None,
            parents: Vec::new(),
            fields: BTreeMap::new(),
        }
    }

    /// A second id names both places; the first stays the one named.
    #[test]
    fn seen_ids_name_the_first_file_and_line() {
        let (a, b): (Arc<str>, Arc<str>) = ("d/a.json".into(), "d/b.json".into());
        let mut seen = SeenIds::default();
        assert!(seen.check(&rec(&a, 2, "s-1")).is_none());
        assert!(seen.check(&rec(&a, 3, "s-2")).is_none());
        let m = seen.check(&rec(&b, 2, "s-1")).unwrap();
        assert_eq!(
            (m.file.as_str(), m.line, m.kind),
            ("d/b.json", 2, Problem::DuplicateId)
        );
        assert!(m.reason.contains("d/a.json:2"), "{m}");
        let m = seen.check(&rec(&b, 9, "s-1")).unwrap();
        assert!(m.reason.contains("d/a.json:2"), "{m}");
        assert!(seen.check(&rec(&b, 10, "s-3")).is_none());
    }
}
