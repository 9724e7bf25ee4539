//! Stage `pii`: detects the 16 types (and, when a recipe turns it on, review-site user ids)
//! in every string field of a record -- its id, text, date, label, extra fields and parents
//! -- and, per type, pseudonymises (default), drops the record, or flags it. Decisions carry
//! the type, the field, the offsets and a keyed fingerprint, never the original.
//!
//! The id cannot be dropped on its own and is quoted by every decision on the record, so an
//! id holding PII is always rewritten to a *safe id* ([`Scrubber::safe_id`]: each span
//! replaced by its keyed pseudonym, a sentence's `-sNNN` suffix kept), whatever the type's
//! mode; a `drop` mode still drops the record, under its safe id. The [`Scrubber`] gives the
//! decisions of the stages before `pii` the same safe ids, so an item keeps one id from
//! ingest to release. Types listed in `id_allow` stay in ids (Wikinews ids are article URLs).

use crate::detect::{Options, TYPES, detect_opts, rule_id};
use crate::pseudo::{PiiKey, fingerprint, pseudonymise};
use crate::validate::REFERENCE_DATE;
use kcurate_core::{
    BuildCtx, BuildError, BuiltStage, Out, Record, RuleId, Span, Stage, StageEntry, parse_settings,
};
use std::collections::BTreeMap;

pub const ENTRY: StageEntry = StageEntry {
    name: "pii",
    summary: "The 16 KISA PII types in every field: pseudonymise (format-preserving, keyed), drop or flag per type",
    doc: "What: detects phone, rrn, frn, email, ip, mac, mention, address, bank_account, passport, \
driver_license, brn, health_insurance, card, vehicle_plate and url spans (rules/pii.toml + \
validators), and review-site user ids (`abcd****`, rule pii.user_id) when `user_ids = true`, \
in every string field of a record: text, date, label, extra fields, parents and the id. Mode \
per type: `pseudonymise` replaces each span with a valid, format-preserving pseudonym keyed by \
a secret (edit decision with the type's rule id, e.g. pii.phone or pii.address_v2; for the \
span.before = keyed fingerprint, span.after = pseudonym, offsets into the field the detail \
names: `phone pseudonymised` for the text, `phone in label at 0..13 pseudonymised` otherwise); `drop` removes the record (drop decision); `flag` keeps it with a flag \
decision. An id holding PII is always rewritten to a safe id (each span replaced by its \
pseudonym; a sentence's -sNNN suffix kept), and every decision of the stages before pii gets \
the same safe id, so no original id reaches the release, its decisions or the run's messages.\n\
Why: KLUE §4.1 and Table 29 pseudonymised 16 types; §2.3 dropped sentences with emails, URLs and \
@mentions from benchmark data.\n\
Example: \"010-2345-6789로 연락\" → \"010-7391-2045로 연락\" (the pseudonym depends on the key).\n\
Settings: key_env (default \"KCURATE_PII_KEY\"), key_file (a file holding the key; wins over \
key_env), default_mode (\"pseudonymise\"), modes (table type → mode, e.g. {email = \"drop\"}), \
user_ids (false: detect review-site ids written without @), id_allow (types left as they are in \
ids, e.g. [\"url\"] when a source's ids are public article URLs).",
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

/// Every kind the stage can meet: the 16 types and the optional ones.
fn kinds() -> impl Iterator<Item = &'static str> {
    TYPES
        .iter()
        .chain(crate::detect::OPTIONAL_TYPES.iter())
        .copied()
}

/// What the stage and the decision scrubber share: the key, the detector options and the
/// types left in ids.
#[derive(Clone)]
pub struct Scrubber {
    key: PiiKey,
    opts: Options,
    id_allow: Vec<String>,
    /// Stages whose decisions quote ids from before the pii stage (their ids get made
    /// safe); `None`: every stage's.
    before_pii: Option<Vec<String>>,
}

impl Scrubber {
    pub fn new(key: PiiKey, opts: Options, id_allow: Vec<String>) -> Self {
        Scrubber {
            key,
            opts,
            id_allow,
            before_pii: None,
        }
    }

