//! What a data file is, from its first bytes (decompressed): JSONL, a JSON array, TSV or
//! CSV (header or not, quoted or not), or plain text; and a sample of its rows as column →
//! value, for `propose` to name the fields from.

use anyhow::Context;
use std::io::Read;
use std::path::Path;

/// Bytes read from the start of a delimited or text file to judge it.
const HEAD_BYTES: u64 = 4 << 20;
/// Largest JSON-array file read whole to judge it.
const JSON_BYTES: u64 = 256 << 20;
/// Rows kept as the sample.
pub const SAMPLE_ROWS: usize = 1000;

/// A file's shape and a sample of its rows.
#[derive(Debug, Clone)]
pub struct Sniffed {
    /// `jsonl`, `json`, `tsv`, `csv` or `txt`.
    pub format: &'static str,
    /// TSV/CSV: whether the first row names the columns.
    pub header: bool,
    /// TSV/CSV: whether `"` quotes fields.
    pub quote: bool,
    /// TSV/CSV: how many cells of the fullest column were quoted, of how many (why
    /// `quote` was chosen).
    pub quoted_cells: (usize, usize),
    /// The columns (keys of JSON objects in order of first appearance; the header's names;
    /// `None` where a headerless column gets its name from `propose`).
    pub columns: Vec<Option<String>>,
    /// Sampled rows: one value per column (`None`: absent or not a scalar).
    pub rows: Vec<Vec<Option<String>>>,
}

/// Judges the file at `path` (gzip and zstd decompressed).
pub fn sniff(path: &Path) -> anyhow::Result<Sniffed> {
    let shown = path.display().to_string();
    let mut head = Vec::new();
    kcurate_io::ingest::open_decoded(path)
        .with_context(|| shown.clone())?
        .take(HEAD_BYTES)
        .read_to_end(&mut head)
        .with_context(|| shown.clone())?;
    let text = String::from_utf8_lossy(head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&head));
    let start = text.trim_start();
    if start.is_empty() {
        anyhow::bail!("{shown}: the file is empty (nothing to propose fields from)");
    }
    if start.starts_with('[') {
        return json_array(path, &shown);
    }
    let truncated = head.len() as u64 >= HEAD_BYTES;
    let whole_lines = match (truncated, text.rfind('\n')) {
        (true, Some(i)) => &text[..i],
        _ => &text[..],
    };
    if start.starts_with('{') {
        return jsonl(whole_lines, &shown);
    }
    if let Some(s) = delimited(whole_lines, b'\t') {
        return Ok(s);
    }
    if let Some(s) = delimited(whole_lines, b',') {
        return Ok(s);
    }
    Ok(plain(whole_lines))
}

fn scalar(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        serde_json::Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Rows of JSON objects as columns (keys by first appearance) and scalar values.
fn objects<'a>(
    objs: impl Iterator<Item = &'a serde_json::Map<String, serde_json::Value>>,
) -> (Vec<Option<String>>, Vec<Vec<Option<String>>>) {
    let mut columns: Vec<String> = Vec::new();
    let mut rows = Vec::new();
    for o in objs.take(SAMPLE_ROWS) {
        for k in o.keys() {
            if !columns.contains(k) {
                columns.push(k.clone());
            }
        }
        rows.push(
            columns
                .iter()
                .map(|c| o.get(c).and_then(scalar))
                .collect::<Vec<_>>(),
        );
    }
    for r in &mut rows {
        r.resize(columns.len(), None);
    }
    (columns.into_iter().map(Some).collect(), rows)
}

fn json_array(path: &Path, shown: &str) -> anyhow::Result<Sniffed> {
    let mut bytes = Vec::new();
    kcurate_io::ingest::open_decoded(path)?
        .take(JSON_BYTES + 1)
        .read_to_end(&mut bytes)
        .with_context(|| shown.to_string())?;
    if bytes.len() as u64 > JSON_BYTES {
        anyhow::bail!(
            "{shown}: a JSON array over {JSON_BYTES} bytes; write it as JSONL (one object a line) to read it in a stream"
        );
    }
    let v: Vec<serde_json::Value> = serde_json::from_slice(&bytes)
        .with_context(|| format!("{shown}: starts with `[` but is not a JSON array of objects"))?;
    let objs: Vec<_> = v.iter().filter_map(|x| x.as_object()).collect();
    if objs.is_empty() {
        anyhow::bail!("{shown}: a JSON array without objects (each record must be an object)");
    }
    let (columns, rows) = objects(objs.into_iter());
    Ok(Sniffed {
        format: "json",
        header: true,
        quote: false,
        quoted_cells: (0, 0),
        columns,
        rows,
    })
}

