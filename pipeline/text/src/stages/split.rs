//! Stage `split`: a document becomes its sentences (KSS-style splitter, [`crate::ssplit`]).

use crate::ssplit::split_into;
use kcurate_core::{
    BuildCtx, BuildError, BuiltStage, Kind, Out, Record, RuleId, Stage, StageEntry, parse_settings,
};

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

#[derive(Debug, Default)]
pub struct SplitStage;

pub fn build(settings: &toml::Table, _ctx: &mut BuildCtx) -> Result<BuiltStage, BuildError> {
    let _cfg: SplitConfig = parse_settings(settings)?;
    Ok(BuiltStage::Record(Box::new(SplitStage)))
}

impl Stage for SplitStage {
    fn name(&self) -> &str {
        "split"
    }

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
        for (i, &(s, e)) in ranges.iter().enumerate() {
            let mut child = rec.child(
                rec.sentence_id(i),
                Kind::Sentence,
                rec.text[s..e].to_string(),
            );
            child.parents = vec![rec.id.clone()];
            out.keep(child);
        }
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
}
