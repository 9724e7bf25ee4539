//! `why`: the lineage of one item, found by id or by its text.
//!
//! By text, in this order (the first step that finds something wins):
//! 1. the same text (spaces collapsed) as a released row or as a drop's `text` (what the
//!    drop removed: a sentence, a document, a quarantined input line);
//! 2. a dropped text that contains the query (a sentence of a dropped document, a record
//!    inside a quarantined line), a released text that contains it (a query of four
//!    characters or more quoting part of a sentence), or a released row the query contains (the query is the
//!    sentence as the corpus has it, before an edit removed a byline or a hashtag);
//! 3. the most similar released or dropped texts (character-bigram Dice ≥ [`SIMILAR`]):
//!    an edit changed the sentence in its middle; a document split into sentences is a
//!    candidate too (its sentences, released and dropped, joined), so a whole review or
//!    article as the corpus has it finds its document;
//! 4. a line of an input file of a source the licence gate refused (those texts are never
//!    copied into a release; the files are read where the recipe names them, against
//!    `root`);
//! 5. steps 1–4 again with the query as the recipe's `pii` stage would release it (its
//!    personal data replaced by the keyed pseudonyms; needs the key), so an original that
//!    was pseudonymised is found;
//! 6. otherwise the nearest released and the nearest dropped text with their similarity,
//!    marked `nearest …` (the command then exits 1, as for no match).
//!
//! Dropped texts are read as the audit holds them: when the recipe pseudonymises PII, the
//! personal data in them is a keyed fingerprint, so a query quoting a phone number finds
//! its sentence by similarity, not exactly.

mod nearest;

use crate::{AuditError, for_each_decision, related, row_id, rows};
use kcurate_release::Manifest;
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::ControlFlow;
use std::path::Path;

/// The least character-bigram Dice similarity at which a text matches (step 3).
pub const SIMILAR: f64 = 0.8;
/// How many similar items step 3 reports at most.
const MAX_SIMILAR: usize = 5;
/// Row fields that hold an item's text.
const TEXT_KEYS: [&str; 5] = ["text", "sentence1", "sentence2", "premise", "hypothesis"];

/// One item's way through a release, as `why` reports it.
#[derive(Debug, Clone, Serialize)]
pub struct Lineage {
    /// The item's id.
    pub item: String,
    /// How it was found: `id`, `text`, `text inside a dropped item`, `released text inside
    /// the query`, `similar text (0.91)`, `input line of a refused source`.
    pub matched: String,
    /// Its text: as released, or as its drop removed it.
    pub text: Option<String>,
    /// The input file and line it came from.
    pub origin: Option<String>,
    /// The source it came from.
    pub source: Option<String>,
    /// Every decision on the item, its document or its sentences, in pipeline order.
    pub decisions: Vec<Value>,
    /// `task/split` when the item is in the release, else `dropped at <stage> by <rule>`.
    pub ended: String,
    /// The stages it passed, in order, up to where it ended.
    pub stages: Vec<String>,
}

/// Spaces collapsed, ends trimmed.
fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Character bigrams of a text without spaces (a multiset as a sorted vector).
fn bigrams(s: &str) -> Vec<(char, char)> {
    let c: Vec<char> = s.chars().filter(|c| !c.is_whitespace()).collect();
    let mut v: Vec<(char, char)> = c.windows(2).map(|w| (w[0], w[1])).collect();
    v.sort_unstable();
    v
}

/// Dice coefficient of two sorted bigram multisets.
fn dice(a: &[(char, char)], b: &[(char, char)]) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let common = kcurate_core::text::overlap_sorted(a, b);
    2.0 * common as f64 / (a.len() + b.len()) as f64
}

/// A text the query can match: a released row's or a drop's.
struct Candidate {
    item: String,
    text: String,
    dropped: bool,
}

/// An item found, how, and (for a refused source's line) where.
struct Hit {
    item: String,
    matched: String,
    origin: Option<String>,
}

