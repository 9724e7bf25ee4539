//! The [`Collector`]: every reader's rows go through it one at a time; it validates them
//! (empty fields, unknown items, values, the scale, duplicates, the per-item limit), turns
//! bad ones into decisions and interns what it keeps.

use super::pairs::Pairs;
use super::{Annotation, Annotations, Numbers, ReadError, ReadOptions, TableRead};
use crate::label::Label;
use crate::table::Table;
use kcurate_core::{Action, Decision, RuleId};
use std::collections::BTreeMap;
use std::hash::BuildHasher;
use std::path::Path;

fn decision(path: &str, line: u64, item: &str, rule: &str, detail: String) -> Decision {
    annotation_drop(
        item.to_string(),
        RuleId::new(rule),
        format!("{path}:{line}: {detail}"),
        format!("{path}:{line}"),
    )
}

/// A drop decision of the `agree` stage on annotation input (a row, an item or an
/// annotator): the one shape every agreement decision has.
pub(crate) fn annotation_drop(
    item: String,
    rule: RuleId,
    detail: String,
    origin: String,
) -> Decision {
    Decision {
        item,
        stage: "agree".into(),
        rule,
        action: Action::Drop,
        detail,
        score: None,
        span: None,
        text: None,
        source: "annotations".into(),
        origin,
    }
}

/// A row's line and cells, as a reader found them.
pub(super) struct Row<'a> {
    pub line: u64,
    pub item: &'a str,
    pub annotator: &'a str,
    pub value: &'a str,
}

/// Parses a cell: a finite number when it reads as one, else text (so `NaN`, `inf` and
/// `1e400` are texts).
pub fn parse_value(s: &str) -> Label {
    let t = s.trim();
    t.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .map_or_else(|| Label::Text(t.to_string()), Label::Num)
}

/// The interned annotator of each number a reader gave the annotator column (see
/// [`super::numbering`]; `NONE`: not interned yet). Only annotators are numbered: they are
/// the lookup that misses the cache (rows of one item name annotators from the whole
/// crowd), while an item is mostly the previous row's and the values are few; numbering
/// those too on the scanning thread cost more than it saved (measured).
#[derive(Default)]
struct AnnotatorNumbers(Vec<u32>);

const NONE: u32 = u32::MAX;

impl AnnotatorNumbers {
    fn get(&self, number: u32) -> Option<u32> {
        self.0.get(number as usize).copied().filter(|&a| a != NONE)
    }

    fn set(&mut self, number: u32, a: u32) {
        let k = number as usize;
        if self.0.len() <= k {
            self.0.resize(k + 1, NONE);
        }
        self.0[k] = a;
    }
}

/// Validates rows as a reader yields them and interns what it keeps.
pub struct Collector<'o> {
    path: String,
    pub(super) opts: &'o ReadOptions<'o>,
    items: Interner,
    annotators: Interner,
    value_ids: BTreeMap<Label, u32>,
    values: Vec<Label>,
    /// Each accepted value as written (before trimming and parsing) with its id.
    raw_values: hashbrown::HashMap<String, u32>,
    /// The (item, annotator) pair of every kept row, and the count per item.
    seen: Pairs,
    /// Kept rows as (item, annotator, value), input order.
    triples: Vec<(u32, u32, u32)>,
    /// Flags of kept rows that have any: (row index, flags).
    flags: Vec<(usize, Vec<String>)>,
    rejected: Vec<Decision>,
    skipped: Vec<Decision>,
    annotator_numbers: AnnotatorNumbers,
}

impl<'o> Collector<'o> {
    /// An empty collector for the file at `path`, validating with `opts`.
    pub fn new(path: &Path, opts: &'o ReadOptions<'o>) -> Self {
        Collector {
            path: path.display().to_string(),
            opts,
            items: Interner::default(),
            annotators: Interner::default(),
            value_ids: BTreeMap::new(),
            values: Vec::new(),
            raw_values: hashbrown::HashMap::new(),
            seen: Pairs::default(),
            triples: Vec::new(),
            flags: Vec::new(),
            rejected: Vec::new(),
            skipped: Vec::new(),
            annotator_numbers: AnnotatorNumbers::default(),
        }
    }

    /// The file's name in messages and decisions (its path, or what [`Collector::named`]
    /// set).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The name messages and decisions give the file instead of its path (`-` for an
    /// input read from stdin).
    pub fn named(mut self, shown: &str) -> Self {
        self.path = shown.to_string();
        self
    }

    /// Room for the rest of a file of `file_len` bytes, from what its first `read_bytes`
    /// held: the rows and items so far, scaled by the bytes still to come, plus an eighth (a
    /// guess; a wrong one only costs the growth this saves). The eighth is there because a
    /// guess just short makes the largest growth of all at the very end (a copy of the whole
    /// table into memory never touched); room never written costs no resident memory.
    pub fn reserve_like(&mut self, read_bytes: u64, file_len: u64) {
        if read_bytes == 0 || file_len <= read_bytes {
            return;
        }
        let scale = |n: usize| {
            let more = (n as u64).saturating_mul(file_len - read_bytes) / read_bytes;
            (more + more / 8) as usize
        };
        let (rows, items) = (scale(self.triples.len()), scale(self.items.names.len()));
        self.triples.reserve(rows);
        self.seen.reserve(rows, items);
        self.items.reserve(items);
    }

