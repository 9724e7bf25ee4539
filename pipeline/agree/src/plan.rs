//! Planning the next annotation round from a pilot (`kcurate agree plan`).
//!
//! The pilot's annotators are fitted by Dawid–Skene ([`Pool`]: class prior, a confusion
//! matrix per annotator); studies are then simulated from that model ([`simulate`]) and
//! [`plan`] finds the fewest items at which enough of them meet a [`Target`]: α's 95%
//! bootstrap interval no wider than a width, or the aggregated labels at least so accurate.
//! For a width, each simulated study refits the model to the pilot's items resampled with
//! replacement, so a small pilot's uncertainty makes the plan larger, not optimistic. For
//! an accuracy, studies are drawn from the pilot's fit itself and the pilot's uncertainty
//! is reported as a range beside the plan (see [`accuracy`] for why).
//!
//! Everything is seeded: the same pilot, options and seed give the same plan on any
//! number of threads.

pub mod accuracy;
pub mod pool;
mod render;
mod search;
pub mod study;

use crate::alpha::{AlphaError, Level, Units, alpha_units, bootstrap_units};
use crate::dawid_skene::Responses;
use crate::label::Label;
use crate::report::r6;
use crate::table::Table;
pub use accuracy::{Bound, Uncertainty};
pub use pool::Pool;
use pool::mix;
pub use render::render;
pub use search::{Found, MIN_ITEMS, Outcome, Target, Verdict};
use serde::Serialize;
pub use study::{Aggregator, Study, simulate};

/// The fewest items with two or more labels a pilot needs: fewer cannot fit a confusion
/// matrix per annotator with any confidence.
pub const MIN_PILOT_ITEMS: usize = 30;

/// How to plan.
#[derive(Debug, Clone)]
pub struct PlanOptions {
    /// α's level of measurement.
    pub level: Level,
    /// What the next round must achieve.
    pub target: Target,
    /// The share of simulated studies that must meet the target, in (0, 1).
    pub assurance: f64,
    /// Simulated studies per size tried.
    pub studies: usize,
    /// Bootstrap replicates of α's interval (the pilot's and each study's).
    pub bootstrap: usize,
    /// Annotators per item to plan for besides the pilot's.
    pub redundancies: Vec<usize>,
    /// The most items a plan may ask for.
    pub max_items: usize,
    /// Seed of every draw.
    pub seed: u64,
    /// Threads the studies run on (the plan does not depend on it).
    pub threads: usize,
}

/// Why no plan was made.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// The pilot cannot be fitted; the text says why.
    #[error("the pilot is too small to plan from: {0}")]
    TooSmall(String),
    /// An option is out of its range.
    #[error("{0}")]
    Option(String),
    /// α cannot be computed at the asked level.
    #[error(transparent)]
    Alpha(#[from] AlphaError),
}

/// One pilot annotator as fitted.
#[derive(Debug, Clone, Serialize)]
pub struct AnnotatorFit {
    /// The annotator's name in the pilot.
    pub annotator: String,
    /// Labels the annotator gave.
    pub labels: usize,
    /// Chance of giving the true class, averaged over the prior (Dawid–Skene).
    pub accuracy: f64,
}

/// What the pilot showed.
#[derive(Debug, Clone, Serialize)]
pub struct PilotSummary {
    /// Items in the pilot.
    pub items: usize,
    /// Distinct annotators.
    pub annotators: usize,
    /// Labels.
    pub labels: usize,
    /// The pilot's annotators per item (the median over items).
    pub annotators_per_item: usize,
    /// The level α is computed at.
    pub level: Level,
    /// The pilot's α.
    pub alpha: f64,
    /// Its 95% bootstrap interval.
    pub alpha_ci95: Option<(f64, f64)>,
    /// The classes and their Dawid–Skene prior, in the table's value order.
    pub priors: Vec<(Label, f64)>,
    /// Each annotator's fitted reliability, in the table's annotator order.
    pub reliability: Vec<AnnotatorFit>,
}

/// The items needed at one number of annotators per item.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// Annotators per item.
    pub annotators_per_item: usize,
    /// What the search concluded.
    pub verdict: Verdict,
    /// Items needed (`None` unless the verdict is `planned`).
    pub items: Option<usize>,
    /// Annotations that costs (items × annotators per item).
    pub annotations: Option<usize>,
    /// Share of simulated studies meeting the target at that size.
    pub share: f64,
    /// Median over studies of what the target measures, at that size.
    pub median: Option<f64>,
    /// Accuracy targets: the accuracy a very large study reaches (the target is out of
    /// reach above it).
    pub limit: Option<f64>,
}

