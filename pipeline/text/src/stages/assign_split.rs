//! Stage `assign_split` (corpus): gives every record its split and fixes contamination.
//! Records a task stage already placed keep their split; the rest get the recipe's seeded
//! hash split. Then every dev/test text found in train, exactly or nearly (the dedup
//! crate's [`contamination`] check), is moved to train or dropped, each with a decision
//! naming its train twin: a release never leaks evaluation text into training silently.

use crate::dedup::{Deduper, NearConfig, TextKeys, Verdict, contamination};
use kcurate_core::recipe::SplitConfig;
use kcurate_core::{
    BuildCtx, BuildError, BuiltStage, CorpusStage, KeyedStage, Out, Record, RuleId, StageEntry,
    parse_settings,
};
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// The `assign_split` stage's line in the binary's `STAGES` table.
pub const ENTRY: StageEntry = StageEntry {
    name: "assign_split",
    summary: "Assigns splits (seeded hash) and moves or drops dev/test text found in train",
    doc: "What: a record without a `split` field gets the recipe's [split] ratios by a seeded \
hash of its id. Then the contamination check: a dev or test text whose dedup key equals a train \
text's (split.contamination_exact) or whose MinHash Jaccard estimate with one reaches the \
threshold (split.contamination_near) is moved to train (`fix = \"move\"`, a flag decision) or \
dropped (`fix = \"drop\"`); the detail names the train twin, the score is the similarity.\n\
Why: KLUE §2.3 and the Text issue: no dev/test sentence may appear, exactly or near, in train.\n\
Example: dev \"정말 재밌어요!!\" with train \"정말 재밌어요.\" → split.contamination_exact, moved to train.\n\
Settings: fix (\"move\" | \"drop\"), near (true), ngram (5), num_perm (64), bands (16), \
threshold (0.8), min_chars (10).",
    rules: &["split.contamination_exact", "split.contamination_near"],
    build,
};

#[derive(Debug, Clone, Copy, PartialEq, serde::Deserialize, Default)]
#[serde(rename_all = "lowercase")]
enum Fix {
    #[default]
    Move,
    Drop,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    #[serde(default)]
    fix: Fix,
    #[serde(default = "crate::dedup::near_on")]
    near: bool,
    #[serde(flatten)]
    near_cfg: NearConfig,
}

struct AssignSplit {
    seed: u64,
    split: SplitConfig,
    fix: Fix,
    near: Option<NearConfig>,
}

/// Builds the stage from its recipe settings (see [`ENTRY`]'s doc).
pub fn build(settings: &toml::Table, ctx: &mut BuildCtx) -> Result<BuiltStage, BuildError> {
    let cfg: Config = parse_settings(settings)?;
    Ok(BuiltStage::Corpus(Box::new(AssignSplit {
        seed: ctx.seed,
        split: ctx.split.clone(),
        fix: cfg.fix,
        near: cfg.near_cfg.for_stage(cfg.near)?,
    })))
}

fn split_of(r: &Record) -> &str {
    r.fields
        .get("split")
        .and_then(|v| v.as_str())
        .unwrap_or("train")
}

impl CorpusStage for AssignSplit {
    fn run(&self, mut recs: Vec<Record>, out: &mut Out) {
        for r in &mut recs {
            self.place(r);
        }
        // Moving a text to train can make it the twin of another dev/test text, so the
        // check repeats until a round finds nothing (each round shrinks dev/test).
        let mut found: Found = BTreeMap::new();
        loop {
            // Dropped texts join nothing; moved ones join train.
            let in_train = |r: &&Record| {
                split_of(r) == "train" || (self.fix == Fix::Move && found.contains_key(&r.id))
            };
            let train = recs
                .iter()
                .filter(in_train)
                .map(|r| (r.id.as_str(), r.text.as_str()));
            let eval = recs
                .iter()
                .filter(|r| split_of(r) != "train" && !found.contains_key(&r.id))
                .map(|r| (r.id.as_str(), r.text.as_str()));
            let round = contamination(train, eval, self.seed, self.near);
            if round.is_empty() {
                break;
            }
            for v in round {
                found.insert(v.eval_id, (v.train_id, v.kind, v.score));
            }
        }
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for r in recs {
            if let Some((_, kind, _)) = found.get(&r.id) {
                *counts
                    .entry(format!("{}_{kind}", split_of(&r)))
                    .or_default() += 1;
            }
            self.settle(r, &found, out);
        }
        out.metric("contamination", json!(counts));
    }

