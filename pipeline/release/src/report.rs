//! `report.html`: a self-contained page (inline SVG, no scripts, no network) with the stage
//! funnel, decisions per rule and per source, a few examples of what each rule touched
//! (scrubbed of PII like the audit, HTML-escaped), per-rule precision when the recipe names
//! judgements, split sizes, text lengths per split, the label distribution per split and
//! source, the gold score histogram per split, and the figures stages reported. Every
//! number on it comes from the manifest or the split files.

use crate::manifest::Manifest;
use crate::split_facts::{SCORE_BIN, SplitFacts};
use kcurate_core::{Action, Decision};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// One decision shown as an example of its rule: what a drop removed, or an edit's
/// before and after, or a flag's detail.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleExample {
    /// The item the decision is on.
    pub item: String,
    /// Drop, edit or flag.
    pub action: Action,
    /// What the drop removed, the text an edit changed, or a flag's detail.
    pub text: String,
    /// An edit's replacement.
    pub after: Option<String>,
}

impl RuleExample {
    /// The example a decision makes (the span of an edit, else its text or detail).
    pub fn of(d: &Decision) -> Self {
        let (text, after) = match (&d.text, &d.span) {
            (Some(t), _) => (t.clone(), None),
            (None, Some(sp)) => (sp.before.clone(), Some(sp.after.clone())),
            (None, None) => (d.detail.clone(), None),
        };
        RuleExample {
            item: d.item.clone(),
            action: d.action,
            text,
            after,
        }
    }
}

/// The longest example text the report shows, in characters.
const SHOWN_CHARS: usize = 200;

fn shown(s: &str) -> String {
    let mut out: String = s.chars().take(SHOWN_CHARS).collect();
    if s.chars().nth(SHOWN_CHARS).is_some() {
        out.push('…');
    }
    esc(&out)
}

/// The examples section: per rule (in rule order), its examples.
fn examples_table(examples: &BTreeMap<String, Vec<RuleExample>>) -> String {
    let mut h = String::from(
        "<h2>What each rule touched</h2><p>A few decisions per rule (the smallest seeded hashes), with the text a drop removed or an edit's before → after; <code>kcurate audit RELEASE --rule R --sample N --show-text</code> shows more.</p><table id=\"examples\"><tr><th>rule</th><th>action</th><th>item</th><th>text</th></tr>",
    );
    for (rule, xs) in examples {
        for x in xs {
            let text = match &x.after {
                Some(a) => format!("<del>{}</del> → <ins>{}</ins>", shown(&x.text), shown(a)),
                None => shown(&x.text),
            };
            let _ = write!(
                h,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"t\">{text}</td></tr>",
                esc(rule),
                x.action.as_str(),
                esc(&x.item)
            );
        }
    }
    h.push_str("</table>");
    h
}

/// Per-rule precision lines for the card and the report: this release's judged rules with
/// their Wilson interval, then the rules with drops or edits (or with judgements that name
/// no decision of this release) that are not judged in it. A rule's judgements carried by
/// text from another build and its stale ones are named on its line, never counted.
pub fn precision_lines(m: &Manifest) -> Vec<String> {
    let notes = |r: &str, p: Option<&crate::precision::RulePrecision>| {
        m.judged.as_ref().map(|c| c.notes(r, p)).unwrap_or_default()
    };
    let judged = |r: &str| m.rule_precision.get(r).is_some_and(|p| p.judged > 0);
    let mut lines: Vec<String> = m
        .rule_precision
        .iter()
        .filter(|(r, _)| judged(r))
        .map(|(r, p)| format!("rule {r}: {}{}", p.summary(), notes(r, Some(p))))
        .collect();
    let mut rest: BTreeSet<&str> = m
        .stages
        .iter()
        .flat_map(|s| s.stats.rules.iter())
        .filter(|(_, c)| c.drop + c.edit > 0)
        .map(|(r, _)| r.as_str())
        .collect();
    if let Some(c) = &m.judged {
        rest.extend(c.carried.keys().chain(c.stale.keys()).map(String::as_str));
    }
    lines.extend(
        rest.into_iter()
            .filter(|r| !judged(r))
            .map(|r| format!("rule {r}: not judged{}", notes(r, None))),
    );
    lines
}

/// What the card and the report say before the rules' figures: how much of the release is
/// judged, and a warning when the judgements file names no decision of it.
pub fn coverage_lines(m: &Manifest) -> Vec<String> {
    m.judged.as_ref().map(|c| c.lines()).unwrap_or_default()
}

fn esc(s: &str) -> String {
    kcurate_core::text::escape_markup(s, kcurate_core::text::Quotes::Double)
}

