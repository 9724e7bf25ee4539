//! The release files after the rows: recipe copy, manifest, report, dataset card, output
//! hashes, and the rename into place.

use super::*;

#[allow(clippy::too_many_arguments)]
pub(super) fn finish_release(
    recipe: &Recipe,
    recipe_text: &str,
    opts: &RunOptions,
    release: ReleaseDir,
    books: Books,
    planned: &[Planned],
    source_refs: Vec<SourceRef>,
    inputs: Vec<InputFile>,
    allowed: &[Allowed],
    rows: BTreeMap<String, u64>,
    judged: &[crate::precision::Judgement],
    pool: &rayon::ThreadPool,
) -> Result<RunSummary, RunError> {
    let rule_precision = release.judged.precision(judged);
    let tmp = release.tmp_dir.clone();
    let task = release.task().to_string();
    let started = std::time::Instant::now();
    let recipe_copy = tmp.join(manifest::RECIPE_COPY);
    std::fs::write(&recipe_copy, recipe_text).map_err(|e| RunError::Io {
        path: recipe_copy.display().to_string(),
        source: e,
    })?;

    // Ingest counts documents (one per source record), the licence gate sources.
    let counted = |mut s: StageStats, unit: &str| {
        if s.items_in > 0 {
            s.unit_in = unit.to_string();
        }
        if s.items_out > 0 {
            s.unit_out = unit.to_string();
        }
        s
    };
    let mut stages = vec![
        StageCount {
            name: "ingest".into(),
            stats: counted(books.stats[0].clone(), kcurate_core::Kind::Document.unit()),
        },
        StageCount {
            name: "license".into(),
            stats: counted(books.stats[1].clone(), "sources"),
        },
    ];
    for (i, p) in planned.iter().enumerate() {
        stages.push(StageCount {
            name: p.name.clone(),
            stats: books.stats[2 + i].clone(),
        });
    }
    let mut components = BTreeMap::new();
    components.insert("arrow/parquet".into(), "60".into());
    components.insert("rand".into(), "0.10".into());
    let task_name = task.clone();
    let mut manifest = Manifest {
        format_version: manifest::FORMAT_VERSION,
        tool: Tool {
            name: "kcurate".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            components,
        },
        recipe: RecipeRef {
            name: recipe.name.clone(),
            version: recipe.version.clone(),
            path: Recipe::recorded_path(&opts.recipe_path, std::env::current_dir().ok().as_deref()),
            sha256: sha256_hex(recipe_text.as_bytes()),
            copy: manifest::RECIPE_COPY.into(),
        },
        seed: recipe.seed,
        license: match &opts.parent {
            Some(p) => p.license.clone(),
            None => license::release_license(allowed),
        },
        sources: source_refs,
        inputs,
        stages,
        splits: BTreeMap::from([(task, rows)]),
        split_names: recipe.split.names.to_map(),
        by_source: release.by_source.clone(),
        lengths: release.lengths.clone(),
        metrics: books.metrics,
        outputs: Vec::new(),
        rule_precision,
        parent: opts.parent.clone(),
    };
    let examples: BTreeMap<String, Vec<crate::report::RuleExample>> = release
        .examples
        .iter()
        .map(|(r, v)| (r.clone(), v.iter().map(|(_, x)| x.clone()).collect()))
        .collect();
    let split_facts =
        crate::split_facts::collect(&tmp, &task_name, manifest.splits[&task_name].keys()).map_err(
            |e| RunError::Io {
                path: tmp.join(&task_name).display().to_string(),
                source: e,
            },
        )?;
    let report = crate::report::render(
        &manifest,
        &examples,
        recipe.audit.judgements.is_some(),
        &split_facts,
    );
    let report_path = tmp.join("report.html");
    std::fs::write(&report_path, report).map_err(|e| RunError::Io {
        path: report_path.display().to_string(),
        source: e,
    })?;
    let facts = crate::card::facts(
        recipe,
        &tmp,
        &task_name,
        &manifest.splits[&task_name],
        &release.hashed,
    )?;
    let card = crate::card::render(recipe, &manifest, &facts);
    let card_path = tmp.join("README.md");
    std::fs::write(&card_path, card).map_err(|e| RunError::Io {
        path: card_path.display().to_string(),
        source: e,
    })?;
    let files = manifest::list_release_files(&tmp).map_err(|e| RunError::Io {
        path: tmp.display().to_string(),
        source: e,
    })?;
    // The JSONL files and their streamed twins were hashed as they were written; the rest
    // are read back.
    let hashes: Vec<Result<(String, u64), RunError>> = pool.install(|| {
        files
            .par_iter()
            .map(|f| match release.hashed.get(f) {
                Some(h) => Ok(h.clone()),
                None => sha256_file(&tmp.join(f)).map_err(|e| RunError::Io {
                    path: f.clone(),
                    source: e,
                }),
            })
            .collect()
    });
    for (f, h) in files.into_iter().zip(hashes) {
        let (sha256, size) = h?;
        manifest.outputs.push(OutputFile {
            path: f,
            sha256,
            size,
        });
    }
    let mpath = tmp.join(manifest::MANIFEST);
    manifest.write_json(&mpath).map_err(|e| RunError::Io {
        path: mpath.display().to_string(),
        source: e,
    })?;
    let dir = release.commit()?;
    tracing::debug!(
        ms = started.elapsed().as_millis() as u64,
        "parquet, card, report, output hashes and manifest written"
    );
    Ok(RunSummary { dir, manifest })
}
