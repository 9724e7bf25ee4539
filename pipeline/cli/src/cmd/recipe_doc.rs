//! `kcurate recipe`: the recipe reference, rendered from the key tables of
//! `kcurate_core::recipe::doc` and each stage's documentation (as `kcurate stages --doc`).

use crate::stages::STAGES;
use clap::Args;
use std::io::Write;
use std::process::ExitCode;

#[derive(Args)]
pub struct RecipeArgs {
    /// Print the full reference as Markdown (type, default, range, example and meaning of
    /// every key, then every stage's settings): the text of docs/recipe.md.
    #[arg(long)]
    pub doc: bool,
}

/// The Markdown reference (docs/recipe.md is this text).
pub fn reference() -> String {
    let stages: Vec<(&str, &str)> = STAGES.iter().map(|e| (e.name, e.doc)).collect();
    kcurate_core::recipe::doc::render_markdown(&stages)
}

pub fn recipe(a: RecipeArgs) -> anyhow::Result<ExitCode> {
    let text = if a.doc {
        reference()
    } else {
        kcurate_core::recipe::doc::render_summary()
    };
    std::io::stdout().lock().write_all(text.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}