fn jsonl(text: &str, shown: &str) -> anyhow::Result<Sniffed> {
    let mut objs = Vec::new();
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        match serde_json::from_str::<serde_json::Value>(line) {
            Ok(serde_json::Value::Object(o)) => objs.push(o),
            _ if objs.is_empty() => anyhow::bail!(
                "{shown}:{}: starts with `{{` but this line is not one JSON object (JSONL needs one object a line)",
                n + 1
            ),
            _ => {}
        }
        if objs.len() >= SAMPLE_ROWS {
            break;
        }
    }
    let (columns, rows) = objects(objs.iter());
    Ok(Sniffed {
        format: "jsonl",
        header: true,
        quote: false,
        quoted_cells: (0, 0),
        columns,
        rows,
    })
}

/// Rows of `text` split at `delim` (quotes honoured when `quote`), the last maybe cut off.
fn split_rows(text: &str, delim: u8, quote: bool) -> Vec<Vec<String>> {
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(delim)
        .quoting(quote)
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    rdr.records()
        .map_while(Result::ok)
        .filter(|r| !(r.len() == 1 && r[0].trim().is_empty()))
        .take(SAMPLE_ROWS + 1)
        .map(|r| r.iter().map(str::to_string).collect())
        .collect()
}

/// The most quoted column: (quoted cells, non-empty cells) of raw cells split at `delim`.
fn quoted_cells(text: &str, delim: char) -> (usize, usize) {
    let mut counts: Vec<(usize, usize)> = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(SAMPLE_ROWS)
    {
        for (c, cell) in line.trim_end_matches('\r').split(delim).enumerate() {
            if counts.len() <= c {
                counts.resize(c + 1, (0, 0));
            }
            if !cell.is_empty() {
                counts[c].1 += 1;
                let q = cell.len() >= 2 && cell.starts_with('"') && cell.ends_with('"');
                counts[c].0 += usize::from(q);
            }
        }
    }
    counts.into_iter().max_by_key(|c| c.0).unwrap_or((0, 0))
}

/// TSV or CSV when at least 2 columns and 9 rows in 10 of the same width; quoting on when
/// most cells of a column are quoted (always for CSV, whose default it is).
fn delimited(text: &str, delim: u8) -> Option<Sniffed> {
    let quoted = quoted_cells(text, delim as char);
    let quote = delim == b',' || (quoted.0 >= 2 && quoted.0 * 2 > quoted.1);
    let mut rows = split_rows(text, delim, quote);
    if rows.len() > SAMPLE_ROWS {
        rows.pop();
    }
    let mut widths = std::collections::BTreeMap::<usize, usize>::new();
    for r in &rows {
        *widths.entry(r.len()).or_default() += 1;
    }
    let (&width, &n) = widths.iter().max_by_key(|(w, n)| (**n, **w))?;
    if width < 2 || n * 10 < rows.len() * 9 {
        return None;
    }
    let header = looks_like_header(&rows);
    let columns = if header {
        rows.remove(0).into_iter().map(Some).collect()
    } else {
        vec![None; width]
    };
    let rows = rows
        .into_iter()
        .map(|r| (0..width).map(|i| r.get(i).cloned()).collect())
        .collect();
    let format = if delim == b'\t' { "tsv" } else { "csv" };
    Some(Sniffed {
        format,
        header,
        quote,
        quoted_cells: quoted,
        columns,
        rows,
    })
}

/// A first row of distinct, short, non-numeric names over a column whose other values are
/// numbers or dates, or much longer than the name.
fn looks_like_header(rows: &[Vec<String>]) -> bool {
    let Some((first, rest)) = rows.split_first() else {
        return false;
    };
    let numeric = |s: &str| s.trim().parse::<f64>().is_ok();
    let date = |s: &str| kcurate_core::date::parse_date(s).is_some();
    let names_ok = first.iter().all(|c| {
        let c = c.trim();
        !c.is_empty() && c.chars().count() <= 40 && !numeric(c) && !date(c)
    }) && first
        .iter()
        .collect::<std::collections::BTreeSet<_>>()
        .len()
        == first.len();
    if !names_ok || rest.is_empty() {
        return false;
    }
    (0..first.len()).any(|c| {
        let vals: Vec<&str> = rest
            .iter()
            .filter_map(|r| r.get(c))
            .map(|s| s.trim())
            .collect();
        let typed = !vals.is_empty() && vals.iter().all(|v| v.is_empty() || numeric(v) || date(v));
        let mean = vals.iter().map(|v| v.chars().count()).sum::<usize>() / vals.len().max(1);
        typed || mean > 2 * first[c].chars().count() + 8
    })
}

fn plain(text: &str) -> Sniffed {
    let rows = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(SAMPLE_ROWS)
        .map(|l| vec![Some(l.to_string())])
        .collect();
    Sniffed {
        format: "txt",
        header: false,
        quote: false,
        quoted_cells: (0, 0),
        columns: vec![Some("text".into())],
        rows,
    }
}
