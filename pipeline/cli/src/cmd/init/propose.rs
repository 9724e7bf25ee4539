//! Which columns of a sniffed file are the text, id, date and label, from their content
//! (and their names, when the file names them).

use super::sniff::Sniffed;

/// The fields proposed for one file.
#[derive(Debug, Clone, Default)]
pub struct Proposal {
    /// Every column's name (headerless columns named by their role, else `col<N>`).
    pub columns: Vec<String>,
    /// The text field.
    pub text: String,
    /// The id field: every sampled value present, unique and short.
    pub id: Option<String>,
    /// The date field: every sampled value a date `kcurate` reads.
    pub date: Option<String>,
    /// The label field: a few distinct short values, repeated.
    pub label: Option<String>,
    /// The other columns, carried along.
    pub extra: Vec<String>,
    /// Mapped fields missing from some sampled rows.
    pub optional: Vec<String>,
    /// `formal` when most sampled texts end like edited prose (`다.`), else `colloquial`.
    pub style: &'static str,
}

/// What one column's sampled values look like.
#[derive(Debug, Default)]
struct Stats {
    present: usize,
    missing: usize,
    distinct: usize,
    numeric: usize,
    dates: usize,
    mean_chars: usize,
    longest: usize,
    with_space: usize,
}

fn stats(rows: &[Vec<Option<String>>], c: usize) -> Stats {
    let mut s = Stats::default();
    let mut seen = std::collections::BTreeSet::new();
    let mut chars = 0;
    for v in rows.iter().map(|r| r.get(c).cloned().flatten()) {
        let Some(v) = v.filter(|v| !v.trim().is_empty()) else {
            s.missing += 1;
            continue;
        };
        s.present += 1;
        let n = v.chars().count();
        chars += n;
        s.longest = s.longest.max(n);
        s.numeric += usize::from(v.trim().parse::<f64>().is_ok());
        s.dates += usize::from(kcurate_core::date::iso_date(&v).is_some());
        s.with_space += usize::from(v.trim().contains(char::is_whitespace));
        seen.insert(v);
    }
    s.distinct = seen.len();
    s.mean_chars = chars / s.present.max(1);
    s
}

fn named(name: Option<&str>, words: &[&str]) -> bool {
    let Some(n) = name.map(str::to_lowercase) else {
        return false;
    };
    words
        .iter()
        .any(|w| n == *w || n.ends_with(&format!("_{w}")))
}

const TEXT_NAMES: &[&str] = &[
    "text",
    "document",
    "sentence",
    "review",
    "comment",
    "comments",
    "content",
    "body",
    "utterance",
    "본문",
    "내용",
    "문장",
];
const ID_NAMES: &[&str] = &["id", "guid", "uid", "no", "번호"];
const DATE_NAMES: &[&str] = &["date", "time", "created", "published", "날짜", "일자"];
const LABEL_NAMES: &[&str] = &[
    "label",
    "labels",
    "rating",
    "sentiment",
    "class",
    "category",
    "topic",
    "hate",
    "gold_label",
    "분야",
];

/// Names the fields of `s`.
pub fn propose(s: &Sniffed) -> anyhow::Result<Proposal> {
    let n = s.columns.len();
    let st: Vec<Stats> = (0..n).map(|c| stats(&s.rows, c)).collect();
    let name = |c: usize| s.columns[c].as_deref();
    let text = (0..n)
        .filter(|&c| {
            st[c].present > 0
                && st[c].numeric * 2 < st[c].present
                && st[c].dates * 2 < st[c].present
        })
        .max_by_key(|&c| (named(name(c), TEXT_NAMES), st[c].mean_chars))
        .ok_or_else(|| {
            anyhow::anyhow!("no column holds text (every one is empty, numbers or dates)")
        })?;
    let rows = s.rows.len();
    let free = |c: usize, taken: &[Option<usize>]| c != text && !taken.contains(&Some(c));
    let id = (0..n)
        .filter(|&c| free(c, &[]) && rows >= 2 && st[c].missing == 0 && st[c].distinct == rows)
        .filter(|&c| st[c].with_space == 0 && st[c].longest <= 64 && st[c].dates < rows)
        .max_by_key(|&c| {
            (
                named(name(c), ID_NAMES),
                st[c].numeric == rows,
                std::cmp::Reverse(c),
            )
        });
    let date = (0..n)
        .filter(|&c| free(c, &[id]) && st[c].present > 0 && st[c].dates == st[c].present)
        .max_by_key(|&c| (named(name(c), DATE_NAMES), std::cmp::Reverse(c)));
    let label = (0..n)
        .filter(|&c| free(c, &[id, date]) && rows >= 4 && st[c].missing == 0)
        .filter(|&c| {
            (2..=20).contains(&st[c].distinct) && st[c].distinct * 2 <= rows && st[c].longest <= 30
        })
        .max_by_key(|&c| (named(name(c), LABEL_NAMES), std::cmp::Reverse(c)));
    let columns = column_names(s, text, id, date, label);
    let role = |c: Option<usize>| c.map(|c| columns[c].clone());
    let mut p = Proposal {
        text: columns[text].clone(),
        id: role(id),
        date: role(date),
        label: role(label),
        style: style(&s.rows, text),
        ..Proposal::default()
    };
    p.extra = (0..n)
        .filter(|&c| c != text && ![id, date, label].contains(&Some(c)) && st[c].present > 0)
        .map(|c| columns[c].clone())
        .collect();
    // JSON objects may lack a key the sample saw elsewhere: the record stays whole.
    if let Some(d) = date.filter(|&d| st[d].missing > 0) {
        p.optional.push(columns[d].clone());
    }
    p.columns = columns;
    Ok(p)
}

/// The header's names, or for a headerless file `text`, `id`, `date`, `label` by role and
/// `col<N>` for the rest.
fn column_names(
    s: &Sniffed,
    text: usize,
    id: Option<usize>,
    date: Option<usize>,
    label: Option<usize>,
) -> Vec<String> {
    (0..s.columns.len())
        .map(|c| match &s.columns[c] {
            Some(n) => n.clone(),
            None if c == text => "text".into(),
            None if id == Some(c) => "id".into(),
            None if date == Some(c) => "date".into(),
            None if label == Some(c) => "label".into(),
            None => format!("col{}", c + 1),
        })
        .collect()
}

fn style(rows: &[Vec<Option<String>>], text: usize) -> &'static str {
    let texts: Vec<&str> = rows
        .iter()
        .filter_map(|r| r.get(text)?.as_deref())
        .collect();
    let formal = texts
        .iter()
        .filter(|t| t.trim_end().ends_with("다."))
        .count();
    if formal * 2 > texts.len() {
        "formal"
    } else {
        "colloquial"
    }
}
