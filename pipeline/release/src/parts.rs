//! The parts an engine (Spark, a shell loop) leaves after running the leading per-record
//! stages on partitions of `kcurate ingest`'s output, read back for `kcurate finalise`.
//!
//! A part is the stdout of `kcurate stage --before-corpus --decisions -`: output records,
//! tagged decisions `{"decision":{...}}` and, last, one `{"stats":[...]}` line with the
//! books of the stages it ran. Parts and their lines may arrive in any order: records and
//! decisions are put back in input order ([`InputOrder`]: the recipe's source order, the
//! source's file order, the line), so the release does not depend on how the engine cut or
//! gathered the partitions. The lines one input record produced stay together in the order
//! `stage` wrote them (one process writes them one after the other), and a stable sort
//! keeps them so.

use kcurate_core::ingest::list_files;
use kcurate_core::recipe::Recipe;
use kcurate_core::{Decision, Record, StageStats};
use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};

/// A part or decisions file that cannot be used: the file, the line and what is wrong.
#[derive(Debug, thiserror::Error)]
#[error("{path}:{line}: {message}")]
pub struct PartsError {
    /// The part or decisions file.
    pub path: String,
    /// 1-based line in it (0: the file as a whole).
    pub line: u64,
    /// What is wrong with the line.
    pub message: String,
}

/// What the leading per-record stages produced, gathered from every part, in input order.
#[derive(Debug, Default)]
pub struct Staged {
    /// Output records of the leading stages, in input order.
    pub records: Vec<Record>,
    /// Decisions of ingest (quarantined lines) and of the leading stages, in input order,
    /// already scrubbed by the process that wrote them.
    pub decisions: Vec<Decision>,
    /// The ingest stage's books (records that entered the chain, quarantined lines).
    pub ingest: StageStats,
    /// Each leading stage's name and books, summed over the parts.
    pub stages: Vec<(String, StageStats)>,
}

/// Input order as a function of where an item came from: (source index in the recipe, file
/// index in the source's listing, line). Independent of arrival order.
pub struct InputOrder {
    sources: BTreeMap<String, usize>,
    files: BTreeMap<(usize, String), usize>,
}

type Key = (usize, usize, u64);

impl InputOrder {
    /// The order of the recipe's inputs: each source's files as its reader lists them under
    /// `root`, so parts can be put back by (source index, file index, line).
    pub fn new(recipe: &Recipe, root: &Path) -> Self {
        let mut sources = BTreeMap::new();
        let mut files = BTreeMap::new();
        for (i, s) in recipe.sources.iter().enumerate() {
            sources.insert(s.id.clone(), i);
            let listed = list_files(s, root).unwrap_or_default();
            for (j, (name, _)) in listed.into_iter().enumerate() {
                // The release name records and decisions carry.
                files.insert((i, name), j);
            }
        }
        InputOrder { sources, files }
    }

    fn key(&self, source: &str, file: &str, line: u64) -> Option<Key> {
        let s = *self.sources.get(source)?;
        let f = *self.files.get(&(s, file.to_string()))?;
        Some((s, f, line))
    }

    /// A record's place in input order, (source index, file index, line); `None` when it
    /// is from no input of the recipe.
    pub fn record_key(&self, r: &Record) -> Option<(usize, usize, u64)> {
        self.key(&r.source, &r.origin.file, r.origin.line)
    }

    fn decision_key(&self, d: &Decision) -> Option<Key> {
        let (file, line) = d.origin.rsplit_once(':')?;
        self.key(&d.source, file, line.parse().ok()?)
    }
}

#[derive(serde::Deserialize)]
struct TaggedDecision {
    decision: Decision,
}

#[derive(serde::Deserialize)]
struct TaggedStats {
    stats: Vec<NamedStats>,
}

/// One stage's books as a part's stats line carries them.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct NamedStats {
    /// The stage name as the recipe spells it.
    pub name: String,
    /// Its items in, out and dropped over the part.
    pub stats: StageStats,
}