    /// A row that cannot be used (`rule`, with file:line in the detail).
    pub fn reject(&mut self, line: u64, item: &str, rule: &str, detail: String) {
        self.rejected
            .push(decision(&self.path, line, item, rule, detail));
    }

    /// An annotation that is not a vote by its author's choice.
    pub fn skip(&mut self, line: u64, item: &str, rule: &str, detail: String) {
        self.skipped
            .push(decision(&self.path, line, item, rule, detail));
    }

    /// Lines a reader skipped for their length (1-based), each an `agree.over_limit`
    /// decision.
    pub fn reject_long_lines(&mut self, lines: &[u64]) {
        let max = self.opts.limits.max_line_bytes;
        for &l in lines {
            self.reject(
                l,
                "",
                "agree.over_limit",
                format!(
                    "line longer than limits.max_line_bytes ({max} bytes): skipped to its end, not read"
                ),
            );
        }
    }

    /// One rating: `field` names where the value was (for messages).
    pub fn vote(
        &mut self,
        line: u64,
        item: &str,
        annotator: &str,
        field: &str,
        value: &str,
        flags: Vec<String>,
    ) -> Result<(), ReadError> {
        let row = Row {
            line,
            item,
            annotator,
            value,
        };
        self.vote_row(row, field, flags, None)
    }

    /// [`Collector::vote`] with the number the reader gave the row's annotator: the same
    /// decisions, the annotator found through an array instead of a hash table once seen.
    pub(super) fn vote_numbered(
        &mut self,
        row: Row<'_>,
        field: &str,
        flags: Vec<String>,
        annotator_number: u32,
    ) -> Result<(), ReadError> {
        self.vote_row(row, field, flags, Some(annotator_number))
    }

    fn vote_row(
        &mut self,
        row: Row<'_>,
        field: &str,
        flags: Vec<String>,
        annotator_number: Option<u32>,
    ) -> Result<(), ReadError> {
        let Row {
            line,
            item,
            annotator,
            value,
        } = row;
        if !self.ids_usable(line, item, annotator) {
            return Ok(());
        }
        // A value already kept is valid again: its id without parsing or checking it. A new
        // one is interned only when its row is kept.
        let known_value = self.raw_values.get(value).copied();
        let new_value = match known_value {
            Some(_) => None,
            None => match self.check_value(line, annotator, field, value)? {
                Ok(v) => Some(v),
                Err((rule, detail)) => {
                    self.reject(line, item, rule, detail);
                    return Ok(());
                }
            },
        };
        let i = self.items.intern(item);
        let Some(a) = self.count_annotator(line, item, i, annotator, annotator_number) else {
            return Ok(());
        };
        let vi = match (known_value, new_value) {
            (Some(vi), _) => vi,
            (None, v) => self.intern_value(value, v.expect("a value not known was checked")),
        };

        if !flags.is_empty() {
            self.flags.push((self.triples.len(), flags));
        }
        self.triples.push((i, a, vi));
        Ok(())
    }

    /// Whether the row names an item and an annotator, and a known item when the items
    /// are known; a row that does not is rejected.
    #[inline]
    fn ids_usable(&mut self, line: u64, item: &str, annotator: &str) -> bool {
        if item.is_empty() || annotator.is_empty() {
            self.reject(
                line,
                item,
                "agree.bad_row",
                "empty item or annotator".into(),
            );
            return false;
        }
        if let Some(k) = self.opts.known_items
            && !k.contains(item)
        {
            self.reject(
                line,
                item,
                "agree.unknown_item",
                format!("unknown item {item:?}"),
            );
            return false;
        }
        true
    }

    /// The annotator's id, with the pair (item `i`, annotator) counted; `None` when the
    /// row is rejected as a duplicate or past the item's annotator limit.
    #[inline]
    fn count_annotator(
        &mut self,
        line: u64,
        item: &str,
        i: u32,
        annotator: &str,
        annotator_number: Option<u32>,
    ) -> Option<u32> {
        let max = self.opts.limits.max_annotators_per_item;
        let full = self.seen.count(i) as usize >= max;
        let numbered = annotator_number.and_then(|n| self.annotator_numbers.get(n));
        let known = numbered.or_else(|| self.annotators.get(annotator));
        // A known annotator's pair is a duplicate when already seen (checked before the
        // item's limit); a new annotator's cannot be.
        let a = match known {
            Some(a) if !full => {
                if !self.seen.insert(i, a) {
                    self.reject_duplicate(line, item, annotator);
                    return None;
                }
                a
            }
            Some(a) if self.seen.contains(i, a) => {
                self.reject_duplicate(line, item, annotator);
                return None;
            }
            _ if full => {
                self.reject(
                    line,
                    item,
                    "agree.too_many_annotators",
                    format!(
                        "item {item:?} already has {max} annotators (limits.max_annotators_per_item); annotator {annotator:?} not counted"
                    ),
                );
                return None;
            }
            _ => {
                let a = self.annotators.intern(annotator);
                self.seen.insert(i, a);
                a
            }
        };
        if let Some(n) = annotator_number
            && numbered.is_none()
        {
            self.annotator_numbers.set(n, a);
        }
        Some(a)
    }