/// The plan.
#[derive(Debug, Clone, Serialize)]
pub struct Plan {
    /// What the search at the pilot's annotators per item concluded.
    pub verdict: Verdict,
    /// Items recommended at the pilot's annotators per item (`None` unless the verdict is
    /// `planned`).
    pub items: Option<usize>,
    /// The pilot's annotators per item.
    pub annotators_per_item: usize,
    /// Annotations the recommendation costs.
    pub annotations: Option<usize>,
    /// What the round must achieve.
    pub target: Target,
    /// The share of studies that must meet it.
    pub assurance: f64,
    /// Simulated studies per size.
    pub studies: usize,
    /// Bootstrap replicates per interval.
    pub bootstrap: usize,
    /// The seed.
    pub seed: u64,
    /// The most items considered.
    pub max_items: usize,
    /// What the pilot showed.
    pub pilot: PilotSummary,
    /// Items and cost per number of annotators per item, ascending.
    pub redundancy: Vec<Row>,
    /// Accuracy targets: the range the pilot's own uncertainty leaves open.
    pub uncertainty: Option<Uncertainty>,
    /// Accuracy targets: the bootstrap estimate of how optimistic the pilot's fit is about
    /// the aggregated accuracy (added to the target the simulated studies are held to).
    pub fit_bias: Option<f64>,
    /// What the figures assume.
    pub assumptions: Vec<String>,
}

fn check(o: &PlanOptions) -> Result<(), PlanError> {
    let bad = |s: &str| Err(PlanError::Option(s.into()));
    match o.target {
        Target::AlphaCi95Width { width } if !(width > 0.0 && width <= 2.0) => {
            return bad("--target-width must be in (0, 2]");
        }
        Target::Accuracy { accuracy, .. } if !(accuracy > 0.0 && accuracy < 1.0) => {
            return bad("--target-accuracy must be in (0, 1)");
        }
        Target::Accuracy {
            aggregator: Aggregator::Majority { min_votes: 0 },
            ..
        } => return bad("--min-votes must be at least 1"),
        _ => {}
    }
    if !(o.assurance > 0.0 && o.assurance < 1.0) {
        return bad("--assurance must be in (0, 1)");
    }
    if o.studies < 10 || o.max_items < 2 || o.redundancies.iter().any(|r| *r < 2) {
        return bad(
            "--studies must be at least 10, --max-items at least 2, and each of --redundancy at least 2",
        );
    }
    if matches!(o.target, Target::AlphaCi95Width { .. }) && o.bootstrap < 100 {
        return bad("--bootstrap must be at least 100 to plan for an interval's width");
    }
    Ok(())
}

fn responses(t: &Table) -> Responses {
    let mut rows = Vec::with_capacity(t.len());
    for i in 0..t.items.len() {
        rows.extend(
            t.item(i)
                .iter()
                .map(|c| (i as u32, c.annotator, c.value as u16)),
        );
    }
    Responses {
        items: t.items.len(),
        workers: t.annotators.len(),
        classes: t.values.len(),
        rows,
    }
}

/// The pilot's summary, or why it is too small to plan from.
fn pilot(t: &Table, o: &PlanOptions, fitted: &Pool) -> Result<PilotSummary, PlanError> {
    let too_small = |s: String| Err(PlanError::TooSmall(s));
    if t.values.len() < 2 {
        return too_small(format!(
            "its labels take {} value(s); agreement and confusion need at least two",
            t.values.len()
        ));
    }
    if t.values.len() > usize::from(u16::MAX) {
        return too_small(format!(
            "{} distinct values are too many classes",
            t.values.len()
        ));
    }
    let mut per_item: Vec<usize> = (0..t.items.len()).map(|i| t.item(i).len()).collect();
    let pairable = per_item.iter().filter(|n| **n >= 2).count();
    if pairable < MIN_PILOT_ITEMS {
        return too_small(format!(
            "{pairable} item(s) have two or more labels; at least {MIN_PILOT_ITEMS} are needed to fit each annotator's confusion"
        ));
    }
    per_item.retain(|n| *n > 0);
    per_item.sort_unstable();
    let r = per_item[per_item.len() / 2];
    if r < 2 {
        return too_small(format!(
            "the median item has {r} label; agreement needs at least two per item"
        ));
    }
    let u = Units::from_table(t);
    let Some(alpha) = alpha_units(&u, o.level)? else {
        return too_small("α is undefined on it (every label is the same value)".into());
    };
    let ci = bootstrap_units(&u, o.level, o.bootstrap.max(100), 0.95, o.seed)?;
    let labels = t.labels_per_annotator();
    Ok(PilotSummary {
        items: t.items.len(),
        annotators: t.annotators.len(),
        labels: t.len(),
        annotators_per_item: r,
        level: o.level,
        alpha: r6(alpha),
        alpha_ci95: ci.map(|(a, b)| (r6(a), r6(b))),
        priors: (t.values.iter().cloned())
            .zip(fitted.priors.iter().map(|p| r6(*p)))
            .collect(),
        reliability: (t.annotators.iter().enumerate())
            .map(|(w, name)| AnnotatorFit {
                annotator: name.clone(),
                labels: labels[w],
                accuracy: r6(fitted.accuracy(w)),
            })
            .collect(),
    })
}

