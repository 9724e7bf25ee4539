//! Stage `split`: a document becomes its sentences (KSS-style splitter, [`crate::ssplit`]).

use crate::ssplit::split_into;
use kcurate_core::{
    BuildCtx, BuildError, BuiltStage, Kind, Out, Record, RuleId, Stage, StageEntry, parse_settings,
};

/// The `split` stage's line in the binary's `STAGES` table.
pub const ENTRY: StageEntry = StageEntry {
    name: "split",
    summary: "Korean sentence splitter (KSS-style rules): document → sentence records",
    doc: "What: splits each document into sentences with kcurate's rule-based Korean splitter \
(sentence-final endings with or without punctuation, quotes and brackets, ellipses, numbers, \
abbreviations, emoticon and jamo tails, URLs, line breaks). Each sentence is a child record \
`<doc id>-sNNN` (kind sentence) naming the document in `parents`; records that are already \
sentences pass through. A document with no text is dropped (split.empty).\n\
Why: KLUE §2.3 splits its corpora into sentences with KSS.\n\
Example: \"재밌어요ㅋㅋ 또 볼래요\" → [\"재밌어요ㅋㅋ\", \"또 볼래요\"].\n\
Settings: none.",
    rules: &["split.empty"],
    build,
};

#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct SplitConfig {}

/// Replaces each document by its sentences (ids `<doc>#s<n>`, or `split.empty` when none).
#[derive(Debug, Default)]
pub struct SplitStage;

/// Builds the stage from its recipe settings (see [`ENTRY`]'s doc).
pub fn build(settings: &toml::Table, _ctx: &mut BuildCtx) -> Result<BuiltStage, BuildError> {
    let _cfg: SplitConfig = parse_settings(settings)?;
    Ok(BuiltStage::Record(Box::new(SplitStage)))
}

impl Stage for SplitStage {
    fn apply(&self, rec: Record, out: &mut Out) {
        if rec.kind != Kind::Document {
            out.keep(rec);
            return;
        }
        let mut ranges = Vec::new();
        split_into(&rec.text, &mut ranges);
        if ranges.is_empty() {
            out.drop(rec, RuleId::new("split.empty"), "no text to split", None);
            return;
        }
        let (&(last_s, last_e), rest) = ranges.split_last().expect("not empty");
        for (i, &(s, e)) in rest.iter().enumerate() {
            let mut child = rec.child(
                rec.sentence_id(i),
                Kind::Sentence,
                rec.text[s..e].to_string(),
            );
            child.parents = vec![rec.id.clone()];
            out.keep(child);
        }
        // The last sentence (for most reviews the only one) takes the document's record
        // over instead of copying it: the same child as `Record::child` makes.
        let mut last = rec;
        let id = last.sentence_id(rest.len());
        last.parents = vec![std::mem::replace(&mut last.id, id)];
        last.kind = Kind::Sentence;
        last.text.truncate(last_e);
        last.text.drain(..last_s);
        out.keep(last);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_become_sentences() {
        let mut out = Out::new("split");
        let rec = Record {
            id: "d".into(),
            text: "좋았다. 또 갈래요ㅋㅋ 추천함".into(),
            ..Default::default()
        };
        SplitStage.apply(rec, &mut out);
        SplitStage.apply(
            Record {
                id: "e".into(),
                text: " ".into(),
                ..Default::default()
            },
            &mut out,
        );
        let (kept, dec, dropped) = out.into_parts();
        let texts: Vec<_> = kept.iter().map(|r| r.text.as_str()).collect();
        assert_eq!(texts, ["좋았다.", "또 갈래요ㅋㅋ", "추천함"]);
        assert_eq!(kept[1].id, "d-s001");
        assert_eq!(kept[1].kind, Kind::Sentence);
        assert_eq!(kept[1].parents, ["d"]);
        assert_eq!(dropped, 1);
        assert_eq!(dec[0].rule.as_str(), "split.empty");
    }

    /// Every sentence, the last one (made from the document's own record) included, is the
    /// child `Record::child` makes: same source, origin, date, label and fields.
    #[test]
    fn sentences_are_the_documents_children() {
        let mut rec = Record {
            id: "d".into(),
            source: "s".into(),
            text: " 첫 문장이다. 둘째 문장이에요 ".into(),
            date: Some("2020".into()),
            label: Some("1".into()),
            parents: vec!["p".into()],
            ..Default::default()
        };
        rec.origin.file = "f.json".into();
        rec.origin.line = 7;
        rec.fields.insert("movie".into(), serde_json::json!("m1"));
        let mut ranges = Vec::new();
        split_into(&rec.text, &mut ranges);
        let want: Vec<Record> = ranges
            .iter()
            .enumerate()
            .map(|(i, &(s, e))| {
                let mut c = rec.child(rec.sentence_id(i), Kind::Sentence, rec.text[s..e].into());
                c.parents = vec![rec.id.clone()];
                c
            })
            .collect();
        let mut out = Out::new("split");
        SplitStage.apply(rec, &mut out);
        let (kept, _, _) = out.into_parts();
        assert_eq!(kept.len(), 2);
        assert_eq!(kept, want);
    }
}
