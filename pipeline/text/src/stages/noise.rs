//! Stage `noise`: the rules of `rules/noise.toml` (hashtags, HTML, empty brackets, blanks,
//! Korean news boilerplate), each match an `edit` decision or a `drop`.

use crate::noise::{NoiseOutcome, NoiseRules};
use kcurate_core::{
    BuildCtx, BuildError, BuiltStage, Out, Record, RuleId, Span, Stage, StageEntry, parse_settings,
};
use std::collections::BTreeSet;

/// The `noise` stage's line in the binary's `STAGES` table.
pub const ENTRY: StageEntry = StageEntry {
    name: "noise",
    summary: "Noise rules from rules/noise.toml: hashtags, HTML, empty brackets, blanks, news boilerplate",
    doc: "What: applies the rules of a rule file in order; an edit rule rewrites each match \
(one edit decision per match, with its span), a drop rule drops the record. News rules \
(scope = \"news\": bylines, press tags, photo/source captions, copyright lines) run only on \
the sources named as news. A record left empty is dropped (noise.empty).\n\
Why: KLUE §2.3 (hashtags, HTML tags, empty parentheses, consecutive blanks, news boilerplate).\n\
Example: \"(서울=연합뉴스) 홍길동 기자 = 정부가 발표했다. #속보\" → \"정부가 발표했다.\"\n\
Settings: rules (path relative to the recipe's directory, default \"rules/noise.toml\"), news_domains (default [\"news\"]), \
news_styles, news_sources (source ids), disable (rule ids to skip).",
    rules: &["noise.blank"],
    build,
};

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct NoiseConfig {
    #[serde(default = "default_rules")]
    rules: String,
    #[serde(default = "default_news_domains")]
    news_domains: Vec<String>,
    #[serde(default)]
    news_styles: Vec<String>,
    #[serde(default)]
    news_sources: Vec<String>,
    #[serde(default)]
    disable: Vec<String>,
}

fn default_rules() -> String {
    "rules/noise.toml".into()
}

fn default_news_domains() -> Vec<String> {
    vec!["news".into()]
}

/// Applies the noise rules to each record's text: edits keep it changed, a drop rule drops it.
pub struct NoiseStage {
    rules: NoiseRules,
    news_sources: BTreeSet<String>,
}

impl NoiseStage {
    /// `news_sources`: the source ids news rules apply to.
    pub fn new(rules: NoiseRules, news_sources: BTreeSet<String>) -> Self {
        NoiseStage {
            rules,
            news_sources,
        }
    }
}

/// Builds the stage from its recipe settings (see [`ENTRY`]'s doc).
pub fn build(settings: &toml::Table, ctx: &mut BuildCtx) -> Result<BuiltStage, BuildError> {
    let cfg: NoiseConfig = parse_settings(settings)?;
    let path = ctx.resolve(&cfg.rules);
    let mut rules = NoiseRules::load(&path).map_err(|e| BuildError::File {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    for id in &cfg.disable {
        if !rules.rules().iter().any(|r| &r.id == id) {
            return Err(BuildError::setting(
                "disable",
                format!("no rule {id:?} in {}", path.display()),
            ));
        }
    }
    rules.retain(|id| !cfg.disable.iter().any(|d| d == id));
    ctx.extra_inputs.push(path);
    let mut news: BTreeSet<String> = cfg.news_sources.iter().cloned().collect();
    for (id, s) in &ctx.sources {
        if cfg.news_domains.contains(&s.domain) || cfg.news_styles.contains(&s.style) {
            news.insert(id.clone());
        }
    }
    Ok(BuiltStage::Record(Box::new(NoiseStage::new(rules, news))))
}

impl Stage for NoiseStage {
    fn apply(&self, mut rec: Record, out: &mut Out) {
        let news = self.news_sources.contains(&rec.source);
        let edits = |rec: &Record, out: &mut Out, edits: Vec<crate::noise::NoiseEdit>| {
            for e in edits {
                out.edit(
                    rec,
                    RuleId::new(e.rule),
                    Span {
                        start: e.start,
                        end: e.end,
                        before: e.before,
                        after: e.after,
                    },
                );
            }
        };
        match self.rules.apply(&rec.text, news) {
            NoiseOutcome::Unchanged => out.keep(rec),
            NoiseOutcome::Kept { text, edits: es } => {
                if !es.is_empty() {
                    edits(&rec, out, es);
                    rec.text = text;
                }
                out.keep(rec);
            }
            NoiseOutcome::Dropped {
                rule,
                matched,
                edits: es,
            } => {
                edits(&rec, out, es);
                let detail = if matched.is_empty() {
                    "empty after edits".to_string()
                } else {
                    format!("matched {matched:?}")
                };
                out.drop(rec, RuleId::new(rule), detail, None);
            }
        }
    }
}
