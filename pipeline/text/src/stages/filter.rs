//! Stage `filter`: sentence filters with thresholds from the recipe.

use crate::gloss::{cjk_outside_glosses, is_cjk};
use crate::short::ShortRules;
use kcurate_core::{
    BuildCtx, BuildError, BuiltStage, Out, Record, RuleId, Span, Stage, StageEntry, parse_settings,
};

/// The `filter` stage's line in the binary's `STAGES` table.
pub const ENTRY: StageEntry = StageEntry {
    name: "filter",
    summary: "Sentence filters: >10 Chinese/Japanese chars (KLUE), length bounds, Hangul share; repeated-char runs capped",
    doc: "What: first cuts every run of one character repeated more than `max_repeat` times \
in a row down to `max_repeat` (one edit per run, filter.repeat_run_cap: `웃겨ㅋㅋㅋㅋㅋㅋㅋ` → \
`웃겨ㅋㅋㅋㅋㅋ`), then drops a sentence when it has more than `max_cjk` Chinese or Japanese \
characters outside bracketed glosses after Korean words (filter.cjk_over_10), fewer than `min_chars` characters (whitespace excluded) and \
does not end like a complete sentence (filter.too_short_v2: `최고다.`, `지루해` and `모자람` stay, \
`ㅋㅋ`, `최고!` and `좋 아` go; the splitter's endings, then the informal ones of rules/filter.toml), more than `max_chars` characters (filter.too_long), or a Hangul share of its words (the \
blank-separated words with a letter; a word with a Hangul letter counts as Korean) below \
`min_hangul_share` (filter.hangul_share_v2: `하지만 welldone` and `볼만한 Biography` stay, \
`Very good!` goes). The first failing check names the drop. \
`hangul_share_by = \"letters\"` measures the share of letters instead (filter.hangul_share: a \
Korean sentence naming Krzysztof Kieslowski went). \
`repeat_action = \"drop\"` drops a sentence with a long run instead (filter.repeat_run); \
`short_keeps_sentences = false` drops every short sentence (filter.too_short).\n\
Why: KLUE §2.3 removes sentences with more than 10 Chinese or Japanese characters; the other \
bounds keep fragments and non-Korean text out of the annotation pool. A laugh or a row of \
exclamation marks is not a reason to lose the review it closes.\n\
Example: max_cjk = 10 drops \"安倍晋三 日本 總理 記者會見 開催\" (14 CJK characters).\n\
Settings: max_cjk (default 10; -1 disables, less is an error), min_chars, max_chars, min_hangul_share (0..1), \
max_repeat, repeat_action (\"cap\" default, or \"drop\"), short_keeps_sentences (default \
true), hangul_share_by (\"words\" default, or \"letters\") (all optional).",
    rules: &[
        "filter.cjk_over_10",
        "filter.too_short",
        "filter.too_short_v2",
        "filter.too_long",
        "filter.hangul_share",
        "filter.hangul_share_v2",
        "filter.repeat_run",
        "filter.repeat_run_cap",
    ],
    build,
};

/// The `filter` stage's settings (see [`ENTRY`]'s doc); every bound is optional.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilterConfig {
    /// Most Chinese/Japanese characters a sentence may have (KLUE: 10; -1 disables).
    #[serde(default = "default_max_cjk")]
    pub max_cjk: i64,
    /// Fewest characters, whitespace excluded, below which an incomplete sentence goes.
    #[serde(default)]
    pub min_chars: Option<usize>,
    /// Most characters, whitespace excluded.
    #[serde(default)]
    pub max_chars: Option<usize>,
    /// Lowest Hangul share in [0, 1], measured as `hangul_share_by` says.
    #[serde(default)]
    pub min_hangul_share: Option<f64>,
    /// Longest run of one character; longer runs are capped or dropped (`repeat_action`).
    #[serde(default)]
    pub max_repeat: Option<usize>,
    /// What a run longer than `max_repeat` does.
    #[serde(default)]
    pub repeat_action: RepeatAction,
    /// Short sentences that end like complete ones stay (`filter.too_short_v2`); false
    /// drops every short sentence (`filter.too_short`).
    #[serde(default = "yes")]
    pub short_keeps_sentences: bool,
    /// What `min_hangul_share` measures.
    #[serde(default)]
    pub hangul_share_by: ShareBy,
}

