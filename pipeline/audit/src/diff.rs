//! `diff`: what changed between two releases and why: recipe keys, items added, removed or
//! changed per split, each with the decision (or missing decision) that explains it.

use crate::{AuditError, for_each_decision, related, row_id, rows};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::ControlFlow;
use std::path::Path;

/// An item added, removed or changed between two releases.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    /// The item's id.
    pub item: String,
    /// `added`, `removed` or `changed`.
    pub kind: String,
    /// Its `task/split` in the first release, if there.
    pub split_a: Option<String>,
    /// Its `task/split` in the second release, if there.
    pub split_b: Option<String>,
    /// Rules on the item (or its document) in one release and not the other.
    pub explained_by: Vec<String>,
}

/// What changed between two releases.
#[derive(Debug, Clone, Serialize)]
pub struct Diff {
    /// `key: a → b` for every recipe key that differs (stages keyed by name).
    pub recipe: Vec<String>,
    /// Every item added, removed or changed, in id order.
    pub changes: Vec<Change>,
}

fn flatten(prefix: &str, v: &toml::Value, out: &mut BTreeMap<String, String>) {
    match v {
        toml::Value::Table(t) => {
            for (k, x) in t {
                flatten(
                    &format!("{prefix}{}{k}", if prefix.is_empty() { "" } else { "." }),
                    x,
                    out,
                );
            }
        }
        // An array of tables each with a `name` (stages), else each with an `id` (sources):
        // keyed by it, so a moved element is not a change.
        toml::Value::Array(a)
            if let Some(key) = ["name", "id"].into_iter().find(|k| {
                !a.is_empty()
                    && a.iter()
                        .all(|x| x.get(k).and_then(|n| n.as_str()).is_some())
            }) =>
        {
            for x in a {
                let name = x.get(key).and_then(|n| n.as_str()).unwrap_or_default();
                flatten(&format!("{prefix}[{name}]"), x, out);
            }
        }
        other => {
            out.insert(prefix.to_string(), other.to_string());
        }
    }
}

fn recipe_keys(dir: &Path) -> Result<BTreeMap<String, String>, AuditError> {
    let p = dir.join("recipe.toml");
    let text = crate::release_files(dir)?
        .read_to_string(&p)
        .map_err(|e| AuditError::Io {
            path: p.display().to_string(),
            source: e,
        })?;
    let v: toml::Value = toml::from_str(&text).map_err(|e| AuditError::Parse {
        path: p.display().to_string(),
        line: 0,
        message: e.to_string(),
    })?;
    let mut out = BTreeMap::new();
    flatten("", &v, &mut out);
    Ok(out)
}

/// The changed items `ids` a decision on `item` is related to (see [`related`]): the item
/// itself, its document (`item` is `<id>-s…`) or its sentences (`<item>-s…`).
fn related_ids<'a>(ids: &'a BTreeSet<String>, item: &'a str) -> impl Iterator<Item = &'a String> {
    let own = ids.get(item);
    let sentences = ids
        .range::<str, _>((
            std::ops::Bound::Included(format!("{item}-s").as_str()),
            std::ops::Bound::Unbounded,
        ))
        .take_while(move |id| id.starts_with(item))
        .filter(move |id| related(item, id));
    let documents = item
        .match_indices("-s")
        .filter_map(move |(i, _)| ids.get(&item[..i]));
    own.into_iter().chain(sentences).chain(documents)
}

/// (rule, action) of every decision of release `dir` related to one of `ids`, per id, in
/// one pass over its decisions.
fn rules_for(
    dir: &Path,
    ids: &BTreeSet<String>,
) -> Result<BTreeMap<String, BTreeSet<String>>, AuditError> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for_each_decision(dir, |line| {
        let d = line.value()?;
        if let Some(item) = d["item"].as_str() {
            for id in related_ids(ids, item) {
                out.entry(id.clone()).or_default().insert(format!(
                    "{} ({})",
                    d["rule"].as_str().unwrap_or(""),
                    d["action"].as_str().unwrap_or("")
                ));
            }
        }
        Ok(ControlFlow::Continue(()))
    })?;
    Ok(out)
}

/// Compares releases `a` and `b`: recipe keys, then items, each explained by decisions.
pub fn diff(a: &Path, b: &Path) -> Result<Diff, AuditError> {
    let (ka, kb) = (recipe_keys(a)?, recipe_keys(b)?);
    let mut recipe = Vec::new();
    for k in ka.keys().chain(kb.keys()).collect::<BTreeSet<_>>() {
        let (x, y) = (ka.get(k), kb.get(k));
        if x != y {
            recipe.push(format!(
                "{k}: {} → {}",
                x.map_or("(absent)", String::as_str),
                y.map_or("(absent)", String::as_str)
            ));
        }
    }
    let index = |dir: &Path| -> Result<BTreeMap<String, (String, String)>, AuditError> {
        Ok(rows(dir)?
            .into_iter()
            .filter_map(|(task, split, v)| {
                row_id(&v).map(|id| (id.to_string(), (format!("{task}/{split}"), v.to_string())))
            })
            .collect())
    };
    let (ra, rb) = (index(a)?, index(b)?);
    let changed: BTreeSet<String> = ra
        .keys()
        .chain(rb.keys())
        .filter(|id| ra.get(*id) != rb.get(*id))
        .cloned()
        .collect();
    let (da, db) = (rules_for(a, &changed)?, rules_for(b, &changed)?);
    let none = BTreeSet::new();
    let mut changes = Vec::new();
    for id in &changed {
        let (x, y) = (ra.get(id), rb.get(id));
        let kind = match (x, y) {
            (Some(_), None) => "removed",
            (None, Some(_)) => "added",
            _ => "changed",
        };
        let (sa, sb) = (da.get(id).unwrap_or(&none), db.get(id).unwrap_or(&none));
        let explained_by: Vec<String> = sa
            .symmetric_difference(sb)
            .map(|r| {
                if sa.contains(r) {
                    format!("A: {r}")
                } else {
                    format!("B: {r}")
                }
            })
            .collect();
        changes.push(Change {
            item: id.clone(),
            kind: kind.into(),
            split_a: x.map(|p| p.0.clone()),
            split_b: y.map(|q| q.0.clone()),
            explained_by,
        });
    }
    Ok(Diff { recipe, changes })
}

/// The diff as text for a terminal.
pub fn render(d: &Diff) -> String {
    let mut s = String::from("recipe:\n");
    if d.recipe.is_empty() {
        s.push_str("  (identical)\n");
    }
    for r in &d.recipe {
        s.push_str(&format!("  {r}\n"));
    }
    let count = |k: &str| d.changes.iter().filter(|c| c.kind == k).count();
    s.push_str(&format!(
        "items: {} added, {} removed, {} changed\n",
        count("added"),
        count("removed"),
        count("changed")
    ));
    for c in &d.changes {
        s.push_str(&format!(
            "  {:<8} {:<28} {} → {}  {}\n",
            c.kind,
            c.item,
            c.split_a.as_deref().unwrap_or("-"),
            c.split_b.as_deref().unwrap_or("-"),
            if c.explained_by.is_empty() {
                "(no decision differs: an input or upstream change)".to_string()
            } else {
                c.explained_by.join("; ")
            }
        ));
    }
    s
}