    /// From a recipe's `pii` stage table: the key (key_file, else key_env), `user_ids`,
    /// `id_allow`; and the names of the stages before it (from `stage_names`, in recipe
    /// order), whose decisions' ids get made safe.
    pub fn from_settings(
        settings: &toml::Table,
        ctx: &BuildCtx,
        stage_names: &[String],
    ) -> Result<Self, crate::pseudo::KeyError> {
        let key = key_from_settings(settings, ctx)?;
        let opts = Options {
            user_ids: settings
                .get("user_ids")
                .and_then(|v| v.as_bool())
                .unwrap_or(false),
        };
        let id_allow = settings
            .get("id_allow")
            .and_then(|v| v.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        let at = stage_names.iter().position(|n| n == "pii");
        let before_pii = at.map(|i| {
            let after = &stage_names[i..];
            let mut v: Vec<String> = ["ingest", "license"].map(String::from).to_vec();
            // A name that also runs after pii is left out: its later decisions hold safe
            // ids already (an earlier decision of it then keeps a scrubbed, not a safe, id).
            v.extend(
                stage_names[..i]
                    .iter()
                    .filter(|n| !after.contains(n))
                    .cloned(),
            );
            v
        });
        Ok(Scrubber {
            key,
            opts,
            id_allow,
            before_pii,
        })
    }

    pub fn key(&self) -> &PiiKey {
        &self.key
    }

    fn detect(&self, text: &str) -> Vec<crate::PiiSpan> {
        detect_opts(text, REFERENCE_DATE, self.opts)
    }

    /// Spans of an id that get rewritten (not the `id_allow` types).
    fn id_spans(&self, id: &str) -> Vec<crate::PiiSpan> {
        let mut spans = self.detect(id);
        spans.retain(|s| !self.id_allow.contains(&s.kind));
        spans
    }

    /// The id with each PII span replaced by its keyed pseudonym. A sentence's `-sNNN`
    /// suffixes are kept apart, so a sentence's safe id extends its document's.
    pub fn safe_id(&self, id: &str) -> String {
        let (base, suffix) = split_sentence_suffix(id);
        let spans = self.id_spans(base);
        if spans.is_empty() {
            return id.to_string();
        }
        let chars: Vec<char> = base.chars().collect();
        let mut out = String::with_capacity(id.len());
        let mut at = 0;
        for s in spans {
            out.extend(&chars[at..s.start]);
            let v: String = chars[s.start..s.end].iter().collect();
            out.push_str(&pseudonymise(&self.key, &s.kind, &v));
            at = s.end;
        }
        out.extend(&chars[at..]);
        out.push_str(suffix);
        out
    }

    /// Replaces personal data in a text by `⟨type:fingerprint⟩`.
    pub fn scrub_text(&self, text: &str) -> String {
        let spans = self.detect(text);
        if spans.is_empty() {
            return text.to_string();
        }
        let chars: Vec<char> = text.chars().collect();
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for s in spans {
            out.extend(&chars[at..s.start]);
            let v: String = chars[s.start..s.end].iter().collect();
            out.push_str(&format!(
                "⟨{}:{}⟩",
                s.kind,
                fingerprint(&self.key, &s.kind, &v)
            ));
            at = s.end;
        }
        out.extend(&chars[at..]);
        out
    }

    /// The decision scrubber for a release with a `pii` stage: other stages' decisions quote
    /// text (an edit's before/after, a detail, an input line's origin); any PII in them
    /// becomes a keyed fingerprint, so the audit trail holds no original. Decisions of the
    /// stages before `pii` (and of ingest and the licence gate) get the item's safe id. The
    /// `pii` stage's own decisions hold only safe ids, fingerprints and pseudonyms.
    pub fn scrub_decision(&self, d: &mut kcurate_core::Decision) {
        if d.stage == "pii" {
            return;
        }
        // A later stage's item is a safe id already.
        let before = self
            .before_pii
            .as_ref()
            .is_none_or(|v| v.contains(&d.stage));
        if before {
            d.item = self.safe_id(&d.item);
        }
        d.detail = self.scrub_text(&d.detail);
        d.origin = self.scrub_text(&d.origin);
        if let Some(span) = &mut d.span {
            span.before = self.scrub_text(&span.before);
            span.after = self.scrub_text(&span.after);
        }
    }
}

/// Replaces personal data in a text by `⟨type:fingerprint⟩` (the 16 types).
pub fn scrub_text(key: &PiiKey, text: &str) -> String {
    Scrubber::new(key.clone(), Options::default(), Vec::new()).scrub_text(text)
}

/// `doc-s001-s002` → (`doc`, `-s001-s002`): the sentence suffixes `Record::sentence_id` adds.
fn split_sentence_suffix(id: &str) -> (&str, &str) {
    let mut base = id;
    while let Some(dash) = base.rfind("-s") {
        let digits = &base.as_bytes()[dash + 2..];
        if digits.len() >= 3 && digits.iter().all(u8::is_ascii_digit) {
            base = &base[..dash];
        } else {
            break;
        }
    }
    (base, &id[base.len()..])
}

pub struct PiiStage {
    scrub: Scrubber,
    modes: BTreeMap<String, Mode>,
}

impl PiiStage {
    pub fn new(key: PiiKey, default: Mode, modes: BTreeMap<String, Mode>) -> Self {
        Self::with(
            Scrubber::new(key, Options::default(), Vec::new()),
            default,
            modes,
        )
    }

