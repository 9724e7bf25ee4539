//! `{"id","text"}` JSONL on stdin → predicted spans on stdout (the scorer's input).
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let stdin = std::io::stdin().lock();
    let stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let bad = kcurate_pii::jsonl::detect_jsonl(stdin, stdout)?;
    for b in bad {
        eprintln!("{b}");
    }
    Ok(())
}