/// The regular files of `path` (itself when a file), sorted by name; names starting with
/// `_` or `.` (an engine's `_SUCCESS` and checksum files) are left out.
fn files_of(path: &Path) -> Result<Vec<PathBuf>, PartsError> {
    let err = |e: std::io::Error| PartsError {
        path: path.display().to_string(),
        line: 0,
        message: e.to_string(),
    };
    if path.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut out = Vec::new();
    for e in std::fs::read_dir(path).map_err(err)? {
        let e = e.map_err(err)?;
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('_') || name.starts_with('.') || !e.path().is_file() {
            continue;
        }
        out.push(e.path());
    }
    out.sort();
    Ok(out)
}

fn lines_of(
    path: &Path,
    mut each: impl FnMut(u64, &str) -> Result<(), String>,
) -> Result<(), PartsError> {
    let shown = path.display().to_string();
    let f = std::fs::File::open(path).map_err(|e| PartsError {
        path: shown.clone(),
        line: 0,
        message: e.to_string(),
    })?;
    for (n, line) in std::io::BufReader::new(f).lines().enumerate() {
        let at = n as u64 + 1;
        let line = line.map_err(|e| PartsError {
            path: shown.clone(),
            line: at,
            message: e.to_string(),
        })?;
        if line.trim().is_empty() {
            continue;
        }
        each(at, &line).map_err(|message| PartsError {
            path: shown.clone(),
            line: at,
            message,
        })?;
    }
    Ok(())
}

/// Reads the parts (a directory of part files, or one file) and the decisions files of
/// ingest (`ingest.malformed`, `ingest.duplicate_id`; `license` decisions are left out: the
/// licence gate runs again in `finalise`), and puts everything in input order.
pub fn read_staged(
    parts: &Path,
    decisions: &[PathBuf],
    order: &InputOrder,
) -> Result<Staged, PartsError> {
    let mut g = Gathered::default();
    for path in decisions
        .iter()
        .map(|p| files_of(p))
        .collect::<Result<Vec<_>, _>>()?
        .concat()
    {
        g.read_ingest_decisions(&path, order)?;
    }
    for path in files_of(parts)? {
        let part_stats = g.read_part(&path, order)?;
        g.add_part_stats(&path, &part_stats)?;
    }
    Ok(g.into_staged())
}

/// What [`read_staged`] has read so far, each item with its place in input order.
#[derive(Default)]
struct Gathered {
    records: Vec<(Key, Record)>,
    decided: Vec<(Key, Decision)>,
    ingest: StageStats,
    /// Each leading stage's books summed over the parts read (`None` before the first).
    stages: Option<Vec<(String, StageStats)>>,
    seen_records: u64,
}

/// The message for an item whose source or file is not an input of the recipe.
fn not_an_input(what: &str, source: &str, origin: &str) -> String {
    format!(
        "{what} from source {source:?} at {origin}: not an input of the recipe (a part of another recipe, or its sources changed since ingest)"
    )
}

impl Gathered {
    /// One decisions file of ingest: its `ingest` decisions counted in ingest's books.
    fn read_ingest_decisions(&mut self, path: &Path, order: &InputOrder) -> Result<(), PartsError> {
        lines_of(path, |_, line| {
            let d: Decision = match serde_json::from_str::<TaggedDecision>(line) {
                Ok(t) => t.decision,
                Err(_) => serde_json::from_str(line).map_err(|e| format!("not a decision: {e}"))?,
            };
            match d.stage.as_str() {
                "license" => return Ok(()),
                "ingest" => {}
                other => {
                    return Err(format!(
                        "a decision of stage {other:?}: the decisions files hold ingest's (stage decisions come in the parts)"
                    ));
                }
            }
            let key = order
                .decision_key(&d)
                .ok_or_else(|| not_an_input("decision", &d.source, &d.origin))?;
            self.ingest.items_in += 1;
            self.ingest.dropped += 1;
            self.ingest.count(&d);
            self.decided.push((key, d));
            Ok(())
        })
    }