    pub fn with(scrub: Scrubber, default: Mode, modes: BTreeMap<String, Mode>) -> Self {
        let modes = kinds()
            .map(|t| (t.to_string(), modes.get(t).copied().unwrap_or(default)))
            .collect();
        PiiStage { scrub, modes }
    }
}

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
    fn name(&self) -> &str {
        "pii"
    }

    fn apply(&self, mut rec: Record, out: &mut Out) {
        let scrub = &self.scrub;
        // The id first: every decision below names the record by its safe id.
        let id_hits = scrub.id_spans(&rec.id);
        if !id_hits.is_empty() {
            let (base, _) = split_sentence_suffix(&rec.id);
            let chars: Vec<char> = base.chars().collect();
            let id_hits: Vec<Hit> = id_hits
                .into_iter()
                .map(|s| {
                    let v = chars[s.start..s.end].iter().collect();
                    ("id".to_string(), s, v)
                })
                .collect();
            rec.id = scrub.safe_id(&rec.id);
            for (_, s, v) in &id_hits {
                let fp = fingerprint(&scrub.key, &s.kind, v);
                out.edit_with(
                    &rec,
                    RuleId::new(rule_id(&s.kind)),
                    format!(
                        "{} in id at {}..{} pseudonymised; the record has its safe id",
                        s.kind, s.start, s.end
                    ),
                    Span {
                        start: s.start,
                        end: s.end,
                        before: format!("fp:{fp}"),
                        after: pseudonymise(&scrub.key, &s.kind, v),
                    },
                );
            }
        }
        let mut text_hits = Vec::new();
        scan_str(scrub, "text", &rec.text, &mut text_hits);
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
                fingerprint(&scrub.key, &s.kind, v)
            );
            out.drop(rec, RuleId::new(rule_id(&s.kind)), detail, None);
            return;
        }
        for (field, s, v) in all.clone().filter(|(f, _, _)| f != "text") {
            let fp = fingerprint(&scrub.key, &s.kind, v);
            let rule = RuleId::new(rule_id(&s.kind));
            let where_ = format!("{} in {field} at {}..{}", s.kind, s.start, s.end);
            match self.modes[&s.kind] {
                Mode::Flag => out.flag(&rec, rule, format!("{where_} (fingerprint {fp})"), None),
                _ => out.edit_with(
                    &rec,
                    rule,
                    format!("{where_} pseudonymised"),
                    Span {
                        start: s.start,
                        end: s.end,
                        before: format!("fp:{fp}"),
                        after: pseudonymise(&scrub.key, &s.kind, v),
                    },
                ),
            }
        }
        // The text's spans, last first (offsets stay valid).
        for (_, s, v) in text_hits.iter().rev() {
            let fp = fingerprint(&scrub.key, &s.kind, v);
            let rule = RuleId::new(rule_id(&s.kind));
            match self.modes[&s.kind] {
                Mode::Flag => out.flag(
                    &rec,
                    rule,
                    format!("{} at {}..{} (fingerprint {fp})", s.kind, s.start, s.end),
                    None,
                ),
                _ => out.edit_with(
                    &rec,
                    rule,
                    format!("{} pseudonymised", s.kind),
                    Span {
                        start: s.start,
                        end: s.end,
                        before: format!("fp:{fp}"),
                        after: pseudonymise(&scrub.key, &s.kind, v),
                    },
                ),
            }
        }
        rec.text = rewrite(self, "text", &rec.text, &text_hits);
        if let Some(d) = &rec.date {
            rec.date = Some(rewrite(self, "date", d, &hits));
        }
        if let Some(l) = &rec.label {
            rec.label = Some(rewrite(self, "label", l, &hits));
        }
        let parents: Vec<String> = rec
            .parents
            .iter()
            .enumerate()
            .map(|(i, p)| rewrite(self, &format!("parents[{i}]"), p, &hits))
            .collect();
        rec.parents = parents;
        for (k, v) in rec.fields.iter_mut() {
            rewrite_value(self, k, v, &hits);
        }
        out.keep(rec);
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