/// What `min_hangul_share` measures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ShareBy {
    /// The share of words with a Hangul letter among the words with a letter
    /// (filter.hangul_share_v2): a Korean sentence with Latin names keeps its place.
    #[default]
    Words,
    /// The share of Hangul among letters (filter.hangul_share): a Korean sentence naming
    /// two Polish film makers had a share of 0.22 and went.
    Letters,
}

/// What a run longer than `max_repeat` does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RepeatAction {
    /// The run is cut to `max_repeat` characters (filter.repeat_run_cap, an edit).
    #[default]
    Cap,
    /// The sentence is dropped (filter.repeat_run).
    Drop,
}

fn yes() -> bool {
    true
}

fn default_max_cjk() -> i64 {
    10
}

impl Default for FilterConfig {
    fn default() -> Self {
        FilterConfig {
            max_cjk: 10,
            min_chars: None,
            max_chars: None,
            min_hangul_share: None,
            max_repeat: None,
            repeat_action: RepeatAction::Cap,
            short_keeps_sentences: true,
            hangul_share_by: ShareBy::Words,
        }
    }
}

/// Caps repeated-character runs and drops sentences that fail a bound.
pub struct FilterStage {
    cfg: FilterConfig,
}

impl FilterStage {
    /// A stage with these settings.
    pub fn new(cfg: FilterConfig) -> Self {
        FilterStage { cfg }
    }
}

/// Builds the stage from its recipe settings (see [`ENTRY`]'s doc).
pub fn build(settings: &toml::Table, _ctx: &mut BuildCtx) -> Result<BuiltStage, BuildError> {
    let cfg: FilterConfig = parse_settings(settings)?;
    if cfg.max_cjk < -1 {
        return Err(BuildError::setting(
            "max_cjk",
            format!("must be -1 (off) or at least 0 (got {})", cfg.max_cjk),
        ));
    }
    if let Some(s) = cfg.min_hangul_share
        && !(0.0..=1.0).contains(&s)
    {
        return Err(BuildError::setting(
            "min_hangul_share",
            format!("{s} is not in 0..1"),
        ));
    }
    if let (Some(a), Some(b)) = (cfg.min_chars, cfg.max_chars)
        && a > b
    {
        return Err(BuildError::setting(
            "min_chars",
            format!("{a} is above max_chars {b}"),
        ));
    }
    if cfg.max_chars == Some(0) {
        return Err(BuildError::setting(
            "max_chars",
            "must be at least 1 (0 drops every sentence)",
        ));
    }
    if cfg.max_repeat == Some(0) {
        return Err(BuildError::setting("max_repeat", "must be at least 1"));
    }
    Ok(BuiltStage::Record(Box::new(FilterStage { cfg })))
}

#[inline]
fn is_hangul(c: char) -> bool {
    matches!(c, '\u{AC00}'..='\u{D7A3}' | '\u{1100}'..='\u{11FF}' | '\u{3131}'..='\u{318E}' | '\u{A960}'..='\u{A97F}' | '\u{D7B0}'..='\u{D7FF}')
}

/// Counts of one text, in one pass.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct TextStats {
    /// Characters other than whitespace.
    pub chars: usize,
    /// Chinese characters and Japanese kana.
    pub cjk: usize,
    /// Hangul syllables and jamo.
    pub hangul: usize,
    /// Alphabetic characters (Hangul included).
    pub letters: usize,
    /// Longest run of one non-blank character.
    pub max_run: usize,
    /// The character of that run (`' '` when the text has none).
    pub run_char: char,
}

/// The longest run of one character, followed as the characters of a text arrive (a blank
/// ends a run); shared by [`text_stats`] and its plain test oracle.
#[derive(Default)]
struct Runs {
    prev: char,
    run: usize,
}

impl Runs {
    #[inline]
    fn blank(&mut self) {
        *self = Runs::default();
    }

    #[inline]
    fn push(&mut self, c: char, s: &mut TextStats) {
        if c == self.prev {
            self.run += 1;
        } else {
            self.run = 1;
            self.prev = c;
        }
        if self.run > s.max_run {
            s.max_run = self.run;
            s.run_char = c;
        }
    }
}