    /// One part: its records and tagged decisions, and the stats line it must end with.
    fn read_part(
        &mut self,
        path: &Path,
        order: &InputOrder,
    ) -> Result<Vec<NamedStats>, PartsError> {
        let mut part_stats = None;
        lines_of(path, |_, line| {
            if part_stats.is_some() {
                return Err("a line after the part's stats line (the last line a part has)".into());
            }
            if line.starts_with("{\"decision\":") {
                let d = serde_json::from_str::<TaggedDecision>(line)
                    .map_err(|e| format!("not a tagged decision: {e}"))?
                    .decision;
                let key = order
                    .decision_key(&d)
                    .ok_or_else(|| not_an_input("decision", &d.source, &d.origin))?;
                self.decided.push((key, d));
            } else if line.starts_with("{\"dedup\":") {
                // A record's dedup keys (`stage --dedup-keys`), for an engine's shuffle.
            } else if line.starts_with("{\"stats\":") {
                let s = serde_json::from_str::<TaggedStats>(line)
                    .map_err(|e| format!("not a stats line: {e}"))?;
                part_stats = Some(s.stats);
            } else {
                let r: Record =
                    serde_json::from_str(line).map_err(|e| format!("not a record: {e}"))?;
                let key = order
                    .record_key(&r)
                    .ok_or_else(|| not_an_input("record", &r.source, &r.origin.to_string()))?;
                self.seen_records += 1;
                self.records.push((key, r));
            }
            Ok(())
        })?;
        part_stats.ok_or_else(|| PartsError {
            path: path.display().to_string(),
            line: 0,
            message: "no stats line: a part is the stdout of `kcurate stage --before-corpus --decisions -`, which ends with one (was the part cut short?)".into(),
        })
    }

    /// Adds a part's books to the sum; every part must have run the same stages.
    fn add_part_stats(&mut self, path: &Path, part_stats: &[NamedStats]) -> Result<(), PartsError> {
        let sum = self.stages.get_or_insert_with(|| {
            part_stats
                .iter()
                .map(|n| (n.name.clone(), StageStats::default()))
                .collect()
        });
        let names: Vec<&str> = part_stats.iter().map(|n| n.name.as_str()).collect();
        let want: Vec<&str> = sum.iter().map(|(n, _)| n.as_str()).collect();
        if names != want {
            return Err(PartsError {
                path: path.display().to_string(),
                line: 0,
                message: format!(
                    "ran the stages [{}], another part ran [{}]",
                    names.join(", "),
                    want.join(", ")
                ),
            });
        }
        for (s, n) in sum.iter_mut().zip(part_stats) {
            s.1 += &n.stats;
        }
        Ok(())
    }

