//! The card's Filtering settings and Limitations: what each stage was told (its thresholds,
//! the data its model was trained on) and what the stages of this release did not do, so a
//! reader knows what the release can and cannot be trusted for.

use super::figures::count;
use super::text::md_inline;
use crate::Manifest;
use kcurate_core::recipe::Recipe;
use std::fmt::Write;

/// Stages that drop items of a split document one sentence at a time.
const PER_SENTENCE: [&str; 4] = ["filter", "dedup", "toxicity", "pii"];

/// `## Filtering settings`: every setting each stage of the recipe sets, as written there.
pub(super) fn settings_section(s: &mut String, recipe: &Recipe) {
    s.push_str(
        "## Filtering settings\n\nEach stage's settings as the recipe sets them (thresholds, \
         rule files, the data a model is trained on); a setting not listed is at the default \
         `kcurate stages --doc` gives.\n\n| stage | setting | value |\n| --- | --- | --- |\n",
    );
    let mut any = false;
    for stage in &recipe.stages {
        let (name, table) = (stage.name.as_str(), stage.to_table());
        for (k, v) in table.iter().filter(|(k, _)| *k != "name") {
            any = true;
            let value = match v {
                toml::Value::String(t) => t.clone(),
                other => other.to_string(),
            };
            let _ = writeln!(
                s,
                "| {} | {} | {} |",
                md_inline(name),
                md_inline(k),
                md_inline(&value)
            );
        }
    }
    if !any {
        s.push_str("| - | (every stage at its defaults) | - |\n");
    }
    s.push('\n');
}

/// `## Limitations`: one line per thing the release's stages did not do or cannot do.
pub(super) fn limitations_section(s: &mut String, recipe: &Recipe, m: &Manifest) {
    s.push_str("## Limitations\n\n");
    for l in limitations(recipe, m) {
        let _ = writeln!(s, "- {l}");
    }
    s.push('\n');
}

fn has(recipe: &Recipe, stage: &str) -> bool {
    recipe.stage(stage).is_some()
}

fn limitations(recipe: &Recipe, m: &Manifest) -> Vec<String> {
    let mut out = Vec::new();
    if has(recipe, "split") {
        let after: Vec<(&str, u64)> = m
            .stages
            .iter()
            .filter(|st| PER_SENTENCE.contains(&st.name.as_str()) && st.stats.dropped > 0)
            .map(|st| (st.name.as_str(), st.stats.dropped))
            .collect();
        if !after.is_empty() {
            let total: u64 = after.iter().map(|(_, n)| n).sum();
            let by: Vec<String> = after.iter().map(|(st, n)| format!("{st} {n}")).collect();
            out.push(format!(
                "Filtering is per sentence: {} {} dropped after splitting ({}) while the other \
                 sentences of their documents stay, so a released sentence can continue, answer \
                 or quote a dropped one.",
                count(total, "sentence"),
                if total == 1 { "was" } else { "were" },
                by.join(", ")
            ));
        }
    }
    out.push(if has(recipe, "toxicity") {
        "Toxicity is screened one sentence at a time by a lexicon and a linear model trained \
         on the data named under Filtering settings, at the thresholds named there: insults \
         without a listed word or a pattern the model learnt stay, and a sentence that only \
         mentions a slur can be dropped (`kcurate audit sample --stage toxicity` shows what was)."
            .to_string()
    } else {
        "No toxicity screening: offensive or hateful text was not filtered.".to_string()
    });
    out.push(if has(recipe, "pii") {
        "Personal data is found by patterns (the `pii` section of `kcurate stages --doc` lists the types): a name \
         or address written in free text that no pattern matches stays as written. Pseudonyms \
         keep the shape of the original and are not real data."
            .to_string()
    } else {
        "No `pii` stage ran: the text is released as the sources have it.".to_string()
    });
    out.push(if has(recipe, "dedup") {
        "Duplicates were removed within this release only, not against other datasets (another \
         benchmark's test set can hold the same text)."
            .to_string()
    } else {
        "No deduplication: the same text can appear more than once, and in more than one split."
            .to_string()
    });
    if m.rule_precision.is_empty() {
        out.push(
            "No rule's precision was measured for this release: no judgements of its decisions \
             were given (`[audit] judgements`), so how often a drop or edit was wrong is unknown."
                .to_string(),
        );
    }
    out
}