/// Finds an item by id, or by its text (see the module documentation). `root` is where the
/// recipe's relative input paths resolve (for refused sources' files).
pub fn why(
    dir: &Path,
    id: Option<&str>,
    text: Option<&str>,
    root: &Path,
) -> Result<Vec<Lineage>, AuditError> {
    let m = Manifest::load(&dir.join("manifest.json"))?;
    let all_rows = rows(dir)?;
    let hits: Vec<Hit> = match (id, text) {
        (Some(i), _) => id_hits(dir, &m, i, root),
        (None, Some(t)) => {
            let cands = candidates(&all_rows, &dropped_texts(dir)?);
            text_hits(dir, &m, &cands, t, root)
        }
        (None, None) => Vec::new(),
    };
    let order: Vec<String> = m.stages.iter().map(|s| s.name.clone()).collect();
    let per_hit = decisions_on(dir, &hits)?;
    let (hits, per_hit) = found_first(hits, per_hit, &all_rows);
    let mut out = Vec::new();
    for (hit, mut ds) in hits.into_iter().zip(per_hit) {
        let id = hit.item;
        ds.sort_by_key(|d| {
            order
                .iter()
                .position(|s| d["stage"].as_str() == Some(s.as_str()))
                .unwrap_or(usize::MAX)
        });
        let row = all_rows
            .iter()
            .find(|(_, _, v)| row_id(v) == Some(id.as_str()));
        let own_drop = ds.iter().find(|d| {
            d["action"] == "drop"
                && d["item"]
                    .as_str()
                    .is_some_and(|x| x == id || id.starts_with(&format!("{x}-s")))
        });
        // A document's released sentences.
        let children: Vec<&(String, String, Value)> = all_rows
            .iter()
            .filter(|(_, _, v)| row_id(v).and_then(document_of) == Some(id.as_str()))
            .collect();
        let (ended, last) = ended_at(row, own_drop, &children, &order);
        let text = row
            .and_then(|(_, _, v)| TEXT_KEYS.iter().find_map(|k| v[*k].as_str()))
            .or_else(|| own_drop.and_then(|d| d["text"].as_str()))
            .map(String::from)
            .or_else(|| {
                (!children.is_empty()).then(|| {
                    children
                        .iter()
                        .filter_map(|(_, _, v)| v["text"].as_str())
                        .collect::<Vec<_>>()
                        .join(" ")
                })
            });
        let row_or_child = row.or(children.first().copied());
        let origin = hit
            .origin
            .or_else(|| row_or_child.and_then(|(_, _, v)| v["origin"].as_str().map(String::from)))
            .or_else(|| {
                ds.first()
                    .and_then(|d| d["origin"].as_str().map(String::from))
            });
        let source = row_or_child
            .and_then(|(_, _, v)| v["source"].as_str().map(String::from))
            .or_else(|| {
                ds.first()
                    .and_then(|d| d["source"].as_str().map(String::from))
            });
        out.push(Lineage {
            item: id,
            matched: hit.matched,
            text,
            origin,
            source,
            decisions: ds,
            ended,
            stages: order[..last.min(order.len())].to_vec(),
        });
    }
    Ok(out)
}

/// Where an item's lineage ended, and how many of the stages it went through: its released
/// row's split, its document's released sentences, the stage and rule that dropped it, or
/// nowhere in this release.
fn ended_at(
    row: Option<&(String, String, Value)>,
    own_drop: Option<&Value>,
    children: &[&(String, String, Value)],
    order: &[String],
) -> (String, usize) {
    match (row, own_drop) {
        (Some((task, split, _)), _) => (format!("{task}/{split}"), order.len()),
        (None, None) if !children.is_empty() => {
            let mut per: BTreeMap<String, usize> = BTreeMap::new();
            for (task, split, _) in children {
                *per.entry(format!("{task}/{split}")).or_default() += 1;
            }
            let per: Vec<String> = per.iter().map(|(k, n)| format!("{k} {n}")).collect();
            (
                format!(
                    "split into sentences, {} released: {}",
                    children.len(),
                    per.join(", ")
                ),
                order.len(),
            )
        }
        (None, Some(d)) => {
            let st = d["stage"].as_str().unwrap_or("?").to_string();
            let score = d["score"]
                .as_f64()
                .map(|x| format!(" (score {x})"))
                .unwrap_or_default();
            (
                format!(
                    "dropped at {st} by {}{score}",
                    d["rule"].as_str().unwrap_or("?")
                ),
                order
                    .iter()
                    .position(|s| *s == st)
                    .map_or(order.len(), |p| p + 1),
            )
        }
        (None, None) => ("not found in this release".to_string(), 0),
    }
}

