//! Stage `pii`: detects the 16 types (and, when a recipe turns it on, review-site user ids)
//! in every string field of a record -- its id, text, date, label, extra fields and parents
//! -- and, per type, pseudonymises (default), drops the record, or flags it. Decisions carry
//! the type, the field, the offsets and a keyed fingerprint, never the original.
//!
//! The id cannot be dropped on its own and is quoted by every decision on the record, so an
//! id holding PII is always rewritten to a *safe id* ([`Scrubber::safe_id`]: each span of
//! the id's own part replaced by its keyed pseudonym, the `<source>-` prefix and a sentence's
//! `-sNNN` suffix kept), whatever the type's mode: an id never drops or flags its record.
//! In every other field a `drop` type drops the record (under its safe id). The [`Scrubber`] gives the
//! decisions of the stages before `pii` the same safe ids, so an item keeps one id from
//! ingest to release. Types listed in `id_allow` stay in ids (Wikinews ids are article URLs).

use crate::detect::{Options, rule_id};
use crate::pseudo::{PiiKey, fingerprint, pseudonymise};
use kcurate_core::{
    BuildCtx, BuildError, BuiltStage, Out, Record, RuleId, Span, Stage, StageEntry, parse_settings,
};
use std::collections::BTreeMap;

mod scrubber;
use scrubber::kinds;
pub use scrubber::{Scrubber, scrub_text};

/// The `pii` stage's line in the binary's `STAGES` table.
pub const ENTRY: StageEntry = StageEntry {
    name: "pii",
    summary: "The 16 KISA PII types in every field: pseudonymise (format-preserving, keyed), drop or flag per type",
    doc: "What: detects phone, rrn, frn, email, ip, mac, mention, address, bank_account, passport, \
driver_license, brn, health_insurance, card, vehicle_plate and url spans (rules/pii.toml + \
validators; a mention is `@handle` or `＠handle` starting a word, rule pii.mention_v2, on by default), \
and review-site user ids (`abcd****`, rule pii.user_id) when `user_ids = true`, \
in every string field of a record: text, date, label, extra fields, parents and the id, each \
read as written and as a reader sees it (HTML character references decoded, soft hyphens and \
zero-width characters removed, a number wrapped across a line joined, `hong(at)example.com` and \
`hong @ example.com` read as emails); a pseudonym keeps the value's spelling. Mode \
per type: `pseudonymise` replaces each span with a valid, format-preserving pseudonym keyed by \
a secret (edit decision with the type's rule id, e.g. pii.phone or pii.address_v2; for the \
span.before = keyed fingerprint, span.after = pseudonym, offsets into the field the detail \
names: `phone pseudonymised` for the text, `phone in label at 0..13 pseudonymised` otherwise); `drop` removes the record (drop decision); `flag` keeps it with a flag \
decision. An id holding PII is always rewritten to a safe id (each span replaced by its \
pseudonym; the source prefix and a sentence's -sNNN suffix kept; never a drop or a flag), and \
every decision of the stages before pii gets the same safe id, so no original id reaches the release, its decisions or the run's messages.\n\
Why: KLUE §4.1 and Table 29 pseudonymised 16 types; §2.3 dropped sentences with emails, URLs and \
@mentions from benchmark data.\n\
Example: \"010-2345-6789로 연락\" → \"010-7391-2045로 연락\" (the pseudonym depends on the key; it \
keeps the original's format and passes its validator, so it looks real, but it is drawn from the \
key, not anyone's number).\n\
Settings: key_env (default \"KCURATE_PII_KEY\"), key_file (a file whose trimmed text is the key, \
relative to the recipe's directory; `kcurate pii keygen FILE` writes one; wins over key_env), default_mode (\"pseudonymise\"), modes (table type → mode, e.g. {email = \"drop\"}), \
user_ids (false: detect review-site ids written without @), id_allow (types left as they are in \
ids, e.g. [\"url\"] when a source's ids are public article URLs).",
    rules: &[],
    build,
};

/// What the stage does with a PII type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Replace each span by a keyed, format-preserving pseudonym.
    Pseudonymise,
    /// Drop the record.
    Drop,
    /// Keep the record unchanged and flag it.
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
    #[serde(default)]
    user_ids: bool,
    #[serde(default)]
    id_allow: Vec<String>,
}

fn default_key_env() -> String {
    "KCURATE_PII_KEY".into()
}

fn default_mode() -> Mode {
    Mode::Pseudonymise
}

/// The `pii` stage: each PII type pseudonymised, dropped or flagged.
pub struct PiiStage {
    scrub: Scrubber,
    modes: BTreeMap<String, Mode>,
}

impl PiiStage {
    /// A stage with the default detectors: `modes` per type, `default` for the rest.
    pub fn new(key: PiiKey, default: Mode, modes: BTreeMap<String, Mode>) -> Self {
        Self::with(
            Scrubber::new(key, Options::default(), Vec::new()),
            default,
            modes,
        )
    }

