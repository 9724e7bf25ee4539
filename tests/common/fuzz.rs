//! The fuzz harness every crate's `tests/fuzz_*.rs` target includes with `#[path]` (one
//! copy, not one per crate): the case/time budget (`KCURATE_FUZZ_CASES`,
//! `KCURATE_FUZZ_SECONDS`) and byte and line mutations of valid inputs. Not a test of its
//! own: Cargo discovers only `tests/*.rs`, and this lives in `tests/common/`.
//!
//! A target that builds text rather than mutating bytes uses only [`fuzz`].
#![allow(dead_code)]

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

/// Runs `test` over `strategy` for `KCURATE_FUZZ_CASES` cases (default `default`), again
/// and again until `KCURATE_FUZZ_SECONDS` have passed when that is set.
pub(crate) fn fuzz<S: Strategy>(
    name: &str,
    default: u32,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) {
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<f64>().ok());
    let cases = env("KCURATE_FUZZ_CASES").map_or(default, |c| c.max(1.0) as u32);
    let seconds = env("KCURATE_FUZZ_SECONDS");
    let start = std::time::Instant::now();
    let mut total = 0u64;
    loop {
        let mut runner = TestRunner::new(Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        });
        if let Err(e) = runner.run(&strategy, &test) {
            panic!("fuzz {name}: {e}");
        }
        total += u64::from(cases);
        if seconds.is_none_or(|s| start.elapsed().as_secs_f64() >= s) {
            break;
        }
    }
    eprintln!(
        "fuzz {name}: {total} cases in {:.1} s, 0 failures",
        start.elapsed().as_secs_f64()
    );
}

/// Bytes that matter to the readers: quoting, separators, line ends, JSON structure, a BOM,
/// invalid UTF-8, NUL, Hangul.
pub(crate) fn special() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(b"\"".to_vec()),
        Just(b",".to_vec()),
        Just(b"\t".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"\r".to_vec()),
        Just(b"{".to_vec()),
        Just(b"}".to_vec()),
        Just(b"[".to_vec()),
        Just(b"]".to_vec()),
        Just(b"\\".to_vec()),
        Just(b"\\u".to_vec()),
        Just(b"\xEF\xBB\xBF".to_vec()),
        Just(b"\xFF\xFE".to_vec()),
        Just(b"\xED\xA0\x80".to_vec()),
        Just(b"\0".to_vec()),
        Just("한국어".as_bytes().to_vec()),
        Just(b"\"text\":".to_vec()),
        Just(b"null".to_vec()),
        Just(b"1e400".to_vec()),
        Just(b"                ".to_vec()),
    ]
}

#[derive(Debug, Clone)]
pub(crate) enum Mutation {
    Flip(usize, u8),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    Truncate(usize),
    Duplicate(usize, usize),
}

pub(crate) fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Flip(i, b)),
        (any::<usize>(), special()).prop_map(|(i, s)| Mutation::Insert(i, s)),
        (any::<usize>(), 1usize..16).prop_map(|(i, n)| Mutation::Delete(i, n)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), 1usize..64).prop_map(|(i, n)| Mutation::Duplicate(i, n)),
    ]
}

pub(crate) fn mutate(mut b: Vec<u8>, ms: &[Mutation]) -> Vec<u8> {
    for m in ms {
        let n = b.len();
        match m {
            Mutation::Flip(i, x) if n > 0 => b[i % n] = *x,
            Mutation::Insert(i, s) => {
                let at = i % (n + 1);
                b.splice(at..at, s.iter().copied());
            }
            Mutation::Delete(i, k) if n > 0 => {
                let at = i % n;
                b.drain(at..(at + k).min(n));
            }
            Mutation::Truncate(i) => b.truncate(i % (n + 1)),
            Mutation::Duplicate(i, k) if n > 0 => {
                let at = i % n;
                let piece = b[at..(at + k).min(n)].to_vec();
                b.splice(at..at, piece);
            }
            _ => {}
        }
    }
    b
}

/// Line-level mutations of a line-based file (a part, a verdicts or key-lines file): what
/// an engine or a hand could do to it, which byte mutations rarely reach whole.
#[derive(Debug, Clone)]
pub(crate) enum LineEdit {
    Drop(usize),
    Double(usize),
    Move(usize, usize),
    /// The `k`th number of a line made extreme.
    Number(usize, usize, &'static str),
    /// The `k`th number of the first line starting with the prefix made extreme (a
    /// target's line that holds counts, such as a part's stats line).
    NumberOf(&'static str, usize, &'static str),
}

/// Numbers at the edges of what a reader parses into: zero, `u64::MAX`, past `i64`, `u64`
/// and `u32`, negative, past `f64`.
pub(crate) fn extreme_number() -> impl Strategy<Value = &'static str> + Clone {
    prop_oneof![
        Just("0"),
        Just("18446744073709551615"),
        Just("9223372036854775808"),
        Just("18446744073709551616"),
        Just("-1"),
        Just("1e400"),
        Just("4294967296"),
    ]
}

/// A line edit; `NumberOf` edits the first line starting with `counts`.
pub(crate) fn line_edit(counts: &'static str) -> impl Strategy<Value = LineEdit> {
    prop_oneof![
        any::<usize>().prop_map(LineEdit::Drop),
        any::<usize>().prop_map(LineEdit::Double),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| LineEdit::Move(a, b)),
        (any::<usize>(), any::<usize>(), extreme_number())
            .prop_map(|(l, k, x)| LineEdit::Number(l, k, x)),
        (any::<usize>(), extreme_number()).prop_map(move |(k, x)| LineEdit::NumberOf(counts, k, x)),
    ]
}

/// `line` with its `k`th run of digits (mod their number) replaced by `x`.
pub(crate) fn with_number(line: &str, k: usize, x: &str) -> String {
    let b = line.as_bytes();
    let runs: Vec<(usize, usize)> = (0..b.len())
        .filter(|&i| b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_digit()))
        .map(|i| {
            (
                i,
                i + b[i..].iter().take_while(|c| c.is_ascii_digit()).count(),
            )
        })
        .collect();
    if runs.is_empty() {
        return line.to_string();
    }
    let (s, e) = runs[k % runs.len()];
    format!("{}{x}{}", &line[..s], &line[e..])
}

pub(crate) fn edit_lines(mut lines: Vec<String>, edits: &[LineEdit]) -> Vec<String> {
    for e in edits {
        let n = lines.len();
        if n == 0 {
            break;
        }
        match *e {
            LineEdit::Drop(i) => {
                lines.remove(i % n);
            }
            LineEdit::Double(i) => lines.insert(i % n, lines[i % n].clone()),
            LineEdit::Move(a, b) => {
                let l = lines.remove(a % n);
                lines.insert(b % n, l);
            }
            LineEdit::Number(i, k, x) => lines[i % n] = with_number(&lines[i % n], k, x),
            LineEdit::NumberOf(prefix, k, x) => {
                if let Some(l) = lines.iter_mut().find(|l| l.starts_with(prefix)) {
                    *l = with_number(l, k, x);
                }
            }
        }
    }
    lines
}

/// Lines joined, each ended by `\n`.
pub(crate) fn joined(lines: &[String]) -> Vec<u8> {
    lines
        .iter()
        .flat_map(|l| [l.as_str(), "\n"])
        .collect::<String>()
        .into_bytes()
}