/// The ids an id query is looked up under: the id as typed, then, when the recipe
/// pseudonymises PII and its key is at hand, the safe id the release holds it under (an id
/// whose own part is personal data is rewritten with a keyed pseudonym, as the runner does
/// with every decision and row; see `kcurate_pii::stage::Scrubber::safe_id`). The source an
/// id belongs to is not known from the id, so each source of the release is tried.
fn id_hits(dir: &Path, m: &Manifest, id: &str, root: &Path) -> Vec<Hit> {
    let mut hits = vec![Hit {
        item: id.to_string(),
        matched: "id".into(),
        origin: None,
    }];
    for item in renamed_file_ids(dir, m, id, root) {
        if hits.iter().all(|h| h.item != item) {
            hits.push(Hit {
                item,
                matched: "id, with its file under the name the release gives it".into(),
                origin: None,
            });
        }
    }
    let scrubber = match recipe_scrubber(dir, m, root) {
        Ok(Some(s)) => s,
        Ok(None) => return hits,
        // Said where the answer is shown: an id holding personal data is not found as typed.
        Err(e) => {
            hits[0].matched = format!("id (not looked up under its safe id: {e})");
            return hits;
        }
    };
    for s in &m.sources {
        let safe = scrubber.safe_id(&s.id, id);
        if hits.iter().all(|h| h.item != safe) {
            hits.push(Hit {
                item: safe,
                matched: "id, as the recipe's pii stage pseudonymised it".into(),
                origin: None,
            });
        }
    }
    hits
}

/// The release's recipe copy, parsed (`None` when it cannot be read).
fn recipe_copy(dir: &Path, m: &Manifest) -> Option<kcurate_core::recipe::Recipe> {
    let copy = kcurate_release::manifest::inside(dir, &m.recipe.copy)?;
    let text = std::fs::read_to_string(copy).ok()?;
    kcurate_core::recipe::Recipe::parse(&m.recipe.copy, &text).ok()
}

/// An id of a line a source's reader quarantined (`<source>@<file>:<line>`) typed with the
/// file's path as the recipe gives it, under the name the release gives that file instead
/// (`<source>/#<n>` for a name holding personal data, `<source>/<file>` for an absolute
/// path): found through the source's listing, so only where its files are at hand.
fn renamed_file_ids(dir: &Path, m: &Manifest, id: &str, root: &Path) -> Vec<String> {
    let Some((source, rest)) = id.split_once('@') else {
        return Vec::new();
    };
    let Some((file, line)) = rest.rsplit_once(':') else {
        return Vec::new();
    };
    let Some(recipe) = recipe_copy(dir, m) else {
        return Vec::new();
    };
    let Some(src) = recipe.sources.iter().find(|s| s.id == source) else {
        return Vec::new();
    };
    let typed = kcurate_core::recipe::Recipe::resolve(root, file);
    kcurate_io::ingest::list_files(src, root)
        .unwrap_or_default()
        .into_iter()
        .filter(|(name, path)| *path == typed && name != file)
        .map(|(name, _)| format!("{source}@{name}:{line}"))
        .collect()
}

/// The scrubber of the release's recipe copy when it runs the `pii` stage (`None` when it
/// does not, or the copy cannot be read); why its key cannot be read (`KCURATE_PII_KEY`, or
/// the stage's `key_env` / `key_file`) as the error.
fn recipe_scrubber(
    dir: &Path,
    m: &Manifest,
    root: &Path,
) -> Result<Option<kcurate_pii::stage::Scrubber>, String> {
    let Some(recipe) = recipe_copy(dir, m) else {
        return Ok(None);
    };
    kcurate_pii::stage::Scrubber::for_recipe(&recipe, root).map_err(|e| e.to_string())
}

/// Of the ids an id query was looked up under, those the release holds (a row or a
/// decision names them), with their decisions; the id as typed when none is held.
fn found_first(
    hits: Vec<Hit>,
    per_hit: Vec<Vec<Value>>,
    all_rows: &[(String, String, Value)],
) -> (Vec<Hit>, Vec<Vec<Value>>) {
    if hits.len() < 2 {
        return (hits, per_hit);
    }
    let held = |h: &Hit, ds: &Vec<Value>| {
        !ds.is_empty()
            || all_rows
                .iter()
                .any(|(_, _, v)| row_id(v).is_some_and(|r| related(r, &h.item)))
    };
    let (found, missing): (Vec<_>, Vec<_>) = hits
        .into_iter()
        .zip(per_hit)
        .partition(|(h, ds)| held(h, ds));
    let pick = if found.is_empty() {
        missing.into_iter().take(1).collect()
    } else {
        found
    };
    pick.into_iter().unzip()
}

