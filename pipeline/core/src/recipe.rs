//! Release recipes (`configs/*.toml`): what goes in, which stages run in which order, how
//! the release is split. Unknown keys and wrong types are errors naming the file, the line
//! and the key.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub mod doc;
mod keys;
pub mod onboard;
mod read;
mod release;
mod split;
mod stage_table;
mod task;
mod templates;
mod validate;

pub use keys::{closest, fields_hint, with_closest_key};
pub use read::{MAX_RECIPE_BYTES, read_recipe_text};
pub use release::{PiiHandling, PiiStatement, ReleaseConfig};
pub use split::{SplitConfig, SplitNames};
pub use stage_table::{RUNNER_KEYS, StageFilters, StageTable};
pub use task::{NLI_LABELS, TC_TOPICS, TaskConfig};

/// What a malformed input does to the run (`on_error`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum OnError {
    /// A malformed input line becomes an `ingest.malformed` decision; the run goes on.
    #[default]
    Quarantine,
    /// The first malformed line or refused source stops the run.
    Fail,
}

/// A source's file format (`format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// One JSON object a line.
    Jsonl,
    /// Tab-separated values.
    Tsv,
    /// Comma-separated values.
    Csv,
    /// Plain text, one record a line.
    Txt,
    /// A JSON array of objects per file (a file, or a directory of `*.json` files).
    Json,
}

/// A source's register (`style`), which some stages choose rules by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Style {
    /// Edited text (news, Wikipedia).
    Formal,
    /// User text (reviews, comments).
    Colloquial,
}

impl Style {
    /// The style as a recipe spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Style::Formal => "formal",
            Style::Colloquial => "colloquial",
        }
    }
}

/// Which input fields become the record's text, id, date and label, and which columns are
/// carried along in `fields`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldMap {
    /// The field that becomes the record's text.
    pub text: String,
    /// The field that becomes the record's id (scoped by the source id).
    #[serde(default)]
    pub id: Option<String>,
    /// The field that becomes the record's date.
    #[serde(default)]
    pub date: Option<String>,
    /// The field that becomes the record's label.
    #[serde(default)]
    pub label: Option<String>,
    /// Fields carried along in the record's `fields`.
    #[serde(default)]
    pub extra: Vec<String>,
    /// Mapped fields (id, date, label) that may be missing from a record without making it
    /// malformed.
    #[serde(default)]
    pub optional: Vec<String>,
}

/// One `[[source]]` of a recipe.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceConfig {
    /// The source id, unique in the recipe; it scopes record ids.
    pub id: String,
    /// A file, or a directory of files (for `jsonl` and `json` those named `*.jsonl` and
    /// `*.json`, also `.gz`/`.zst`). Relative paths resolve against the recipe file's
    /// directory (`--root` overrides it; see [`Recipe::dir`]). Files compressed with gzip or zstd are read as their
    /// decompressed bytes (found by magic bytes, not the name).
    pub path: String,
    /// The file format.
    pub format: Format,
    /// Which input fields become which record fields.
    pub fields: FieldMap,
    /// The source's licence (SPDX id), checked by the licence gate.
    #[serde(default)]
    pub license: Option<String>,
    /// The source's domain (`news`, `reviews`, ...).
    pub domain: String,
    /// The source's register.
    pub style: Style,
    /// The attribution the dataset card prints.
    #[serde(default)]
    pub attribution: String,
    /// TSV/CSV: whether the first row names the columns (default true).
    #[serde(default = "yes")]
    pub header: bool,
    /// TSV/CSV without a header: the column names, in order.
    #[serde(default)]
    pub columns: Vec<String>,
    /// TSV/CSV: whether `"` quotes fields. Default: true for CSV, false for TSV (real TSV
    /// corpora carry bare quotes inside text).
    #[serde(default)]
    pub quote: Option<bool>,
    /// This source's record size limit in bytes (default: `[limits] max_record_bytes`).
    #[serde(default)]
    pub max_record_bytes: Option<usize>,
    /// Read at most this many records (0 = all); for quick previews of large corpora.
    #[serde(default)]
    pub limit: u64,
    /// The Hugging Face Hub id of the upstream dataset this source is a copy of (`klue`,
    /// `nsmc`, ...); the card lists it in `source_datasets` as `extended|<hf_id>`.
    #[serde(default)]
    pub hf_id: Option<String>,
    /// `true` when the text was written or collected for this dataset (the card lists the
    /// source in `source_datasets` as `original`); a source that is neither that nor a Hub
    /// dataset is `extended|other-<id>`.
    #[serde(default)]
    pub original: bool,
    /// The recipe's `[limits]` (set by [`Recipe::parse`]; the defaults otherwise).
    #[serde(skip)]
    pub limits: Limits,
}

impl SourceConfig {
    /// The record size limit in bytes: the source's `max_record_bytes`, else the recipe's.
    pub fn record_limit(&self) -> usize {
        self.max_record_bytes
            .unwrap_or(self.limits.max_record_bytes)
    }
}

