//! One module per subcommand family.

pub mod agree;
pub mod agree_gold;
pub mod agree_plan;
pub mod audit;
pub mod challenge;
pub mod dedup;
pub mod derived;
pub mod init;
pub mod nli;
pub mod partition;
pub mod pii;
pub mod recipe_doc;
pub mod rules;
pub mod run;
pub mod shell;
pub mod stage;
pub mod sts;
pub mod text;
pub mod toxicity;

/// Writes an annotation batch: the long TSV template on stdout, or with `label_studio` a
/// directory holding Label Studio's tasks.json and the kind's labeling-config.xml (never
/// into a release or over what `reads` names).
pub fn write_batch(
    items: &[kcurate_agree::batch::Item],
    annotators: usize,
    kind: &kcurate_agree::batch::BatchKind,
    label_studio: Option<std::path::PathBuf>,
    reads: &crate::output_guard::Reads,
) -> anyhow::Result<()> {
    match label_studio {
        Some(dir) => {
            reads.dir_out(
                "--label-studio",
                &dir,
                &[
                    kcurate_agree::batch::TASKS_JSON,
                    kcurate_agree::batch::LABEL_CONFIG_XML,
                ],
            )?;
            for f in kcurate_agree::batch::write_label_studio(items, kind, &dir)? {
                println!("{}", f.display());
            }
        }
        None => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            kcurate_agree::batch::write_tsv(items, annotators, "annotator", &mut out)?;
            std::io::Write::flush(&mut out)?;
        }
    }
    Ok(())
}

/// A file argument where `-` means stdin: stdin copied to a temporary file (named `name`,
/// kept while the returned directory lives), else the path as given.
pub fn stdin_as_file(
    path: &std::path::Path,
    name: &str,
) -> anyhow::Result<(std::path::PathBuf, Option<tempfile::TempDir>)> {
    use anyhow::Context;
    if path != std::path::Path::new("-") {
        return Ok((path.to_path_buf(), None));
    }
    let dir = tempfile::tempdir().context("a temporary directory for stdin")?;
    let file = dir.path().join(name);
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut bytes).context("-: stdin")?;
    std::fs::write(&file, bytes).with_context(|| file.display().to_string())?;
    Ok((file, Some(dir)))
}

/// The text of the file at `path`, or of stdin for `-` (errors name the path).
pub fn read_text(path: &std::path::Path) -> anyhow::Result<String> {
    use anyhow::Context;
    if path == std::path::Path::new("-") {
        return std::io::read_to_string(std::io::stdin().lock()).context("-: stdin");
    }
    std::fs::read_to_string(path).with_context(|| path.display().to_string())
}

/// The error and its causes on one line, each said once: typed errors already print their
/// source (`{path}: {source}`), so a cause whose text the message already holds is not
/// repeated (`{e:#}` would print `p: X: X`).
pub fn error_chain(e: &anyhow::Error) -> String {
    let mut msg = e.to_string();
    for cause in e.chain().skip(1) {
        let c = cause.to_string();
        if !msg.contains(&c) {
            msg.push_str(": ");
            msg.push_str(&c);
        }
    }
    msg
}

/// The exit status of `finalise` when it refuses what it was given (parts, ingest
/// decisions, verdicts that were read and do not hold together): distinct from 0 and 3
/// (a release written) and from 2 (a file that cannot be read).
pub const REFUSED: u8 = 4;

/// `finalise` refused its input: the message names the file and line (exit [`REFUSED`]).
#[derive(Debug)]
pub struct Refused(pub String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

/// A downstream reader that closed the pipe (`head`, Spark's `pipe`) is not an error.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || c.to_string().contains("Broken pipe")
    })
}

/// A directory argument: stdin and stdout are streams, not directories, so `-` is a usage
/// error (exit 2) naming the flag, instead of a directory named `-` (`./-` is one).
pub fn dir_arg(s: &str) -> Result<std::path::PathBuf, String> {
    if s == "-" {
        return Err("a directory is needed here; `-` (stdin/stdout) cannot be one (write ./- for a directory named -)".into());
    }
    Ok(std::path::PathBuf::from(s))
}

/// A file argument that cannot be stdin or stdout (e.g. a file that is written, then read
/// back, or whose directory matters): `-` is a usage error (exit 2) naming the flag.
pub fn file_arg(s: &str) -> Result<std::path::PathBuf, String> {
    if s == "-" {
        return Err("a file is needed here; `-` (stdin/stdout) cannot be one (write ./- for a file named -)".into());
    }
    Ok(std::path::PathBuf::from(s))
}

/// At most one of the flags may read stdin (`-`): names them when two do.
pub fn one_stdin(flags: &[(&str, &std::path::Path)]) -> anyhow::Result<()> {
    let dash: Vec<&str> = flags
        .iter()
        .filter(|(_, p)| *p == std::path::Path::new("-"))
        .map(|(f, _)| *f)
        .collect();
    if dash.len() > 1 {
        anyhow::bail!(
            "{} cannot all be - (stdin): at most one of them reads stdin",
            dash.join(", ")
        );
    }
    Ok(())
}

/// Threads per core `--threads` may ask for: more only adds scheduling and memory (each
/// thread has a stack and an allocator arena), never speed.
pub const MAX_THREADS_PER_CORE: usize = 4;

/// `--threads`: 0 (every core) up to [`MAX_THREADS_PER_CORE`] × the cores of this machine
/// (at least 8, so a small machine still runs a test's thread count); more is a usage error.
pub fn threads_arg(s: &str) -> Result<usize, String> {
    let n: usize = s.parse().map_err(|e| format!("{e}"))?;
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let max = (MAX_THREADS_PER_CORE * cores).max(8);
    if n > max {
        return Err(format!(
            "at most {max} threads ({MAX_THREADS_PER_CORE} × the {cores} cores of this machine, \
             at least 8); 0 uses every core"
        ));
    }
    Ok(n)
}