/// Every decision related to each hit (see [`related`]), in file order, in one pass over
/// the release's decisions.
fn decisions_on(dir: &Path, hits: &[Hit]) -> Result<Vec<Vec<Value>>, AuditError> {
    let mut per_hit = vec![Vec::new(); hits.len()];
    for_each_decision(dir, |line| {
        let d = line.value()?;
        if let Some(x) = d["item"].as_str() {
            let at: Vec<usize> = (0..hits.len())
                .filter(|&i| related(x, &hits[i].item))
                .collect();
            if let Some((&last, rest)) = at.split_last() {
                for &i in rest {
                    per_hit[i].push(d.clone());
                }
                per_hit[last].push(d);
            }
        }
        Ok(ControlFlow::Continue(()))
    })?;
    Ok(per_hit)
}

/// (item, text) of every drop whose decision carries the text it removed, in file order:
/// the dropped texts a text query is matched against.
fn dropped_texts(dir: &Path) -> Result<Vec<(String, String)>, AuditError> {
    let mut out = Vec::new();
    for_each_decision(dir, |line| {
        let d = line.value()?;
        if let (Some(item), Some(t)) = (d["item"].as_str(), d["text"].as_str())
            && d["action"] == "drop"
        {
            out.push((item.to_string(), t.to_string()));
        }
        Ok(ControlFlow::Continue(()))
    })?;
    Ok(out)
}

/// The texts a query is matched against: every released row's text fields, every drop's
/// text, and each document split into sentences as its sentences joined.
fn candidates(
    all_rows: &[(String, String, Value)],
    dropped: &[(String, String)],
) -> Vec<Candidate> {
    let mut cands: Vec<Candidate> = Vec::new();
    for (_, _, v) in all_rows {
        if let Some(id) = row_id(v) {
            for k in TEXT_KEYS {
                if let Some(t) = v[k].as_str() {
                    cands.push(Candidate {
                        item: id.to_string(),
                        text: norm(t),
                        dropped: false,
                    });
                }
            }
        }
    }
    // A document split into sentences: its released and dropped sentences, in sentence
    // order, so a query quoting a whole review or article finds it.
    let mut docs: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for c in &cands {
        if let Some(doc) = document_of(&c.item) {
            docs.entry(doc.to_string())
                .or_default()
                .insert(c.item.clone(), c.text.clone());
        }
    }
    for (item, t) in dropped {
        if let Some(doc) = document_of(item) {
            docs.entry(doc.to_string())
                .or_default()
                .insert(item.to_string(), norm(t));
        }
        cands.push(Candidate {
            item: item.to_string(),
            text: norm(t),
            dropped: true,
        });
    }
    for (doc, sentences) in docs {
        if sentences.len() > 1 {
            cands.push(Candidate {
                item: doc,
                text: sentences.into_values().collect::<Vec<_>>().join(" "),
                dropped: false,
            });
        }
    }
    cands
}

/// The items whose text matches `query`, by the steps of the module documentation.
fn find_text(m: &Manifest, cands: &[Candidate], query: &str, root: &Path) -> Vec<Hit> {
    let q = norm(query);
    if q.is_empty() {
        return Vec::new();
    }
    let hits = |keep: &dyn Fn(&Candidate) -> bool, how: &str| -> Vec<Hit> {
        let mut seen = BTreeSet::new();
        cands
            .iter()
            .filter(|c| keep(c) && seen.insert(c.item.clone()))
            .map(|c| Hit {
                item: c.item.clone(),
                matched: how.to_string(),
                origin: None,
            })
            .collect()
    };
    let exact = hits(&|c| c.text == q, "text");
    if !exact.is_empty() {
        return exact;
    }
    let masked = hits(
        &|c| c.dropped && masked_match(&c.text, &q),
        "text (outside pseudonymised PII)",
    );
    if !masked.is_empty() {
        return masked;
    }
    let q_chars = q.chars().count();
    let mut inside = hits(
        &|c| c.dropped && q_chars >= 4 && c.text.contains(&q),
        "text inside a dropped item",
    );
    inside.extend(hits(
        &|c| !c.dropped && q_chars >= 4 && c.text.contains(&q),
        "text inside a released item",
    ));
    inside.extend(hits(
        &|c| {
            !c.dropped && {
                let n = c.text.chars().count();
                n >= 4 && 2 * n >= q_chars && q.contains(&c.text)
            }
        },
        "released text inside the query",
    ));
    if !inside.is_empty() {
        return inside;
    }
    let qb = bigrams(&q);
    let mut best: BTreeMap<String, f64> = BTreeMap::new();
    for c in cands {
        let s = dice(&qb, &bigrams(&c.text));
        if s >= SIMILAR {
            let e = best.entry(c.item.clone()).or_insert(0.0);
            *e = e.max(s);
        }
    }
    if !best.is_empty() {
        let mut v: Vec<(String, f64)> = best.into_iter().collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        v.truncate(MAX_SIMILAR);
        return v
            .into_iter()
            .map(|(item, s)| Hit {
                item,
                matched: format!("similar text ({:.2})", (s * 100.0).round() / 100.0),
                origin: None,
            })
            .collect();
    }
    refused_lines(m, &q, root)
}