    /// The id of a value first kept in this row, its raw text remembered for the rows after.
    #[inline]
    fn intern_value(&mut self, value: &str, v: Label) -> u32 {
        let next = self.values.len() as u32;
        let vi = *self.value_ids.entry(v).or_insert_with_key(|v| {
            self.values.push(v.clone());
            next
        });
        self.raw_values.insert(value.to_string(), vi);
        vi
    }

    fn reject_duplicate(&mut self, line: u64, item: &str, annotator: &str) {
        self.reject(
            line,
            item,
            "agree.duplicate",
            format!("annotator {annotator:?} already labelled item {item:?}"),
        );
    }

    /// A value not kept before: its label when the options accept it, else the rule and
    /// detail the row is rejected with (or the error that stops the read, at `line`).
    fn check_value(
        &self,
        line: u64,
        annotator: &str,
        field: &str,
        value: &str,
    ) -> Result<Result<Label, (&'static str, String)>, ReadError> {
        if value.trim().is_empty() {
            return Ok(Err((
                "agree.no_label",
                format!("{field}: no value (annotator {annotator:?})"),
            )));
        }
        let v = parse_value(value);
        if v.num().is_none() {
            match self.opts.numbers {
                Numbers::Any => {}
                Numbers::Reject => {
                    return Ok(Err((
                        "agree.not_a_number",
                        format!("{field}: {:?} is not a finite number", value.trim()),
                    )));
                }
                Numbers::Require => {
                    return Err(ReadError::Field {
                        path: self.path.clone(),
                        line,
                        field: field.to_string(),
                        message: format!(
                            "{:?} is not a finite number (this level of α needs numbers)",
                            value.trim()
                        ),
                    });
                }
            }
        }
        Ok(match self.opts.scale.check(&v) {
            Ok(()) => Ok(v),
            Err(e) => Err(("agree.out_of_scale", e.to_string())),
        })
    }

    /// The kept rows in input order.
    pub fn into_annotations(self) -> Annotations {
        let mut flags = self.flags.into_iter().peekable();
        let rows = self
            .triples
            .iter()
            .enumerate()
            .map(|(k, &(i, a, v))| Annotation {
                item: self.items.names[i as usize].clone(),
                annotator: self.annotators.names[a as usize].clone(),
                value: self.values[v as usize].clone(),
                flags: flags
                    .next_if(|(r, _)| *r == k)
                    .map(|f| f.1)
                    .unwrap_or_default(),
            })
            .collect();
        Annotations {
            rows,
            rejected: self.rejected,
            skipped: self.skipped,
        }
    }

    /// The kept rows as the sparse table.
    pub fn into_table(self) -> TableRead {
        let threads = self.opts.thread_count();
        TableRead {
            table: Table::build_on(
                self.items.names,
                self.annotators.names,
                self.values,
                &self.triples,
                threads,
            ),
            rejected: self.rejected,
            skipped: self.skipped,
        }
    }
}

/// Names interned to dense indices, first-seen order: each name is held once (the table
/// holds indices into `names`), and a name equal to the previous one (rows grouped by item)
/// is found without hashing.
#[derive(Default)]
struct Interner {
    names: Vec<String>,
    index: hashbrown::HashTable<u32>,
    hasher: hashbrown::DefaultHashBuilder,
    last: Option<u32>,
}

impl Interner {
    fn reserve(&mut self, more: usize) {
        self.names.reserve(more);
        let (names, hasher) = (&self.names, &self.hasher);
        self.index
            .reserve(more, |&k| hasher.hash_one(names[k as usize].as_str()));
    }

    fn get(&self, s: &str) -> Option<u32> {
        let h = self.hasher.hash_one(s);
        self.index
            .find(h, |&k| self.names[k as usize] == s)
            .copied()
    }

    fn intern(&mut self, s: &str) -> u32 {
        if let Some(k) = self.last
            && self.names[k as usize] == s
        {
            return k;
        }
        let h = self.hasher.hash_one(s);
        let (names, hasher) = (&mut self.names, &self.hasher);
        let k = match self.index.entry(
            h,
            |&k| names[k as usize] == s,
            |&k| hasher.hash_one(names[k as usize].as_str()),
        ) {
            hashbrown::hash_table::Entry::Occupied(e) => *e.get(),
            hashbrown::hash_table::Entry::Vacant(e) => {
                let k = names.len() as u32;
                names.push(s.to_string());
                e.insert(k);
                k
            }
        };
        self.last = Some(k);
        k
    }
}