/// The [`TextStats`] of `text`, in one pass over its characters.
pub fn text_stats(text: &str) -> TextStats {
    let mut s = TextStats {
        run_char: ' ',
        ..Default::default()
    };
    let mut runs = Runs::default();
    for c in text.chars() {
        // Hangul syllables first: most characters of a Korean corpus, and none of them
        // whitespace or CJK.
        if ('\u{AC00}'..='\u{D7A3}').contains(&c) {
            s.hangul += 1;
            s.letters += 1;
        } else if c.is_whitespace() {
            runs.blank();
            continue;
        } else if is_cjk(c) {
            s.cjk += 1;
            if c.is_alphabetic() {
                s.letters += 1;
            }
        } else if is_hangul(c) {
            s.hangul += 1;
            s.letters += 1;
        } else if c.is_alphabetic() {
            s.letters += 1;
        }
        s.chars += 1;
        runs.push(c, &mut s);
    }
    s
}

/// The share of blank-separated words with a Hangul letter among the words with a letter
/// (0 when no word has a letter): `하지만 welldone` 0.5, `Very good!` 0.
pub fn hangul_word_share(text: &str) -> f64 {
    let (mut words, mut korean) = (0usize, 0usize);
    for w in text.split_whitespace() {
        if w.chars().any(is_hangul) {
            korean += 1;
            words += 1;
        } else if w.chars().any(char::is_alphabetic) {
            words += 1;
        }
    }
    if words == 0 {
        0.0
    } else {
        korean as f64 / words as f64
    }
}

/// Cuts every run of one non-blank character longer than `max` down to `max`: the new
/// text and one span per run cut (in chars of the text before any cut).
pub fn cap_runs(text: &str, max: usize) -> (String, Vec<Span>) {
    let mut spans = Vec::new();
    if text_stats(text).max_run <= max {
        return (text.to_string(), spans);
    }
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0usize;
    while i < chars.len() {
        let c = chars[i];
        let mut j = i + 1;
        while j < chars.len() && chars[j] == c {
            j += 1;
        }
        let keep = if c.is_whitespace() {
            j - i
        } else {
            (j - i).min(max)
        };
        out.extend(std::iter::repeat_n(c, keep));
        if keep < j - i {
            spans.push(Span {
                start: i,
                end: j,
                before: std::iter::repeat_n(c, j - i).collect(),
                after: std::iter::repeat_n(c, keep).collect(),
            });
        }
        i = j;
    }
    (out, spans)
}

impl FilterStage {
    /// The first failing check: (rule id, detail, score).
    pub fn check(&self, text: &str) -> Option<(&'static str, String, Option<f64>)> {
        let s = text_stats(text);
        let c = &self.cfg;
        // Glosses in brackets after Korean words are content (see [`cjk_outside_glosses`]).
        let cjk = if c.max_cjk >= 0 && s.cjk as i64 > c.max_cjk {
            cjk_outside_glosses(text)
        } else {
            0
        };
        if c.max_cjk >= 0 && cjk as i64 > c.max_cjk {
            return Some((
                "filter.cjk_over_10",
                format!("{cjk} Chinese/Japanese characters > {}", c.max_cjk),
                Some(cjk as f64),
            ));
        }
        if let Some(m) = c.min_chars
            && s.chars < m
        {
            if !c.short_keeps_sentences {
                return Some((
                    "filter.too_short",
                    format!("{} chars < {m}", s.chars),
                    Some(s.chars as f64),
                ));
            }
            if !ShortRules::builtin().completes(text) {
                return Some((
                    "filter.too_short_v2",
                    format!("{} chars < {m}, not a complete sentence", s.chars),
                    Some(s.chars as f64),
                ));
            }
        }
        if let Some(m) = c.max_chars
            && s.chars > m
        {
            return Some((
                "filter.too_long",
                format!("{} chars > {m}", s.chars),
                Some(s.chars as f64),
            ));
        }
        if let Some(m) = c.min_hangul_share {
            let (rule, share, of) = match c.hangul_share_by {
                ShareBy::Letters => (
                    "filter.hangul_share",
                    if s.letters == 0 {
                        0.0
                    } else {
                        s.hangul as f64 / s.letters as f64
                    },
                    "letters",
                ),
                ShareBy::Words => ("filter.hangul_share_v2", hangul_word_share(text), "words"),
            };
            if share < m {
                return Some((
                    rule,
                    format!("Hangul share of {of} {share:.3} < {m}"),
                    Some(share),
                ));
            }
        }
        if let Some(m) = c.max_repeat
            && c.repeat_action == RepeatAction::Drop
            && s.max_run > m
        {
            return Some((
                "filter.repeat_run",
                format!("{:?} repeated {} times > {m}", s.run_char, s.max_run),
                Some(s.max_run as f64),
            ));
        }
        None
    }
}