/// The items a text query finds: by the steps of the module documentation, then by the
/// query as the recipe's pii stage would have released it (an original quoting a phone
/// number finds its sentence under the pseudonym), and when nothing matches, the nearest
/// released and the nearest dropped text, so the answer is never empty while the release
/// holds a text.
fn text_hits(dir: &Path, m: &Manifest, cands: &[Candidate], query: &str, root: &Path) -> Vec<Hit> {
    let hits = find_text(m, cands, query, root);
    if !hits.is_empty() {
        return hits;
    }
    let scrubber = recipe_scrubber(dir, m, root);
    if let Ok(Some(scrubber)) = &scrubber {
        let released = scrubber.pseudonymise_text(query);
        if released != query {
            let mut hits = find_text(m, cands, &released, root);
            for h in &mut hits {
                h.matched = format!("{}, as the recipe's pii stage pseudonymises it", h.matched);
            }
            if !hits.is_empty() {
                return hits;
            }
        }
    }
    let mut nearest = nearest::hits(cands, &norm(query));
    if let Err(e) = scrubber {
        for h in &mut nearest {
            h.matched = format!("{}; not looked up as pseudonymised: {e}", h.matched);
        }
    }
    nearest
}

/// The document a sentence id (`doc-s003`) descends from.
fn document_of(id: &str) -> Option<&str> {
    let (doc, n) = id.rsplit_once("-s")?;
    (!doc.is_empty() && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())).then_some(doc)
}

/// Does `query` read as `text` where `text` has keyed fingerprints (`⟨type:hex⟩`, put
/// there by the PII scrubber): the pieces between them appear in the query in order, the
/// first at its start and the last at its end, with something in each gap.
fn masked_match(text: &str, query: &str) -> bool {
    let mut pieces = Vec::new();
    let mut rest = text;
    while let Some(a) = rest.find('⟨') {
        let Some(len) = rest[a..].find('⟩') else {
            break;
        };
        let inner = &rest[a + '⟨'.len_utf8()..a + len];
        let is_fp = inner.split_once(':').is_some_and(|(k, h)| {
            !k.is_empty()
                && k.chars().all(|c| c.is_ascii_lowercase() || c == '_')
                && !h.is_empty()
                && h.chars().all(|c| c.is_ascii_hexdigit())
        });
        if !is_fp {
            break;
        }
        pieces.push(&rest[..a]);
        rest = &rest[a + len + '⟩'.len_utf8()..];
    }
    if pieces.is_empty() {
        return false;
    }
    pieces.push(rest);
    let (first, last) = (pieces[0], pieces[pieces.len() - 1]);
    let Some(mut q) = query.strip_prefix(first) else {
        return false;
    };
    for p in &pieces[1..pieces.len() - 1] {
        // The gap before the piece holds at least one character.
        let Some(skip) = q.chars().next().map(char::len_utf8) else {
            return false;
        };
        match q[skip..].find(p) {
            Some(j) => q = &q[skip + j + p.len()..],
            None => return false,
        }
    }
    q.chars().count() > last.chars().count() && q.ends_with(last)
}

