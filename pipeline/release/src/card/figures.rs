//! The card's Key figures: a stage's reported figure as rows a reader can read, never as
//! raw JSON. A nested object becomes one row per leaf (`contamination.dev_near`), a list of
//! scalars one comma-separated value.

use serde_json::Value;

/// `(name, value)` rows of one figure, in the order the manifest holds its keys: the figure itself when it is a scalar or a list of
/// scalars, else one row per leaf of its objects, named by the path to it.
pub(super) fn rows(name: &str, v: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    walk(name, v, &mut out);
    out
}

fn walk(name: &str, v: &Value, out: &mut Vec<(String, String)>) {
    match v {
        Value::Object(o) if !o.is_empty() => {
            for (k, x) in o {
                walk(&format!("{name}.{k}"), x, out);
            }
        }
        Value::Array(a) if a.iter().any(|x| x.is_object() || x.is_array()) => {
            for (i, x) in a.iter().enumerate() {
                walk(&format!("{name}[{i}]"), x, out);
            }
        }
        _ => out.push((name.to_string(), scalar(v))),
    }
}

/// A scalar as a reader writes it: a string without quotes, a list of scalars joined,
/// an empty object or list as `none`.
fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "not measured".into(),
        Value::Array(a) if a.is_empty() => "none".into(),
        Value::Object(_) => "none".into(),
        Value::Array(a) => a.iter().map(scalar).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

/// `n` with the noun in the singular for one and the plural otherwise (`1 decision`,
/// `2 decisions`); the plural is the noun with `s`.
pub(crate) fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn objects_become_one_row_per_leaf_and_no_row_holds_json() {
        let r = rows(
            "contamination",
            &json!({"dev_near": 11, "test_near": 17, "by": {"a": "x"}}),
        );
        assert_eq!(
            r,
            vec![
                ("contamination.dev_near".to_string(), "11".to_string()),
                ("contamination.test_near".to_string(), "17".to_string()),
                ("contamination.by.a".to_string(), "x".to_string()),
            ]
        );
        assert_eq!(rows("c", &json!({})), vec![("c".into(), "none".into())]);
        assert_eq!(
            rows("a", &json!([0.5, 0.9])),
            vec![("a".into(), "0.5, 0.9".into())]
        );
        assert_eq!(rows("s", &json!("α")), vec![("s".into(), "α".into())]);
    }

    #[test]
    fn one_is_singular_and_other_counts_plural() {
        assert_eq!(count(1, "decision"), "1 decision");
        assert_eq!(count(0, "decision"), "0 decisions");
        assert_eq!(count(2, "PII span"), "2 PII spans");
    }
}
