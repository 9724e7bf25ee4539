//! The model file: same data and seed give the same bytes; the file round-trips; a wrong
//! label names file:line:field; imported scores are read with their ids.

use kcurate_toxicity::linear::TrainConfig;
use kcurate_toxicity::model::{ToxicityModel, read_scores, read_tsv, tfidf_config};

const TSV: &str = "comments\tcontain_gender_bias\tbias\thate\n좋은 기사네요\tFalse\tnone\tnone\n여자가 무슨 운전을\tTrue\tgender\toffensive\n다 쓰레기다\tFalse\tothers\thate\n응원합니다\tFalse\tnone\tnone\n";

#[test]
fn training_is_deterministic_and_the_file_round_trips() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("l.tsv");
    std::fs::write(&p, TSV).unwrap();
    let (data, sha) = read_tsv(&p).unwrap();
    let cfg = TrainConfig {
        bits: 12,
        ..Default::default()
    };
    let a = ToxicityModel::train(&data, sha.clone(), &cfg).to_bytes();
    let b = ToxicityModel::train(&data, sha.clone(), &cfg).to_bytes();
    assert_eq!(a, b);
    let other = ToxicityModel::train(
        &data,
        sha,
        &TrainConfig {
            seed: 7,
            ..cfg.clone()
        },
    )
    .to_bytes();
    assert_ne!(a, other, "the seed reaches the model");
    let m = d.path().join("m.bin");
    std::fs::write(&m, &a).unwrap();
    let back = ToxicityModel::load(&m).unwrap();
    assert_eq!(back.to_bytes(), a);
    assert!(String::from_utf8_lossy(&a[..200]).contains("training_data_sha256"));
}

#[test]
fn the_char_wb_model_is_deterministic_converges_and_round_trips() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("l.tsv");
    std::fs::write(&p, TSV).unwrap();
    let (data, sha) = read_tsv(&p).unwrap();
    let m = ToxicityModel::train(&data, sha.clone(), &tfidf_config());
    let a = m.to_bytes();
    assert_eq!(
        a,
        ToxicityModel::train(&data, sha, &tfidf_config()).to_bytes()
    );
    for l in [&m.gender, &m.hate] {
        let s = l.solver.as_ref().unwrap();
        assert!(s.converged && s.iterations > 0, "{s:?}");
        assert!(l.vocab.as_ref().unwrap().len() > 10);
    }
    let f = d.path().join("m.bin");
    std::fs::write(&f, &a).unwrap();
    let back = ToxicityModel::load(&f).unwrap();
    assert_eq!(back.to_bytes(), a);
    assert_eq!(back.score("여자가 운전을"), m.score("여자가 운전을"));
    // Trained on the gender-biased comment, the gender head ranks it above a neutral one.
    assert!(m.score("여자가 무슨 운전을").gender_bias > m.score("좋은 기사네요").gender_bias);
}

#[test]
fn bad_rows_name_file_line_and_field() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("bad.tsv");
    std::fs::write(&p, "comments\tcontain_gender_bias\tbias\thate\n좋다\tFalse\tnone\tnone\n나쁘다\tFalse\tnone\tterrible\n").unwrap();
    let e = read_tsv(&p).err().unwrap().to_string();
    assert!(e.contains("bad.tsv:3: hate"), "{e}");
    let s = d.path().join("s.jsonl");
    std::fs::write(
        &s,
        "{\"id\":\"a\",\"gender_bias\":0.1,\"hate\":0.95}\n{\"id\":\"b\",\"hate\":0.2}\n",
    )
    .unwrap();
    let e = read_scores(&s).err().unwrap().to_string();
    assert!(e.contains("s.jsonl:2: gender_bias"), "{e}");
}