    /// Everything in input order, with ingest's books completed.
    fn into_staged(self) -> Staged {
        let Gathered {
            mut records,
            mut decided,
            mut ingest,
            stages,
            seen_records,
        } = self;
        let stages = stages.unwrap_or_default();
        // The records that entered the chain: the first stage's input, or (no stage ran) the
        // records themselves.
        let entered = stages.first().map_or(seen_records, |(_, s)| s.items_in);
        ingest.items_in += entered;
        ingest.items_out += entered;
        // Stable: the lines of one input record keep the order they were written in.
        records.sort_by_key(|a| a.0);
        decided.sort_by_key(|a| a.0);
        Staged {
            records: records.into_iter().map(|(_, r)| r).collect(),
            decisions: decided.into_iter().map(|(_, d)| d).collect(),
            ingest,
            stages,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recipe(dir: &Path) -> Recipe {
        std::fs::create_dir_all(dir.join("b")).unwrap();
        std::fs::write(dir.join("a.jsonl"), "{}\n").unwrap();
        std::fs::write(dir.join("b/1.jsonl"), "{}\n").unwrap();
        std::fs::write(dir.join("b/2.jsonl"), "{}\n").unwrap();
        // Two JSONL sources of news in CC0: a file and a directory.
        let source = |id: &str, path: &str| {
            format!(
                "[[source]]\nid = {id:?}\npath = {path:?}\nformat = \"jsonl\"\n\
                 license = \"CC0-1.0\"\ndomain = \"news\"\nstyle = \"formal\"\n\
                 [source.fields]\ntext = \"text\"\n"
            )
        };
        let text = format!(
            "name = \"t\"\nversion = \"1\"\nseed = 1\n{}{}",
            source("a", "a.jsonl"),
            source("b", "b")
        );
        Recipe::parse("t.toml", &text).unwrap()
    }

    fn rec(id: &str, source: &str, file: &str, line: u64) -> String {
        let r = Record {
            id: id.into(),
            source: source.into(),
            origin: kcurate_core::record::Origin {
                file: file.into(),
                line,
            },
            text: id.into(),
            ..Default::default()
        };
        serde_json::to_string(&r).unwrap()
    }

    const STATS: &str = r#"{"stats":[{"name":"normalize","stats":{"items_in":2,"items_out":2,"dropped":0,"rules":{}}}]}"#;

    #[test]
    fn parts_in_any_order_come_back_in_input_order() {
        let dir = tempfile::tempdir().unwrap();
        let r = recipe(dir.path());
        let order = InputOrder::new(&r, dir.path());
        let parts = dir.path().join("parts");
        std::fs::create_dir(&parts).unwrap();
        // Source b's second file, then its first, then source a: the reverse of input order.
        let p0 = format!(
            "{}\n{}\n{STATS}\n",
            rec("b2-x", "b", "b/2.jsonl", 1),
            rec("b1-y", "b", "b/1.jsonl", 3)
        );
        let p1 = format!(
            "{}\n{}\n{STATS}\n",
            rec("a-2", "a", "a.jsonl", 2),
            rec("a-1", "a", "a.jsonl", 1)
        );
        std::fs::write(parts.join("part-0"), p0).unwrap();
        std::fs::write(parts.join("part-1"), p1).unwrap();
        std::fs::write(parts.join("_SUCCESS"), "").unwrap();
        let s = read_staged(&parts, &[], &order).unwrap();
        let ids: Vec<&str> = s.records.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["a-1", "a-2", "b1-y", "b2-x"]);
        assert_eq!(s.stages[0].1.items_in, 4, "books add up over parts");
        assert_eq!(s.ingest.items_out, 4);
    }

    #[test]
    fn a_source_with_an_absolute_path_is_ordered_by_the_names_records_carry() {
        let dir = tempfile::tempdir().unwrap();
        let mut r = recipe(dir.path());
        r.sources[1].path = dir.path().join("b").display().to_string();
        let order = InputOrder::new(&r, Path::new("/nonexistent"));
        let part = dir.path().join("part-0");
        let p = format!(
            "{}\n{}\n{STATS}\n",
            rec("b2", "b", "b/2.jsonl", 1),
            rec("b1", "b", "b/1.jsonl", 1)
        );
        std::fs::write(&part, p).unwrap();
        let s = read_staged(&part, &[], &order).unwrap();
        let ids: Vec<&str> = s.records.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["b1", "b2"]);
    }

    #[test]
    fn a_part_without_its_stats_line_is_refused_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let r = recipe(dir.path());
        let order = InputOrder::new(&r, dir.path());
        let part = dir.path().join("part-0");
        std::fs::write(&part, format!("{}\n", rec("a-1", "a", "a.jsonl", 1))).unwrap();
        let e = read_staged(&part, &[], &order).unwrap_err().to_string();
        assert!(e.contains("part-0:0: no stats line"), "{e}");
    }

    #[test]
    fn a_record_of_another_corpus_is_refused_with_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let r = recipe(dir.path());
        let order = InputOrder::new(&r, dir.path());
        let part = dir.path().join("part-0");
        let line = rec("z-1", "z", "z.jsonl", 1);
        std::fs::write(&part, format!("{line}\n{STATS}\n")).unwrap();
        let e = read_staged(&part, &[], &order).unwrap_err().to_string();
        assert!(e.contains("part-0:1: record from source \"z\""), "{e}");
    }
}
