//! Answering again case by case. When a bound stops the evaluation of every configuration at
//! once (or cuts values holding scaled data where rows hold), the value it branched on most
//! (the all-to-all backend, a runner's name) is fixed to each value the code compares it with
//! in turn, and to none of them, and each case is evaluated on its own, with the whole budget:
//! the bound is usually the product of a few independent choices, and one fixed leaves a
//! fraction of the work. The cases together cover every configuration; each is exactly the
//! trace with that assumption added.

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

/// The share of the step budget the first case is tried with (see `run`).
const PROBE_SHARE: usize = 4;

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
    /// The `--assume` that gives this case alone, when the command line can say it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assume_as: Option<String>,
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

/// The trace, answered again case by case when a bound stopped or cut it
/// (`options.max_cases`: the most cases made; 0 never splits). A case a bound stops again
/// stays UNKNOWN, with the widest splits of its own to assume.
pub fn run(resolver: &Resolver, options: TraceOptions) -> Result<TraceReport, String> {
    let mut report = super::report::run(resolver, options.clone())?;
    if options.max_cases == 0 || !(unknown_at_bound(&report) || cut(&report)) {
        return Ok(report);
    }
    let Some(mut split) = widest(&report).cloned() else { return Ok(report) };
    split.for_cut = !unknown_at_bound(&report);
    if split.cases.len() > options.max_cases {
        report.bounds.push(super::report::Note {
            location: None,
            what: format!(
                "`{}` takes {} cases, more than --max-cases {}: not answered case by case",
                split.name,
                split.cases.len(),
                options.max_cases
            ),
        });
        return Ok(report);
    }
    // Each case owns its options (an assumption records whether it was used).
    let runs: Vec<TraceOptions> = split
        .cases
        .iter()
        .map(|case| {
            let mut case_options = options.clone();
            case_options.assumes.insert(0, case.assume.clone());
            case_options
        })
        .collect();
    super::cond::release_table();
    // The case branched on most first, alone, with a share of the step budget: where a bound
    // stops it, one value fixed leaves too much, and the other cases would spend as much for
    // nothing. (Cases that decide took a tenth of the budget on SGLang's MoE blocks.)
    // (The node budget stays whole: SGLang 0.5.23's `BailingMoE` finishes its first case
    // within a twentieth of the steps, past a quarter of the nodes.)
    let probe_options = TraceOptions { max_steps: options.max_steps / PROBE_SHARE, ..runs[0].clone() };
    let probe = super::report::run(resolver, probe_options)?;
    // A probe the budget stopped, or whose conditions a bound widened into an UNKNOWN: the
    // other cases would most likely read the same (SGLang 0.5.23's `Lfm2MoeSparseMoeBlock`
    // with nothing assumed: fifteen widened cases, 154 s for no answer). A probe that
    // finished is exactly the answer with the whole budget. Where only a cut made the
    // answer not final, a probe cut again is no cure either; where a bound stopped it, a
    // probe that finishes is an answer even with rows cut (SGLang 0.5.23's `BailingMoE`:
    // its first case is cut, five others read MIXED).
    if stopped(&probe) || unknown_at_bound(&probe) || (split.for_cut && cut(&probe)) {
        report.bounds.push(super::report::Note {
            location: None,
            what: format!(
                "answered again with {} (the case branched on most), a bound stopped, widened or cut that too (with 1/{PROBE_SHARE} of the step budget): not answered case by case",
                split.cases[0].condition
            ),
        });
        return Ok(report);
    }
    super::cond::release_table();
    let rest: Vec<Result<TraceReport, String>> =
        runs.into_iter().skip(1).collect::<Vec<_>>().into_par_iter().map(|o| super::report::run(resolver, o)).collect();
    let answers = std::iter::once(Ok(probe)).chain(rest);
    let cases: Vec<CaseOut> = split
        .cases
        .iter()
        .zip(answers)
        .map(|(case, answer)| {
            Ok(CaseOut { condition: case.condition.clone(), assume_as: case.assume_as.clone(), report: answer? })
        })
        .collect::<Result<_, String>>()?;
    // A case where every configuration raises (a backend this platform refuses) has no
    // configuration to answer for, as configurations that raise leave a table.
    let live: Vec<&CaseOut> = cases.iter().filter(|c| !raises_everywhere(&c.report)).collect();
    report.verdict = match live.is_empty() {
        true => Verdict::Unknown,
        false => combined(live.iter().map(|c| c.report.verdict)),
    };
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

/// Whether no configuration reaches the end: every one raises or is excluded, and no bound
/// stopped the evaluation before one could.
pub fn raises_everywhere(report: &TraceReport) -> bool {
    report.rows.is_empty() && report.blocks.is_empty() && !report.stopped && !report.never_read
}

/// Whether the step or node budget stopped what the answer rests on: the blocks when there
/// are (a whole model's own evaluation may stop in its plumbing while they answer), else the
/// entry.
fn stopped(report: &TraceReport) -> bool {
    match report.blocks.is_empty() {
        true => report.stopped,
        false => report.blocks.iter().any(|b| b.stopped),
    }
}

/// Whether the answer is UNKNOWN where a bound stopped or widened the evaluation (of the entry
/// or of a block).
fn unknown_at_bound(report: &TraceReport) -> bool {
    let bounded = report.provisional || report.stopped || report.blocks.iter().any(|b| b.provisional || b.stopped);
    report.verdict == Verdict::Unknown && bounded
}

/// Whether values holding scaled data were cut at the alternatives bound where rows hold (of
/// the entry or of a block): those rows are not final, whatever they read (the application a
/// row misses may be among them).
fn cut(report: &TraceReport) -> bool {
    report.rows_cut || report.blocks.iter().any(|b| b.rows_cut)
}

/// The split to make: the first that can be made, of a block a bound stopped or cut (the
/// question is about the blocks), else of the entry.
fn widest(report: &TraceReport) -> Option<&SplitOut> {
    let blocks =
        report.blocks.iter().filter(|b| b.provisional || b.stopped || b.rows_cut).flat_map(|b| b.widest_splits.iter());
    blocks.chain(report.widest_splits.iter()).find(|s| !s.cases.is_empty())
}
