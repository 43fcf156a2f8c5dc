//! Answering again case by case. When a bound stops the evaluation of every configuration at
//! once, the value it branched on most (the all-to-all backend, a runner's name) is fixed to
//! each value the code compares it with in turn, and to none of them, and each case is
//! evaluated on its own, with the whole budget: the bound is usually the product of a few
//! independent choices, and one fixed leaves a fraction of the work. The cases together cover
//! every configuration; each is exactly the trace with that assumption added.

use rayon::prelude::*;
use serde::Serialize;

use super::assume::{Assume, AssumedValue};
use super::cond::AtomKey;
use super::interp::Interp;
use super::report::{SplitOut, TraceOptions, TraceReport, Verdict, combined};
use crate::resolve::Resolver;

/// The cases one split makes at most by default (`--max-cases`): a value compared with more
/// constants is not split (a dozen backends is the usual width).
pub const MAX_CASES: usize = 24;

/// One case of a split: the configurations it covers and the assumption that gives them.
#[derive(Clone, Debug)]
pub struct SplitCase {
    /// The case as a condition (`get_moe_a2a_backend() == "none"`).
    pub condition: String,
    /// The `--assume` that gives this case alone, when the command line can say it (the case
    /// of none of the values cannot).
    pub assume_as: Option<String>,
    pub assume: Assume,
}

/// The answer in one case of a split.
#[derive(Clone, Debug, Serialize)]
pub struct CaseOut {
    pub condition: String,
    /// The `--assume`s that give this case alone (with the cases it is inside), when the
    /// command line can say them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assume_as: Option<Vec<String>>,
    pub report: TraceReport,
}

/// The cases that split on atom `first`, or, when `members` (the equalities of one value with
/// constants that were branched on, most first) are given, on that value: it takes each
/// constant it is compared with, most branched on first, and then none of them.
pub fn cases(interp: &Interp, first: usize, members: &[(usize, usize)]) -> Vec<SplitCase> {
    let conds = &interp.conds;
    let atom = &conds.atoms()[first];
    match (&atom.key, members.is_empty()) {
        (AtomKey::Equals(sym, _), false) => {
            let name = interp.syms[*sym as usize].label();
            // Every constant compared with, not only those branched on: a case left out would
            // leave its configurations out of every answer.
            let mut constants: Vec<crate::syntax::Constant> = Vec::new();
            let branched = members.iter().map(|(atom, _)| *atom);
            let others = (0..conds.atoms().len()).filter(|a| !members.iter().any(|(m, _)| m == a));
            for a in branched.chain(others) {
                if let AtomKey::Equals(s, c) = &conds.atoms()[a].key
                    && s == sym
                    && !constants.iter().any(|k| super::exprs::consts_equal(k, c))
                {
                    constants.push(c.clone());
                }
            }
            let mut cases: Vec<SplitCase> = constants
                .iter()
                .map(|c| SplitCase {
                    condition: format!("{name} == {c}"),
                    assume_as: Some(super::report::assume_spelling(&format!("{name} == {c}"))),
                    assume: Assume::new(name.clone(), AssumedValue::Const(c.clone())),
                })
                .collect();
            let listed: Vec<String> = constants.iter().map(|c| c.to_string()).collect();
            cases.push(SplitCase {
                condition: format!("{name} not in ({})", listed.join(", ")),
                assume_as: None,
                assume: Assume::new(name, AssumedValue::NoneOf(constants)),
            });
            cases
        }
        (AtomKey::Truthy(_) | AtomKey::Test(_) | AtomKey::Above { .. } | AtomKey::Equals(..), _) => [true, false]
            .into_iter()
            .map(|holds| {
                let literal = conds.literal(first, holds);
                SplitCase {
                    assume_as: Some(super::report::shell_word(&format!("{}={holds}", atom.display))),
                    condition: literal,
                    assume: Assume::new(
                        atom.display.clone(),
                        AssumedValue::Const(crate::syntax::Constant::Bool(holds)),
                    ),
                }
            })
            .collect(),
        // Not configurations (device kernels' programs), or not one assumption each.
        (AtomKey::IsClass(..) | AtomKey::PerProgram(_) | AtomKey::Selector { .. }, _) => Vec::new(),
    }
}

