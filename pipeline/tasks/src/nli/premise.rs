//! Stage `nli_premise`: keeps sentences fit to be NLI premises (KLUE §3.3): 20–90
//! characters, declarative, ending in a predicate. Each rejection is a drop with its rule.

use kcurate_core::{
    BuildCtx, BuildError, BuiltStage, Out, Record, RuleId, Stage, StageEntry, parse_settings,
};

/// The `nli_premise` stage's line in the binary's `STAGES` table.
pub const ENTRY: StageEntry = StageEntry {
    name: "nli_premise",
    summary: "NLI premise selection: 20–90 characters, declarative, ends in a predicate",
    doc: "What: drops sentences that cannot serve as NLI premises: length outside [min_chars, max_chars] \
(nli.premise_length), questions (nli.premise_question), imperatives and requests \
(nli.premise_imperative), list items (nli.premise_list), and sentences without a declarative \
verbal or adjectival ending such as headlines and fragments (nli.premise_not_declarative).\n\
Why: KLUE §3.3 selects premises of 20–90 characters that are declarative and contain a predicate.\n\
Example: \"정부는 내년부터 기초연금 지급 대상을 확대한다.\" kept; \"근처 맛집 추천해줘\" → nli.premise_not_declarative.\n\
Settings: min_chars (20), max_chars (90).",
    rules: &[
        "nli.premise_length",
        "nli.premise_question",
        "nli.premise_imperative",
        "nli.premise_list",
        "nli.premise_not_declarative",
    ],
    build,
};

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct PremiseConfig {
    #[serde(default = "twenty")]
    min_chars: usize,
    #[serde(default = "ninety")]
    max_chars: usize,
}

fn twenty() -> usize {
    20
}
fn ninety() -> usize {
    90
}

pub(crate) struct PremiseStage {
    min: usize,
    max: usize,
}

/// Builds the stage from its recipe settings (see [`ENTRY`]'s doc).
pub fn build(settings: &toml::Table, _ctx: &mut BuildCtx) -> Result<BuiltStage, BuildError> {
    let c: PremiseConfig = parse_settings(settings)?;
    if c.max_chars == 0 {
        return Err(BuildError::setting(
            "max_chars",
            "must be at least 1 (0 drops every sentence)",
        ));
    }
    if c.min_chars > c.max_chars {
        return Err(BuildError::setting(
            "min_chars",
            format!(
                "{} is above max_chars {} (every sentence would be dropped)",
                c.min_chars, c.max_chars
            ),
        ));
    }
    Ok(BuiltStage::Record(Box::new(PremiseStage {
        min: c.min_chars,
        max: c.max_chars,
    })))
}

/// Declarative endings (plain and formal styles, past and present, copula).
const DECLARATIVE: [&str; 12] = [
    "다",
    "다고",
    "습니다",
    "ㅂ니다",
    "이다",
    "였다",
    "했다",
    "한다",
    "된다",
    "있다",
    "없다",
    "니다",
];
const IMPERATIVE: [&str; 8] = [
    "하라",
    "해라",
    "세요",
    "십시오",
    "하자",
    "줘",
    "주세요",
    "마라",
];

/// Why `text` is not a premise, or `None` when it is one.
pub fn reject(text: &str, min: usize, max: usize) -> Option<(&'static str, String)> {
    let t = text.trim();
    let n = t.chars().count();
    if n < min || n > max {
        return Some((
            "nli.premise_length",
            format!("{n} characters, outside {min}–{max}"),
        ));
    }
    if t.starts_with(['-', '*', '•', '·', '▶', '■', '○'])
        || t.split_once(['.', ')']).is_some_and(|(h, _)| {
            !h.is_empty() && h.len() <= 2 && h.chars().all(|c| c.is_ascii_digit())
        })
    {
        return Some(("nli.premise_list", "a list item".into()));
    }
    if t.ends_with('?') || t.ends_with("까") || t.ends_with("니") {
        return Some(("nli.premise_question", "a question".into()));
    }
    let core = t.trim_end_matches(['.', '!', '"', '\'', '”', '’', ')', ' ']);
    if IMPERATIVE.iter().any(|e| core.ends_with(e)) {
        return Some(("nli.premise_imperative", "an imperative or request".into()));
    }
    if !DECLARATIVE.iter().any(|e| core.ends_with(e)) {
        return Some((
            "nli.premise_not_declarative",
            "no declarative predicate at the end".into(),
        ));
    }
    None
}

impl Stage for PremiseStage {
    fn apply(&self, rec: Record, out: &mut Out) {
        match reject(&rec.text, self.min, self.max) {
            Some((rule, why)) => out.drop(rec, RuleId::new(rule), why, None),
            None => out.keep(rec),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn premise_rules() {
        assert_eq!(
            reject("정부는 내년부터 기초연금 지급 대상을 확대한다.", 20, 90),
            None
        );
        assert_eq!(
            reject(
                "국회는 본회의를 열어 민생 법안 여러 건을 처리했습니다.",
                20,
                90
            ),
            None
        );
        assert_eq!(reject("짧다.", 20, 90).unwrap().0, "nli.premise_length");
        assert_eq!(
            reject(
                "이번 주말에 부산에 비가 많이 올 것 같은지 알려줄 수 있어?",
                20,
                90
            )
            .unwrap()
            .0,
            "nli.premise_question"
        );
        assert_eq!(
            reject(
                "행사에 참여하려면 내일까지 누리집에서 꼭 신청해 주세요.",
                20,
                90
            )
            .unwrap()
            .0,
            "nli.premise_imperative"
        );
        assert_eq!(
            reject(
                "2024년 지역 소상공인 지원 예산 확대 발표 현장 스케치",
                20,
                90
            )
            .unwrap()
            .0,
            "nli.premise_not_declarative"
        );
        assert_eq!(
            reject(
                "1. 신청은 주소지 행정복지센터에서 할 수 있다고 한다.",
                20,
                90
            )
            .unwrap()
            .0,
            "nli.premise_list"
        );
    }
}
