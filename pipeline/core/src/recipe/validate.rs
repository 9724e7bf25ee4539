//! What serde cannot check of a recipe: ids, limits, stage names, split ratios and names,
//! `[release]` statements, and names that become directories. The first problem found is
//! the error, located at its line.

use super::{
    Format, MAX_DEPTH_CEILING, Recipe, RecipeError, SplitNames, check_path_component, key_line,
    onboard, table_line,
};

/// A problem before it is located in a file: its line, the key at fault and what is wrong.
type Problem = (usize, String, String);

impl Recipe {
    pub(super) fn validate(&self, path: &str, text: &str) -> Result<(), RecipeError> {
        let problem = self
            .sources_problem(text)
            .or_else(|| self.limits_problem(text))
            .or_else(|| self.stages_problem())
            .or_else(|| self.split_problem(text))
            .or_else(|| self.release_problem_at(text))
            .or_else(|| self.directory_names_problem(text));
        match problem {
            None => Ok(()),
            Some((line, key, message)) => Err(RecipeError {
                path: path.to_string(),
                line,
                key,
                message,
            }),
        }
    }

    fn sources_problem(&self, text: &str) -> Option<Problem> {
        let mut ids = std::collections::BTreeSet::new();
        for (i, s) in self.sources.iter().enumerate() {
            let line = table_line(text, "source", i);
            if s.id.is_empty()
                || !s
                    .id
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            {
                return Some((
                    line,
                    format!("source[{i}].id"),
                    "must be non-empty [A-Za-z0-9_-]".into(),
                ));
            }
            if !ids.insert(s.id.clone()) {
                return Some((
                    line,
                    format!("source[{i}].id"),
                    format!("duplicate source id {:?}", s.id),
                ));
            }
            if let Some((key, message)) = onboard::txt_fields_problem(s) {
                return Some((line, format!("source[{i}].fields.{key}"), message));
            }
            if matches!(s.format, Format::Tsv | Format::Csv) && !s.header && s.columns.is_empty() {
                return Some((
                    line,
                    format!("source[{i}].columns"),
                    "a source without a header needs `columns`".into(),
                ));
            }
        }
        None
    }

    fn limits_problem(&self, text: &str) -> Option<Problem> {
        let limits_line = |key: &str| key_line(text, Some("limits"), key).unwrap_or(1);
        for (key, v, lo, hi) in [
            ("max_line_bytes", self.limits.max_line_bytes, 1, usize::MAX),
            (
                "max_record_bytes",
                self.limits.max_record_bytes,
                1,
                usize::MAX,
            ),
            ("max_depth", self.limits.max_depth, 1, MAX_DEPTH_CEILING),
            (
                "max_annotators_per_item",
                self.limits.max_annotators_per_item,
                1,
                usize::MAX,
            ),
        ] {
            if v < lo || v > hi {
                return Some((
                    limits_line(key),
                    format!("limits.{key}"),
                    if hi == usize::MAX {
                        format!("must be at least {lo} (got {v})")
                    } else {
                        format!("must be from {lo} to {hi} (got {v})")
                    },
                ));
            }
        }
        self.sources.iter().enumerate().find_map(|(i, s)| {
            (s.max_record_bytes == Some(0)).then(|| {
                (
                    table_line(text, "source", i),
                    format!("source[{i}].max_record_bytes"),
                    "must be at least 1 (got 0)".into(),
                )
            })
        })
    }

    fn stages_problem(&self) -> Option<Problem> {
        self.stages.iter().enumerate().find_map(|(i, st)| {
            (!st.is_named()).then(|| {
                (
                    st.line,
                    format!("stage[{i}].name"),
                    "every stage needs a name".into(),
                )
            })
        })
    }

    fn split_problem(&self, text: &str) -> Option<Problem> {
        let split_line = |key: &str| {
            key_line(text, Some("split"), key)
                .or_else(|| key_line(text, Some("split"), ""))
                .unwrap_or(1)
        };
        for (key, x) in [
            ("train", self.split.train),
            ("dev", self.split.dev),
            ("test", self.split.test),
        ] {
            if !x.is_finite() || x < 0.0 {
                return Some((
                    split_line(key),
                    format!("split.{key}"),
                    format!("must be a fraction between 0 and 1 (got {x})"),
                ));
            }
        }
        let sum = self.split.train + self.split.dev + self.split.test;
        if (sum - 1.0).abs() > 1e-9 {
            return Some((
                split_line("train"),
                "split".into(),
                format!(
                    "train + dev + test must be 1 (got {} + {} + {} = {sum})",
                    self.split.train, self.split.dev, self.split.test
                ),
            ));
        }
        // Split names become file names of the release (`<task>/<name>.jsonl`).
        let names = &self.split.names;
        SplitNames::ROLES.into_iter().find_map(|role| {
            let name = names.name(role);
            let why = check_path_component(name)
                .err()
                .map(|e| e.to_string())
                .or_else(|| {
                    SplitNames::ROLES
                        .into_iter()
                        .find(|r| *r != role && names.name(r) == name)
                        .map(|r| format!("the {r} split has this name too"))
                })?;
            Some((
                key_line(text, Some("split.names"), role)
                    .or_else(|| key_line(text, Some("split"), "names"))
                    .unwrap_or_else(|| split_line(role)),
                format!("split.names.{role}"),
                format!("{name:?}: {why}"),
            ))
        })
    }

    fn release_problem_at(&self, text: &str) -> Option<Problem> {
        let (key, message) = self.release_problem()?;
        Some((
            key_line(text, Some("release"), key)
                .or_else(|| key_line(text, Some("release"), ""))
                .unwrap_or(1),
            format!("release.{key}"),
            message,
        ))
    }

    /// These become directories of the release (`<out>/<name>/<version>/<task>/`).
    fn directory_names_problem(&self, text: &str) -> Option<Problem> {
        [
            (None, "name", &self.name),
            (None, "version", &self.version),
            (Some("task"), "name", &self.task.name),
        ]
        .into_iter()
        .find_map(|(section, key, value)| {
            let why = check_path_component(value).err()?;
            let shown = match section {
                Some(t) => format!("{t}.{key}"),
                None => key.to_string(),
            };
            Some((
                key_line(text, section, key).unwrap_or(1),
                shown,
                format!("{value:?} {why}"),
            ))
        })
    }
}
