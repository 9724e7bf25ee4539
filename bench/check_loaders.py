"""Loads every split of a release with `datasets` (JSONL) and polars (Parquet) and checks
both give the manifest's row counts."""
import json, sys, pathlib
import datasets, polars as pl

rel = pathlib.Path(sys.argv[1])
m = json.loads((rel / "manifest.json").read_text())
datasets.disable_progress_bars()
for task, splits in m["splits"].items():
    for split, n in splits.items():
        j = rel / task / f"{split}.jsonl"
        p = rel / task / f"{split}.parquet"
        if n:
            ds = datasets.load_dataset("json", data_files=str(j), split="train")
            assert len(ds) == n, (j, len(ds), n)
        df = pl.read_parquet(p)
        assert df.height == n, (p, df.height, n)
        print(f"{task}/{split}: datasets {n if n else 0} rows, polars {df.height} rows")
dec = pl.read_parquet(rel / "audit" / "decisions.parquet")
print(f"audit/decisions.parquet: {dec.height} decisions, columns {dec.columns}")
print("loaders: ok")
