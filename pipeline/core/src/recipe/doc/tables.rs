//! The tables of the recipe reference (see [`super`]): the text `kcurate recipe --doc` prints.

use super::{KeyDoc, NONE, REQUIRED, TableDoc, k};

/// Every table of a recipe except `[[stage]]` (whose settings each stage documents).
pub static TABLES: &[TableDoc] = &[
    TableDoc {
        header: "",
        about: "The release's identity and the run's policy.",
        keys: TOP,
    },
    TableDoc {
        header: "[[source]]",
        about: "One table per input corpus: a file or a directory of files, its format and \
                licence. Files compressed with gzip or zstd are read decompressed (found by \
                their magic bytes, not their name).",
        keys: SOURCE,
    },
    TableDoc {
        header: "[source.fields]",
        about: "Which input fields become the record's text, id, date and label. JSONL and \
                JSON name object keys; TSV/CSV name columns (the header's, or `columns`); a \
                `txt` source has one field, the line, so only `text` may be set (its name is \
                the record's text field; `text = \"text\"` is usual).",
        keys: FIELDS,
    },
    TableDoc {
        header: "[limits]",
        about: "How large an input may be before it becomes an `ingest.over_limit` decision \
                naming file:line (never a crash or an out-of-memory kill).",
        keys: LIMITS,
    },
    TableDoc {
        header: "[split]",
        about: "The seeded hash split of records no task stage assigned (a record's split \
                never depends on order or thread count).",
        keys: SPLIT,
    },
    TableDoc {
        header: "[split.names]",
        about: "The name each split role is released under (files, manifest, card, report).",
        keys: SPLIT_NAMES,
    },
    TableDoc {
        header: "[task]",
        about: "What the release holds, and the Hugging Face metadata its card declares. \
                Without `[task]` the release is `sentences` (text-classification).",
        keys: TASK,
    },
    TableDoc {
        header: "[audit]",
        about: "The curators' judgements of the release's own decisions.",
        keys: AUDIT,
    },
    TableDoc {
        header: "[release]",
        about: "Statements about the release no stage makes.",
        keys: RELEASE,
    },
];

const TOP: &[KeyDoc] = &[
    k(
        "name",
        "string",
        REQUIRED,
        "A-Z a-z 0-9 . _ + -, at most 128, not starting with .",
        "name = \"my-corpus\"",
        "The release name: a directory under `--out`.",
    ),
    k(
        "version",
        "string",
        REQUIRED,
        "as `name`",
        "version = \"1.0.0\"",
        "The release version: a directory under the name.",
    ),
    k(
        "description",
        "string",
        "\"\"",
        "-",
        "description = \"Sentences from ...\"",
        "One paragraph for the dataset card.",
    ),
    k(
        "seed",
        "integer",
        REQUIRED,
        "0..2^64",
        "seed = 42",
        "The seed of every seeded choice (splits, samples, folds, model training).",
    ),
    k(
        "on_error",
        "string",
        "\"quarantine\"",
        "\"quarantine\", \"fail\"",
        "on_error = \"fail\"",
        "What a malformed input line does: becomes an `ingest.malformed` decision and the run goes on (exit 3), or stops the run.",
    ),
];