/// `[limits]`: how large an input may be before it becomes an `ingest.over_limit` decision
/// naming file:line (never a crash or an out-of-memory kill). Memory per reader is bounded
/// by `max_line_bytes` (a longer line is skipped to its newline, not read) and, for a CSV
/// record spanning lines or a JSON-array file, by `max_record_bytes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Longest input line in bytes (JSONL, text, TSV/CSV; default 16 MiB).
    #[serde(default = "default_max_line_bytes")]
    pub max_line_bytes: usize,
    /// Largest record in bytes: a JSONL line, a TSV/CSV row (quoted fields may span lines),
    /// a JSON-array element (default 16 MiB; a JSON-array file may be 4× this). A source's
    /// own `max_record_bytes` overrides it.
    #[serde(default = "default_max_record_bytes")]
    pub max_record_bytes: usize,
    /// Deepest nesting of JSON arrays and objects in a record, the record's own object
    /// counting 1 (default 64, at most 128).
    #[serde(default = "default_max_depth")]
    pub max_depth: usize,
    /// Most annotators of one item in an annotation file a stage reads; a further
    /// annotator's rows become `agree.too_many_annotators` decisions (default 1000; `kcurate
    /// agree --max-annotators-per-item` for the command).
    #[serde(default = "default_max_annotators")]
    pub max_annotators_per_item: usize,
}

/// The largest `max_depth` a recipe may set (serde_json's own recursion limit).
pub const MAX_DEPTH_CEILING: usize = 128;

fn default_max_line_bytes() -> usize {
    16 << 20
}

fn default_max_depth() -> usize {
    64
}

fn default_max_annotators() -> usize {
    1000
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_line_bytes: default_max_line_bytes(),
            max_record_bytes: default_max_record_bytes(),
            max_depth: default_max_depth(),
            max_annotators_per_item: default_max_annotators(),
        }
    }
}

fn yes() -> bool {
    true
}

fn default_max_record_bytes() -> usize {
    16 << 20
}

/// A release recipe (`configs/*.toml`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recipe {
    /// The release name (a directory under `--out`).
    pub name: String,
    /// The release version (a directory under the name).
    pub version: String,
    /// One paragraph for the dataset card.
    #[serde(default)]
    pub description: String,
    /// The seed of every seeded choice (splits, samples, folds).
    pub seed: u64,
    /// What a malformed input does to the run.
    #[serde(default)]
    pub on_error: OnError,
    /// The `[[source]]` tables.
    #[serde(rename = "source")]
    pub sources: Vec<SourceConfig>,
    /// Each `[[stage]]` table: its name, the runner's filters and the stage's own settings.
    #[serde(default, rename = "stage")]
    pub stages: Vec<StageTable>,
    /// `[task]`: what the release is for (the card's metadata).
    #[serde(default)]
    pub task: TaskConfig,
    /// `[split]`: the split ratios.
    #[serde(default)]
    pub split: SplitConfig,
    /// `[audit]`: the curators' judgements.
    #[serde(default)]
    pub audit: AuditConfig,
    /// `[limits]`: how big an input may be.
    #[serde(default)]
    pub limits: Limits,
    /// `[release]`: statements about the release no stage makes (no `pii` stage on purpose).
    #[serde(default, skip_serializing_if = "ReleaseConfig::is_empty")]
    pub release: ReleaseConfig,
}

/// `[audit]`: what the release says about the quality of its own decisions.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditConfig {
    /// Curators' judgements of a sample of each rule's decisions (the TSV `kcurate audit
    /// sample` writes, filled in, or a Label Studio export): the card and report.html show
    /// each rule's precision with its Wilson 95% interval. The file is an input of the run
    /// (hashed in the manifest).
    #[serde(default)]
    pub judgements: Option<String>,
    /// Count judgements whose decision the release holds only under another id (found by
    /// their text: made on another build or corpus) in this release's figures. Off, they are
    /// shown apart as carried and never make a rule's precision.
    #[serde(default)]
    pub count_carried: bool,
}

/// A recipe problem, located in its file.
#[derive(Debug, thiserror::Error)]
#[error("{path}:{line}: {key}: {message}")]
pub struct RecipeError {
    /// The recipe file as given.
    pub path: String,
    /// 1-based line of the problem.
    pub line: usize,
    /// The key at fault (dotted path).
    pub key: String,
    /// What is wrong.
    pub message: String,
}

/// A recipe that cannot be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file cannot be read.
    #[error("{path}: {source}")]
    Io {
        /// The recipe file as given.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The recipe is wrong.
    #[error(transparent)]
    Recipe(#[from] RecipeError),
}

/// 1-based line of byte offset `at` in `text`.
pub fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The line of the `index`-th `[[name]]` header, for errors found after parsing.
pub fn table_line(text: &str, name: &str, index: usize) -> usize {
    let header = format!("[[{name}]]");
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with(&header))
        .nth(index)
        .map(|(i, _)| i + 1)
        .unwrap_or(1)
}

