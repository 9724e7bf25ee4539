//! The detectors: a candidate pattern per type from `rules/pii.toml`, run on the width-folded
//! text, then boundary checks, cue checks and validators in code, then overlap resolution
//! (the larger span wins; ties go to the more specific type). All of it runs on the text as
//! written and, when they differ, on the text as a reader sees it ([`crate::view`]), whose
//! spans are mapped back to the written text.

use crate::fold::Folded;
use crate::validate::{self, Date};
use crate::view::{self, View};
use checks::*;
use kcurate_core::rules::{RuleDef, parse_rules};
use regex::Regex;
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

mod accept;
mod checks;

use accept::accept;

/// The rule file, compiled in so the detectors need no file at run time.
pub const RULES_TOML: &str = include_str!("../../../rules/pii.toml");

/// The 16 types, most specific first (the order breaks ties between equal spans).
pub const TYPES: [&str; 16] = [
    "email",
    "url",
    "mention",
    "ip",
    "mac",
    "rrn",
    "frn",
    "card",
    "phone",
    "brn",
    "driver_license",
    "health_insurance",
    "passport",
    "vehicle_plate",
    "bank_account",
    "address",
];

/// Types a recipe turns on (off by default; not among the 16 SPEC types).
pub const OPTIONAL_TYPES: [&str; 1] = ["user_id"];

/// Every kind a detector can report: the 16 SPEC types, then the optional ones (built from
/// the two lists so they cannot drift apart).
const KINDS: [&str; TYPES.len() + OPTIONAL_TYPES.len()] = {
    let mut kinds = [""; TYPES.len() + OPTIONAL_TYPES.len()];
    let mut i = 0;
    while i < TYPES.len() {
        kinds[i] = TYPES[i];
        i += 1;
    }
    let mut j = 0;
    while j < OPTIONAL_TYPES.len() {
        kinds[TYPES.len() + j] = OPTIONAL_TYPES[j];
        j += 1;
    }
    kinds
};

/// Detector settings (the `pii` stage's recipe settings).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// Review-site user ids written without `@` (`abcd****`), rule `pii.user_id`.
    pub user_ids: bool,
}

/// One detected PII span.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PiiSpan {
    /// Character (Unicode scalar) offsets, end exclusive.
    pub start: usize,
    /// One past the span's last character.
    pub end: usize,
    /// The PII type (`rrn`, `phone`, ...; serialised as `type`).
    #[serde(rename = "type")]
    pub kind: String,
}

struct Detector {
    kind: &'static str,
    pattern: Regex,
    cues: Vec<String>,
}

struct Detectors {
    list: Vec<Detector>,
    address: Regex,
    /// (kind, rule id) for every rule of rules/pii.toml.
    ids: Vec<(&'static str, String)>,
    sigungu: Vec<String>,
}

fn kind_static(k: &str) -> &'static str {
    KINDS
        .iter()
        .find(|t| **t == k)
        .copied()
        .expect("rule types are the 16 SPEC types or an optional type")
}

fn string_list(r: &RuleDef, key: &str) -> Vec<String> {
    r.params
        .get(key)
        .and_then(|c| c.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// The rule id of the detector of `kind` (`pii.phone`, `pii.address_v2`, ...): decisions
/// name it.
pub fn rule_id(kind: &str) -> &'static str {
    detectors()
        .ids
        .iter()
        .find(|(k, _)| *k == kind)
        .map(|(_, id)| id.as_str())
        .expect("every kind has a rule in rules/pii.toml")
}

/// The 시·군·구 gazetteer of rule `pii.address_v2` (pseudonyms draw their names from it).
pub fn sigungu() -> &'static [String] {
    &detectors().sigungu
}

fn detectors() -> &'static Detectors {
    static D: OnceLock<Detectors> = OnceLock::new();
    D.get_or_init(|| {
        let rules = parse_rules(std::path::Path::new("rules/pii.toml"), RULES_TOML)
            .expect("rules/pii.toml parses");
        let list = rules
            .iter()
            .filter(|r| r.params.get("type").and_then(|t| t.as_str()) != Some("address"))
            .map(|r: &RuleDef| {
                let kind = kind_static(r.params["type"].as_str().expect("type is a string"));
                let pattern =
                    Regex::new(r.params["pattern"].as_str().expect("pattern is a string"))
                        .unwrap_or_else(|e| panic!("rules/pii.toml {}: {e}", r.id));
                let cues = string_list(r, "cue");
                Detector {
                    kind,
                    pattern,
                    cues,
                }
            })
            .collect();
        let address = rules
            .iter()
            .find(|r| r.params.get("type").and_then(|t| t.as_str()) == Some("address"))
            .expect("rules/pii.toml has an address rule");
        let (sido, sigungu) = (
            string_list(address, "sido"),
            string_list(address, "sigungu"),
        );
        let ids = rules
            .iter()
            .map(|r| {
                let kind = kind_static(r.params["type"].as_str().expect("type is a string"));
                (kind, r.id.clone())
            })
            .collect();
        Detectors {
            list,
            address: Regex::new(&address_regex(&sido, &sigungu)).expect("address regex compiles"),
            ids,
            sigungu,
        }
    })
}

