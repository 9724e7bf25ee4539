//! Each informal-ending splitter rule on a real sentence of
//! `../shared/corpora`, referenced by id and char offset (no corpus text is copied): an
//! NSMC review (`nsmc/raw/<movie>.json`, `review_id`) or a news comment
//! (`korean-hate-speech/labeled/train.tsv`, line number, header = line 1). `cut` is the
//! char offset where a sentence must start; `no_cut` where none may.
//! Run by `make test-shared`.

use kcurate_core::shared_dir as shared;

enum Src {
    Nsmc(&'static str, &'static str),
    Comment(usize),
}

struct Case {
    rule: &'static str,
    src: Src,
    cut: &'static [usize],
    no_cut: &'static [usize],
}

use Src::*;

const CASES: &[Case] = &[
    Case {
        rule: "glued -습니다 + next sentence",
        src: Nsmc("48211", "10020355"),
        cut: &[26],
        no_cut: &[],
    },
    Case {
        rule: "glued -것같다 + next sentence",
        src: Nsmc("49228", "9975870"),
        cut: &[29],
        no_cut: &[],
    },
    Case {
        rule: "glued -겠다 + next sentence; verdict word 굿 before a topic",
        src: Nsmc("34076", "10114043"),
        cut: &[7, 35],
        no_cut: &[],
    },
    Case {
        rule: "glued -하네 + next sentence",
        src: Comment(4142),
        cut: &[21],
        no_cut: &[],
    },
    Case {
        rule: "glued -다 + 느니 goes on",
        src: Comment(216),
        cut: &[],
        no_cut: &[43],
    },
    Case {
        rule: "a run of ㅋ after a noun, inside a word",
        src: Nsmc("52229", "6072655"),
        cut: &[29],
        no_cut: &[],
    },
    Case {
        rule: "a run of ; after a noun, inside a word",
        src: Nsmc("71463", "6047819"),
        cut: &[8],
        no_cut: &[],
    },
    Case {
        rule: "censoring jamo followed by a particle are no tail",
        src: Comment(1994),
        cut: &[],
        no_cut: &[24],
    },
    Case {
        rule: "a run of ~ followed by a copula is no tail",
        src: Comment(431),
        cut: &[],
        no_cut: &[43],
    },
    Case {
        rule: "one ~ inside a word, before a complete sentence",
        src: Nsmc("13386", "9012668"),
        cut: &[67],
        no_cut: &[],
    },
    Case {
        rule: "a comma after a sentence-final ending",
        src: Nsmc("39819", "2073051"),
        cut: &[20],
        no_cut: &[],
    },
    Case {
        rule: "commas ,,, as a pause",
        src: Nsmc("29823", "6948583"),
        cut: &[6],
        no_cut: &[],
    },
    Case {
        rule: "a full stop written against the next word",
        src: Nsmc("44763", "5247361"),
        cut: &[31],
        no_cut: &[],
    },
    Case {
        rule: "a conjunction after an ellipsis, even after a particle",
        src: Nsmc("57278", "7971034"),
        cut: &[22],
        no_cut: &[],
    },
    Case {
        rule: "-다 치더라도 goes on",
        src: Nsmc("105010", "8098399"),
        cut: &[],
        no_cut: &[35],
    },
    Case {
        rule: "-었나 봄 goes on",
        src: Nsmc("36948", "10277154"),
        cut: &[],
        no_cut: &[32],
    },
    Case {
        rule: "a particle after a stray full stop goes on",
        src: Nsmc("24415", "8797967"),
        cut: &[],
        no_cut: &[84],
    },
    Case {
        rule: "a pronoun with a particle before a pause goes on",
        src: Nsmc("38286", "3953679"),
        cut: &[],
        no_cut: &[4],
    },
    Case {
        rule: "two-dot leader as an ellipsis",
        src: Comment(6047),
        cut: &[29],
        no_cut: &[],
    },
    Case {
        rule: "emoticon :) as a tail",
        src: Nsmc("100984", "8616786"),
        cut: &[6],
        no_cut: &[],
    },
    Case {
        rule: "a wish -었으면 closed by a pause",
        src: Nsmc("129016", "10251275"),
        cut: &[13],
        no_cut: &[],
    },
    Case {
        rule: "cute -ㅂ니당 with a laugh, inside a word",
        src: Comment(462),
        cut: &[23],
        no_cut: &[],
    },
    Case {
        rule: "emoji ‼️ is a tail",
        src: Comment(4820),
        cut: &[],
        no_cut: &[80],
    },
    Case {
        rule: "X야 뭐야 goes on",
        src: Comment(593),
        cut: &[],
        no_cut: &[27],
    },
    Case {
        rule: "-는데요 뭘 goes on",
        src: Comment(1682),
        cut: &[],
        no_cut: &[47],
    },
    Case {
        rule: "-시길 응원 goes on",
        src: Comment(5897),
        cut: &[],
        no_cut: &[42],
    },
    Case {
        rule: "-던가 ends a sentence",
        src: Comment(1074),
        cut: &[82],
        no_cut: &[],
    },
    Case {
        rule: "-잖니 ends a sentence; -다 하겠지 goes on",
        src: Comment(3082),
        cut: &[10],
        no_cut: &[66],
    },
    Case {
        rule: "-고 closed by a run of laughter or tears",
        src: Nsmc("18870", "5702467"),
        cut: &[32],
        no_cut: &[],
    },
    Case {
        rule: "-고 closed by a run of tears, before a question",
        src: Nsmc("44025", "2635610"),
        cut: &[22],
        no_cut: &[],
    },
    Case {
        rule: "a quotation closed after a weak ending; a quote opened apart",
        src: Nsmc("73588", "8017529"),
        cut: &[12, 49],
        no_cut: &[],
    },
    Case {
        rule: "one ~ before a sentence adverb (차라리)",
        src: Nsmc("78673", "7799883"),
        cut: &[75],
        no_cut: &[],
    },
    Case {
        rule: "one ~ before a conjunction; -다 생각되지만 goes on",
        src: Nsmc("19073", "9298470"),
        cut: &[90],
        no_cut: &[103],
    },
    Case {
        rule: "the adverb 아예 is no -예 ending",
        src: Nsmc("17150", "9361511"),
        cut: &[],
        no_cut: &[11],
    },
    Case {
        rule: "봄 (saw) after an adverb ends a sentence; 봄 여름 (seasons) goes on",
        src: Nsmc("95808", "8473140"),
        cut: &[25],
        no_cut: &[],
    },
    Case {
        rule: "the season 봄 before another season goes on",
        src: Nsmc("64922", "9470596"),
        cut: &[],
        no_cut: &[2],
    },
    Case {
        rule: "-냐 이게 is an inversion only after 뭐",
        src: Nsmc("96840", "7556759"),
        cut: &[113],
        no_cut: &[],
    },
    Case {
        rule: "an adnominal -한 before a pause goes on",
        src: Nsmc("17025", "9422879"),
        cut: &[],
        no_cut: &[57],
    },
    Case {
        rule: "-이지 (the copula) ends a sentence",
        src: Nsmc("16201", "4208754"),
        cut: &[12],
        no_cut: &[],
    },
    Case {
        rule: "-이지 ends a sentence; -하시지 (a suggestion) too",
        src: Nsmc("83214", "9281383"),
        cut: &[68],
        no_cut: &[],
    },
    Case {
        rule: "뿐이지 goes on to a contrast",
        src: Nsmc("66520", "10087945"),
        cut: &[],
        no_cut: &[13],
    },
    Case {
        rule: "-지 뭐 goes on",
        src: Comment(2141),
        cut: &[],
        no_cut: &[49],
    },
    Case {
        rule: "-겠다 glued to a digit",
        src: Comment(3499),
        cut: &[29],
        no_cut: &[],
    },
    Case {
        rule: "-네요 glued to b급",
        src: Nsmc("17093", "9844913"),
        cut: &[32],
        no_cut: &[],
    },
    Case {
        rule: "a run of ㅋ after a noun, before a digit",
        src: Nsmc("56671", "5072906"),
        cut: &[12],
        no_cut: &[],
    },
    Case {
        rule: "a digit between two hearts is an emoticon",
        src: Nsmc("72089", "7921972"),
        cut: &[],
        no_cut: &[17],
    },
    Case {
        rule: "bb glued after -요 is a thumbs-up tail",
        src: Nsmc("38700", "8910043"),
        cut: &[],
        no_cut: &[8],
    },
    Case {
        rule: "a comma after -던가",
        src: Nsmc("129016", "10251275"),
        cut: &[49],
        no_cut: &[],
    },
    Case {
        rule: "an interjection closed by a glued pause",
        src: Nsmc("84319", "5785214"),
        cut: &[5],
        no_cut: &[],
    },
    Case {
        rule: "one ; then 하여간 glued",
        src: Nsmc("75451", "8027329"),
        cut: &[90],
        no_cut: &[],
    },
    Case {
        rule: "a past-tense question -었니 glued to the next sentence",
        src: Comment(3082),
        cut: &[18],
        no_cut: &[],
    },
    Case {
        rule: "a nominal sentence (adnominal + 영화) before a topic",
        src: Nsmc("19389", "6191123"),
        cut: &[15],
        no_cut: &[],
    },
    Case {
        rule: "a -고 closed by a glued ㅡㅡ ends a sentence",
        src: Nsmc("123609", "9208130"),
        cut: &[29],
        no_cut: &[],
    },
    Case {
        rule: "-더만 (present) ends a sentence",
        src: Nsmc("10024", "7189553"),
        cut: &[58],
        no_cut: &[],
    },
    Case {
        rule: "-더만 after a past tense goes on",
        src: Nsmc("33680", "9559281"),
        cut: &[],
        no_cut: &[120],
    },
    Case {
        rule: "-해여, the cute -해요",
        src: Nsmc("91964", "8989240"),
        cut: &[39],
        no_cut: &[],
    },
    Case {
        rule: "차라리 opens a sentence after a nominal end",
        src: Nsmc("73343", "6260471"),
        cut: &[12],
        no_cut: &[],
    },
    Case {
        rule: "차라리 after a comparison with 보다 goes on",
        src: Nsmc("36401", "3209275"),
        cut: &[],
        no_cut: &[36],
    },
    Case {
        rule: "a digit after ^^ and a syllable",
        src: Nsmc("135806", "10004612"),
        cut: &[24],
        no_cut: &[],
    },
    Case {
        rule: "-듯 할 goes on",
        src: Nsmc("106559", "9075938"),
        cut: &[],
        no_cut: &[17],
    },
    Case {
        rule: "-다 치지만, -다 뭐다 go on",
        src: Nsmc("24415", "9054892"),
        cut: &[],
        no_cut: &[56, 85],
    },
    Case {
        rule: "-다 느끼게 goes on",
        src: Nsmc("129016", "10210177"),
        cut: &[],
        no_cut: &[61],
    },
    Case {
        rule: "-ㄹ게 아니다 goes on",
        src: Nsmc("31882", "10270638"),
        cut: &[],
        no_cut: &[42],
    },
    Case {
        rule: "-거라 생각 goes on",
        src: Nsmc("71915", "9254424"),
        cut: &[],
        no_cut: &[44],
    },
    Case {
        rule: "-다 이러고 goes on",
        src: Nsmc("69945", "8414583"),
        cut: &[],
        no_cut: &[34],
    },
];

