//! Stage `pii`: detects the 16 types in each record's text and, per type, pseudonymises
//! (default), drops the record, or flags it. Decisions carry the type, the offsets and a
//! keyed fingerprint, never the original.

use crate::detect::{TYPES, detect};
use crate::pseudo::{PiiKey, fingerprint, pseudonymise};
use kcurate_core::{
    BuildCtx, BuildError, BuiltStage, Out, Record, RuleId, Span, Stage, StageEntry, parse_settings,
};
use std::collections::BTreeMap;

pub const ENTRY: StageEntry = StageEntry {
    name: "pii",
    summary: "The 16 KISA PII types: pseudonymise (format-preserving, keyed), drop or flag per type",
    doc: "What: detects phone, rrn, frn, email, ip, mac, mention, address, bank_account, passport, \
driver_license, brn, health_insurance, card, vehicle_plate and url spans (rules/pii.toml + \
validators). Mode per type: `pseudonymise` replaces each span with a valid, format-preserving \
pseudonym keyed by a secret (edit decision pii.<type>, span.before = keyed fingerprint, \
span.after = pseudonym); `drop` removes the record (drop decision pii.<type>); `flag` keeps it \
with a flag decision.\n\
Why: KLUE §4.1 and Table 29 pseudonymised 16 types; §2.3 dropped sentences with emails, URLs and \
@mentions from benchmark data.\n\
Example: \"010-2345-6789로 연락\" → \"010-7391-2045로 연락\" (the pseudonym depends on the key).\n\
Settings: key_env (default \"KCURATE_PII_KEY\"), key_file (a file holding the key; wins over \
key_env), default_mode (\"pseudonymise\"), modes (table type → mode, e.g. {email = \"drop\"}).",
    rules: &[],
    build,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Pseudonymise,
    Drop,
    Flag,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct PiiConfig {
    #[serde(default = "default_key_env")]
    key_env: String,
    #[serde(default)]
    key_file: Option<String>,
    #[serde(default = "default_mode")]
    default_mode: Mode,
    #[serde(default)]
    modes: BTreeMap<String, Mode>,
}

fn default_key_env() -> String {
    "KCURATE_PII_KEY".into()
}

fn default_mode() -> Mode {
    Mode::Pseudonymise
}

pub struct PiiStage {
    key: PiiKey,
    modes: BTreeMap<String, Mode>,
}

impl PiiStage {
    pub fn new(key: PiiKey, default: Mode, modes: BTreeMap<String, Mode>) -> Self {
        let modes = TYPES
            .iter()
            .map(|t| (t.to_string(), modes.get(*t).copied().unwrap_or(default)))
            .collect();
        PiiStage { key, modes }
    }
}

pub fn build(settings: &toml::Table, ctx: &mut BuildCtx) -> Result<BuiltStage, BuildError> {
    let cfg: PiiConfig = parse_settings(settings)?;
    for t in cfg.modes.keys() {
        if !TYPES.contains(&t.as_str()) {
            return Err(BuildError::setting(
                format!("modes.{t}"),
                format!("unknown PII type; types: {}", TYPES.join(", ")),
            ));
        }
    }
    let key = match &cfg.key_file {
        Some(f) => PiiKey::from_file(&ctx.resolve(f)),
        None => PiiKey::from_env(&cfg.key_env),
    }
    .map_err(|e| BuildError::setting("key", e.to_string()))?;
    Ok(BuiltStage::Record(Box::new(PiiStage::new(
        key,
        cfg.default_mode,
        cfg.modes,
    ))))
}

impl Stage for PiiStage {
    fn name(&self) -> &str {
        "pii"
    }

    fn apply(&self, mut rec: Record, out: &mut Out) {
        let spans = detect(&rec.text);
        if spans.is_empty() {
            out.keep(rec);
            return;
        }
        let chars: Vec<char> = rec.text.chars().collect();
        let value = |s: &crate::PiiSpan| -> String { chars[s.start..s.end].iter().collect() };
        if let Some(s) = spans.iter().find(|s| self.modes[&s.kind] == Mode::Drop) {
            let detail = format!(
                "{} at {}..{} (fingerprint {})",
                s.kind,
                s.start,
                s.end,
                fingerprint(&self.key, &s.kind, &value(s))
            );
            out.drop(rec, RuleId::new(format!("pii.{}", s.kind)), detail, None);
            return;
        }
        let mut text = chars.clone();
        for s in spans.iter().rev() {
            let v = value(s);
            let fp = fingerprint(&self.key, &s.kind, &v);
            match self.modes[&s.kind] {
                Mode::Flag => out.flag(
                    &rec,
                    RuleId::new(format!("pii.{}", s.kind)),
                    format!("{} at {}..{} (fingerprint {fp})", s.kind, s.start, s.end),
                    None,
                ),
                _ => {
                    let p = pseudonymise(&self.key, &s.kind, &v);
                    out.edit_with(
                        &rec,
                        RuleId::new(format!("pii.{}", s.kind)),
                        format!("{} pseudonymised", s.kind),
                        Span {
                            start: s.start,
                            end: s.end,
                            before: format!("fp:{fp}"),
                            after: p.clone(),
                        },
                    );
                    text.splice(s.start..s.end, p.chars());
                }
            }
        }
        rec.text = text.into_iter().collect();
        out.keep(rec);
    }
}

/// Replaces personal data in a text by `⟨type:fingerprint⟩`.
pub fn scrub_text(key: &PiiKey, text: &str) -> String {
    let spans = detect(text);
    if spans.is_empty() {
        return text.to_string();
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for s in spans {
        out.extend(&chars[at..s.start]);
        let v: String = chars[s.start..s.end].iter().collect();
        out.push_str(&format!("⟨{}:{}⟩", s.kind, fingerprint(key, &s.kind, &v)));
        at = s.end;
    }
    out.extend(&chars[at..]);
    out
}

/// The decision scrubber for a release with a `pii` stage: decisions quote text (a drop's
/// text, an edit's before/after, a detail); any PII in them becomes a keyed fingerprint, so
/// the audit trail holds no original. The `pii` stage's own details and spans already hold
/// only fingerprints and pseudonyms; its drops' text is scrubbed like any other.
pub fn scrub_decision(key: &PiiKey, d: &mut kcurate_core::Decision) {
    if let Some(t) = &mut d.text {
        *t = scrub_text(key, t);
    }
    if d.stage == "pii" {
        return;
    }
    d.detail = scrub_text(key, &d.detail);
    if let Some(span) = &mut d.span {
        span.before = scrub_text(key, &span.before);
        span.after = scrub_text(key, &span.after);
    }
}

/// The key a recipe's `pii` stage table names (key_file, else key_env).
pub fn key_from_settings(
    settings: &toml::Table,
    ctx: &BuildCtx,
) -> Result<PiiKey, crate::pseudo::KeyError> {
    if let Some(f) = settings.get("key_file").and_then(|v| v.as_str()) {
        return PiiKey::from_file(&ctx.resolve(f));
    }
    let var = settings
        .get("key_env")
        .and_then(|v| v.as_str())
        .unwrap_or("KCURATE_PII_KEY");
    PiiKey::from_env(var)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kcurate_core::{Action, Decision};

    fn drop_decision(stage: &str, text: &str) -> Decision {
        Decision {
            item: "x".into(),
            stage: stage.into(),
            rule: RuleId::new(format!("{stage}.rule")),
            action: Action::Drop,
            detail: String::new(),
            score: None,
            span: None,
            text: Some(text.into()),
            source: "s".into(),
            origin: "f:1".into(),
        }
    }

    /// A drop's text is scrubbed at every stage, the `pii` stage's own drops included: the
    /// phone number never reaches the audit, the rest of the sentence does.
    #[test]
    fn a_dropped_text_keeps_no_pii_original() {
        let key = PiiKey::new(b"k".to_vec()).unwrap();
        for stage in ["filter", "pii"] {
            let mut d = drop_decision(stage, "문의는 010-2345-6789로 연락 주세요");
            scrub_decision(&key, &mut d);
            let t = d.text.unwrap();
            assert!(!t.contains("010-2345-6789"), "{stage}: {t}");
            assert!(t.starts_with("문의는 ⟨phone:"), "{stage}: {t}");
            assert!(t.ends_with("⟩로 연락 주세요"), "{stage}: {t}");
        }
    }
}