/// Road-name and lot-number addresses, from the 시·도 (or a gazetteer 시·군·구) to the
/// number, with an optional detail (동·층·호) and reference item `(…동, …)`. Without a
/// 시·도 the first name must be in the gazetteer: any syllable before 시 is no 시·군·구
/// (`그 당시`, `증가시`). A lot is a 동·리 name or a numbered 가 (`종로2가`).
pub fn address_regex(sido: &[String], sigungu: &[String]) -> String {
    let alt = |names: &[String]| {
        let mut v: Vec<&str> = names.iter().map(String::as_str).collect();
        // Longest first, so `서울특별시` wins over `서울`.
        v.sort_by_key(|n| std::cmp::Reverse(n.chars().count()));
        v.join("|")
    };
    let (sido, gaz) = (alt(sido), alt(sigungu));
    let sgg = "[가-힣]{1,6}(?:시|군|구)";
    let head = format!(
        "(?:(?:{sido})\\s(?:{sgg}\\s){{0,2}}|(?:{gaz})\\s(?:{sgg}\\s)?)(?:[가-힣]{{1,5}}(?:읍|면)\\s)?"
    );
    let road = "[가-힣A-Za-z0-9]{1,12}(?:대로|로|길)(?:[0-9]{1,4}번?길)?\\s(?:지하\\s?)?[0-9]{1,5}(?:-[0-9]{1,5})?";
    let lot = "(?:[가-힣]{1,7}[0-9]{0,2}(?:동|리)|[가-힣]{1,6}[0-9]{1,2}가)\\s(?:[가-힣]{1,5}리\\s)?(?:산\\s?)?[0-9]{1,5}(?:-[0-9]{1,5})?(?:번지)?";
    let detail = "(?:,?\\s?(?:[0-9]{1,4}동\\s?)?(?:지하\\s?[0-9]{1,2}층|[0-9]{1,3}층)?\\s?(?:[0-9]{1,5}호)?)?";
    let reference = "(?:\\s?\\([가-힣0-9]{1,10}(?:동|리|가)[0-9]?(?:,\\s?[^()]{1,30})?\\))?";
    format!("{head}(?:{road}|{lot}){detail}{reference}")
}

/// Detects PII spans in `text` (character offsets), with the default reference date.
pub fn detect(text: &str) -> Vec<PiiSpan> {
    detect_with(text, validate::REFERENCE_DATE)
}

/// Detects PII spans in `text` with `reference` as today's date (for birth-date checks).
pub fn detect_with(text: &str, reference: Date) -> Vec<PiiSpan> {
    detect_opts(text, reference, Options::default())
}

/// Detects PII spans with the optional detectors `opts` turns on, on the text as written
/// and as a reader sees it ([`crate::view`]: character references decoded, invisible
/// characters removed, wrapped numbers joined, `hong(at)example.com` read as an email).
/// Spans are offsets into the written text; where a written and a read span overlap, the
/// larger wins.
pub fn detect_opts(text: &str, reference: Date, opts: Options) -> Vec<PiiSpan> {
    let written = detect_as_written(text, reference, opts);
    if !view::needed(text) {
        return written;
    }
    let v = View::new(text);
    if v.text == text {
        return written;
    }
    let read = detect_as_written(&v.text, reference, opts)
        .into_iter()
        .map(|s| {
            let (start, end) = v.to_written(s.start, s.end);
            PiiSpan { start, end, ..s }
        });
    let all = written
        .into_iter()
        .chain(read)
        .map(|s| (s.start, s.end, rank(&s.kind)))
        .collect();
    resolve(all)
}

fn rank(kind: &str) -> usize {
    KINDS
        .iter()
        .position(|t| *t == kind)
        .expect("a detector reports a known kind")
}