    /// A stage over a prepared scrubber: `modes` per type, `default` for the rest.
    pub fn with(scrub: Scrubber, default: Mode, modes: BTreeMap<String, Mode>) -> Self {
        let modes = kinds()
            .map(|t| (t.to_string(), modes.get(t).copied().unwrap_or(default)))
            .collect();
        PiiStage { scrub, modes }
    }
}

/// Builds the stage from its recipe settings (see [`ENTRY`]'s doc).
pub fn build(settings: &toml::Table, ctx: &mut BuildCtx) -> Result<BuiltStage, BuildError> {
    let cfg: PiiConfig = parse_settings(settings)?;
    let known: Vec<&str> = kinds().collect();
    let named = cfg
        .modes
        .keys()
        .map(|t| ("modes", t))
        .chain(cfg.id_allow.iter().map(|t| ("id_allow", t)));
    for (setting, t) in named {
        if !known.contains(&t.as_str()) {
            return Err(BuildError::setting(
                format!("{setting}.{t}"),
                format!("unknown PII type; types: {}", known.join(", ")),
            ));
        }
    }
    let key = match &cfg.key_file {
        Some(f) => PiiKey::from_file(&ctx.resolve(f)),
        None => PiiKey::from_env(&cfg.key_env),
    }
    .map_err(|e| BuildError::setting("key", e.to_string()))?;
    let opts = Options {
        user_ids: cfg.user_ids,
    };
    Ok(BuiltStage::Record(Box::new(PiiStage::with(
        Scrubber::new(key, opts, cfg.id_allow),
        cfg.default_mode,
        cfg.modes,
    ))))
}

/// A span found in a field: `(field, span, value)`. `field` is `text`, `date`, `label`,
/// `parents[i]`, or an extra field's key with `.key` / `[i]` for nested values.
type Hit = (String, crate::PiiSpan, String);

/// Finds PII in `v` (strings, arrays and objects are searched; a number as its digits).
fn scan_value(scrub: &Scrubber, field: &str, v: &serde_json::Value, hits: &mut Vec<Hit>) {
    match v {
        serde_json::Value::String(s) => scan_str(scrub, field, s, hits),
        serde_json::Value::Number(n) => scan_str(scrub, field, &n.to_string(), hits),
        serde_json::Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                scan_value(scrub, &format!("{field}[{i}]"), x, hits);
            }
        }
        serde_json::Value::Object(o) => {
            for (k, x) in o {
                scan_value(scrub, &format!("{field}.{k}"), x, hits);
            }
        }
        _ => {}
    }
}

fn scan_str(scrub: &Scrubber, field: &str, s: &str, hits: &mut Vec<Hit>) {
    let spans = scrub.detect(s);
    if spans.is_empty() {
        return;
    }
    let chars: Vec<char> = s.chars().collect();
    for sp in spans {
        let v = chars[sp.start..sp.end].iter().collect();
        hits.push((field.to_string(), sp, v));
    }
}

/// `s` with each span of `field` replaced by its pseudonym (flagged types stay).
fn rewrite(stage: &PiiStage, field: &str, s: &str, hits: &[Hit]) -> String {
    let mut chars: Vec<char> = s.chars().collect();
    for (_, sp, v) in hits.iter().rev().filter(|(f, _, _)| f == field) {
        if stage.modes[&sp.kind] == Mode::Pseudonymise {
            let p = pseudonymise(&stage.scrub.key, &sp.kind, v);
            chars.splice(sp.start..sp.end, p.chars());
        }
    }
    chars.into_iter().collect()
}

/// Rewrites the spans of `hits` that fall in `field` of `v` (paths as `scan_value` makes).
fn rewrite_value(stage: &PiiStage, field: &str, v: &mut serde_json::Value, hits: &[Hit]) {
    if !hits.iter().any(|(f, _, _)| f.starts_with(field)) {
        return;
    }
    match v {
        serde_json::Value::String(s) => *s = rewrite(stage, field, s, hits),
        serde_json::Value::Number(n) => {
            // A pseudonym keeps the digits' layout; it stays a number when it reads as one.
            let p = rewrite(stage, field, &n.to_string(), hits);
            *v = match p.parse::<u64>() {
                Ok(x) if x.to_string() == p => serde_json::Value::from(x),
                _ => serde_json::Value::String(p),
            };
        }
        serde_json::Value::Array(a) => {
            for (i, x) in a.iter_mut().enumerate() {
                rewrite_value(stage, &format!("{field}[{i}]"), x, hits);
            }
        }
        serde_json::Value::Object(o) => {
            for (k, x) in o.iter_mut() {
                rewrite_value(stage, &format!("{field}.{k}"), x, hits);
            }
        }
        _ => {}
    }
}