/// Plans the next round from the pilot `t` (see the module doc).
pub fn plan(t: &Table, o: &PlanOptions) -> Result<Plan, PlanError> {
    check(o)?;
    let r = responses(t);
    let fitted = Pool::fit(&r);
    let pilot = pilot(t, o, &fitted)?;
    let refits = pools(&r, o);
    let how = match o.target {
        Target::Accuracy { aggregator, .. } => Some(aggregator),
        Target::AlphaCi95Width { .. } => None,
    };
    let sim = search::Sim {
        pools: match how {
            Some(_) => std::slice::from_ref(&fitted),
            None => &refits,
        },
        studies: o.studies,
        assurance: o.assurance,
        max_items: o.max_items,
        values: &t.values,
        level: o.level,
        target: o.target,
        bootstrap: o.bootstrap,
        seed: o.seed,
        threads: o.threads.max(1),
    };
    let k = pilot.annotators_per_item;
    let (ranked, bias) = ranked(&fitted, &refits, k, how, o.seed);
    let mut rs: Vec<usize> = o.redundancies.clone();
    rs.push(pilot.annotators_per_item);
    rs.sort_unstable();
    rs.dedup();
    let mut rows = Vec::with_capacity(rs.len());
    for &k in &rs {
        let f = match how {
            Some(h) => accuracy::search_or_limit(&sim, k, h, bias)?,
            None => sim.search(k)?,
        };
        rows.push(Row {
            annotators_per_item: k,
            verdict: f.verdict,
            items: f.items,
            annotations: f.items.map(|n| n * k),
            share: r6(f.at.share),
            median: f.at.median.map(r6),
            limit: how.map(|h| r6(accuracy::limit(&fitted, k, h, o.seed) - bias)),
        });
    }
    let uncertainty = match how {
        Some(h) => Some(accuracy::uncertainty(&sim, &refits, &ranked, bias, k, h)?),
        None => None,
    };
    let here = (rows.iter())
        .find(|row| row.annotators_per_item == k)
        .expect("the pilot's redundancy is planned");
    Ok(Plan {
        verdict: here.verdict,
        items: here.items,
        annotators_per_item: pilot.annotators_per_item,
        annotations: here.annotations,
        target: o.target,
        assurance: o.assurance,
        studies: o.studies,
        bootstrap: o.bootstrap,
        seed: o.seed,
        max_items: o.max_items,
        assumptions: assumptions(o),
        pilot,
        redundancy: rows,
        uncertainty,
        fit_bias: how.map(|_| r6(bias)),
    })
}

/// The refits ranked by the accuracy they reach and the fit's bias (accuracy targets).
fn ranked(
    fitted: &Pool,
    refits: &[Pool],
    k: usize,
    how: Option<Aggregator>,
    seed: u64,
) -> (Vec<(f64, usize)>, f64) {
    // Majority's accuracy is a smooth function of the confusions, which the fit estimates
    // without the optimism a Dawid–Skene refit has (see [`accuracy`]): no correction there.
    match how {
        Some(h @ Aggregator::Majority { .. }) => {
            (accuracy::ranked(fitted, refits, k, h, seed).0, 0.0)
        }
        Some(h) => accuracy::ranked(fitted, refits, k, h, seed),
        None => (Vec::new(), 0.0),
    }
}

/// One pool per study, each fitted to its own resample of the pilot, on up to `threads`
/// threads (results in study order).
fn pools(r: &Responses, o: &PlanOptions) -> Vec<Pool> {
    let chunk = o.studies.div_ceil(o.threads.max(1)).max(1);
    std::thread::scope(|sc| {
        let handles: Vec<_> = (0..o.studies)
            .step_by(chunk)
            .map(|from| {
                let to = (from + chunk).min(o.studies);
                sc.spawn(move || {
                    (from..to)
                        .map(|s| Pool::fit_resampled(r, mix(mix(o.seed, s as u64), 0x9110)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        (handles.into_iter())
            .flat_map(|h| h.join().expect("a fitting thread does not panic"))
            .collect()
    })
}

fn assumptions(o: &PlanOptions) -> Vec<String> {
    vec![
        "Annotators like the pilot's: each answers as one of the pilot's annotators does \
         (its Dawid–Skene confusion matrix, shrunk towards the pool's by two answers' weight \
         per class), in the pilot's shares of the work; more annotators per item than the \
         pilot had are further copies of them."
            .into(),
        "Items like the pilot's: true classes in the pilot's proportions (the Dawid–Skene \
         prior), all items equally hard, answers independent given the true class."
            .into(),
        match o.target {
            Target::AlphaCi95Width { .. } => "The pilot's own uncertainty counts: each \
                simulated study refits the model to the pilot's items resampled with \
                replacement."
                .into(),
            Target::Accuracy { .. } => "Studies are drawn from the pilot's fit; a study \
                aggregated by Dawid–Skene refits it to its own items, as the study would. \
                The pilot's own uncertainty is the range beside the plan: the items needed \
                if the annotators are as weak (strong) as the 10th (90th) percentile of \
                refits to the pilot's items resampled with replacement."
                .into(),
        },
        format!(
            "Items = the fewest at which at least {:.0}% of {} simulated studies meet the target \
             (sizes doubled from {MIN_ITEMS}, then bisected to one item; at most {}); \
             a plan never names fewer than {MIN_ITEMS} items, and says so when that many \
             already meet the target.",
            o.assurance * 100.0,
            o.studies,
            o.max_items
        ),
    ]
}
