//! `cargo run --example split < in.jsonl > out.jsonl`: the library behind `kcurate text split`.
fn main() {
    let stdin = std::io::stdin().lock();
    let stdout = std::io::BufWriter::new(std::io::stdout().lock());
    match kcurate_text::split_jsonl(stdin, stdout) {
        Ok(rep) => {
            for b in &rep.bad {
                eprintln!("stdin: {b}");
            }
            if !rep.bad.is_empty() {
                std::process::exit(1);
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