impl Stage for PiiStage {
    fn apply(&self, mut rec: Record, out: &mut Out) {
        // The id first: every decision below names the record by its safe id.
        self.replace_id(&mut rec, out);
        let mut text_hits = Vec::new();
        scan_str(&self.scrub, "text", &rec.text, &mut text_hits);
        let hits = self.scan_other_fields(&rec);
        if text_hits.is_empty() && hits.is_empty() {
            out.keep(rec);
            return;
        }
        let all = text_hits.iter().chain(hits.iter());
        if let Some((field, s, v)) = all
            .clone()
            .find(|(_, s, _)| self.modes[&s.kind] == Mode::Drop)
        {
            let detail = format!(
                "{} in {field} at {}..{} (fingerprint {})",
                s.kind,
                s.start,
                s.end,
                fingerprint(&self.scrub.key, &s.kind, v)
            );
            out.drop(rec, RuleId::new(rule_id(&s.kind)), detail, None);
            return;
        }
        self.decide_other_fields(&rec, &hits, out);
        self.decide_text(&rec, &text_hits, out);
        self.rewrite_record(&mut rec, &text_hits, &hits);
        out.keep(rec);
    }
}

/// The steps of [`PiiStage::apply`], in the order it takes them.
impl PiiStage {
    /// Gives a record whose id holds PII its safe id, with one edit per span found.
    fn replace_id(&self, rec: &mut Record, out: &mut Out) {
        let scrub = &self.scrub;
        let id_hits = scrub.id_hits(&rec.source, &rec.id);
        if id_hits.is_empty() {
            return;
        }
        rec.id = scrub.safe_id(&rec.source, &rec.id);
        for (s, v, p) in &id_hits {
            let fp = fingerprint(&scrub.key, &s.kind, v);
            out.edit_with(
                rec,
                RuleId::new(rule_id(&s.kind)),
                format!(
                    "{} in id at {}..{} pseudonymised; the record has its safe id",
                    s.kind, s.start, s.end
                ),
                Span {
                    start: s.start,
                    end: s.end,
                    before: format!("fp:{fp}"),
                    after: p.clone(),
                },
            );
        }
    }

    /// The spans in every field but the text and the id.
    fn scan_other_fields(&self, rec: &Record) -> Vec<Hit> {
        let scrub = &self.scrub;
        let mut hits: Vec<Hit> = Vec::new();
        if let Some(d) = &rec.date {
            scan_str(scrub, "date", d, &mut hits);
        }
        if let Some(l) = &rec.label {
            scan_str(scrub, "label", l, &mut hits);
        }
        for (i, p) in rec.parents.iter().enumerate() {
            scan_str(scrub, &format!("parents[{i}]"), p, &mut hits);
        }
        for (k, v) in &rec.fields {
            scan_value(scrub, k, v, &mut hits);
        }
        hits
    }

    /// One flag or edit per span outside the text, in the order found.
    fn decide_other_fields(&self, rec: &Record, hits: &[Hit], out: &mut Out) {
        let key = &self.scrub.key;
        for (field, s, v) in hits.iter().filter(|(f, _, _)| f != "text") {
            let fp = fingerprint(key, &s.kind, v);
            let rule = RuleId::new(rule_id(&s.kind));
            let where_ = format!("{} in {field} at {}..{}", s.kind, s.start, s.end);
            match self.modes[&s.kind] {
                Mode::Flag => out.flag(rec, rule, format!("{where_} (fingerprint {fp})"), None),
                _ => out.edit_with(
                    rec,
                    rule,
                    format!("{where_} pseudonymised"),
                    Span {
                        start: s.start,
                        end: s.end,
                        before: format!("fp:{fp}"),
                        after: pseudonymise(key, &s.kind, v),
                    },
                ),
            }
        }
    }

    /// One flag or edit per span of the text, last first (offsets stay valid).
    fn decide_text(&self, rec: &Record, text_hits: &[Hit], out: &mut Out) {
        let key = &self.scrub.key;
        for (_, s, v) in text_hits.iter().rev() {
            let fp = fingerprint(key, &s.kind, v);
            let rule = RuleId::new(rule_id(&s.kind));
            match self.modes[&s.kind] {
                Mode::Flag => out.flag(
                    rec,
                    rule,
                    format!("{} at {}..{} (fingerprint {fp})", s.kind, s.start, s.end),
                    None,
                ),
                _ => out.edit_with(
                    rec,
                    rule,
                    format!("{} pseudonymised", s.kind),
                    Span {
                        start: s.start,
                        end: s.end,
                        before: format!("fp:{fp}"),
                        after: pseudonymise(key, &s.kind, v),
                    },
                ),
            }
        }
    }

    /// Replaces every pseudonymised span in the record's fields.
    fn rewrite_record(&self, rec: &mut Record, text_hits: &[Hit], hits: &[Hit]) {
        rec.text = rewrite(self, "text", &rec.text, text_hits);
        if let Some(d) = &rec.date {
            rec.date = Some(rewrite(self, "date", d, hits));
        }
        if let Some(l) = &rec.label {
            rec.label = Some(rewrite(self, "label", l, hits));
        }
        let parents: Vec<String> = rec
            .parents
            .iter()
            .enumerate()
            .map(|(i, p)| rewrite(self, &format!("parents[{i}]"), p, hits))
            .collect();
        rec.parents = parents;
        for (k, v) in rec.fields.iter_mut() {
            rewrite_value(self, k, v, hits);
        }
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
mod tests;