/// A horizontal bar chart as inline SVG.
/// One funnel per unit (documents, sentences, pairs, examples), in the order the units
/// appear: a stage is in a unit's funnel when it receives or passes on that unit. A count
/// in another unit is not shown in this one; the cell names the unit the stage turned its
/// items into (split: documents → sentences) or made them from.
fn funnels(m: &Manifest) -> String {
    let mut units: Vec<&str> = Vec::new();
    for s in &m.stages {
        for u in [s.stats.unit_in.as_str(), s.stats.unit_out.as_str()] {
            if !u.is_empty() && !units.contains(&u) {
                units.push(u);
            }
        }
    }
    let mut h = String::from("<h2>Stage funnels</h2>");
    for unit in units {
        let u = esc(unit);
        let _ = write!(
            h,
            "<h3>{u}</h3><table id=\"funnel-{u}\" class=\"funnel\"><tr><th>stage</th><th>{u} in</th><th>{u} out</th><th>{u} dropped</th></tr>"
        );
        let mut chart = Vec::new();
        for s in &m.stages {
            let (ins, outs) = (s.stats.unit_in == unit, s.stats.unit_out == unit);
            if !ins && !outs {
                continue;
            }
            let other = |mine: bool, n: u64, theirs: &str| {
                if mine {
                    n.to_string()
                } else {
                    format!("{n} {}", esc(theirs))
                }
            };
            let _ = write!(
                h,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&s.name),
                other(ins, s.stats.items_in, &s.stats.unit_in),
                other(outs, s.stats.items_out, &s.stats.unit_out),
                other(ins, s.stats.dropped, &s.stats.unit_in)
            );
            if outs {
                chart.push((s.name.clone(), s.stats.items_out));
            }
        }
        h.push_str("</table>");
        h.push_str(&bars(&chart, &format!("funnel-chart-{unit}")));
    }
    h
}

fn bars(rows: &[(String, u64)], id: &str) -> String {
    let max = rows.iter().map(|r| r.1).max().unwrap_or(1).max(1);
    let h = 22 * rows.len() + 10;
    let id = esc(id);
    let mut s = format!("<svg id=\"{id}\" width=\"720\" height=\"{h}\" role=\"img\">");
    for (i, (label, v)) in rows.iter().enumerate() {
        let w = (*v as f64 / max as f64 * 380.0).round() as u64;
        let y = 5 + i * 22;
        let _ = write!(
            s,
            "<text x=\"0\" y=\"{}\" font-size=\"12\">{}</text><rect x=\"260\" y=\"{y}\" width=\"{w}\" height=\"16\" fill=\"#4a78b5\"/><text x=\"{}\" y=\"{}\" font-size=\"12\" class=\"n\">{v}</text>",
            y + 12,
            esc(label),
            265 + w,
            y + 12
        );
    }
    s.push_str("</svg>");
    s
}

/// Label distribution per split (a table by source, and bars of the split's totals) and
/// the gold score histogram per split.
fn split_facts_html(f: &SplitFacts) -> String {
    let mut h = String::new();
    if !f.labels.is_empty() {
        h.push_str("<h2>Labels per split and source</h2><table id=\"labels\"><tr><th>split</th><th>source</th><th>label</th><th>rows</th><th>share of split</th></tr>");
        for (split, sources) in &f.labels {
            let total: u64 = sources.values().flat_map(|l| l.values()).sum();
            for (source, labels) in sources {
                for (label, n) in labels {
                    let _ = write!(
                        h,
                        "<tr><td>{}</td><td class=\"t\">{}</td><td class=\"t\">{}</td><td>{n}</td><td>{:.1}%</td></tr>",
                        esc(split),
                        esc(source),
                        esc(label),
                        100.0 * *n as f64 / total.max(1) as f64
                    );
                }
            }
        }
        h.push_str("</table>");
        for (split, sources) in &f.labels {
            let mut totals: BTreeMap<&str, u64> = BTreeMap::new();
            for (label, n) in sources.values().flat_map(|l| l.iter()) {
                *totals.entry(label).or_default() += n;
            }
            let _ = write!(h, "<h3>Labels, {}</h3>", esc(split));
            let rows: Vec<(String, u64)> = totals
                .into_iter()
                .map(|(l, n)| (l.to_string(), n))
                .collect();
            h.push_str(&bars(&rows, &format!("labels-{split}")));
        }
    }
    for (split, hist) in &f.scores {
        let _ = write!(
            h,
            "<h3>Gold scores, {} ({SCORE_BIN}-wide bins)</h3>",
            esc(split)
        );
        let top = hist.keys().copied().max().unwrap_or(0).max(9);
        let rows: Vec<(String, u64)> = (0..=top)
            .map(|b| {
                let lo = f64::from(b) * SCORE_BIN;
                (
                    format!("{lo:.1}–{:.1}", lo + SCORE_BIN),
                    hist.get(&b).copied().unwrap_or(0),
                )
            })
            .collect();
        h.push_str(&bars(&rows, &format!("scores-{split}")));
    }
    h
}