/// The trace, answered again case by case when a bound stopped it; a case a bound stopped
/// again is split again while cases remain (`options.max_cases`: the most evaluations made
/// after the first; 0 never splits).
pub fn run(resolver: &Resolver, options: TraceOptions) -> Result<TraceReport, String> {
    let report = super::report::run(resolver, options.clone())?;
    let mut budget = options.max_cases;
    by_cases(resolver, &options, report, &mut budget, None)
}

/// `report` (of `options`, the configurations `within`), split when a bound stopped it.
fn by_cases(
    resolver: &Resolver,
    options: &TraceOptions,
    mut report: TraceReport,
    budget: &mut usize,
    within: Option<(&str, Option<&[String]>)>,
) -> Result<TraceReport, String> {
    if report.verdict != Verdict::Unknown || !bounded(&report) {
        return Ok(report);
    }
    let Some(split) = widest(&report).cloned() else { return Ok(report) };
    if split.cases.len() > *budget {
        report.bounds.push(super::report::Note {
            location: None,
            what: format!(
                "`{}` takes {} cases, more than the {} left of --max-cases: not answered case by case",
                split.name,
                split.cases.len(),
                budget
            ),
        });
        return Ok(report);
    }
    *budget -= split.cases.len();
    // Each case owns its options (an assumption records whether it was used).
    let runs: Vec<(SplitCase, TraceOptions)> = split
        .cases
        .iter()
        .map(|case| {
            let mut case_options = options.clone();
            case_options.assumes.insert(0, case.assume.clone());
            (case.clone(), case_options)
        })
        .collect();
    super::cond::release_table();
    // The case branched on most first, alone: where a bound stops it too, one value fixed
    // leaves too much, and the other cases would spend as much for nothing.
    let probe = super::report::run(resolver, runs[0].1.clone())?;
    if bounded(&probe) && probe.verdict == Verdict::Unknown {
        *budget += split.cases.len() - 1;
        report.bounds.push(super::report::Note {
            location: None,
            what: format!(
                "answered again with {} (the case branched on most), a bound stopped that too: not answered case by case",
                runs[0].0.condition
            ),
        });
        return Ok(report);
    }
    super::cond::release_table();
    let owned: Vec<TraceOptions> = runs[1..].iter().map(|(_, case_options)| case_options.clone()).collect();
    let rest: Vec<Result<TraceReport, String>> =
        owned.into_par_iter().map(|case_options| super::report::run(resolver, case_options)).collect();
    let answers = std::iter::once(Ok(probe)).chain(rest);
    // In order, so that which cases are split again (while the budget lasts) does not depend
    // on which finished first.
    let mut cases = Vec::new();
    for ((case, case_options), answer) in runs.into_iter().zip(answers) {
        let (condition, assume_as): (String, Option<Vec<String>>) = match within {
            None => (case.condition, case.assume_as.map(|a| vec![a])),
            Some((outer, outer_assume)) => (
                format!("{outer} and {}", case.condition),
                outer_assume.zip(case.assume_as).map(|(o, a)| o.iter().cloned().chain([a]).collect()),
            ),
        };
        let report = by_cases(resolver, &case_options, answer?, budget, Some((&condition, assume_as.as_deref())))?;
        cases.push(CaseOut { condition, assume_as, report });
    }
    report.verdict = combined(cases.iter().map(|c| c.report.verdict));
    // The rows of the stopped evaluation are superseded by the cases'; its bounds say why it
    // was split.
    report.rows.clear();
    report.verdicts.clear();
    report.blocks.clear();
    report.provisional = false;
    report.split_on = Some(split);
    report.cases = cases;
    Ok(report)
}

/// Whether a bound stopped or widened the evaluation (of the entry or of a block).
fn bounded(report: &TraceReport) -> bool {
    report.provisional || report.stopped || report.blocks.iter().any(|b| b.provisional || b.stopped)
}

/// The split to make: the first that can be made, of a block a bound stopped (the question is
/// about the blocks), else of the entry.
fn widest(report: &TraceReport) -> Option<&SplitOut> {
    let blocks = report.blocks.iter().filter(|b| b.provisional || b.stopped).flat_map(|b| b.widest_splits.iter());
    blocks.chain(report.widest_splits.iter()).find(|s| !s.cases.is_empty())
}
