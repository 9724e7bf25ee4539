//! The [`Scrubber`]: what the `pii` stage and the decision scrubber share (the key, the
//! detector options, the types left in ids), and the safe ids it makes.

use super::key_from_settings;
use crate::detect::{Options, TYPES, detect_opts};
use crate::pseudo::{PiiKey, fingerprint, pseudonymise};
use crate::validate::REFERENCE_DATE;
use kcurate_core::BuildCtx;

/// The hits of one cache tag (key, settings) and id part: (tag, id part, hits).
type IdCache = Option<(Vec<u8>, String, Vec<(crate::PiiSpan, String, String)>)>;

thread_local! {
    /// The last id part [`Scrubber::id_hits`] read on this thread, and its answer.
    static LAST_ID: std::cell::RefCell<IdCache> = const { std::cell::RefCell::new(None) };
}

/// Every kind the stage can meet: the 16 types and the optional ones.
pub(super) fn kinds() -> impl Iterator<Item = &'static str> {
    TYPES
        .iter()
        .chain(crate::detect::OPTIONAL_TYPES.iter())
        .copied()
}

/// What the stage and the decision scrubber share: the key, the detector options and the
/// types left in ids.
#[derive(Clone)]
pub struct Scrubber {
    pub(super) key: PiiKey,
    pub(super) opts: Options,
    pub(super) id_allow: Vec<String>,
    /// Stages whose decisions quote ids from before the pii stage (their ids get made
    /// safe); `None`: every stage's.
    pub(super) before_pii: Option<Vec<String>>,
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

    /// The scrubber of a recipe's `pii` stage (`None` when the recipe runs none), its
    /// relative key file resolved against `root`: the one place the CLI and the audit find
    /// the stage's settings and key.
    pub fn for_recipe(
        recipe: &kcurate_core::recipe::Recipe,
        root: &std::path::Path,
    ) -> Result<Option<Self>, crate::pseudo::KeyError> {
        let Some(table) = recipe.stage("pii") else {
            return Ok(None);
        };
        let ctx = BuildCtx::for_recipe(recipe, root);
        let names: Vec<String> = recipe.stages.iter().map(|s| s.name.clone()).collect();
        Self::from_settings(&table.settings, &ctx, &names).map(Some)
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

    pub(super) fn detect(&self, text: &str) -> Vec<crate::PiiSpan> {
        detect_opts(text, REFERENCE_DATE, self.opts)
    }

    /// Spans of an id that get rewritten (not the `id_allow` types), with their values and
    /// pseudonyms, in the id's own part (see [`id_parts`]); offsets are into the whole id.
    /// The sentences of a document come one after another with the same id part: the last
    /// one's answer is kept per thread (it depends only on the key, the settings and the
    /// part, so the output does not depend on it).
    pub(super) fn id_hits(&self, source: &str, id: &str) -> Vec<(crate::PiiSpan, String, String)> {
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
        self.replace_spans(text, |kind, v| {
            format!("⟨{kind}:{}⟩", fingerprint(&self.key, kind, v))
        })
    }

    /// The text with each PII span replaced by its keyed, format-preserving pseudonym, as
    /// the `pii` stage writes a span it pseudonymises into a released row: what a text
    /// quoting the original reads as in the release.
    pub fn pseudonymise_text(&self, text: &str) -> String {
        self.replace_spans(text, |kind, v| pseudonymise(&self.key, kind, v))
    }

    /// `text` with each detected span replaced by `with(kind, value)`.
    fn replace_spans(&self, text: &str, with: impl Fn(&str, &str) -> String) -> String {
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
            out.push_str(&with(&s.kind, &v));
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
pub(super) fn id_parts<'a>(source: &str, id: &'a str) -> (&'a str, &'a str, &'a str) {
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
pub(super) fn split_sentence_suffix(id: &str) -> (&str, &str) {
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
