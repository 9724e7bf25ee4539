//! People's labels imported by a stage while it is built (STS scores, TC topics, SentiNeg
//! verdicts): read in any agreement format, the file recorded as a run input, and refused
//! rows handed to the runner as decisions.

use kcurate_agree::io::{Annotation, Format, ReadOptions, Scale, read_with};
use kcurate_core::{BuildCtx, BuildError};

/// Reads the annotation file at `path` (resolved against the run's root): a Label Studio
/// export when it ends in `.json`, else long TSV/CSV/JSONL. Values off `scale` and other bad
/// rows become decisions in `ctx.input_decisions`; the file joins the manifest's inputs.
pub fn import(
    ctx: &mut BuildCtx,
    path: &str,
    scale: &Scale,
) -> Result<Vec<Annotation>, BuildError> {
    let resolved = ctx.resolve(path);
    let format = if path.ends_with(".json") {
        Format::LabelStudio
    } else {
        Format::Long
    };
    let opts = ReadOptions {
        scale: scale.clone(),
        limits: ctx.limits,
        ..Default::default()
    };
    let a = read_with(&resolved, format, &opts).map_err(|e| BuildError::File {
        path: resolved.display().to_string(),
        message: e.to_string(),
    })?;
    ctx.extra_inputs.push(resolved);
    ctx.input_decisions.extend(a.rejected);
    Ok(a.rows)
}