const SOURCE: &[KeyDoc] = &[
    k(
        "id",
        "string",
        REQUIRED,
        "A-Z a-z 0-9 _ -, unique in the recipe",
        "id = \"reviews\"",
        "The source id; it scopes record ids (`<id>-<record id>`).",
    ),
    k(
        "path",
        "string",
        REQUIRED,
        "a file or a directory",
        "path = \"../data/reviews.jsonl.gz\"",
        "A file, or a directory of files (for `jsonl` and `json` those named `*.jsonl` / `*.json`, also `.gz`/`.zst`). Relative paths resolve against the recipe's directory (`--root` overrides it).",
    ),
    k(
        "format",
        "string",
        REQUIRED,
        "\"jsonl\", \"json\", \"tsv\", \"csv\", \"txt\"",
        "format = \"tsv\"",
        "`jsonl`: one JSON object a line; `json`: a JSON array of objects per file; `tsv`/`csv`: tab- or comma-separated values; `txt`: plain text, one record a line.",
    ),
    k(
        "fields",
        "table",
        REQUIRED,
        "see [source.fields]",
        "fields = { text = \"text\" }",
        "Which input fields become which record fields (usually written as a `[source.fields]` table).",
    ),
    k(
        "license",
        "string",
        NONE,
        "CC0-1.0, CC-BY-x, CC-BY-SA-x, public-domain, KOGL-Type1 pass the gate",
        "license = \"CC-BY-SA-4.0\"",
        "The corpus licence (SPDX id). The licence gate refuses a missing, unknown, non-commercial or no-derivatives licence: the run records a `license.not_allowed` decision and builds the release without the source; `kcurate check` warns.",
    ),
    k(
        "domain",
        "string",
        REQUIRED,
        "any (`news`, `reviews`, ...)",
        "domain = \"reviews\"",
        "The source's domain: stages choose rules by it (noise's `news_domains`, toxicity's `domains`).",
    ),
    k(
        "style",
        "string",
        REQUIRED,
        "\"formal\", \"colloquial\"",
        "style = \"colloquial\"",
        "The register: edited text (news, Wikipedia) or user text (reviews, comments).",
    ),
    k(
        "attribution",
        "string",
        "\"\"",
        "-",
        "attribution = \"NSMC, Lucy Park\"",
        "The attribution the dataset card prints.",
    ),
    k(
        "header",
        "boolean",
        "true",
        "-",
        "header = false",
        "TSV/CSV: whether the first row names the columns. Without a header, `columns` names them.",
    ),
    k(
        "columns",
        "array of strings",
        "[]",
        "one name per column",
        "columns = [\"id\", \"text\", \"label\"]",
        "TSV/CSV without a header: the column names, in order.",
    ),
    k(
        "quote",
        "boolean",
        NONE,
        "true for CSV, false for TSV when not set",
        "quote = true",
        "TSV/CSV: whether `\"` quotes fields (a quoted field may hold the delimiter, a newline, and `\"\"` for one quote). Not set: true for CSV, false for TSV, because real TSV corpora carry bare quotes inside text. A TSV whose fields are all quoted needs `quote = true`, or the quotes stay in the text (`kcurate check` warns).",
    ),
    k(
        "max_record_bytes",
        "integer",
        NONE,
        "at least 1",
        "max_record_bytes = 1048576",
        "This source's record size limit in bytes (not set: `[limits] max_record_bytes`).",
    ),
    k(
        "limit",
        "integer",
        "0",
        "0 = all",
        "limit = 1000",
        "Read at most this many records of the source: a quick preview of a large corpus.",
    ),
    k(
        "hf_id",
        "string",
        NONE,
        "a Hugging Face Hub dataset id",
        "hf_id = \"nsmc\"",
        "The upstream dataset this source is a copy of; the card lists it in `source_datasets` as `extended|<hf_id>`.",
    ),
    k(
        "original",
        "boolean",
        "false",
        "-",
        "original = true",
        "The text was written or collected for this dataset: the card lists the source in `source_datasets` as `original` (a source that is neither this nor a Hub dataset is `extended|other-<id>`).",
    ),
];

const FIELDS: &[KeyDoc] = &[
    k(
        "text",
        "string",
        REQUIRED,
        "a field of the input",
        "text = \"document\"",
        "The field that becomes the record's text.",
    ),
    k(
        "id",
        "string",
        NONE,
        "a field of the input",
        "id = \"review_id\"",
        "The field that becomes the record's id (scoped by the source id). Not set: the record gets an id from its file and line.",
    ),
    k(
        "date",
        "string",
        NONE,
        "a field of the input",
        "date = \"published\"",
        "The field that becomes the record's date (YYYY-MM-DD, YYYY.MM.DD, YYYY/MM/DD or YY.MM.DD, a time after it allowed; released as YYYY-MM-DD; another value makes the record malformed).",
    ),
    k(
        "label",
        "string",
        NONE,
        "a field of the input",
        "label = \"rating\"",
        "The field that becomes the record's label (a `label` column of the release).",
    ),
    k(
        "extra",
        "array of strings",
        "[]",
        "fields of the input",
        "extra = [\"title\", \"topic\"]",
        "Fields carried along in the record's `fields` (released as columns).",
    ),
    k(
        "optional",
        "array of strings",
        "[]",
        "names among id, date, label",
        "optional = [\"date\"]",
        "Mapped fields that may be missing from a record without making it malformed.",
    ),
];

const LIMITS: &[KeyDoc] = &[
    k(
        "max_line_bytes",
        "integer",
        "16777216",
        "at least 1",
        "max_line_bytes = 1048576",
        "Longest input line in bytes (JSONL, text, TSV/CSV); a longer line is skipped to its newline, not read.",
    ),
    k(
        "max_record_bytes",
        "integer",
        "16777216",
        "at least 1",
        "max_record_bytes = 4194304",
        "Largest record in bytes: a JSONL line, a TSV/CSV row (quoted fields may span lines), a JSON-array element (a JSON-array file may be 4× this).",
    ),
    k(
        "max_depth",
        "integer",
        "64",
        "1..128",
        "max_depth = 32",
        "Deepest nesting of JSON arrays and objects in a record, the record's own object counting 1.",
    ),
    k(
        "max_annotators_per_item",
        "integer",
        "1000",
        "at least 1",
        "max_annotators_per_item = 50",
        "Most annotators of one item in an annotation file a stage reads; a further annotator's rows become `agree.too_many_annotators` decisions.",
    ),
];

