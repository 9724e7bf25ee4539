//! Stage `filter`: sentence filters with thresholds from the recipe.

use kcurate_core::{
    BuildCtx, BuildError, BuiltStage, Out, Record, RuleId, Stage, StageEntry, parse_settings,
};

pub const ENTRY: StageEntry = StageEntry {
    name: "filter",
    summary: "Sentence filters: >10 Chinese/Japanese chars (KLUE), length bounds, Hangul share, repeated-char runs",
    doc: "What: drops a sentence when it has more than `max_cjk` Chinese or Japanese \
characters (filter.cjk_over_10), fewer than `min_chars` or more than `max_chars` \
characters, whitespace excluded (filter.too_short, filter.too_long), a Hangul share of its \
letters below `min_hangul_share` (filter.hangul_share), or one character repeated more than \
`max_repeat` times in a row (filter.repeat_run). The first failing check names the drop.\n\
Why: KLUE §2.3 removes sentences with more than 10 Chinese or Japanese characters; the other \
bounds keep fragments and non-Korean text out of the annotation pool.\n\
Example: max_cjk = 10 drops \"安倍晋三 日本 總理 記者會見 開催\" (14 CJK characters).\n\
Settings: max_cjk (default 10; -1 disables), min_chars, max_chars, min_hangul_share (0..1), \
max_repeat (all optional).",
    rules: &[
        "filter.cjk_over_10",
        "filter.too_short",
        "filter.too_long",
        "filter.hangul_share",
        "filter.repeat_run",
    ],
    build,
};

#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilterConfig {
    #[serde(default = "default_max_cjk")]
    pub max_cjk: i64,
    #[serde(default)]
    pub min_chars: Option<usize>,
    #[serde(default)]
    pub max_chars: Option<usize>,
    #[serde(default)]
    pub min_hangul_share: Option<f64>,
    #[serde(default)]
    pub max_repeat: Option<usize>,
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
        }
    }
}

pub struct FilterStage {
    cfg: FilterConfig,
}

impl FilterStage {
    pub fn new(cfg: FilterConfig) -> Self {
        FilterStage { cfg }
    }
}

pub fn build(settings: &toml::Table, _ctx: &mut BuildCtx) -> Result<BuiltStage, BuildError> {
    let cfg: FilterConfig = parse_settings(settings)?;
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
    if cfg.max_repeat == Some(0) {
        return Err(BuildError::setting("max_repeat", "must be at least 1"));
    }
    Ok(BuiltStage::Record(Box::new(FilterStage { cfg })))
}

#[inline]
fn is_hangul(c: char) -> bool {
    matches!(c, '\u{AC00}'..='\u{D7A3}' | '\u{1100}'..='\u{11FF}' | '\u{3131}'..='\u{318E}' | '\u{A960}'..='\u{A97F}' | '\u{D7B0}'..='\u{D7FF}')
}

/// Chinese characters (CJK ideographs) and Japanese kana.
#[inline]
fn is_cjk(c: char) -> bool {
    matches!(c, '\u{4E00}'..='\u{9FFF}' | '\u{3400}'..='\u{4DBF}' | '\u{F900}'..='\u{FAFF}' | '\u{20000}'..='\u{2FA1F}' | '\u{3040}'..='\u{30FF}' | '\u{31F0}'..='\u{31FF}' | '\u{FF66}'..='\u{FF9D}')
}

/// Counts of one text, in one pass.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct TextStats {
    pub chars: usize,
    pub cjk: usize,
    pub hangul: usize,
    pub letters: usize,
    pub max_run: usize,
    pub run_char: char,
}

pub fn text_stats(text: &str) -> TextStats {
    let mut s = TextStats {
        run_char: ' ',
        ..Default::default()
    };
    let mut prev = '\0';
    let mut run = 0usize;
    for c in text.chars() {
        // Hangul syllables first: most characters of a Korean corpus, and none of them
        // whitespace or CJK.
        if ('\u{AC00}'..='\u{D7A3}').contains(&c) {
            s.hangul += 1;
            s.letters += 1;
        } else if c.is_whitespace() {
            prev = '\0';
            run = 0;
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
        if c == prev {
            run += 1;
        } else {
            run = 1;
            prev = c;
        }
        if run > s.max_run {
            s.max_run = run;
            s.run_char = c;
        }
    }
    s
}

impl FilterStage {
    /// The first failing check: (rule id, detail, score).
    pub fn check(&self, text: &str) -> Option<(&'static str, String, Option<f64>)> {
        let s = text_stats(text);
        let c = &self.cfg;
        if c.max_cjk >= 0 && s.cjk as i64 > c.max_cjk {
            return Some((
                "filter.cjk_over_10",
                format!("{} Chinese/Japanese characters > {}", s.cjk, c.max_cjk),
                Some(s.cjk as f64),
            ));
        }
        if let Some(m) = c.min_chars
            && s.chars < m
        {
            return Some((
                "filter.too_short",
                format!("{} chars < {m}", s.chars),
                Some(s.chars as f64),
            ));
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
            let share = if s.letters == 0 {
                0.0
            } else {
                s.hangul as f64 / s.letters as f64
            };
            if share < m {
                return Some((
                    "filter.hangul_share",
                    format!("Hangul share {share:.3} < {m}"),
                    Some(share),
                ));
            }
        }
        if let Some(m) = c.max_repeat
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
    fn name(&self) -> &str {
        "filter"
    }

    fn apply(&self, rec: Record, out: &mut Out) {
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
        let mut prev = '\0';
        let mut run = 0usize;
        for c in text.chars() {
            if c.is_whitespace() {
                prev = '\0';
                run = 0;
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
            if c == prev {
                run += 1;
            } else {
                run = 1;
                prev = c;
            }
            if run > s.max_run {
                s.max_run = run;
                s.run_char = c;
            }
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
        assert_eq!(f.check("좋 아").map(|x| x.0), Some("filter.too_short"));
        assert_eq!(
            f.check("가나다라마바사아자차카").map(|x| x.0),
            Some("filter.too_long")
        );
        assert_eq!(
            f.check("good 영화").map(|x| x.0),
            Some("filter.hangul_share")
        );
        assert_eq!(
            f.check("웃겨ㅋㅋㅋㅋㅋㅋ").map(|x| x.0),
            Some("filter.repeat_run")
        );
        assert_eq!(f.check("웃겨ㅋㅋㅋㅋㅋ"), None);
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