    fn keyed(&self, dir: &Path) -> Option<Box<dyn KeyedStage + '_>> {
        Some(Box::new(KeyedSplit {
            stage: self,
            hasher: Deduper::new(self.seed, true, self.near),
            path: dir.join("assign_split-keys.bin"),
            file: None,
            found: BTreeMap::new(),
        }))
    }
}

/// Dev/test ids found in train → (train twin, `exact` | `near`, score).
type Found = BTreeMap<String, (String, &'static str, f64)>;

impl AssignSplit {
    /// Gives a record without a split the recipe's seeded hash split.
    fn place(&self, r: &mut Record) {
        if !r.fields.contains_key("split") {
            let s = self.split.assign(self.seed, &r.id);
            r.fields.insert("split".into(), json!(s));
        }
    }

    /// Keeps a placed record, or moves or drops it when it was found in train.
    fn settle(&self, mut r: Record, found: &Found, out: &mut Out) {
        let Some((twin, kind, score)) = found.get(&r.id) else {
            out.keep(r);
            return;
        };
        let rule = RuleId::new(format!("split.contamination_{kind}"));
        let from = split_of(&r).to_string();
        match self.fix {
            Fix::Move => {
                let detail =
                    format!("{from} text {kind} duplicate of train {twin}; moved to train");
                out.flag(&r, rule, detail, Some(*score));
                r.fields.insert("split".into(), json!("train"));
                out.keep(r);
            }
            Fix::Drop => {
                let detail = format!("{from} text {kind} duplicate of train {twin}; dropped");
                out.drop(r, rule, detail, Some(*score));
            }
        }
    }
}

/// The two-pass form: the first pass writes each record's id, split and text keys (exact
/// hash and MinHash signature, about 300 bytes) to a file in corpus order; the rounds of
/// the contamination check read it back (twice a round: train into the index, then the
/// dev/test keys against it); the second pass places and settles the records. In memory:
/// the index of one round's train texts and the texts found, never the records.
struct KeyedSplit<'a> {
    stage: &'a AssignSplit,
    /// An empty index: it hashes the keys.
    hasher: Deduper,
    path: PathBuf,
    file: Option<BufWriter<std::fs::File>>,
    found: Found,
}

/// One record's key as read back.
#[derive(Default)]
struct Entry {
    id: String,
    split: String,
    keys: Option<TextKeys>,
}

fn put_str(key: &mut Vec<u8>, s: &str) {
    key.extend_from_slice(&(s.len() as u32).to_le_bytes());
    key.extend_from_slice(s.as_bytes());
}

impl KeyedSplit<'_> {
    /// Reads the keys back in corpus order.
    fn scan(&self, mut each: impl FnMut(&Entry)) -> std::io::Result<()> {
        let mut r = BufReader::with_capacity(1 << 16, std::fs::File::open(&self.path)?);
        let mut e = Entry::default();
        let mut u32b = [0u8; 4];
        let mut read_str = |r: &mut BufReader<std::fs::File>, s: &mut String| {
            r.read_exact(&mut u32b)?;
            let mut b = vec![0u8; u32::from_le_bytes(u32b) as usize];
            r.read_exact(&mut b)?;
            *s = String::from_utf8(b).map_err(std::io::Error::other)?;
            Ok::<_, std::io::Error>(())
        };
        loop {
            match read_str(&mut r, &mut e.id) {
                Err(x) if x.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(()),
                x => x?,
            }
            read_str(&mut r, &mut e.split)?;
            let mut h = [0u8; 20];
            r.read_exact(&mut h)?;
            let word = |i: usize| u64::from_le_bytes(h[i..i + 8].try_into().expect("8 bytes"));
            let exact = (word(0), word(8));
            let n = u32::from_le_bytes(h[16..20].try_into().expect("4 bytes")) as usize;
            let sig = if n == 0 {
                None
            } else {
                let mut b = vec![0u8; n * 4];
                r.read_exact(&mut b)?;
                Some(
                    b.chunks_exact(4)
                        .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
                        .collect(),
                )
            };
            e.keys = Some(TextKeys { exact, sig });
            each(&e);
        }
    }
}