/// Lines of a refused source's input files that contain the query: the item is the source
/// (the licence decision's item), the origin the file and line.
fn refused_lines(m: &Manifest, q: &str, root: &Path) -> Vec<Hit> {
    let refused: BTreeSet<&str> = m
        .sources
        .iter()
        .filter(|s| s.status.starts_with("refused"))
        .map(|s| s.id.as_str())
        .collect();
    let mut out = Vec::new();
    for input in m
        .inputs
        .iter()
        .filter(|i| refused.contains(i.source.as_str()))
    {
        let p = kcurate_core::recipe::Recipe::resolve(root, &input.path);
        let Ok(bytes) = kcurate_core::bounded::open_sized(
            &p,
            None,
            kcurate_core::bounded::Size::Recorded(input.size),
        )
        .and_then(|mut f| {
            let mut b = Vec::new();
            std::io::Read::read_to_end(&mut f, &mut b).map(|_| b)
        }) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        for (n, line) in text.lines().enumerate() {
            if norm(line).contains(q) {
                out.push(Hit {
                    item: input.source.clone(),
                    matched: "input line of a refused source".into(),
                    origin: Some(format!("{}:{}", input.path, n + 1)),
                });
            }
        }
    }
    out
}

/// The lineage as text for a terminal.
pub fn render(l: &Lineage) -> String {
    let mut s = format!("item    {}\n", l.item);
    if l.matched != "id" {
        s.push_str(&format!("matched {}\n", l.matched));
    }
    if let Some(t) = &l.text {
        s.push_str(&format!("text    {t:?}\n"));
    }
    s.push_str(&format!(
        "source  {}\norigin  {}\nstages  {}\n",
        l.source.as_deref().unwrap_or("?"),
        l.origin.as_deref().unwrap_or("?"),
        l.stages.join(" → ")
    ));
    for d in &l.decisions {
        let span = d
            .get("span")
            .filter(|v| v.is_object())
            .map(|sp| {
                format!(
                    " [{}..{}] {:?} → {:?}",
                    sp["start"],
                    sp["end"],
                    sp["before"].as_str().unwrap_or(""),
                    sp["after"].as_str().unwrap_or("")
                )
            })
            .unwrap_or_default();
        let score = d
            .get("score")
            .and_then(Value::as_f64)
            .map(|x| format!(" score {x}"))
            .unwrap_or_default();
        s.push_str(&format!(
            "  {:<9} {:<5} {:<28} {}{span}{score}\n",
            d["stage"].as_str().unwrap_or(""),
            d["action"].as_str().unwrap_or(""),
            d["rule"].as_str().unwrap_or(""),
            d["detail"].as_str().unwrap_or("")
        ));
        if let Some(t) = d["text"].as_str()
            && d["item"].as_str() != Some(l.item.as_str())
        {
            // A drop of the item's document (or a sentence of it): what it removed.
            s.push_str(&format!("            removed {t:?}\n"));
        }
    }
    s.push_str(&format!("ended   {}\n", l.ended));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dice_is_one_for_the_same_text_and_low_for_unrelated_ones() {
        let a = bigrams("영화가 정말 재미있었다");
        assert_eq!(dice(&a, &a), 1.0);
        assert!(dice(&a, &bigrams("영화가 정말 재미있었다 #추천")) > SIMILAR);
        assert!(dice(&a, &bigrams("내일 서울은 비가 온다")) < 0.2);
        assert_eq!(dice(&a, &[]), 0.0);
    }

    #[test]
    fn a_query_matches_a_scrubbed_text_outside_its_fingerprints() {
        let t = "행사 안내는 ⟨url:e7151922a3025a4d⟩ 에서 확인할 수 있다.";
        assert!(masked_match(
            t,
            "행사 안내는 https://www.example.go.kr 에서 확인할 수 있다."
        ));
        assert!(!masked_match(t, "행사 안내는  에서 확인할 수 있다."));
        assert!(!masked_match(
            t,
            "공연 안내는 https://x.kr 에서 확인할 수 있다."
        ));
        let two = "⟨phone:ab12⟩ 또는 ⟨email:cd34⟩로 문의";
        assert!(masked_match(two, "010-1234-5678 또는 a@b.kr로 문의"));
        assert!(!masked_match(two, "010-1234-5678 a@b.kr로 문의"));
        assert!(!masked_match("그냥 문장", "그냥 문장"));
    }

    #[test]
    fn a_sentence_id_names_its_document() {
        assert_eq!(document_of("nsmc-10050751-s003"), Some("nsmc-10050751"));
        assert_eq!(document_of("news-n000"), None);
        assert_eq!(document_of("a-sx1"), None);
    }

    #[test]
    fn norm_collapses_spaces() {
        assert_eq!(norm("  a \t b\n c "), "a b c");
    }
}