impl Recipe {
    /// Parses and checks recipe `text` read from `path`; errors name the line and key.
    pub fn parse(path: &str, text: &str) -> Result<Recipe, RecipeError> {
        let recipe: Recipe = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| line_of(text, s.start)).unwrap_or(1);
            let message = keys::explain(e.message().trim(), text, line);
            let key = key_at(text, e.span().map(|s| s.start)).unwrap_or_else(|| "recipe".into());
            RecipeError {
                path: path.to_string(),
                line,
                key,
                message,
            }
        })?;
        let mut recipe = recipe;
        for (i, st) in recipe.stages.iter_mut().enumerate() {
            st.line = table_line(text, "stage", i);
        }
        recipe.validate(path, text)?;
        for s in &mut recipe.sources {
            s.limits = recipe.limits;
        }
        Ok(recipe)
    }

    /// Reads and parses a recipe file; `-` reads the recipe from stdin (shown as `-`).
    pub fn load(path: &Path) -> Result<(Recipe, String), LoadError> {
        let shown = path.display().to_string();
        let text = read_recipe_text(path).map_err(|e| LoadError::Io {
            path: shown.clone(),
            source: e,
        })?;
        Ok((Recipe::parse(&shown, &text)?, text))
    }

    /// The directory a recipe's relative paths (sources, rule files, models, annotation
    /// files) resolve against: the directory of the recipe file, `.` for a recipe in the
    /// working directory or read from stdin (`-`). `--root` overrides it.
    pub fn dir(recipe: &Path) -> PathBuf {
        if recipe == Path::new("-") {
            return PathBuf::from(".");
        }
        match recipe.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        }
    }

    /// The recipe path a manifest records: as given when relative; an absolute path inside
    /// the working directory `cwd` relative to it; any other absolute path by its file name
    /// only, so that no release carries the build machine's directories (a rebuild of such
    /// a release takes `--root`). A path holding personal data is `recipe.toml`.
    pub fn recorded_path(given: &str, cwd: Option<&Path>) -> String {
        let p = Path::new(given);
        let shown = match cwd.and_then(|c| p.strip_prefix(c).ok()) {
            _ if !p.is_absolute() => given.to_string(),
            Some(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
            _ => p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "recipe.toml".into()),
        };
        if crate::names::holds_personal_data(&shown) {
            return "recipe.toml".into();
        }
        shown
    }

    /// Resolves a source path against `root`.
    pub fn resolve(root: &Path, p: &str) -> PathBuf {
        let p = PathBuf::from(p);
        if p.is_absolute() { p } else { root.join(p) }
    }
}

/// Why a name cannot be one component of a path the tool writes ([`check_path_component`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathComponentError {
    /// The name is empty.
    #[error("must not be empty")]
    Empty,
    /// The name is longer than 128 characters.
    #[error("must be at most 128 characters")]
    TooLong,
    /// The name starts with `.`.
    #[error("must not start with '.' (no \"..\", no hidden names)")]
    LeadingDot,
    /// The name holds this character, which is not one of `A-Z a-z 0-9 . _ + -`.
    #[error("may only hold A-Z a-z 0-9 . _ + - (found {0:?}): it becomes a directory name")]
    Character(char),
}

/// Why `s` cannot be one component of a path the tool writes, if it cannot: it must be
/// non-empty, at most 128 characters of `A-Z a-z 0-9 . _ + -`, and not start with `.` (so
/// no `..`, no hidden name, and no clash with the writer's `.tmp-*`, `.old-*` and `.lock`
/// entries). A recipe's `name`, `version` and `[task] name` become directories.
pub fn check_path_component(s: &str) -> Result<(), PathComponentError> {
    if s.is_empty() {
        return Err(PathComponentError::Empty);
    }
    if s.chars().count() > 128 {
        return Err(PathComponentError::TooLong);
    }
    if s.starts_with('.') {
        return Err(PathComponentError::LeadingDot);
    }
    if let Some(c) = s
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '+' | '-')))
    {
        return Err(PathComponentError::Character(c));
    }
    Ok(())
}

/// The 1-based line of `key = ...` in the table `[section]` (`None`: the top level, before
/// the first table); an empty `key` finds the table's header.
pub fn key_line(text: &str, section: Option<&str>, key: &str) -> Option<usize> {
    let mut current: Option<String> = None;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.starts_with('[') {
            let name = t.trim_start_matches('[');
            let name = name.split(']').next().unwrap_or("").trim().to_string();
            if key.is_empty() && section == Some(name.as_str()) && !t.starts_with("[[") {
                return Some(i + 1);
            }
            current = Some(name);
            continue;
        }
        if current.as_deref() != section || key.is_empty() {
            continue;
        }
        if let Some(rest) = t.strip_prefix(key)
            && rest.trim_start().starts_with('=')
        {
            return Some(i + 1);
        }
    }
    None
}

/// The key name on the line where an error points (for `name = value` lines).
fn key_at(text: &str, at: Option<usize>) -> Option<String> {
    let at = at?;
    let start = text[..at.min(text.len())]
        .rfind('\n')
        .map(|i| i + 1)
        .unwrap_or(0);
    let line = text[start..].lines().next()?;
    let key = line.split('=').next()?.trim();
    (!key.is_empty() && !key.starts_with('['))
        .then(|| key.to_string())
        .or_else(|| Some(line.trim().to_string()))
}

#[cfg(test)]
mod tests;