impl KeyedStage for KeyedSplit<'_> {
    fn key(&self, rec: &Record, key: &mut Vec<u8>) {
        put_str(key, &rec.id);
        let split = match rec.fields.get("split") {
            Some(v) => v.as_str().unwrap_or("train"),
            None => self.stage.split.assign(self.stage.seed, &rec.id),
        };
        put_str(key, split);
        let k = self.hasher.keys(&rec.text);
        key.extend_from_slice(&k.exact.0.to_le_bytes());
        key.extend_from_slice(&k.exact.1.to_le_bytes());
        let sig = k.sig.unwrap_or_default();
        key.extend_from_slice(&(sig.len() as u32).to_le_bytes());
        for v in sig {
            key.extend_from_slice(&v.to_le_bytes());
        }
    }

    fn note(&mut self, key: &[u8]) -> std::io::Result<()> {
        if self.file.is_none() {
            if let Some(dir) = self.path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            let f = std::fs::File::create(&self.path)?;
            self.file = Some(BufWriter::with_capacity(1 << 16, f));
        }
        self.file.as_mut().expect("opened above").write_all(key)
    }

    fn decide(&mut self, out: &mut Out) -> std::io::Result<()> {
        let Some(mut f) = self.file.take() else {
            out.metric("contamination", json!(BTreeMap::<String, usize>::new()));
            return Ok(());
        };
        f.flush()?;
        drop(f);
        let (seed, near, fix) = (self.stage.seed, self.stage.near, self.stage.fix);
        // As `run`, a round at a time; a found text is named by its place among the keys
        // until the twins' ids are read back.
        let mut found: BTreeMap<String, (u64, &'static str, f64, String)> = BTreeMap::new();
        loop {
            let mut idx = Deduper::new(seed, true, near);
            // The index's kept texts, by their place among the keys.
            let mut kept_at: Vec<u64> = Vec::new();
            let mut at = 0u64;
            self.scan(|e| {
                let k = e.keys.as_ref().expect("scanned keys");
                if (e.split == "train" || (fix == Fix::Move && found.contains_key(&e.id)))
                    && idx.offer_keys(k) == Verdict::Keep
                {
                    kept_at.push(at);
                }
                at += 1;
            })?;
            let mut round = Vec::new();
            self.scan(|e| {
                if e.split == "train" || found.contains_key(&e.id) {
                    return;
                }
                let (kind, twin, score) = match idx.lookup_keys(e.keys.as_ref().expect("keys")) {
                    Verdict::Keep => return,
                    Verdict::Exact { twin } => ("exact", twin, 1.0),
                    Verdict::Near { twin, score } => ("near", twin, score),
                };
                round.push((e.id.clone(), (kept_at[twin], kind, score, e.split.clone())));
            })?;
            if round.is_empty() {
                break;
            }
            found.extend(round);
        }
        let twins: BTreeSet<u64> = found.values().map(|v| v.0).collect();
        let mut twin_ids: BTreeMap<u64, String> = BTreeMap::new();
        let mut at = 0u64;
        self.scan(|e| {
            if twins.contains(&at) {
                twin_ids.insert(at, e.id.clone());
            }
            at += 1;
        })?;
        std::fs::remove_file(&self.path)?;
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for (id, (twin, kind, score, from)) in found {
            *counts.entry(format!("{from}_{kind}")).or_default() += 1;
            let twin = twin_ids.get(&twin).cloned().unwrap_or_default();
            self.found.insert(id, (twin, kind, score));
        }
        out.metric("contamination", json!(counts));
        Ok(())
    }

    fn apply(&mut self, recs: Vec<Record>, out: &mut Out) {
        for mut r in recs {
            self.stage.place(&mut r);
            self.stage.settle(r, &self.found, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kcurate_core::{Decision, Kind, Origin};

    fn rec(id: &str, text: &str) -> Record {
        Record {
            id: id.into(),
            kind: Kind::Sentence,
            source: "s".into(),
            origin: Origin {
                file: "f".into(),
                line: 1,
            },
            text: text.into(),
            ..Record::default()
        }
    }

    fn run(fix: Fix, recs: Vec<Record>) -> (Vec<Record>, Vec<Decision>, u64) {
        let st = AssignSplit {
            seed: 42,
            split: SplitConfig::default(),
            fix,
            near: Some(NearConfig::default()),
        };
        let mut out = Out::new("assign_split");
        st.run(recs, &mut out);
        out.into_parts()
    }

    /// Many copies of one sentence under different ids: wherever the hash puts them, after
    /// the stage no dev/test record shares its text with train, and every move is a decision.
    fn copies() -> Vec<Record> {
        let mut v: Vec<Record> = (0..40)
            .map(|i| {
                rec(
                    &format!("r{i:02}"),
                    "이 영화는 정말 최고의 작품이었다고 생각합니다.",
                )
            })
            .collect();
        v.extend((0..40).map(|i| {
            rec(
                &format!("u{i:02}"),
                &format!(
                    "서로 다른 문장 {i}번은 겹치지 않는 내용을 {}개 담고 있다.",
                    i * 7
                ),
            )
        }));
        v
    }

    #[test]
    fn every_record_gets_a_split_and_contaminated_eval_text_moves_to_train() {
        let (kept, decisions, dropped) = run(Fix::Move, copies());
        assert_eq!((kept.len(), dropped), (80, 0));
        let train: Vec<&str> = kept
            .iter()
            .filter(|r| split_of(r) == "train")
            .map(|r| r.text.as_str())
            .collect();
        for r in kept.iter().filter(|r| split_of(r) != "train") {
            assert!(!train.contains(&r.text.as_str()), "{} leaks", r.id);
        }
        let moved = kept
            .iter()
            .filter(|r| r.id.starts_with('r') && split_of(r) == "train")
            .count();
        assert_eq!(moved, 40, "all copies end in train");
        assert!(!decisions.is_empty());
        assert!(
            decisions
                .iter()
                .all(|d| d.rule.as_str() == "split.contamination_exact")
        );
    }

    #[test]
    fn drop_fix_drops_with_a_decision_each() {
        let (kept, decisions, dropped) = run(Fix::Drop, copies());
        assert_eq!(kept.len() as u64 + dropped, 80);
        assert_eq!(decisions.len() as u64, dropped);
        assert!(dropped > 0);
    }

    /// The two-pass form (keys on disk, records in batches) keeps, flags, drops and reports
    /// what `run` does, in the same order.
    #[test]
    fn keyed_form_equals_run() {
        for fix in [Fix::Move, Fix::Drop] {
            let mut recs = copies();
            recs[3].fields.insert("split".into(), json!("test"));
            // Near twins of a dev/test text that only a moved text can catch.
            recs.extend((0..30).map(|i| {
                rec(
                    &format!("v{i:02}"),
                    &format!("이 영화는 정말 최고의 작품이었다고 생각합니다 {}", i % 3),
                )
            }));
            let st = AssignSplit {
                seed: 42,
                split: SplitConfig::default(),
                fix,
                near: Some(NearConfig::default()),
            };
            let mut want = Out::new("assign_split");
            st.run(recs.clone(), &mut want);
            let want_metrics = want.take_metrics();
            let dir = std::env::temp_dir().join(format!(
                "kcurate-keyed-split-{}-{fix:?}",
                std::process::id()
            ));
            let mut keyed = st.keyed(&dir).expect("assign_split has a keyed form");
            let mut key = Vec::new();
            for r in &recs {
                key.clear();
                keyed.key(r, &mut key);
                keyed.note(&key).unwrap();
            }
            let mut got = Out::new("assign_split");
            keyed.decide(&mut got).unwrap();
            for batch in recs.chunks(7) {
                keyed.apply(batch.to_vec(), &mut got);
            }
            assert_eq!(got.take_metrics(), want_metrics);
            let (want_kept, want_ds, want_dropped) = want.into_parts();
            let (got_kept, got_ds, got_dropped) = got.into_parts();
            assert!(!want_ds.is_empty());
            assert_eq!(
                serde_json::to_string(&got_kept).unwrap(),
                serde_json::to_string(&want_kept).unwrap()
            );
            assert_eq!(
                serde_json::to_string(&got_ds).unwrap(),
                serde_json::to_string(&want_ds).unwrap()
            );
            assert_eq!(got_dropped, want_dropped);
            assert!(!dir.join("assign_split-keys.bin").exists(), "keys removed");
            let _ = std::fs::remove_dir_all(&dir);
        }
    }

    #[test]
    fn a_split_set_by_a_task_stage_is_kept() {
        let mut r = rec("a", "혼자 있는 문장이다.");
        r.fields.insert("split".into(), json!("test"));
        let (kept, _, _) = run(Fix::Move, vec![r]);
        assert_eq!(split_of(&kept[0]), "test");
    }
}
