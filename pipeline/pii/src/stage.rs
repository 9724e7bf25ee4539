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

use crate::detect::{Options, TYPES, detect_opts, rule_id};
use crate::pseudo::{PiiKey, fingerprint, pseudonymise};
use crate::validate::REFERENCE_DATE;
use kcurate_core::{
    BuildCtx, BuildError, BuiltStage, Out, Record, RuleId, Span, Stage, StageEntry, parse_settings,
};
use std::collections::BTreeMap;

/// The `pii` stage's line in the binary's `STAGES` table.
pub const ENTRY: StageEntry = StageEntry {
    name: "pii",
    summary: "The 16 KISA PII types in every field: pseudonymise (format-preserving, keyed), drop or flag per type",
    doc: "What: detects phone, rrn, frn, email, ip, mac, mention, address, bank_account, passport, \
driver_license, brn, health_insurance, card, vehicle_plate and url spans (rules/pii.toml + \
validators; a mention is `@handle` or `＠handle` starting a word, rule pii.mention_v2, on by default), \
and review-site user ids (`abcd****`, rule pii.user_id) when `user_ids = true`, \
in every string field of a record: text, date, label, extra fields, parents and the id. Mode \
per type: `pseudonymise` replaces each span with a valid, format-preserving pseudonym keyed by \
a secret (edit decision with the type's rule id, e.g. pii.phone or pii.address_v2; for the \
span.before = keyed fingerprint, span.after = pseudonym, offsets into the field the detail \
names: `phone pseudonymised` for the text, `phone in label at 0..13 pseudonymised` otherwise); `drop` removes the record (drop decision); `flag` keeps it with a flag \
decision. An id holding PII is always rewritten to a safe id (each span replaced by its \
pseudonym; the source prefix and a sentence's -sNNN suffix kept; never a drop or a flag), and \
every decision of the stages before pii gets the same safe id, so no original id reaches the release, its decisions or the run's messages.\n\
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

/// The hits of one cache tag (key, settings) and id part: (tag, id part, hits).
type IdCache = Option<(Vec<u8>, String, Vec<(crate::PiiSpan, String, String)>)>;

thread_local! {
    /// The last id part [`Scrubber::id_hits`] read on this thread, and its answer.
    static LAST_ID: std::cell::RefCell<IdCache> = const { std::cell::RefCell::new(None) };
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
    /// A scrubber with `key`, the detectors `opts` turns on, and the types `id_allow` leaves in ids.
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

    /// The key pseudonyms and fingerprints are made with.
    pub fn key(&self) -> &PiiKey {
        &self.key
    }

    fn detect(&self, text: &str) -> Vec<crate::PiiSpan> {
        detect_opts(text, REFERENCE_DATE, self.opts)
    }

    /// Spans of an id that get rewritten (not the `id_allow` types), with their values and
    /// pseudonyms, in the id's own part (see [`id_parts`]); offsets are into the whole id.
    /// The sentences of a document come one after another with the same id part: the last
    /// one's answer is kept per thread (it depends only on the key, the settings and the
    /// part, so the output does not depend on it).
    fn id_hits(&self, source: &str, id: &str) -> Vec<(crate::PiiSpan, String, String)> {
        let (prefix, core, _) = id_parts(source, id);
        let shift = prefix.chars().count();
        let mut tag = self.key.bytes().to_vec();
        tag.push(u8::from(self.opts.user_ids));
        for t in &self.id_allow {
            tag.extend_from_slice(t.as_bytes());
            tag.push(0);
        }
        let cached = LAST_ID.with(|c| {
            c.borrow()
                .as_ref()
                .filter(|(t, k, _)| *t == tag && k == core)
                .map(|(_, _, h)| h.clone())
        });
        let hits = cached.unwrap_or_else(|| {
            let chars: Vec<char> = core.chars().collect();
            let hits: Vec<(crate::PiiSpan, String, String)> = self
                .detect(core)
                .into_iter()
                .filter(|s| !self.id_allow.contains(&s.kind))
                .map(|s| {
                    let v: String = chars[s.start..s.end].iter().collect();
                    let p = pseudonymise(&self.key, &s.kind, &v);
                    (s, v, p)
                })
                .collect();
            LAST_ID.with(|c| *c.borrow_mut() = Some((tag, core.to_string(), hits.clone())));
            hits
        });
        hits.into_iter()
            .map(|(mut s, v, p)| {
                s.start += shift;
                s.end += shift;
                (s, v, p)
            })
            .collect()
    }

    /// The id with each PII span replaced by its keyed pseudonym. Only the id's own part is
    /// read: the `<source>-` prefix the reader adds and a sentence's `-sNNN` suffixes are
    /// kept apart, so a sentence's safe id extends its document's.
    pub fn safe_id(&self, source: &str, id: &str) -> String {
        let hits = self.id_hits(source, id);
        if hits.is_empty() {
            return id.to_string();
        }
        let chars: Vec<char> = id.chars().collect();
        let mut out = String::with_capacity(id.len());
        let mut at = 0;
        for (s, _, p) in hits {
            out.extend(&chars[at..s.start]);
            out.push_str(&p);
            at = s.end;
        }
        out.extend(&chars[at..]);
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
        // A drop's text is scrubbed at every stage, the pii stage's own drops included.
        if let Some(t) = &mut d.text {
            *t = self.scrub_text(t);
        }
        if d.stage == "pii" {
            return;
        }
        // A later stage's item is a safe id already.
        let before = self
            .before_pii
            .as_ref()
            .is_none_or(|v| v.contains(&d.stage));
        if before {
            d.item = self.safe_id(&d.source, &d.item);
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

/// `<source>-doc-s001` → (`<source>-`, `doc`, `-s001`): the prefix the reader adds to a
/// source's ids and the sentence suffixes `Record::sentence_id` adds, around the id's own
/// part (a URL right after `-` would not be found otherwise).
fn id_parts<'a>(source: &str, id: &'a str) -> (&'a str, &'a str, &'a str) {
    let p = if id.len() > source.len() + 1
        && id.starts_with(source)
        && id.as_bytes()[source.len()] == b'-'
    {
        source.len() + 1
    } else {
        0
    };
    let (core, suffix) = split_sentence_suffix(&id[p..]);
    (&id[..p], core, suffix)
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
    fn name(&self) -> &str {
        "pii"
    }

    fn apply(&self, mut rec: Record, out: &mut Out) {
        let scrub = &self.scrub;
        // The id first: every decision below names the record by its safe id.
        let id_hits = scrub.id_hits(&rec.source, &rec.id);
        if !id_hits.is_empty() {
            rec.id = scrub.safe_id(&rec.source, &rec.id);
            for (s, v, p) in &id_hits {
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
                        after: p.clone(),
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
            Scrubber::new(key.clone(), Options::default(), Vec::new()).scrub_decision(&mut d);
            let t = d.text.unwrap();
            assert!(!t.contains("010-2345-6789"), "{stage}: {t}");
            assert!(t.starts_with("문의는 ⟨phone:"), "{stage}: {t}");
            assert!(t.ends_with("⟩로 연락 주세요"), "{stage}: {t}");
        }
    }

    fn scrub(allow: &[&str]) -> Scrubber {
        Scrubber::new(
            PiiKey::new(b"test-key".to_vec()).unwrap(),
            Options::default(),
            allow.iter().map(|s| s.to_string()).collect(),
        )
    }

    #[test]
    fn a_sentence_safe_id_extends_its_document_safe_id() {
        let s = scrub(&[]);
        for doc in [
            "src-010-2345-6789",
            "src-gildong@example.co.kr",
            "src-4375 9735 2929 7829",
        ] {
            let safe = s.safe_id("src", doc);
            assert_ne!(safe, doc);
            assert!(safe.starts_with("src-"));
            assert_eq!(
                s.safe_id("src", &format!("{doc}-s003")),
                format!("{safe}-s003")
            );
            assert_eq!(
                s.safe_id("src", &format!("{doc}-s001-s012")),
                format!("{safe}-s001-s012")
            );
        }
        assert_eq!(
            s.safe_id("nsmc", "nsmc-10000003-s001"),
            "nsmc-10000003-s001"
        );
    }

    #[test]
    fn id_allow_keeps_a_type_in_ids() {
        let url = "wikinews-https://ko.wikinews.org/wiki/abc";
        let safe = scrub(&[]).safe_id("wikinews", url);
        assert_ne!(safe, url);
        assert!(safe.starts_with("wikinews-https://"), "{safe}");
        assert_eq!(scrub(&["url"]).safe_id("wikinews", url), url);
    }

    #[test]
    fn only_decisions_of_stages_before_pii_get_safe_ids() {
        // Recipe order normalize, filter, pii, assign_split (as from_settings computes it).
        let s = Scrubber {
            before_pii: Some(
                ["ingest", "license", "normalize", "filter"]
                    .map(String::from)
                    .to_vec(),
            ),
            ..scrub(&[])
        };
        let d = |stage: &str| kcurate_core::Decision {
            item: "src-010-2345-6789-s000".into(),
            stage: stage.into(),
            rule: RuleId::new("x.y"),
            action: kcurate_core::Action::Drop,
            detail: "전화 010-2345-6789".into(),
            score: None,
            span: None,
            text: None,
            source: "src".into(),
            origin: "f:1".into(),
        };
        let mut before = d("filter");
        s.scrub_decision(&mut before);
        assert_eq!(before.item, s.safe_id("src", "src-010-2345-6789-s000"));
        assert!(!before.detail.contains("010-2345-6789"));
        // A later stage's item is already a safe id: not rewritten again.
        let mut after = d("assign_split");
        s.scrub_decision(&mut after);
        assert_eq!(after.item, "src-010-2345-6789-s000");
    }
}
