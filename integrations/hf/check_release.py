"""Loads a kcurate release the ways Hugging Face users do and checks it against its card.

Forms: the release directory (`load_dataset(DIR)`: the card's `configs` point at the JSONL
files and its `dataset_info` features apply), the JSONL files (`load_dataset("json")`) and
the Parquet twins (`load_dataset("parquet")`). Each form must give, per split, the card's
`num_examples` rows and the card's `features` (a ClassLabel column of the card is a string
column of names in the plain files), and no form may emit a warning: any Python warning or
any WARNING logged by datasets / huggingface_hub fails the check.

Usage: python check_release.py RELEASE_DIR   (exit 0 when every form agrees)
"""
import json
import logging
import pathlib
import sys
import warnings

import datasets
import yaml


class Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.records = []

    def emit(self, record):
        self.records.append(f"{record.name}: {record.getMessage()}")


def front_matter(card: str) -> dict:
    if not card.startswith("---\n"):
        raise SystemExit("README.md has no YAML front matter")
    return yaml.safe_load(card[4 : card.index("\n---\n", 4)])


def plain(features: datasets.Features) -> datasets.Features:
    """The features as plain JSONL/Parquet files hold them: ClassLabel columns are strings."""
    return datasets.Features(
        {
            k: datasets.Value("string") if isinstance(v, datasets.ClassLabel) else v
            for k, v in features.items()
        }
    )


def main(rel: pathlib.Path) -> int:
    meta = front_matter((rel / "README.md").read_text(encoding="utf-8"))
    manifest = json.loads((rel / "manifest.json").read_text(encoding="utf-8"))
    datasets.disable_progress_bars()
    datasets.logging.set_verbosity_warning()
    handler = Collect()
    for name in ("datasets", "huggingface_hub", "fsspec"):
        logging.getLogger(name).addHandler(handler)
    problems = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for info in meta["dataset_info"]:
            config = info["config_name"]
            want_features = datasets.Features._from_yaml_list(info["features"])
            want_rows = {s["name"]: s["num_examples"] for s in info["splits"]}
            if want_rows != manifest["splits"][config]:
                problems.append(f"{config}: card rows {want_rows} != manifest {manifest['splits'][config]}")
            files = {s: rel / config / f"{s}.jsonl" for s in want_rows}
            forms = {
                "directory": lambda: datasets.load_dataset(str(rel), config, cache_dir=str(cache)),
                "jsonl": lambda: datasets.load_dataset(
                    "json",
                    data_files={s: str(p) for s, p in files.items() if want_rows[s]},
                    cache_dir=str(cache),
                ),
                "parquet": lambda: datasets.load_dataset(
                    "parquet",
                    data_files={s: str(p.with_suffix(".parquet")) for s, p in files.items() if want_rows[s]},
                    cache_dir=str(cache),
                ),
            }
            for form, load in forms.items():
                ds = load()
                expect = want_features if form == "directory" else plain(want_features)
                for split, n in want_rows.items():
                    if n == 0 and form != "directory":
                        continue
                    got = ds[split]
                    if got.num_rows != n:
                        problems.append(f"{config}/{split} {form}: {got.num_rows} rows, card says {n}")
                    if form == "jsonl":
                        # Plain JSONL carries no types: what pyarrow infers (ISO dates as
                        # timestamps) must cast to the card's features without loss.
                        got = got.cast(expect)
                    if got.features != expect:
                        problems.append(
                            f"{config}/{split} {form}: features {got.features} != card {expect}"
                        )
                    first = got[0] if n else {}
                    if "date" in expect and n:
                        dates = [d for d in got["date"] if d is not None]
                        if dates and not all(hasattr(d, "isoformat") and len(str(d)) == 10 for d in dates):
                            problems.append(f"{config}/{split} {form}: dates {dates[:3]} are not calendar dates")
                print(f"{config} {form}: " + ", ".join(f"{s} {ds[s].num_rows}" for s in ds), flush=True)
            print(f"{config}: features {dict((k, str(v)) for k, v in want_features.items())}")
    for w in caught:
        problems.append(f"warning: {w.category.__name__}: {w.message}")
    problems.extend(f"logged: {r}" for r in handler.records)
    for p in problems:
        print(p, file=sys.stderr)
    print(f"{len(problems)} problem(s)" if problems else "datasets: every form agrees with the card, no warning")
    return 1 if problems else 0


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        cache = pathlib.Path(tmp)
        sys.exit(main(pathlib.Path(sys.argv[1])))
