//! People's labels imported by a stage while it is built (STS scores, TC topics, SentiNeg
//! verdicts): read in any agreement format, the file recorded as a run input, and refused
//! rows handed to the runner as decisions.

use kcurate_agree::batch::BatchKind;
use kcurate_agree::io::{Annotation, Format, LabelStudio, ReadOptions, Scale, read_with};
use kcurate_core::{BuildCtx, BuildError};

/// Reads the annotation file at `path` (resolved against the run's root) of a batch of
/// `kind`: a Label Studio export when it ends in `.json` (votes from the kind's control
/// only, as its labeling config names it), else long TSV/CSV/JSONL. Values off the kind's
/// scale and other bad rows become decisions in `ctx.input_decisions`; the file joins the
/// manifest's inputs.
pub fn import(
    ctx: &mut BuildCtx,
    path: &str,
    kind: &BatchKind,
) -> Result<Vec<Annotation>, BuildError> {
    let scale = match kind.choices() {
        Some(labels) => Scale::Labels(labels),
        None => Scale::Range(0.0, 5.0),
    };
    let resolved = ctx.resolve(path);
    let format = if path.ends_with(".json") {
        Format::LabelStudio
    } else {
        Format::Long
    };
    let opts = ReadOptions {
        scale,
        label_studio: LabelStudio {
            from_name: Some(kind.control().to_string()),
            label_config: None,
        },
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
