//! A challenge recipe with its parent filled in, derived from the parsed recipe: `release:`
//! paths (a source's `path`, any stage setting) become files of the parent release and a
//! source's `license = "inherit"` the parent's licence. The recipe is edited as a TOML
//! document, so a key spelled another valid way (`"license" = "inherit"`) means what it
//! means, and everything else (comments, layout) stays as written: the derived text is the
//! recipe copy the release keeps.

use anyhow::bail;
use kcurate_core::recipe::{Recipe, table_line};
use kcurate_release::manifest::Manifest;
use std::collections::BTreeMap;
use std::path::{Component, Path};
use toml_edit::{DocumentMut, Item, TableLike, Value};

/// The parent a challenge recipe is derived from.
pub struct Parent<'a> {
    /// The release directory as the derived recipe names it (see `challenge::release_from`).
    pub named: &'a Path,
    /// The release directory as given (where its files are looked for).
    pub dir: &'a Path,
    /// Its manifest.
    pub manifest: &'a Manifest,
}

/// The derived recipe's text. A `release:` path that leaves the parent release (`..`, an
/// absolute path, a symlink pointing out of it) is refused, naming the recipe line.
pub fn derive(raw: &str, shown: &str, parent: &Parent) -> anyhow::Result<String> {
    let mut doc: DocumentMut = match raw.parse() {
        Ok(d) => d,
        Err(e) => {
            // The recipe reader's message names the line.
            Recipe::parse(shown, raw)?;
            bail!("{shown}: {e}");
        }
    };
    let at = |table: &str, i: usize| format!("{shown}:{}", table_line(raw, table, i));
    for_each_table(doc.get_mut("source"), |i, table| {
        if let Some(v) = table.get_mut("path").and_then(Item::as_value_mut) {
            let what = format!("{}: source[{i}].path", at("source", i));
            derive_value(v, &what, parent)?;
        }
        if let Some(v) = table.get_mut("license").and_then(Item::as_value_mut)
            && v.as_str() == Some("inherit")
        {
            set_str(v, parent.manifest.license.clone());
        }
        Ok(())
    })?;
    for_each_table(doc.get_mut("stage"), |i, table| {
        let what = format!("{}: stage[{i}]", at("stage", i));
        for (_, x) in table.iter_mut() {
            derive_item(x, &what, parent)?;
        }
        Ok(())
    })?;
    Ok(doc.to_string())
}

