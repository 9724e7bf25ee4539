//! Recipe → stage plan: every `[[stage]]` built through its registry entry, with the
//! runner's own filters (`only_sources`, `only_styles`, `only_domains`).

use super::*;

pub use kcurate_core::recipe::RUNNER_KEYS;

/// A built stage with the runner's own filters.
pub struct Planned {
    /// The stage its entry built from the recipe's settings.
    pub stage: BuiltStage,
    /// The stage name (`name` in the recipe, else the entry's); it names its decisions and books.
    pub name: String,
    pub(super) only_sources: Option<BTreeSet<String>>,
    pub(super) only_styles: Option<BTreeSet<String>>,
    pub(super) only_domains: Option<BTreeSet<String>>,
}

impl Planned {
    /// Whether the stage applies to `rec` (its source, style and domain filters).
    pub fn applies(&self, rec: &Record, sources: &BTreeMap<String, SourceInfo>) -> bool {
        let info = sources.get(&rec.source);
        let hit = |set: &Option<BTreeSet<String>>, v: Option<&str>| match set {
            None => true,
            Some(s) => v.is_some_and(|v| s.contains(v)),
        };
        hit(&self.only_sources, Some(&rec.source))
            && hit(&self.only_styles, info.map(|i| i.style.as_str()))
            && hit(&self.only_domains, info.map(|i| i.domain.as_str()))
    }
}

/// Per source id, what a stage may know of its source (domain, style, licence), from the
/// recipe.
pub fn source_infos(recipe: &Recipe) -> BTreeMap<String, SourceInfo> {
    recipe.source_infos()
}

/// Builds every stage the recipe names, reporting all problems at once, each located in the
/// recipe file.
pub fn build_stages(
    recipe: &Recipe,
    recipe_path: &str,
    registry: &[StageEntry],
    ctx: &mut BuildCtx,
) -> Result<Vec<Planned>, Vec<RecipeError>> {
    let mut planned = Vec::new();
    let mut errors = Vec::new();
    for (i, table) in recipe.stages.iter().enumerate() {
        let name = table.name.clone();
        let err = |key: &str, message: String| RecipeError {
            path: recipe_path.to_string(),
            line: table.line,
            key: format!("stage[{i}] ({name}).{key}"),
            message,
        };
        let Some(entry) = registry.iter().find(|e| e.name == name) else {
            let known: Vec<&str> = registry.iter().map(|e| e.name).collect();
            errors.push(err(
                "name",
                format!("unknown stage {name:?}; known: {}", known.join(", ")),
            ));
            continue;
        };
        for key in table.bad_filters() {
            errors.push(err(key, "must be a list of strings".into()));
        }
        match (entry.build)(&table.settings, ctx) {
            Ok(stage) => {
                let [only_sources, only_styles, only_domains] = table.filters.sets();
                planned.push(Planned {
                    stage,
                    name,
                    only_sources,
                    only_styles,
                    only_domains,
                })
            }
            Err(e) => errors.push(err("settings", e.to_string())),
        }
    }
    if errors.is_empty() {
        Ok(planned)
    } else {
        Err(errors)
    }
}