fn text_of(src: &Src, comments: &[String]) -> String {
    match src {
        Nsmc(movie, id) => {
            let p = shared().join(format!("corpora/nsmc/raw/{movie}.json"));
            let v: Vec<serde_json::Value> =
                serde_json::from_slice(&std::fs::read(&p).expect("nsmc file")).expect("json");
            v.iter()
                .find(|r| r["review_id"] == *id)
                .and_then(|r| r["review"].as_str())
                .expect("review")
                .to_string()
        }
        Comment(line) => {
            let f = comments[line - 1].split('\t').next().expect("field");
            match f.strip_prefix('"').and_then(|x| x.strip_suffix('"')) {
                Some(q) => q.replace("\"\"", "\""),
                None => f.to_string(),
            }
        }
    }
}

#[test]
#[ignore = "needs ../shared: make test-shared"]
fn each_rule_on_a_real_sentence() {
    let tsv =
        std::fs::read_to_string(shared().join("corpora/korean-hate-speech/labeled/train.tsv"))
            .expect("comments");
    let comments: Vec<String> = tsv.split('\n').map(str::to_string).collect();
    let mut failed = Vec::new();
    for c in CASES {
        let text = text_of(&c.src, &comments);
        let starts: Vec<usize> = kcurate_text::split_sentences(&text)
            .iter()
            .skip(1)
            .map(|&(s, _)| text[..s].chars().count())
            .collect();
        for &k in c.cut {
            if !starts.contains(&k) {
                failed.push(format!("{}: no cut at {k} (cuts {starts:?})", c.rule));
            }
        }
        for &k in c.no_cut {
            if starts.contains(&k) {
                failed.push(format!("{}: a cut at {k}", c.rule));
            }
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