impl Stage for FilterStage {
    fn apply(&self, mut rec: Record, out: &mut Out) {
        if let Some(m) = self.cfg.max_repeat
            && self.cfg.repeat_action == RepeatAction::Cap
        {
            let (text, spans) = cap_runs(&rec.text, m);
            if !spans.is_empty() {
                for sp in spans {
                    let n = sp.before.chars().count();
                    out.edit_with(
                        &rec,
                        RuleId::new("filter.repeat_run_cap"),
                        format!("{n} in a row cut to {m}"),
                        sp,
                    );
                }
                rec.text = text;
            }
        }
        match self.check(&rec.text) {
            None => out.keep(rec),
            Some((rule, detail, score)) => out.drop(rec, RuleId::new(rule), detail, score),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The plain version of [`text_stats`], before the Hangul fast path: its test oracle.
    fn text_stats_plain(text: &str) -> TextStats {
        let mut s = TextStats {
            run_char: ' ',
            ..Default::default()
        };
        let mut runs = Runs::default();
        for c in text.chars() {
            if c.is_whitespace() {
                runs.blank();
                continue;
            }
            s.chars += 1;
            if is_cjk(c) {
                s.cjk += 1;
            }
            if is_hangul(c) {
                s.hangul += 1;
                s.letters += 1;
            } else if c.is_alphabetic() {
                s.letters += 1;
            }
            runs.push(c, &mut s);
        }
        s
    }

    proptest! {
        #[test]
        fn text_stats_equal_the_plain_count(
            t in "[가-힣ㄱ-ㅎᄀ-ᇿ一-龥ぁ-ヿ゠・ｦ-ﾝa-zA-Z0-9 \t\n!?.ㅋㅋㅋ]{0,40}|\\PC{0,40}"
        ) {
            prop_assert_eq!(text_stats(&t), text_stats_plain(&t));
        }
    }

    fn st(toml_src: &str) -> FilterStage {
        FilterStage::new(toml::from_str(toml_src).expect("config"))
    }

    #[test]
    fn klue_cjk_rule() {
        let f = st("");
        assert_eq!(
            f.check("安倍晋三 日本 總理 記者會見 開催").map(|x| x.0),
            Some("filter.cjk_over_10")
        );
        assert_eq!(f.check("아베 신조(安倍晋三) 일본 총리가 말했다."), None);
        assert_eq!(
            f.check("ひらがなカタカナです漢字テスト"),
            Some((
                "filter.cjk_over_10",
                "15 Chinese/Japanese characters > 10".into(),
                Some(15.0)
            ))
        );
    }

    #[test]
    fn bounds_share_runs() {
        let f = st(
            "min_chars = 3\nmax_chars = 10\nmin_hangul_share = 0.5\nmax_repeat = 5\nmax_cjk = -1",
        );
        assert_eq!(f.check("좋 아").map(|x| x.0), Some("filter.too_short_v2"));
        assert_eq!(f.check("ㅋㅋ").map(|x| x.0), Some("filter.too_short_v2"));
        assert_eq!(
            f.check("가나다라마바사아자차카").map(|x| x.0),
            Some("filter.too_long")
        );
        assert_eq!(
            f.check("good bad 영화").map(|x| x.0),
            Some("filter.hangul_share_v2")
        );
        assert_eq!(f.check("good 영화"), None);
        // Capped in `apply`, not dropped by `check`.
        assert_eq!(f.check("웃겨ㅋㅋㅋㅋㅋㅋ"), None);
        let d = st("max_repeat = 5\nrepeat_action = \"drop\"");
        assert_eq!(
            d.check("웃겨ㅋㅋㅋㅋㅋㅋ").map(|x| x.0),
            Some("filter.repeat_run")
        );
        assert_eq!(d.check("웃겨ㅋㅋㅋㅋㅋ"), None);
    }

    /// Shapes of the sentences filter.hangul_share (share of letters) dropped on the shared
    /// NSMC release (audit sample seed 7; written for this test, not copied): Korean words
    /// with an English word or two stay under the share of words, foreign text goes.
    #[test]
    fn hangul_share_counts_words() {
        let f = st("min_hangul_share = 0.3");
        for keep in [
            "하지만 welldone",
            "볼만한 Biography",
            "음악(音樂), 그리고 Krzysztof Kieslowski와 Zbigniew Preisner의 선율",
            "The Shawshank Redemption은 최고",
        ] {
            assert_eq!(f.check(keep), None, "{keep}");
        }
        for drop in [
            "Very good!",
            "Oh baby it's a wild world 노래",
            "生卽必死 死卽必生",
            "1122334455",
            "-_-;;",
        ] {
            assert_eq!(
                f.check(drop).map(|x| x.0),
                Some("filter.hangul_share_v2"),
                "{drop}"
            );
        }
        let old = st("min_hangul_share = 0.3\nhangul_share_by = \"letters\"");
        assert_eq!(
            old.check("하지만 welldone").map(|x| x.0),
            Some("filter.hangul_share")
        );
        assert!((hangul_word_share("하지만 welldone") - 0.5).abs() < 1e-9);
    }

    #[test]
    fn short_complete_sentences_stay() {
        let f = st("min_chars = 5");
        for keep in [
            "최고다.",
            "재밌음",
            "좋아요!!",
            "꿀잼이네ㅋㅋ",
            "잘 봤어요",
            "팬이됐슴",
            "꼭보시길",
            "귀여워",
            "재밌잖아",
            "멋지당",
        ] {
            assert_eq!(f.check(keep), None, "{keep}");
        }
        for drop in ["ㅋㅋ", "좋 아", "최고", "굿!!", "1점"] {
            assert_eq!(
                f.check(drop).map(|x| x.0),
                Some("filter.too_short_v2"),
                "{drop}"
            );
        }
        let old = st("min_chars = 5\nshort_keeps_sentences = false");
        assert_eq!(old.check("최고다.").map(|x| x.0), Some("filter.too_short"));
    }

    #[test]
    fn runs_are_capped_with_an_edit_per_run() {
        let (t, spans) = cap_runs("웃겨ㅋㅋㅋㅋㅋㅋㅋ 대박!!!!!!", 3);
        assert_eq!(t, "웃겨ㅋㅋㅋ 대박!!!");
        assert_eq!(spans.len(), 2);
        assert_eq!((spans[0].start, spans[0].end), (2, 9));
        assert_eq!(spans[0].after, "ㅋㅋㅋ");
        assert_eq!((spans[1].start, spans[1].end), (12, 18));
        let (t, spans) = cap_runs("그냥 좋다", 3);
        assert_eq!((t.as_str(), spans.len()), ("그냥 좋다", 0));
        let f = st("max_repeat = 3");
        let mut out = Out::new("filter");
        let rec = Record {
            id: "d-1".into(),
            text: "웃겨ㅋㅋㅋㅋㅋ".into(),
            ..Record::default()
        };
        f.apply(rec, &mut out);
        assert_eq!(out.decisions().len(), 1);
        assert_eq!(out.decisions()[0].rule.as_str(), "filter.repeat_run_cap");
        assert_eq!(out.dropped_count(), 0);
    }

    #[test]
    fn bad_settings_are_refused() {
        let mut ctx = BuildCtx::default();
        for bad in [
            "min_hangul_share = 1.5",
            "min_chars = 5\nmax_chars = 2",
            "max_repeat = 0",
            "maxchars = 3",
        ] {
            let t: toml::Table = toml::from_str(bad).expect("toml");
            assert!(build(&t, &mut ctx).is_err(), "{bad}");
        }
    }
}
