//! The record model: one struct for documents, sentences, pairs and examples.
//!
//! Ids are derived from content and origin (source id, record number, sentence index), so
//! the same inputs give the same ids on every run and every machine.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What a record is at this point of the pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A source record as read.
    #[default]
    Document,
    /// A sentence split from a document.
    Sentence,
    /// Two texts paired (STS, NLI).
    Pair,
    /// A task example built from pairs or sentences.
    Example,
}

impl Kind {
    /// The plural a funnel counts in: `documents`, `sentences`, `pairs`, `examples`.
    pub fn unit(self) -> &'static str {
        match self {
            Kind::Document => "documents",
            Kind::Sentence => "sentences",
            Kind::Pair => "pairs",
            Kind::Example => "examples",
        }
    }
}

/// Where a record came from: the input file (as the recipe names it) and its 1-based line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Origin {
    /// Shared by the records of a file (and the sentences of a record): one allocation
    /// per file, not per record.
    pub file: std::sync::Arc<str>,
    /// 1-based line of the record's start in that file (0 for the file as a whole).
    pub line: u64,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// One item flowing through the stages.
///
/// `fields` carries everything else the recipe maps or a stage adds (extra source columns,
/// `sentence2` of a pair, task labels, scores), in a stable (sorted) order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Record {
    /// The stable id (source-scoped; `-sNNN` for sentences).
    pub id: String,
    /// What the record is at this point.
    pub kind: Kind,
    /// The id of the source it came from.
    pub source: String,
    /// The input file and line it came from.
    pub origin: Origin,
    /// The text the stages work on.
    pub text: String,
    /// The date the source maps, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// The label the source maps, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Ids of the inputs this record was made from, when it has a new id (a pair made of
    /// two sentences, an example made of a pair). The runner's conservation check accepts
    /// an input as "out" when an output names it here.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parents: Vec<String>,
    /// Extra columns and stage results, sorted by key. Reserved keys: `split` (the split
    /// a record is written to), `output` (an object written verbatim as the release row
    /// instead of the record, for task schemas such as KLUE STS).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub fields: BTreeMap<String, serde_json::Value>,
}

impl Record {
    /// A document id: `<source>-<record number>` when the source has no id of its own
    /// (the source part as [`Record::id_prefix`] writes it).
    pub fn document_id(source: &str, number: u64) -> String {
        format!("{}-{number:07}", Record::id_prefix(source))
    }

    /// A source id as the part of a record id before the first `-`: the source id with
    /// each `-` written `.`, a character source ids cannot hold. The first `-` of a
    /// source-scoped id then always ends the source part, so source `s` with id `a-b`
    /// (`s-a-b`) and source `s-a` with id `b` (`s.a-b`) cannot meet; a source id without
    /// `-` is written as it is.
    pub fn id_prefix(source: &str) -> std::borrow::Cow<'_, str> {
        if source.contains('-') {
            source.replace('-', ".").into()
        } else {
            source.into()
        }
    }

    /// The id of the `index`-th sentence of this record.
    pub fn sentence_id(&self, index: usize) -> String {
        // Written by hand, once per sentence of a corpus: `format!` with a padded width
        // showed in the split stage's profile. Same string as `format!("{id}-s{index:03}")`
        // (tested).
        let mut id = String::with_capacity(self.id.len() + 6);
        id.push_str(&self.id);
        id.push_str("-s");
        if index < 1000 {
            for d in [index / 100, index / 10 % 10, index % 10] {
                id.push(char::from(b'0' + d as u8));
            }
        } else {
            id.push_str(&index.to_string());
        }
        id
    }

    /// Child record (e.g. a sentence of a document) that inherits source, origin, date,
    /// label and fields.
    pub fn child(&self, id: String, kind: Kind, text: String) -> Record {
        Record {
            id,
            kind,
            source: self.source.clone(),
            origin: self.origin.clone(),
            text,
            date: self.date.clone(),
            label: self.label.clone(),
            parents: Vec::new(),
            fields: self.fields.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentence_ids_pad_to_three_digits() {
        let r = Record {
            id: "nsmc-0000042".into(),
            ..Default::default()
        };
        for i in [0, 7, 10, 99, 100, 999, 1000, 12345] {
            assert_eq!(r.sentence_id(i), format!("nsmc-0000042-s{i:03}"));
        }
    }
}