/// The page; `examples` are a few decisions per rule (see [`RuleExample`]), `judged`
/// says whether the recipe named judgements (then the precision section is shown), and
/// `facts` describe the written rows (labels, scores).
///
/// Long on purpose: it is the page's template, its sections in the order the page shows
/// them.
#[allow(
    clippy::too_many_lines,
    reason = "the page's template, its sections in the order the page shows them"
)]
pub fn render(
    m: &Manifest,
    examples: &BTreeMap<String, Vec<RuleExample>>,
    judged: bool,
    facts: &SplitFacts,
) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{} {} — kcurate report</title>\
<style>body{{font-family:sans-serif;margin:2em;max-width:60em}}table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:2px 8px;text-align:right}}td:first-child,th:first-child,td.t{{text-align:left}}</style></head><body>",
        esc(&m.recipe.name),
        esc(&m.recipe.version)
    );
    let _ = write!(
        h,
        "<h1>{} {}</h1><p>kcurate {} · seed {} · licence {} · recipe sha256 <code>{}</code></p>",
        esc(&m.recipe.name),
        esc(&m.recipe.version),
        esc(&m.tool.version),
        m.seed,
        esc(&m.license),
        m.recipe.sha256
    );
    h.push_str(&funnels(m));
    h.push_str("<h2>Decisions per rule</h2><table id=\"rules\"><tr><th>stage</th><th>rule</th><th>dropped</th><th>edited</th><th>flagged</th></tr>");
    let mut rule_rows = Vec::new();
    for s in &m.stages {
        for (r, c) in &s.stats.rules {
            let _ = write!(
                h,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&s.name),
                esc(r),
                c.drop,
                c.edit,
                c.flag
            );
            rule_rows.push((r.clone(), c.drop + c.edit + c.flag));
        }
    }
    h.push_str("</table>");
    h.push_str(&bars(&rule_rows, "rules-chart"));
    if judged {
        h.push_str("<h2>Rule precision</h2><p>From curators' judgements of a sample of each rule's decisions (Wilson 95% interval).</p>");
        for (i, l) in coverage_lines(m).iter().enumerate() {
            let id = if i == 0 { " id=\"judged\"" } else { "" };
            let _ = write!(h, "<p{id}>{}</p>", esc(l));
        }
        h.push_str("<ul id=\"precision\">");
        for l in precision_lines(m) {
            let _ = write!(h, "<li>{}</li>", esc(&l));
        }
        h.push_str("</ul>");
    }
    if !examples.is_empty() {
        h.push_str(&examples_table(examples));
    }
    h.push_str("<h2>Decisions per source</h2><table id=\"sources\"><tr><th>source</th><th>rule</th><th>dropped</th><th>edited</th><th>flagged</th></tr>");
    for (src, rules) in &m.by_source {
        for (r, c) in rules {
            let _ = write!(
                h,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(src),
                esc(r),
                c.drop,
                c.edit,
                c.flag
            );
        }
    }
    h.push_str(
        "</table><h2>Splits</h2><table id=\"splits\"><tr><th>task/split</th><th>rows</th></tr>",
    );
    for (task, splits) in &m.splits {
        for (s, n) in splits {
            let _ = write!(h, "<tr><td>{}/{}</td><td>{n}</td></tr>", esc(task), esc(s));
        }
    }
    h.push_str("</table>");
    for (split, hist) in &m.lengths {
        let _ = write!(h, "<h3>Text length, {}</h3>", esc(split));
        let rows: Vec<(String, u64)> = hist
            .iter()
            .map(|(b, n)| (format!("{b}–{} chars", b + 19), *n))
            .collect();
        h.push_str(&bars(&rows, &format!("len-{split}")));
    }
    h.push_str(&split_facts_html(facts));
    h.push_str(&annotations_html(m));
    if !m.metrics.is_empty() {
        h.push_str("<h2>Figures the stages reported</h2><table id=\"metrics\"><tr><th>stage</th><th>figure</th><th>value</th></tr>");
        for (stage, figs) in &m.metrics {
            for (k, v) in figs {
                let _ = write!(
                    h,
                    "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                    esc(stage),
                    esc(k),
                    esc(&v.to_string())
                );
            }
        }
        h.push_str("</table>");
    }
    h.push_str("<h2>Sources</h2><table id=\"inputs\"><tr><th>source</th><th>licence</th><th>status</th></tr>");
    for s in &m.sources {
        let _ = write!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&s.id),
            esc(&s.license),
            esc(&s.status)
        );
    }
    h.push_str("</table></body></html>\n");
    h
}

/// The card's Annotations (α with its interval, the gold-label rule, the raters' reliability,
/// the command that plans the next round), as a list; nothing when no stage reported α.
fn annotations_html(m: &Manifest) -> String {
    let items = crate::card::annotations::items(m);
    if items.is_empty() {
        return String::new();
    }
    let mut h = String::from("<h2>Annotations</h2><ul id=\"annotations\">");
    for l in items {
        let _ = write!(h, "<li>{}</li>", esc(&l));
    }
    h.push_str("</ul>");
    h
}
