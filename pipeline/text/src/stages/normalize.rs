//! Stage `normalize`: NFC, zero-width and control characters removed, Unicode spaces to
//! U+0020, optional full-width ASCII, whitespace collapsed; each change an `edit` decision.

use crate::normalize::{NormalizeOptions, is_clean, normalize};
use kcurate_core::{
    BuildCtx, BuildError, BuiltStage, Out, Record, RuleId, Span, Stage, StageEntry, parse_settings,
};

/// The `normalize` stage's line in the binary's `STAGES` table.
pub const ENTRY: StageEntry = StageEntry {
    name: "normalize",
    summary: "Unicode NFC, zero-width/control removal, spaces, optional full-width ASCII, whitespace collapse",
    doc: "What: rewrites each record's text: control characters (not tab/newline) removed \
(normalize.control), zero-width characters U+200B/C/D, U+FEFF, U+2060 removed \
(normalize.zero_width), NBSP and other Unicode spaces to a space (normalize.space), \
full-width ASCII to ASCII if `fullwidth_ascii = true` (normalize.fullwidth), NFC \
(normalize.nfc), blank runs to one space and line-break runs to one newline, ends trimmed \
(normalize.whitespace). Each change is an edit decision with its before/after span.\n\
Why: KLUE §2.3 (bad characters, consecutive blanks). Compatibility jamo (ㅋㅋ ㅠㅠ) and lone \
conjoining jamo used as symbols (ᅲ ᆢ) are kept: NFKC is never applied.\n\
Example: \"좋아요\\u00A0\\u200B정말\" → \"좋아요 정말\".\n\
Settings: nfc, zero_width, unicode_spaces, control, collapse_whitespace, keep_newlines \
(all default true), fullwidth_ascii (default false).",
    rules: &[
        "normalize.control",
        "normalize.zero_width",
        "normalize.space",
        "normalize.fullwidth",
        "normalize.nfc",
        "normalize.whitespace",
    ],
    build,
};

/// Normalises each record's text, one `edit` decision per kind of change.
pub struct NormalizeStage {
    opts: NormalizeOptions,
}

/// Builds the stage from its recipe settings (see [`ENTRY`]'s doc).
pub fn build(settings: &toml::Table, _ctx: &mut BuildCtx) -> Result<BuiltStage, BuildError> {
    let opts: NormalizeOptions = parse_settings(settings)?;
    Ok(BuiltStage::Record(Box::new(NormalizeStage { opts })))
}

impl NormalizeStage {
    /// A stage with these options (the recipe's `[[stage]]` settings).
    pub fn new(opts: NormalizeOptions) -> Self {
        NormalizeStage { opts }
    }
}

impl Stage for NormalizeStage {
    fn apply(&self, mut rec: Record, out: &mut Out) {
        // Most texts need nothing: keep them without copying them.
        if is_clean(&rec.text, &self.opts) {
            out.keep(rec);
            return;
        }
        let (text, changes) = normalize(&rec.text, &self.opts);
        if !changes.is_empty() {
            for c in changes {
                out.edit(
                    &rec,
                    RuleId::new(c.rule),
                    Span {
                        start: c.start,
                        end: c.end,
                        before: c.before,
                        after: c.after,
                    },
                );
            }
            rec.text = text;
        }
        out.keep(rec);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_change_is_an_edit() {
        let st = NormalizeStage::new(NormalizeOptions::default());
        let mut out = Out::new("normalize");
        let rec = Record {
            id: "d1".into(),
            text: "좋아요\u{00A0}\u{200B}정말ᅲᅲ".into(),
            ..Default::default()
        };
        st.apply(rec, &mut out);
        let (kept, dec, dropped) = out.into_parts();
        assert_eq!(kept[0].text, "좋아요 정말ᅲᅲ");
        assert_eq!(dropped, 0);
        let rules: Vec<_> = dec.iter().map(|d| d.rule.as_str()).collect();
        assert_eq!(rules, ["normalize.zero_width", "normalize.space"]);
        let span = dec[0].span.as_ref().expect("edit has a span");
        assert_eq!(
            (
                span.start,
                span.end,
                span.before.as_str(),
                span.after.as_str()
            ),
            (4, 5, "\u{200B}", "")
        );
    }

    #[test]
    fn settings_are_checked() {
        let mut ctx = BuildCtx::default();
        let t: toml::Table = toml::from_str("fullwidth_ascii = true").unwrap();
        assert!(build(&t, &mut ctx).is_ok());
        let t: toml::Table = toml::from_str("nfkc = true").unwrap();
        let e = build(&t, &mut ctx).err().expect("unknown key refused");
        assert!(e.to_string().contains("nfkc"), "{e}");
    }
}