const SPLIT: &[KeyDoc] = &[
    k(
        "train",
        "float",
        "0.8",
        "0..1; train + dev + test = 1",
        "train = 0.9",
        "Share of records in the train split.",
    ),
    k(
        "dev",
        "float",
        "0.1",
        "0..1 (`validation` is the same key)",
        "dev = 0.05",
        "Share of records in the held-out split.",
    ),
    k(
        "test",
        "float",
        "0.1",
        "0..1",
        "test = 0.05",
        "Share of records in the test split.",
    ),
    k(
        "names",
        "table",
        "{ train = \"train\", dev = \"validation\", test = \"test\" }",
        "see [split.names]",
        "names = { dev = \"dev\" }",
        "The names the three splits get in the release.",
    ),
];

const SPLIT_NAMES: &[KeyDoc] = &[
    k(
        "train",
        "string",
        "\"train\"",
        "a file name, distinct from the others",
        "train = \"train\"",
        "The train split's released name.",
    ),
    k(
        "dev",
        "string",
        "\"validation\"",
        "a file name, distinct from the others",
        "dev = \"dev\"",
        "The held-out split's released name (KLUE says `dev`).",
    ),
    k(
        "test",
        "string",
        "\"test\"",
        "a file name, distinct from the others",
        "test = \"test\"",
        "The test split's released name.",
    ),
];

const TASK: &[KeyDoc] = &[
    k(
        "name",
        "string",
        REQUIRED,
        "a directory name; `nli`, `sts`, `tc` have task defaults",
        "name = \"tc\"",
        "The directory inside the release, and the kind of task (which card defaults apply).",
    ),
    k(
        "task_categories",
        "array of strings",
        "[]",
        "Hugging Face task categories",
        "task_categories = [\"text-classification\"]",
        "The card's `task_categories` (a recipe without `[task]` declares `text-classification`).",
    ),
    k(
        "task_ids",
        "array of strings",
        "[]",
        "Hugging Face task ids",
        "task_ids = [\"sentiment-classification\"]",
        "The card's `task_ids` (empty: from the task name: nli, sts, tc).",
    ),
    k(
        "annotations_creators",
        "array of strings",
        "[]",
        "crowdsourced, expert-generated, found, machine-generated, no-annotation, other",
        "annotations_creators = [\"found\"]",
        "The card's `annotations_creators` (empty: `no-annotation` for `sentences`, else `machine-generated`).",
    ),
    k(
        "language_creators",
        "array of strings",
        "[]",
        "as annotations_creators",
        "language_creators = [\"found\"]",
        "The card's `language_creators` (empty: `found`, and `machine-generated` too for `nli`).",
    ),
    k(
        "class_labels",
        "table of arrays",
        "{}",
        "column → names in class-index order",
        "class_labels = { label = [\"0\", \"1\"] }",
        "Label columns whose values are a closed set: the card declares them `ClassLabel`, and the run refuses a written value outside the set (empty: `nli` and `tc` defaults).",
    ),
];

const AUDIT: &[KeyDoc] = &[
    k(
        "judgements",
        "string",
        NONE,
        "a TSV from `kcurate audit sample`, or a Label Studio export",
        "judgements = \"audit/judged.tsv\"",
        "Curators' judgements of a sample of each rule's decisions: the card and report show each rule's precision with its Wilson 95% interval. An input of the run (hashed in the manifest).",
    ),
    k(
        "count_carried",
        "boolean",
        "false",
        "-",
        "count_carried = true",
        "Count judgements made on another build (found by their text) in this release's figures.",
    ),
];

const RELEASE: &[KeyDoc] = &[
    k(
        "pii",
        "string",
        NONE,
        "\"none\"",
        "pii = \"none\"",
        "The recipe releases its text without a `pii` stage on purpose (else `kcurate check` warns).",
    ),
    k(
        "pii_reason",
        "string",
        NONE,
        "required with pii = \"none\"",
        "pii_reason = \"synthetic text\"",
        "Why no `pii` stage is needed; the card prints it.",
    ),
    k(
        "motivation",
        "string",
        NONE,
        "-",
        "motivation = \"A benchmark of ...\"",
        "Why this dataset was built, for whom and for what (the card's Motivation; without it `kcurate check` warns); a shipped recipe's motivation copied into a recipe for another dataset is refused.",
    ),
];