/// `f` on each table of an array of tables (`[[source]]`) or of an array of inline tables.
fn for_each_table(
    item: Option<&mut Item>,
    mut f: impl FnMut(usize, &mut dyn TableLike) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    match item {
        Some(Item::ArrayOfTables(a)) => {
            for (i, t) in a.iter_mut().enumerate() {
                f(i, t)?;
            }
        }
        Some(Item::Value(Value::Array(a))) => {
            for (i, v) in a.iter_mut().enumerate() {
                if let Some(t) = v.as_inline_table_mut() {
                    f(i, t)?;
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// Every string of a stage's settings (arrays and tables walked).
fn derive_item(item: &mut Item, what: &str, parent: &Parent) -> anyhow::Result<()> {
    match item {
        Item::Value(v) => derive_value(v, what, parent),
        Item::Table(t) => {
            for (_, x) in t.iter_mut() {
                derive_item(x, what, parent)?;
            }
            Ok(())
        }
        Item::ArrayOfTables(a) => {
            for t in a.iter_mut() {
                for (_, x) in t.iter_mut() {
                    derive_item(x, what, parent)?;
                }
            }
            Ok(())
        }
        Item::None => Ok(()),
    }
}

fn derive_value(v: &mut Value, what: &str, parent: &Parent) -> anyhow::Result<()> {
    match v {
        Value::String(s) => {
            if let Some(rest) = s.value().strip_prefix("release:") {
                let path = release_file(rest, what, parent)?;
                set_str(v, path);
            }
            Ok(())
        }
        Value::Array(a) => a.iter_mut().try_for_each(|x| derive_value(x, what, parent)),
        Value::InlineTable(t) => t
            .iter_mut()
            .try_for_each(|(_, x)| derive_value(x, what, parent)),
        _ => Ok(()),
    }
}

/// Replaces a string value, keeping the spaces and comments around it.
fn set_str(v: &mut Value, s: String) {
    let decor = v.decor().clone();
    *v = Value::from(s);
    *v.decor_mut() = decor;
}

/// `release:<rest>` as a path of the parent release: `rest` must stay inside it. A split
/// file named by its role or its default name (`sentences/dev.jsonl` or
/// `.../validation.jsonl`) becomes the file the parent released that split as.
fn release_file(rest: &str, what: &str, parent: &Parent) -> anyhow::Result<String> {
    let inside = !rest.is_empty()
        && Path::new(rest)
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    let escapes = || {
        anyhow::anyhow!(
            "{what}: \"release:{rest}\" leaves the parent release {}: a release: path names a file inside it (no \"..\", no absolute path, no link out of it)",
            parent.dir.display()
        )
    };
    if !inside {
        return Err(escapes());
    }
    let rest = split_file(rest, parent.manifest);
    // A symbolic link inside the release may still point out of it.
    if let (Ok(dir), Ok(file)) = (
        parent.dir.canonicalize(),
        parent.dir.join(&rest).canonicalize(),
    ) && !file.starts_with(&dir)
    {
        return Err(escapes());
    }
    let dir = parent.named.display().to_string();
    let dir = if dir.is_empty() { ".".to_string() } else { dir };
    Ok(format!("{}/{rest}", dir.trim_end_matches('/')))
}

/// `<task>/<split>.jsonl` with the split named by its role or its default name, as the
/// parent released it (its manifest's `split_names`; empty: the names were the roles).
fn split_file(rest: &str, parent: &Manifest) -> String {
    split_file_named(rest, &parent.splits, &parent.split_names)
}

fn split_file_named<T>(
    rest: &str,
    tasks: &BTreeMap<String, T>,
    names: &BTreeMap<String, String>,
) -> String {
    let Some((task, file)) = rest.split_once('/') else {
        return rest.to_string();
    };
    let role = match file {
        "train.jsonl" => "train",
        "dev.jsonl" | "validation.jsonl" => "dev",
        "test.jsonl" => "test",
        _ => return rest.to_string(),
    };
    if !tasks.contains_key(task) {
        return rest.to_string();
    }
    let name = names.get(role).map(String::as_str).unwrap_or(role);
    format!("{task}/{name}.jsonl")
}

#[cfg(test)]
mod tests {
    use super::split_file_named;
    use std::collections::BTreeMap;

    #[test]
    fn split_files_of_the_parent_follow_its_split_names() {
        let tasks: BTreeMap<String, ()> = [("sentences".to_string(), ())].into();
        let legacy = BTreeMap::new();
        assert_eq!(
            split_file_named("sentences/validation.jsonl", &tasks, &legacy),
            "sentences/dev.jsonl"
        );
        let names: BTreeMap<String, String> = [("train", "train"), ("dev", "validation")]
            .map(|(r, n)| (r.to_string(), n.to_string()))
            .into();
        for written in ["dev", "validation"] {
            assert_eq!(
                split_file_named(&format!("sentences/{written}.jsonl"), &tasks, &names),
                "sentences/validation.jsonl"
            );
        }
        assert_eq!(
            split_file_named("sentences/train.jsonl", &tasks, &names),
            "sentences/train.jsonl"
        );
        // Only the parent's task directories are files of its splits.
        assert_eq!(
            split_file_named("other/dev.jsonl", &tasks, &names),
            "other/dev.jsonl"
        );
        assert_eq!(split_file_named("sentences", &tasks, &names), "sentences");
    }
}