/// The detectors on `text` as written (width folded, one character for one).
fn detect_as_written(text: &str, reference: Date, opts: Options) -> Vec<PiiSpan> {
    // Cheap gates: most sentences have no digit, no `@` and no `:`, and most detectors need one.
    let b = text.as_bytes();
    let fw = text.contains(|c: char| ('\u{FF01}'..='\u{FF5E}').contains(&c));
    let digit = fw || b.iter().any(u8::is_ascii_digit);
    let at = fw || b.contains(&b'@');
    let colon = fw || b.contains(&b':');
    let dot = fw || b.contains(&b'.');
    let alpha = fw || b.iter().any(u8::is_ascii_alphabetic);
    // Short numbers (an id, a rating, a date such as `15.06.14`) hold no type: the shortest
    // numeric layouts are a Seoul phone (9 digits), `1588-1234` (8 digits, with a separator:
    // bare 8 digits are not one) and an IPv4 (3 dots).
    let n_digits = b.iter().filter(|c| c.is_ascii_digit()).count();
    if b.iter().all(|c| c.is_ascii_digit() || b".-/ ".contains(c))
        && (n_digits <= 7 || (n_digits == 8 && n_digits == b.len()))
        && b.iter().filter(|c| **c == b'.').count() < 3
    {
        return Vec::new();
    }
    let star = opts.user_ids && b.contains(&b'*');
    if !digit && !at && !star && !(dot && (alpha || text.contains("한국"))) {
        return Vec::new();
    }
    let f = Folded::new(text);
    let d = detectors();
    let mut cands: Vec<(usize, usize, usize)> = Vec::new(); // start, end, type rank
    for det in &d.list {
        let needed = match det.kind {
            "email" | "mention" => at,
            "url" => dot && (alpha || text.contains("한국")),
            "ip" => digit && (dot || colon),
            "mac" => alpha || digit,
            "user_id" => star,
            _ => digit,
        };
        if !needed {
            continue;
        }
        let rank = rank(det.kind);
        let mut at = 0;
        while at <= f.text.len() {
            let Some(m) = det.pattern.find_at(&f.text, at) else {
                break;
            };
            let (s, e) = (f.char_at_byte(m.start()), f.char_at_byte(m.end()));
            if let Some((s2, e2)) = accept(det.kind, &f, s, e, det, reference) {
                cands.push((s2, e2, rank));
                at = m.end().max(m.start() + 1);
            } else {
                // Retry one character later: a longer failed match may hide a valid one.
                at = m.start() + f.text[m.start()..].chars().next().map_or(1, char::len_utf8);
            }
        }
    }
    let arank = rank("address");
    let addresses = if digit {
        d.address.find_iter(&f.text).collect()
    } else {
        Vec::new()
    };
    for m in addresses {
        let (s, mut e) = (f.char_at_byte(m.start()), f.char_at_byte(m.end()));
        while e > s && matches!(f.chars[e - 1], ' ' | ',') {
            e -= 1;
        }
        // `축구 폭력으로 74명`: a number followed by a counter is a count, not a building.
        // `삼성동 38층 아파트`: a floor count, not a lot number.
        let counter = f.get(e as isize).is_some_and(|c| {
            "명개원년월일분초배위회세살차만억조대%층호동평편곳채권시km".contains(c)
        }) || (f.get(e as isize) == Some('번')
            && f.get(e as isize + 1) != Some('지'));
        if !is_digit(f.get(e as isize)) && !counter {
            cands.push((s, e, arank));
        }
    }
    resolve(cands)
}

/// Candidates `(start, end, type rank)` to spans: larger spans first, then the more
/// specific type; what does not overlap a span taken is kept.
fn resolve(mut cands: Vec<(usize, usize, usize)>) -> Vec<PiiSpan> {
    cands.sort_by(|a, b| {
        (b.1 - b.0)
            .cmp(&(a.1 - a.0))
            .then(a.2.cmp(&b.2))
            .then(a.0.cmp(&b.0))
    });
    let mut taken: Vec<(usize, usize, usize)> = Vec::new();
    for c in cands {
        if c.1 > c.0 && taken.iter().all(|t| c.1 <= t.0 || c.0 >= t.1) {
            taken.push(c);
        }
    }
    taken.sort();
    taken
        .into_iter()
        .map(|(start, end, r)| PiiSpan {
            start,
            end,
            kind: KINDS[r].to_string(),
        })
        .collect()
}

#[cfg(test)]
mod short_number_tests {
    use super::detect;

    #[test]
    fn short_numbers_hold_no_type_but_the_shortest_layouts_are_found() {
        for none in ["10", "15.06.14", "10000003", "2024-01-02", "117774"] {
            assert!(detect(none).is_empty(), "{none}");
        }
        for (text, kind) in [
            ("1588-1234", "phone"),
            ("02-123-4567", "phone"),
            ("1.1.1.1", "ip"),
            ("600216-1013884", "rrn"),
        ] {
            let found = detect(text);
            assert!(found.iter().any(|s| s.kind == kind), "{text}: {found:?}");
        }
    }
}
