//! The polars engine of `kcurate audit` (feature `polars`): the per-rule counts as a lazy
//! query over `audit/decisions.parquet` — scan, project the four columns, filter, group by
//! (stage, rule, source, action), count. Same result as the column scan of [`crate::scan`]
//! (tests compare them); the group order polars returns is discarded by the sorted map.

use crate::AuditError;
use crate::scan::{Counts, Where};
use polars::prelude::*;
use std::path::Path;

fn polars_err(path: &Path) -> impl Fn(PolarsError) -> AuditError + '_ {
    move |e| AuditError::Parse {
        path: path.display().to_string(),
        line: 0,
        message: e.to_string(),
    }
}

/// Decisions per (stage, rule, source): drop, edit, flag — by a polars lazy query.
pub fn counts(parquet: &Path, filter: &Where) -> Result<Counts, AuditError> {
    let err = polars_err(parquet);
    let path = PlRefPath::try_from_path(parquet).map_err(&err)?;
    let mut lf = LazyFrame::scan_parquet(path, ScanArgsParquet::default()).map_err(&err)?;
    let schema = lf.collect_schema().map_err(&err)?;
    let keys = ["stage", "rule", "source", "action"];
    if keys.iter().any(|k| schema.get(k).is_none()) {
        // An empty decision file has no decision columns.
        return Ok(Counts::new());
    }
    let mut q = lf.select(keys.map(col));
    for (name, want) in [
        ("stage", &filter.stage),
        ("rule", &filter.rule),
        ("source", &filter.source),
    ] {
        if let Some(v) = want {
            q = q.filter(col(name).eq(lit(v.as_str())));
        }
    }
    let df = q
        .group_by(keys.map(col))
        .agg([len().cast(DataType::UInt64).alias("n")])
        .collect()
        .map_err(&err)?;
    let text = |name: &str| -> Result<Vec<String>, AuditError> {
        Ok(df
            .column(name)
            .and_then(|c| c.str())
            .map_err(&err)?
            .iter()
            .map(|v| v.unwrap_or("").to_string())
            .collect())
    };
    let (stage, rule, source, action) = (
        text("stage")?,
        text("rule")?,
        text("source")?,
        text("action")?,
    );
    let n: Vec<u64> = df
        .column("n")
        .and_then(|c| c.u64())
        .map_err(&err)?
        .iter()
        .map(|v| v.unwrap_or(0))
        .collect();
    let mut out = Counts::new();
    for i in 0..n.len() {
        let slot = match action[i].as_str() {
            "drop" => 0,
            "edit" => 1,
            _ => 2,
        };
        out.entry((stage[i].clone(), rule[i].clone(), source[i].clone()))
            .or_default()[slot] += n[i];
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polars_counts_equal_the_column_scan_with_and_without_filters() {
        let d = tempfile::tempdir().unwrap();
        let (_, p) = crate::scan::write_decisions(d.path(), 70_000);
        for f in crate::scan::filters() {
            let (scanned, _) = crate::scan::scan(&p, &f, 0, 1).unwrap();
            assert_eq!(counts(&p, &f).unwrap(), scanned, "{f:?}");
        }
    }
}
