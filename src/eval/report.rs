//! Running a trace and turning the entry's abstract output into the answer: one row per group
//! of configurations with the same net exponent, the application sites with their evidence, a
//! verdict, and everything that limited precision.

use std::collections::BTreeSet;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;

use super::calls::{Arg, Args};
use super::cond::{AtomKey, Cond};
use super::interp::{AloneBlock, Assume, AssumedValue, Interp, ObjKind, Traced};
use super::kernels::KernelModels;
use super::trace::{HopKind, SiteKind};
use super::value::*;
use crate::index::{ClassId, FileId, ParamKind};
use crate::query::common::Location;
use crate::resolve::Resolver;

/// What to trace, from where.
#[derive(Clone, Debug)]
pub struct TraceOptions {
    /// The traced value's name: origins are reads of an attribute or parameter of that name.
    pub value: String,
    pub entry: ClassId,
    /// Methods evaluated in order on the entry object (default: `forward`). With several, they
    /// share a dict-like `state` argument, as two-batch-overlap op lists do.
    pub methods: Vec<String>,
    pub assumes: Vec<Assume>,
    /// Only reads at this file and line are origins.
    pub origin: Option<(FileId, u32)>,
    /// Extra kernel model files: (name, TOML text).
    pub kernel_files: Vec<(String, String)>,
    /// The evaluation budget in steps (see `Interp::step`; [`super::interp::MAX_STEPS`] by
    /// default).
    pub max_steps: usize,
    /// The decision-diagram bound in nodes ([`super::interp::MAX_NODES`] by default).
    pub max_nodes: usize,
    /// Alternatives one value keeps before the rest are cut into an unknown
    /// ([`super::value::MAX_ALTERNATIVES`] by default).
    pub max_alternatives: usize,
    /// When a bound stops the evaluation: the most cases it is answered again in, one per
    /// value of what it branched on most (0: never; see `split`).
    pub max_cases: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Verdict {
    /// Applied exactly once in every configuration.
    Once,
    /// Applied more than once in some configuration.
    Twice,
    /// Not applied in some configuration.
    Never,
    /// Divided (net negative exponent) in some configuration.
    Inverse,
    /// Parts of the output scaled differently, or different problems in different rows.
    Mixed,
    /// Something blocked a decision (see `unresolved` and `bounds`).
    Unknown,
}

#[derive(Clone, Debug, Serialize)]
pub struct TraceReport {
    pub value: String,
    pub entry: String,
    pub methods: Vec<String>,
    pub verdict: Verdict,
    /// One entry per outcome (verdict and exponents): the configurations where the value is
    /// applied once, twice, never..., whatever code path they take.
    pub verdicts: Vec<VerdictGroup>,
    /// One row per group of configurations with the same outcome and the same sites.
    pub rows: Vec<Row>,
    /// When the entry is larger than the blocks that hold the value (a whole model and its
    /// MoE layers): the answer for each such block's output, which `verdict` is about.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<TraceReport>,
    /// When a bound stopped the evaluation of every configuration at once: the atom or value
    /// split on, and the answer in each of its cases (which `verdict` combines; `rows` is then
    /// empty). See `split`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub split_on: Option<SplitOut>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cases: Vec<super::split::CaseOut>,
    /// The atoms the rows' conditions are made of.
    pub atoms: Vec<AtomOut>,
    pub assumptions: Vec<AssumptionOut>,
    /// Parts of the output (`[1]`, `.topk_ids`) that take no part in scaling in any
    /// configuration; the verdict leaves them out.
    pub untouched_outputs: Vec<String>,
    /// When a bound stopped the evaluation: the atoms it branched on most, to fix first with
    /// `--assume` (empty otherwise).
    pub widest_splits: Vec<SplitOut>,
    /// Conditions under which the number of applications cannot matter (the value is 1, the
    /// data is empty): left out of the rows, each with why.
    pub vacuous: Vec<VacuousOut>,
    /// Where the value was handed to a parameter of the tree that is never read: nothing is
    /// applied through that call (an absence that explains a NEVER). Only those met where the
    /// table is.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unused: Vec<Note>,
    /// What blocked precision, with locations.
    pub unresolved: Vec<Note>,
    /// Bounds that were hit (the answer may be incomplete where they apply).
    pub bounds: Vec<Note>,
    /// A step or decision-diagram bound stopped the evaluation before the end.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub stopped: bool,
    /// A bound stopped the evaluation or widened conditions (or atoms ran out): every row is
    /// provisional — it shows what was found, under conditions that may be wider than the
    /// configurations that reach it — and the verdict is UNKNOWN.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub provisional: bool,
    /// A block answered on its own, because a bound stopped the entry before it answered:
    /// built as the entry builds it, its `forward` run on unscaled data of its own. What the
    /// entry does around it (calling it or not, scaling its input or output) is not seen.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub alone: bool,
    /// The value was never read while evaluating the entry (no origin): NEVER then says only
    /// that; the name or the entry may not be the intended one.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub never_read: bool,
    /// Values holding scaled data were cut at the alternatives bound where some row holds:
    /// those rows are not final (said row by row: `cut_at_bound`, or an UNKNOWN row's reason).
    #[serde(skip)]
    pub rows_cut: bool,
    /// When it was never read but an entry method takes a parameter of its name: that method
    /// (`Class.method`), which accepts the value and does not use it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unused_parameter_of: Option<String>,
    /// When no configuration reaches the end (and no bound stopped the evaluation): the places
    /// that raise, widest first, each with the share of configurations it ends.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub raises: Vec<RaiseOut>,
    pub stats: TraceStats,
}

/// How often the value is applied.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Outcome {
    pub verdict: Verdict,
    /// The net exponent of the value on the output, when every scaled part agrees.
    pub exponent: Option<i32>,
    /// Distinct non-zero exponents among the parts of the output (several: MIXED).
    pub exponents: Vec<i32>,
}

/// A set of configurations as printed.
#[derive(Clone, Debug, Serialize)]
pub struct Configurations {
    /// A sum of products of atom values (empty when too many to print).
    pub conditions: Vec<Vec<Literal>>,
    /// The same as text.
    pub when: String,
    /// When the configurations are too many to print: one of them (a conjunction of literals).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub example: Vec<Literal>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Row {
    #[serde(flatten)]
    pub outcome: Outcome,
    #[serde(flatten)]
    pub configurations: Configurations,
    /// The parts of the output that carry the value, each with its sites.
    pub parts: Vec<PartOut>,
    /// Why the row is UNKNOWN, when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The unresolved callees the incomplete parts went through (entries of `unresolved`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blocked_by: Vec<Note>,
    /// Some of these configurations dropped values holding scaled data at the alternatives
    /// bound: a decided row may miss an application there.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cut_at_bound: bool,
    /// Where a NEVER row's data was scaled and a normalization layer then took the scale off
    /// (`RMSNorm(v * x) == RMSNorm(x)`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub normalized_at: Vec<Note>,
    /// Where a NEVER row's output is a buffer nothing wrote on that path (`torch.empty`, read
    /// before any write) and the value scaled it there: whatever memory held, not the code's
    /// data (a write the code skips on that path, or one the evaluation did not see).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unwritten_at: Vec<Note>,
    /// An INVERSE row whose output also holds data no application reached: relative to the
    /// divided part, that data carries the value (see the text report's note).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unscaled_rest: bool,
}

/// The configurations of one outcome: the rows with that verdict and those exponents, merged.
#[derive(Clone, Debug, Serialize)]
pub struct VerdictGroup {
    #[serde(flatten)]
    pub outcome: Outcome,
    #[serde(flatten)]
    pub configurations: Configurations,
    /// Indices (0-based) into `rows` of the rows it merges.
    pub rows: Vec<usize>,
}

/// Steps the report may spend finding which atoms decide each condition it prints (see
/// `Conds::decisive`); past them, conditions print with more atoms than they need.
const DECISIVE_FUEL: usize = 4_000_000;

/// Atoms listed in `widest_splits`.
const MAX_SPLITS_SHOWN: usize = 12;

#[derive(Clone, Debug, Serialize)]
pub struct SplitOut {
    pub name: String,
    pub assume_as: String,
    /// Branches whose two arms both ran, split on this atom (on any of `values`).
    pub branches: usize,
    /// For a value compared with several constants, those constants, most branched on first
    /// (`name` is then the value, and `assume_as` fixes it to the first); empty for an atom.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
    /// The cases that cover every configuration of this atom or value, each fixed by an
    /// assumption (see `split`); empty when it cannot be split.
    #[serde(skip)]
    pub cases: Vec<super::split::SplitCase>,
    /// Made only because values holding scaled data were cut where rows hold (no bound
    /// stopped the evaluation): what the text says of it.
    #[serde(skip)]
    pub for_cut: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct VacuousOut {
    pub condition: String,
    pub why: String,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Literal {
    pub atom: String,
    pub value: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct PartOut {
    pub exponent: i32,
    pub sites: Vec<SiteOut>,
    /// The sites do not all apply together: values of one scale were merged at the
    /// alternatives bound, and which of them applied depends on the configuration (each site
    /// says where it runs).
    pub alternative_sites: bool,
    /// The part went through something whose effect on the scale is not known.
    pub incomplete: bool,
    /// The part is a shared expert's output (a module held as `shared_expert(s)` or
    /// `shared_mlp`): the factor must leave it at exponent 0, and a row where it carries more
    /// is MIXED.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub shared: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct SiteOut {
    pub location: Location,
    pub kind: SiteKind,
    /// +1 applies the value, -1 divides by it.
    pub exponent: i32,
    /// The source line of the site.
    pub code: String,
    /// When the site runs, as far as the evaluation reached it.
    pub when: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub callee: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// How the value got here, from where it was read.
    pub evidence: Vec<HopOut>,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct HopOut {
    pub kind: HopKind,
    pub location: Location,
    pub label: String,
    pub code: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct AtomOut {
    /// As the rows print it: the variable that holds the test, when one does.
    pub name: String,
    /// How to fix it: `--assume NAME=VALUE`.
    pub assume_as: String,
    /// The test itself, when `name` is the variable that holds it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub defined_as: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct AssumptionOut {
    pub name: String,
    pub value: String,
    /// False when nothing the evaluation met matched the name.
    pub used: bool,
    /// `--platform NAME` when the assumption is a part of it (only those that matched are
    /// listed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub platform: Option<&'static str>,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Note {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
    pub what: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct RaiseOut {
    pub location: Location,
    /// The first line of the raising statement (or expression: a subscript, a name).
    pub source: String,
    /// What Python raises there when the place is no `raise` or `assert` (`NameError` where a
    /// name is not bound, `KeyError`, `TypeError`), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exception: Option<String>,
    /// The share of configurations that raise there (every atom true or false with equal
    /// weight, within the assumptions).
    pub share: f64,
}

/// Raise places listed when no configuration reaches the end.
const MAX_RAISES_SHOWN: usize = 8;

#[derive(Clone, Debug, Serialize)]
pub struct TraceStats {
    pub steps: usize,
    pub objects: usize,
    pub atoms: usize,
    pub sites: usize,
}

/// Runs a trace.
pub fn run(resolver: &Resolver, options: TraceOptions) -> Result<TraceReport, String> {
    // With a second core, the blocks are answered on their own while the entry runs, from the
    // moment the entry is built: a whole model that stops at a bound is answered that much
    // sooner (the two evaluations share nothing but the index; each has its own tables). When
    // the entry answers by itself, that evaluation is stopped and thrown away.
    let ahead = rayon::current_num_threads() > 1;
    std::thread::scope(|scope| {
        let mut started: Option<(std::thread::ScopedJoinHandle<'_, AloneAnswers>, Arc<AtomicBool>)> = None;
        let mut start_alone = |holders: &[ClassId]| {
            if !ahead || holders.is_empty() {
                return;
            }
            let stop = Arc::new(AtomicBool::new(false));
            let (options, holders, flag) = (options.clone(), holders.to_vec(), stop.clone());
            let thread = std::thread::Builder::new().name("scaletrace-blocks".into()).stack_size(crate::STACK_SIZE);
            if let Ok(handle) = thread.spawn_scoped(scope, move || {
                super::interp::abandon_when(flag);
                answer_blocks_alone(resolver, &options, holders)
            }) {
                started = Some((handle, stop));
            }
        };
        let entry = run_entry(resolver, &options, false, &mut start_alone);
        let alone = started.map(|(handle, stop)| {
            if !matches!(&entry, Ok((report, _)) if report.stopped) {
                stop.store(true, Ordering::Relaxed);
            }
            handle.join().unwrap_or_else(|_| Err("internal error while answering the blocks on their own".to_string()))
        });
        finish(resolver, &options, entry?, alone)
    })
}

/// Answers of the blocks on their own (see [`answer_blocks_alone`]).
type AloneAnswers = Result<Vec<TraceReport>, String>;

/// The entry's answer, with its blocks answered on their own when a bound stopped it
/// (`alone`: those answers if they were computed ahead of time).
fn finish(
    resolver: &Resolver,
    options: &TraceOptions,
    (mut report, holders): (TraceReport, Vec<ClassId>),
    alone: Option<AloneAnswers>,
) -> Result<TraceReport, String> {
    // A bound stopped the entry before it answered: each module it built that holds the
    // value is answered on its own, as the entry built it.
    if report.stopped && !holders.is_empty() {
        let alone = match alone {
            Some(answers) => answers?,
            None => answer_blocks_alone(resolver, options, holders)?,
        };
        if alone.is_empty() {
            // None was found again: the blocks as the stopped entry reached them.
            return Ok(run_entry(resolver, options, true, &mut |_| {})?.0);
        }
        report.blocks = alone;
        report.verdict = combined(report.blocks.iter().map(|b| b.verdict));
    }
    Ok(report)
}

/// The entry built as its constructor would build it, then loaded: the interpreter, the entry
/// object and the objects made on the way.
/// With `alone`, the block answered on its own: raises while building the modules inside the
/// entry (not those of the entry's own constructor) are not recorded (see `Interp::alone`).
fn build_entry<'r, 'a>(
    resolver: &'r Resolver<'a>,
    options: &TraceOptions,
    alone: Option<ClassId>,
) -> Result<(Interp<'r, 'a>, G, std::ops::Range<HeapId>), String> {
    let kernels = KernelModels::load(&options.kernel_files)?;
    let traced = Traced { name: options.value.clone(), origin: options.origin };
    let mut interp = Interp::new(resolver, traced, options.assumes.clone(), kernels);
    interp.max_steps = options.max_steps;
    interp.max_nodes = options.max_nodes;
    interp.max_alternatives = options.max_alternatives;
    interp.alone = alone.map(|class| AloneBlock { class, entry: options.entry, building: 0, entry_built: false });
    let index = resolver.index;
    let entry = options.entry;
    let entry_loc = Loc { file: entry.file, span: index.class(entry).name_range };
    let tt = interp.conds.truth();
    // Whoever builds the entry may pass anything: every parameter of its constructor is a
    // symbol (of the annotated class, when there is one), optional ones included.
    let init_args = match crate::query::instances::constructor_params(resolver, entry) {
        Some((Some(init), params, _)) => {
            let mut args = Args::default();
            for param in params.iter().filter(|p| !matches!(p.kind, ParamKind::VarPositional | ParamKind::VarKeyword)) {
                // A parameter named after the traced value is where it comes from.
                let value = if param.name.as_str() == interp.traced.name {
                    interp.traced_origin(Loc { file: init.file, span: param.range })
                } else {
                    interp.param_symbol(init, param, param.name.to_string())
                };
                args.keywords.push((param.name.clone(), Arg { value: G::under(tt, value), loc: Some(entry_loc) }));
            }
            args
        }
        _ => Args::default(),
    };
    let first_built = interp.heap.len() as HeapId;
    let object = interp.construct(entry, init_args, &tt, entry_loc);
    interp.entry_object = object.iter().find_map(|(_, v)| if let Value::Obj(id) = v { Some(*id) } else { None });
    let classes = &interp.resolver.mro(entry).classes;
    interp.entry_reads_value = class_reads_from_self(index, classes, &options.value);
    interp.entry_names_value = class_names_value(index, classes, &options.value);
    let built = first_built..interp.heap.len() as HeapId;
    if let Some(alone) = interp.alone.as_mut() {
        alone.entry_built = true;
    }
    interp.after_loading(built.clone(), entry_loc);
    interp.loaded_phase_done = true;
    Ok((interp, object, built))
}

/// The entry's own evaluation: its methods run on the object its constructor built.
/// Also the classes of the modules it built that could be answered on their own if it stops
/// (see [`holding_modules`]): none when building it spent the budget (building it again would
/// stop there too), or when the entry is a block itself (it keeps the value and a method of it
/// reads it from `self`: a module inside it answers another question).
///
/// With `blocks_when_stopped` false, the blocks the entry reached are not answered when a bound
/// stopped it and it built modules to answer on their own instead (`run` answers those):
/// answering a large stopped evaluation's blocks took as long as the evaluation.
///
/// `built_holding`: told the holders as soon as the entry is built (before its methods run).
fn run_entry(
    resolver: &Resolver,
    options: &TraceOptions,
    blocks_when_stopped: bool,
    built_holding: &mut dyn FnMut(&[ClassId]),
) -> Result<(TraceReport, Vec<ClassId>), String> {
    let (mut interp, object, built) = build_entry(resolver, options, None)?;
    let built_within_budget = interp.steps <= interp.max_steps;
    let entry_is_block =
        interp.entry_reads_value && interp.entry_object.is_some_and(|id| interp.holds_traced_value(id));
    let holders = if built_within_budget && !entry_is_block {
        holding_modules(&interp, &built, interp.entry_object)
    } else {
        Vec::new()
    };
    built_holding(&holders);
    let index = resolver.index;
    let entry = options.entry;
    let entry_loc = Loc { file: entry.file, span: index.class(entry).name_range };
    let tt = interp.conds.truth();
    let options = options.clone();

    let methods = if options.methods.is_empty() { vec!["forward".to_string()] } else { options.methods.clone() };
    let mut output = G::empty();
    let state = if methods.len() > 1 {
        let id = interp.alloc(ObjKind::Dict(Vec::new()), entry_loc);
        interp.pipeline_state = Some(id);
        Some(Value::Obj(id))
    } else {
        None
    };
    // What the state holds before the last stage: the pipeline's output is what that stage
    // writes (earlier stages leave intermediate results there: routing, dispatch records).
    let mut before_last: Vec<(Rc<str>, G)> = Vec::new();
    // A stage runs only where the stages before it did not raise (a record read where no
    // stage wrote it raises there, and the stages after would raise again on what it never
    // wrote).
    let mut stage_pc = tt;
    for (i, method) in methods.iter().enumerate() {
        if let (Some(Value::Obj(id)), true) = (&state, i + 1 == methods.len()) {
            if let ObjKind::Dict(entries) = &interp.heap[*id as usize].kind {
                before_last = entries.clone();
            }
        }
        let bound = interp.getattr_g(&object, method, &tt, entry_loc);
        let Some(func) = bound.iter().find_map(|(_, v)| if let Value::Bound(f, _) = v { Some(*f) } else { None })
        else {
            return Err(format!("{} has no method `{method}` in the tree", index.class_path(entry)));
        };
        let args = entry_args(&mut interp, func, state.clone(), entry_loc);
        let raised_before = interp.conds.raising_count();
        let result = interp.call(&bound, args, &stage_pc, entry_loc);
        if state.is_some() {
            let before = super::cond::approximated();
            let mut next = stage_pc;
            for raised in interp.conds.raising_since(raised_before).to_vec() {
                next = next.and(&raised.not());
            }
            // (Widened, the next stages would skip configurations that run: left as it was.)
            if super::cond::approximated() == before {
                stage_pc = next;
            }
        }
        if state.is_none() {
            output.extend(&interp.conds, result);
        }
    }
    // A pipeline's output is what its last stage wrote into the state.
    if let Some(Value::Obj(id)) = state {
        let ObjKind::Dict(entries) = interp.heap[id as usize].kind.clone() else { unreachable!("the state is a dict") };
        let written: Vec<(Rc<str>, G)> = entries
            .into_iter()
            .filter(|(key, g)| !before_last.iter().any(|(k, old)| k == key && old.same_as(g)))
            // (What configurations that raised left there is no output.)
            .map(|(key, g)| (key, g.restrict(&interp.conds, &stage_pc)))
            .collect();
        let written = interp.alloc(ObjKind::Dict(written), entry_loc);
        output.extend(&interp.conds, G::one(&interp.conds, Value::Obj(written)));
    }
    let mut report = answer(&interp, &options, methods, &output, None);
    if report.stopped && !holders.is_empty() && !blocks_when_stopped {
        return Ok((report, holders));
    }
    // The blocks inside the entry that hold the value (the MoE layers of a whole model): each
    // answered on its own output, and the verdict is theirs.
    let blocks: Vec<(ClassId, Vec<(Cond, Value)>)> = std::mem::take(&mut interp.blocks).into_iter().collect();
    let mut answered: Vec<ClassId> = Vec::new();
    for (class, alternatives) in blocks {
        let block = answer_block(&interp, &options, class, alternatives);
        // A module that keeps the value but returns routing (weights beside logits and expert
        // ids that are never scaled) is a router: the block is the module that called it and
        // uses the weights (transformers' `DeepseekV3MoE` around its `DeepseekV3TopkRouter`).
        let caller = interp.block_callers.get(&class).copied().filter(|_| !block.untouched_outputs.is_empty());
        let (class, block) = match caller.and_then(|c| interp.caller_blocks.get(&c).map(|alts| (c, alts.clone()))) {
            // The entry itself uses its router's weights: its own answer is the block's.
            Some((caller, _)) if caller == options.entry => continue,
            Some((caller, alternatives)) => (caller, answer_block(&interp, &options, caller, alternatives)),
            None => (class, block),
        };
        if !answered.contains(&class) {
            answered.push(class);
            report.blocks.push(block);
        }
    }
    report.blocks.sort_by(|a, b| a.entry.cmp(&b.entry));
    if !report.blocks.is_empty() {
        report.verdict = combined(report.blocks.iter().map(|b| b.verdict));
    }
    Ok((report, holders))
}

/// The modules the entry built that hold the value, each answered on its own: built again as
/// the entry builds it, its `forward` run on data of its own (unscaled), under the conditions
/// the entry's construction left in it. One whose own evaluation stops at a bound stays
/// UNKNOWN: a module inside it answers another question (a top-k's output is not the MoE's).
fn answer_blocks_alone(
    resolver: &Resolver,
    options: &TraceOptions,
    classes: Vec<ClassId>,
) -> Result<Vec<TraceReport>, String> {
    let mut answers = Vec::new();
    for class in classes {
        // Built again, so that the block's evaluation has the whole budget.
        let (mut interp, _, built) = build_entry(resolver, options, Some(class))?;
        if super::interp::abandoned() {
            // Not needed after all (see `run`): no report is made of what was cut short.
            return Ok(Vec::new());
        }
        let objects: Vec<HeapId> = candidates(&interp, &built, interp.entry_object)
            .into_iter()
            .filter(|(_, c)| *c == class)
            .map(|(id, _)| id)
            .collect();
        let Some(&first) = objects.first() else { continue };
        let Some(mut report) = answer_alone(&mut interp, options, class, &objects, first) else {
            return Ok(Vec::new());
        };
        report.alone = true;
        answers.push(report);
    }
    Ok(answers)
}

/// `forward` of every module in `objects` (instances of `class`), as if `class` were the entry.
/// `None` when the answer turned out not to be needed while it ran (see `run`).
fn answer_alone(
    interp: &mut Interp,
    options: &TraceOptions,
    class: ClassId,
    objects: &[HeapId],
    first: HeapId,
) -> Option<TraceReport> {
    let index = interp.index;
    let loc = Loc { file: class.file, span: index.class(class).name_range };
    let tt = interp.conds.truth();
    interp.entry_object = Some(first);
    let classes = interp.resolver.mro(class).classes.clone();
    interp.entry_reads_value = class_reads_from_self(index, &classes, &options.value);
    interp.entry_names_value = class_names_value(index, &classes, &options.value);
    let mut output = G::empty();
    for &id in objects {
        let bound = interp.getattr_g(&G::under(tt, Value::Obj(id)), "forward", &tt, loc);
        let Some(func) = bound.iter().find_map(|(_, v)| if let Value::Bound(f, _) = v { Some(*f) } else { None })
        else {
            continue;
        };
        let args = entry_args(interp, func, None, loc);
        let result = interp.call(&bound, args, &tt, loc);
        output.extend(&interp.conds, result);
    }
    if super::interp::abandoned() {
        return None;
    }
    let block_options = TraceOptions { entry: class, methods: vec!["forward".into()], ..options.clone() };
    Some(answer(interp, &block_options, vec!["forward".into()], &output, None))
}

/// The classes of the modules built by the entry (`built`) that hold the value in a field of
/// its name and have a `forward`, outermost first: a module held (through fields, lists,
/// dicts) by another such module is part of that one's answer. `except`: the entry itself.
fn holding_modules(interp: &Interp, built: &std::ops::Range<HeapId>, except: Option<HeapId>) -> Vec<ClassId> {
    let candidates = candidates(interp, built, except);
    let mut held_by_another: rustc_hash::FxHashSet<HeapId> = rustc_hash::FxHashSet::default();
    for &(id, _) in &candidates {
        let mut reached = reachable(interp, id);
        reached.remove(&id);
        held_by_another.extend(reached);
    }
    let mut classes: Vec<ClassId> =
        candidates.iter().filter(|(id, _)| !held_by_another.contains(id)).map(|(_, class)| *class).collect();
    classes.sort_by_key(|c| interp.index.class_path(*c));
    classes.dedup();
    classes
}

/// The modules built by the entry that hold the value in a field of its name. One whose
/// `forward` only raises (vLLM's `RoutedExperts`: "Call forward_modular or forward_monolithic
/// instead") is run through other methods by the module holding it: that module stands in its
/// place.
fn candidates(interp: &Interp, built: &std::ops::Range<HeapId>, except: Option<HeapId>) -> Vec<(HeapId, ClassId)> {
    let module = |id: HeapId| match interp.heap[id as usize].kind {
        ObjKind::Instance(class) if Some(id) != except && is_module(interp, class) => Some(class),
        _ => None,
    };
    let mut out = Vec::new();
    for id in built.clone().filter(|id| interp.holds_traced_value(*id)) {
        let Some(class) = module(id) else { continue };
        if !forward_only_raises(interp, class) {
            out.push((id, class));
            continue;
        }
        for holder in built.clone() {
            let holds = interp.heap[holder as usize]
                .fields
                .values()
                .any(|g| g.iter().any(|(_, v)| matches!(v, Value::Obj(held) if *held == id)));
            if let Some(class) = module(holder).filter(|class| holds && !forward_only_raises(interp, *class)) {
                out.push((holder, class));
            }
        }
    }
    out.sort_unstable_by_key(|(id, _)| *id);
    out.dedup();
    out
}

/// Whether `forward`, as the class's MRO finds it, does nothing but raise (after its
/// docstring).
fn forward_only_raises(interp: &Interp, class: ClassId) -> bool {
    let Some(func) = forward_of(interp, class) else { return false };
    let index = interp.index;
    let module = index.file(func.file).ast();
    let Some(ruff_python_ast::Stmt::FunctionDef(def)) =
        crate::syntax::stmt_with_range(&module.body, index.function(func).range)
    else {
        return false;
    };
    let mut body = def
        .body
        .iter()
        .skip_while(|stmt| matches!(stmt, ruff_python_ast::Stmt::Expr(e) if e.value.is_string_literal_expr()));
    matches!(body.next(), Some(ruff_python_ast::Stmt::Raise(_)))
}

/// Whether instances of `class` have a `forward` of the tree.
fn is_module(interp: &Interp, class: ClassId) -> bool {
    forward_of(interp, class).is_some()
}

/// The `forward` of the tree instances of `class` run, as its MRO finds it.
fn forward_of(interp: &Interp, class: ClassId) -> Option<crate::index::FuncId> {
    interp.resolver.mro(class).classes.iter().find_map(|c| {
        interp.index.class(*c).body.iter().find_map(|b| match b.kind {
            crate::index::BindingKind::Function(f) if b.name.as_str() == "forward" => Some(f),
            _ => None,
        })
    })
}

/// The objects reachable from `from` through fields, list items, dict entries and tuples.
fn reachable(interp: &Interp, from: HeapId) -> rustc_hash::FxHashSet<HeapId> {
    let mut seen: rustc_hash::FxHashSet<HeapId> = std::iter::once(from).collect();
    let mut stack: Vec<HeapId> = vec![from];
    let push_value = |v: &Value, stack: &mut Vec<HeapId>, seen: &mut rustc_hash::FxHashSet<HeapId>| {
        let mut values = vec![v.clone()];
        while let Some(v) = values.pop() {
            match v {
                Value::Obj(id) => {
                    if seen.insert(id) {
                        stack.push(id);
                    }
                }
                Value::Tuple(items) => values.extend(items.iter().flat_map(|g| g.iter().map(|(_, v)| v.clone()))),
                _ => {}
            }
        }
    };
    while let Some(id) = stack.pop() {
        let object = &interp.heap[id as usize];
        for g in object.fields.values() {
            for (_, v) in g.iter() {
                push_value(v, &mut stack, &mut seen);
            }
        }
        match &object.kind {
            ObjKind::List(items) => {
                for g in items {
                    for (_, v) in g.iter() {
                        push_value(v, &mut stack, &mut seen);
                    }
                }
            }
            ObjKind::Dict(entries) => {
                for (_, g) in entries {
                    for (_, v) in g.iter() {
                        push_value(v, &mut stack, &mut seen);
                    }
                }
            }
            _ => {}
        }
    }
    seen
}

/// Whether a method of these classes other than a constructor reads `self.NAME`.
fn class_reads_from_self(index: &crate::index::Index, classes: &[ClassId], name: &str) -> bool {
    let read = format!("self.{name}");
    classes.iter().any(|c| {
        index.class(*c).body.iter().any(|b| match b.kind {
            crate::index::BindingKind::Function(f) if b.name.as_str() != "__init__" => {
                let facts = index.function(f);
                let text = &index.file(f.file).text[facts.range.start as usize..facts.range.end as usize];
                text.match_indices(&read).any(|(at, _)| {
                    // `self.NAME` itself, not `self.NAME_suffix`.
                    !text[at + read.len()..].starts_with(|ch: char| ch.is_alphanumeric() || ch == '_')
                })
            }
            _ => false,
        })
    })
}

/// Whether a method of `classes` other than a constructor names `name` (an attribute, a key,
/// a variable): an entry none of whose methods do (a decoder layer) only passes on what its
/// modules compute.
fn class_names_value(index: &crate::index::Index, classes: &[ClassId], name: &str) -> bool {
    let is_ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    classes.iter().any(|c| {
        index.class(*c).body.iter().any(|b| match b.kind {
            crate::index::BindingKind::Function(f) if b.name.as_str() != "__init__" => {
                let facts = index.function(f);
                let text = &index.file(f.file).text[facts.range.start as usize..facts.range.end as usize];
                text.match_indices(name)
                    .any(|(at, _)| !text[..at].ends_with(is_ident) && !text[at + name.len()..].starts_with(is_ident))
            }
            _ => false,
        })
    })
}

/// The answer for one block: what its `forward` calls returned.
fn answer_block(
    interp: &Interp,
    options: &TraceOptions,
    class: ClassId,
    alternatives: Vec<(Cond, Value)>,
) -> TraceReport {
    let mut g = G::empty();
    for (c, v) in alternatives {
        g.push(&interp.conds, c, v);
    }
    let block_options = TraceOptions { entry: class, methods: vec!["forward".into()], ..options.clone() };
    // Configurations that never call the block are no part of its answer (not lost by it).
    let reached = interp.block_reached.get(&class).copied();
    answer(interp, &block_options, vec!["forward".into()], &g, reached)
}

/// The verdict over several answers: ONCE when all are; the kind of the problem answers when
/// they agree; MIXED when they do not; UNKNOWN when only unknown answers keep it from ONCE.
pub(crate) fn combined(verdicts: impl Iterator<Item = Verdict>) -> Verdict {
    let verdicts: BTreeSet<Verdict> = verdicts.collect();
    let problems: Vec<Verdict> =
        verdicts.iter().copied().filter(|v| !matches!(v, Verdict::Once | Verdict::Unknown)).collect();
    match problems.as_slice() {
        [] if verdicts.contains(&Verdict::Unknown) || verdicts.is_empty() => Verdict::Unknown,
        [] => Verdict::Once,
        [one] => *one,
        _ => Verdict::Mixed,
    }
}

/// Arguments for the entry method: data for parameters without defaults (objects of the tree
/// when annotated with one), the shared state for pipelines.
fn entry_args(interp: &mut Interp, func: crate::index::FuncId, state: Option<Value>, loc: Loc) -> Args {
    let params = interp.index.function(func).call_params().to_vec();
    let mut args = Args::default();
    for param in &params {
        if matches!(param.kind, ParamKind::VarPositional | ParamKind::VarKeyword) {
            continue;
        }
        let annotation = param
            .annotation
            .as_deref()
            .map(|a| crate::syntax::snippet(&interp.index.file(func.file).text, crate::syntax::Span::of(a)))
            .unwrap_or_default();
        if param.default.is_some() {
            // Whoever calls the entry may pass any value: an optional flag is a configuration
            // (an atom named after the parameter). An optional tensor defaulting to `None` is
            // `None` or a tensor (an atom `x == None`): a block that requires it on some path
            // (`input_ids` of a hash-routed layer) would otherwise raise there in every
            // configuration. Other optional tensors keep their default.
            if state.is_none() && !annotation.contains("Tensor") {
                let value = interp.param_symbol(func, param, param.name.to_string());
                let tt = interp.conds.truth();
                args.keywords.push((param.name.clone(), Arg { value: G::under(tt, value), loc: Some(loc) }));
            } else if state.is_none() && matches!(param.default.as_deref(), Some(ruff_python_ast::Expr::NoneLiteral(_)))
            {
                let Value::Sym(sym) = interp.param_symbol(func, param, param.name.to_string()) else { continue };
                let absent = interp.equals_atom(sym, &crate::syntax::Constant::None);
                let mut value = G::under(absent, Value::none());
                value.push(&interp.conds, absent.not(), Value::Num(Rc::new(Num::plain_tensor())));
                args.keywords.push((param.name.clone(), Arg { value, loc: Some(loc) }));
            }
            continue;
        }

        let value = match (&state, param.name.as_str()) {
            (Some(state), _) => state.clone(),
            _ => {
                let hint = param.annotation.as_deref().and_then(|a| {
                    let ctx = crate::resolve::Ctx::module(func.file);
                    interp.resolver.annotation_classes(&ctx, a, &mut crate::resolve::Walk::default()).into_iter().next()
                });
                match hint {
                    Some(_) => interp.param_symbol(func, param, param.name.to_string()),
                    None => Value::Num(Rc::new(Num::plain_tensor())),
                }
            }
        };
        let tt = interp.conds.truth();
        args.keywords.push((param.name.clone(), Arg { value: G::under(tt, value), loc: Some(loc) }));
    }
    args
}

/// The numbers an output value holds (through tuples, objects, lists and dicts), each with
/// where it sits in the output (`[0]`, `.topk_weights`; empty for the output itself).
#[allow(clippy::too_many_arguments)]
fn collect_nums(
    interp: &Interp,
    value: &Value,
    path: &str,
    depth: usize,
    seen: &mut Vec<HeapId>,
    out: &mut Vec<(Cond, Rc<Num>, String)>,
    cond: &Cond,
    unknown: &mut Vec<String>,
) {
    if depth > 6 {
        return;
    }
    match value {
        // An output that is a number derived from the factor, with no application site (an
        // unknown value the code multiplied, taken for a number rather than data: its sites, if
        // any, are `on_number`), says nothing of how often data was scaled: not counted as
        // applications.
        Value::Num(n)
            if !n.tensor
                && path.is_empty()
                && n.carries_traced()
                && n.parts.iter().all(|p| p.sites.iter().all(|s| interp.sites[*s as usize].on_number)) =>
        {
            unknown.push(format!(
                "the output is a number derived from {}, not data the evaluation followed",
                interp.traced.name
            ))
        }
        // Data is what gets scaled; scalars an output object carries along (a config value, the
        // factor itself kept for later) are not part of the answer.
        Value::Num(n) if n.tensor || path.is_empty() => out.push((*cond, n.clone(), path.to_string())),
        Value::Tuple(items) => {
            for (i, g) in items.iter().enumerate() {
                let path = format!("{path}[{i}]");
                for (c, v) in g.iter() {
                    collect_nums(interp, v, &path, depth + 1, seen, out, &cond.and(c), unknown);
                }
            }
        }
        Value::Obj(id) => {
            if seen.contains(id) {
                return;
            }
            seen.push(*id);
            let object = &interp.heap[*id as usize];
            let mut children: Vec<(String, &G)> =
                object.fields.iter().map(|(name, g)| (format!("{path}.{name}"), g)).collect();
            match &object.kind {
                ObjKind::List(items) => {
                    children.extend(items.iter().enumerate().map(|(i, g)| (format!("{path}[{i}]"), g)))
                }
                ObjKind::Dict(entries) => children.extend(entries.iter().map(|(k, g)| (format!("{path}[{k:?}]"), g))),
                _ => {}
            }
            children.sort_by(|a, b| a.0.cmp(&b.0));
            for (child, g) in children {
                for (c, v) in g.iter() {
                    collect_nums(interp, v, &child, depth + 1, seen, out, &cond.and(c), unknown);
                }
            }
        }
        Value::Unknown(reason) => unknown.push(reason.to_string()),
        _ => {}
    }
}

/// What an output holds in some configurations (see `answer`): the scales of its data parts
/// there, over all of them.
#[derive(Clone)]
struct Alternative {
    cond: Cond,
    exponents: BTreeSet<i32>,
    parts: BTreeSet<(i32, Vec<SiteId>, bool, bool)>,
    /// What made incomplete parts so (indices into `Interp::blockers`).
    blocked_by: BTreeSet<u32>,
    /// Some part holds data here.
    has_data: bool,
    /// Some of the data holds no application at all (exponent 0, no site).
    plain: bool,
    unknown: Vec<String>,
}

impl Alternative {
    fn new(cond: Cond, unknown: Vec<String>) -> Alternative {
        Alternative {
            cond,
            exponents: BTreeSet::new(),
            parts: BTreeSet::new(),
            blocked_by: BTreeSet::new(),
            has_data: false,
            plain: false,
            unknown,
        }
    }

    /// Adds data `n` of which the sites `ran` ran here.
    fn add(&mut self, n: &Num, ran: &BTreeSet<SiteId>) {
        for part in &n.parts {
            if part.exp != 0 {
                self.exponents.insert(part.exp);
            }
            if part.touched() {
                let sites = part.sites.iter().copied().filter(|s| ran.contains(s)).collect();
                self.parts.insert((part.exp, sites, part.unknown.is_some(), part.shared));
            }
            self.blocked_by.extend(part.unknown);
        }
        self.has_data = true;
        self.plain |= n.parts.iter().any(|p| !p.touched());
    }
}

/// New decision-diagram nodes the printing context of the rows may take (the table is shared
/// with the rows themselves, which must stay exact).
const REPORT_NODE_BUDGET: usize = 1_000_000;
/// New nodes taking raises out of rows may make in all, after a bound stopped the evaluation.
const STOPPED_RAISES_NODE_BUDGET: usize = 1_000_000;

/// The entry method (`Class.method`, through the MRO) that takes a parameter named as the
/// traced value, when the value was never read: the method accepts it and does not use it.
fn unused_entry_parameter(interp: &Interp, options: &TraceOptions, methods: &[String]) -> Option<String> {
    let index = interp.index;
    methods.iter().find_map(|method| {
        let func = interp.resolver.mro(options.entry).classes.iter().find_map(|&class| {
            index.class(class).body.iter().find_map(|b| match b.kind {
                crate::index::BindingKind::Function(f) if b.name.as_str() == method => Some(f),
                _ => None,
            })
        })?;
        let facts = index.function(func);
        facts.params.iter().any(|p| p.name.as_str() == options.value).then(|| facts.qualname.to_string())
    })
}

/// The answer for `output`, within the configurations `within` (where a block was called).
fn answer(
    interp: &Interp,
    options: &TraceOptions,
    methods: Vec<String>,
    output: &G,
    within: Option<Cond>,
) -> TraceReport {
    let index = interp.index;
    let conds = &interp.conds;
    // What every alternative of the output holds.
    let mut alternatives: Vec<Alternative> = Vec::new();
    let mut collected = Vec::new();
    for (c, v) in output.iter() {
        let mut nums = Vec::new();
        let mut unknown = Vec::new();
        collect_nums(interp, v, "", 0, &mut Vec::new(), &mut nums, c, &mut unknown);
        collected.push((*c, nums, unknown));
    }
    // An output with several parts (top-k weights and ids, a tensor and its residual) is judged
    // on the parts that take part in scaling in some configuration; parts that never do (expert
    // ids) are named, not counted as missing applications.
    let touched_paths: BTreeSet<&str> =
        collected.iter().flat_map(|(_, nums, _)| nums.iter()).filter(|n| n.1.touched()).map(|n| n.2.as_str()).collect();
    let all_paths: BTreeSet<&str> =
        collected.iter().flat_map(|(_, nums, _)| nums.iter()).map(|n| n.2.as_str()).collect();
    let untouched_outputs: Vec<String> = if touched_paths.is_empty() {
        Vec::new()
    } else {
        // The output itself is never left out: unscaled there is NEVER.
        all_paths.difference(&touched_paths).filter(|p| !p.is_empty()).map(|p| p.to_string()).collect()
    };
    for (c, nums, unknown) in collected.iter() {
        let had_data = !nums.is_empty();
        let (nums, untouched): (Vec<_>, Vec<_>) =
            nums.iter().partition(|n| !untouched_outputs.iter().any(|u| u == &n.2));
        let nums: Vec<(Cond, Rc<Num>)> = nums.into_iter().map(|n| (n.0, n.1.clone())).collect();
        // Where the parts that never take part in scaling are (expert ids beside weights).
        let untouched_cond = untouched.iter().fold(conds.falsity(), |acc, n| acc.or(&n.0));
        let (c, unknown) = (*c, unknown.clone());
        if nums.is_empty() && had_data {
            // Only parts that never take part in scaling: none of the value reaches here.
            alternatives.push(Alternative { has_data: true, plain: true, ..Alternative::new(c, unknown) });
            continue;
        }
        // Split by the conditions of nested alternatives.
        if nums.is_empty() {
            alternatives.push(Alternative::new(c, unknown));
            continue;
        }
        // The data parts of one output (a layer's output and its residual stream, a record's
        // tensors) are one answer per configuration: each part's regions refine the
        // configurations, and a configuration's row holds the scales of every part there.
        // (Each part made rows of its own, and a configuration sat in one row per part.) Past
        // a bound on the refinement, parts are answered one by one again.
        let regions: Vec<Vec<(Cond, BTreeSet<SiteId>)>> =
            nums.iter().map(|(nc, n)| regions_by_sites(interp, n, *nc)).collect();
        let mut cells = vec![Alternative::new(c, unknown.clone())];
        let mut refined = true;
        for ((_, n), regions) in nums.iter().zip(&regions) {
            let mut next = Vec::new();
            for cell in &cells {
                let mut rest = cell.cond;
                for (region, ran) in regions {
                    let both = cell.cond.and(region);
                    if !conds.feasible(&both) {
                        continue;
                    }
                    let mut grown = cell.clone();
                    grown.cond = both;
                    grown.add(n, ran);
                    next.push(grown);
                    rest = rest.and(&region.not());
                }
                if conds.feasible(&rest) {
                    next.push(Alternative { cond: rest, ..cell.clone() });
                }
            }
            if next.len() > MAX_SITE_REGIONS {
                refined = false;
                break;
            }
            cells = next;
        }
        if !refined {
            cells = Vec::new();
            for ((_, n), regions) in nums.iter().zip(&regions) {
                for (region, ran) in regions {
                    let mut cell = Alternative::new(*region, unknown.clone());
                    cell.add(n, ran);
                    cells.push(cell);
                }
            }
        }
        for cell in cells {
            // Where no part holds data (a part present only in some configurations), the data
            // there is the parts that never take part in scaling, if they are there. Where
            // they are not either, the output holds nothing followed there (a tensor handed
            // back by code the evaluation lost in some configurations only): unknown, not a
            // missing application.
            let plain_there = !cell.has_data && conds.feasible(&cell.cond.and(&untouched_cond));
            let plain = cell.plain || plain_there;
            alternatives.push(Alternative { has_data: cell.has_data || plain_there, plain, ..cell });
        }
    }
    // A configuration is the conjunction of everything it chose; merge outcomes per (outcome
    // key), then split overlapping data into the rows of the worst outcome.
    struct Group {
        verdict: Verdict,
        exponents: BTreeSet<i32>,
        parts: BTreeSet<(i32, Vec<SiteId>, bool, bool)>,
        cond: Cond,
        reason: Option<String>,
        blocked_by: BTreeSet<u32>,
        unscaled_rest: bool,
    }
    let mut groups: Vec<Group> = Vec::new();
    // Configurations where the count cannot matter (the value is 1, the data is empty) are
    // named and left out of the verdict. Built before anything large: it is negated, so a
    // widened one would exclude configurations that matter.
    let mut vacuous_cond = conds.falsity();
    for &(atom, _) in conds.vacuous() {
        vacuous_cond = vacuous_cond.or(&conds.literal_cond(atom, true));
    }
    // Configurations that raise never produce an output (rows are restricted exactly below;
    // this is only what they are printed within).
    let before_runs = super::cond::approximated();
    let (runs, runs_exact) = conds.runs_within(REPORT_NODE_BUDGET);
    // Widening there only widens what rows are printed within: not a loss of precision.
    let widened_runs = super::cond::approximated() - before_runs;
    // Met while evaluating, those configurations were left out then (their branches were not
    // evaluated): every one is named.
    let vacuous_used: BTreeSet<usize> = conds.vacuous().iter().map(|&(atom, _)| atom).collect();
    // What the rows are printed within: running configurations where the count matters. Only
    // when what runs is exact: part of it (a large trace's first raises) is large without
    // being what the rows are restricted by (the raises about their own atoms).
    let mut care = if runs_exact { runs.and(&vacuous_cond.not()) } else { vacuous_cond.not() };
    if let Some(within) = within {
        care = care.and(&within);
    }
    // Alternatives of one outcome are gathered first, and the configurations that raise are
    // taken out of their disjunction once: taken out of each alternative, they were most of a
    // large trace's report (hundreds of alternatives, a few outcomes).
    struct Gathered {
        verdict: Verdict,
        exponents: BTreeSet<i32>,
        parts: BTreeSet<(i32, Vec<SiteId>, bool, bool)>,
        reason: Option<String>,
        unscaled_rest: bool,
        /// (index of the alternative, its condition, what blocked it)
        members: Vec<(usize, Cond, BTreeSet<u32>)>,
    }
    let mut gathered: Vec<Gathered> = Vec::new();
    for (index, o) in alternatives.into_iter().enumerate() {
        let incomplete = o.parts.iter().any(|p| p.2);
        let (verdict, reason) = if !o.has_data {
            let why = if o.unknown.is_empty() && interp.steps > interp.max_steps {
                // (The method never ran: a bound stopped the evaluation before, while building
                // or loading the entry.)
                "a bound stopped the evaluation before the output was computed (see the bounds hit)".to_string()
            } else if o.unknown.is_empty() {
                "the output holds no data the evaluation could follow".to_string()
            } else {
                o.unknown.join("; ")
            };
            (Verdict::Unknown, Some(why))
        } else if incomplete {
            (
                Verdict::Unknown,
                Some(
                    "part of the output went through code whose effect on the scale is not known (see blocked by)"
                        .to_string(),
                ),
            )
        } else if o.parts.iter().any(|p| p.3 && p.0 > 0) {
            // A shared expert's output scaled by the routed experts' factor: whatever the
            // routed part carries, the two are weighed wrongly against each other.
            (Verdict::Mixed, None)
        } else {
            (verdict_of(&o.exponents), None)
        };
        let member = (index, o.cond, o.blocked_by);
        // Data only divided by the value beside data it never reached (vLLM's FP16 path, the
        // shared expert's output divided instead of the routed one multiplied): the row says
        // what the rest carries relative to it.
        let unscaled_rest = verdict == Verdict::Inverse && o.plain;
        match gathered.iter_mut().find(|g| {
            g.verdict == verdict
                && g.exponents == o.exponents
                && g.parts == o.parts
                && g.reason == reason
                && g.unscaled_rest == unscaled_rest
        }) {
            Some(outcome) => outcome.members.push(member),
            None => gathered.push(Gathered {
                verdict,
                exponents: o.exponents,
                parts: o.parts,
                reason,
                unscaled_rest,
                members: vec![member],
            }),
        }
    }
    // Each outcome where it runs and the count matters, in the order of its first alternative
    // left there; what blocked precision, of the alternatives left.
    // After a bound stopped the evaluation, rows are provisional, under conditions that may be
    // wider than the configurations that reach them (the report says so): taking the raises
    // out of them is bounded. Unbounded, on a large stopped trace it filled the node table,
    // and the widened operations after it lost most of the rows found.
    let mut raise_budget = (interp.steps > interp.max_steps).then_some(STOPPED_RAISES_NODE_BUDGET);
    let mut placed: Vec<(usize, Group)> = Vec::new();
    for outcome in gathered {
        let all = outcome.members.iter().fold(conds.falsity(), |acc, m| acc.or(&m.1));
        let mut cond = without_raising(conds, &all, runs_exact.then_some(&runs), &mut raise_budget);
        if !conds.feasible(&cond) {
            continue;
        }
        cond = cond.and(&vacuous_cond.not());
        if !conds.feasible(&cond) {
            continue;
        }
        let mut first = None;
        let mut blocked_by = BTreeSet::new();
        let alone = outcome.members.len() == 1;
        for (index, member, blocked) in outcome.members {
            // (One member is the whole outcome, feasible as just checked; a member that does
            // not meet it, whatever the constraints, is out without a conjunction.)
            if alone || (member.meets(&cond) && conds.feasible(&member.and(&cond))) {
                first.get_or_insert(index);
                blocked_by.extend(blocked);
            }
        }
        let Some(first) = first else { continue };
        placed.push((
            first,
            Group {
                verdict: outcome.verdict,
                exponents: outcome.exponents,
                parts: outcome.parts,
                cond,
                reason: outcome.reason,
                blocked_by,
                unscaled_rest: outcome.unscaled_rest,
            },
        ));
    }
    placed.sort_by_key(|(first, _)| *first);
    groups.extend(placed.into_iter().map(|(_, group)| group));
    // Configurations that finish and matter but that no output reached were lost by the
    // evaluation (a gap of it, not of the code): a row says so rather than leaving them out of
    // the table. (Only when what runs was computed exactly: widened, it covers too much.)
    if widened_runs == 0 {
        let before = super::cond::approximated();
        let covered = groups.iter().fold(conds.falsity(), |acc, g| acc.or(&g.cond));
        // (`runs` may stop at its node budget and keep configurations that raise: those are
        // taken out exactly here.)
        let (lost, raises_out) =
            without_raising_exactly(conds, &care.and(&covered.not()), runs_exact.then_some(&runs), &mut raise_budget);
        // Past the budget of a stopped evaluation, the raises stay in: those configurations may
        // be ones that raise, and the row says so rather than that they were lost.
        let reason = if raises_out {
            "no output reached the end of the method here, and no raise the evaluation saw explains it: the evaluation lost these configurations"
        } else {
            "no output reached the end of the method here: a bound stopped the evaluation, and the raises it saw were not taken out of these configurations (see the bounds hit)"
        };
        if super::cond::approximated() == before && conds.feasible(&lost) {
            groups.push(Group {
                verdict: Verdict::Unknown,
                exponents: BTreeSet::new(),
                parts: BTreeSet::new(),
                cond: lost,
                reason: Some(reason.to_string()),
                blocked_by: BTreeSet::new(),
                unscaled_rest: false,
            });
        }
    }
    // A group none of whose configurations runs (every one raises, or lies outside where a
    // block is called) is no row: printed, it read "never", and its verdict counted.
    groups.retain(|g| conds.feasible(&g.cond.and(&care)));
    // A site's "runs when" is the same text in every row that shows it.
    let mut site_texts: rustc_hash::FxHashMap<SiteId, SiteOut> = Default::default();
    let mut fuel = DECISIVE_FUEL;
    let mut row_conds: Vec<Cond> = Vec::new();
    let mut rows: Vec<Row> = groups
        .into_iter()
        .map(|Group { mut verdict, exponents, parts, cond, mut reason, blocked_by, unscaled_rest }| {
            // Values holding scaled data were cut here: the application a NEVER row misses may
            // be among them. That is no finding (a TWICE row's applications were found; a
            // NEVER row's absence was not).
            if verdict == Verdict::Never && cond.meets(&interp.scaled_cuts) {
                verdict = Verdict::Unknown;
                reason = Some(
                    "values holding scaled data were cut at the alternatives bound here (see bounds hit): the application may be among them"
                        .to_string(),
                );
            }
            let shown = conds.decisive(&cond, &care, &mut fuel);
            let configurations = printed(conds, &shown, &care);
            let parts: Vec<PartOut> = parts
                .into_iter()
                .map(|(exp, sites, incomplete, shared)| PartOut {
                    exponent: exp,
                    alternative_sites: sites.len() > 1
                        && sites.iter().map(|s| interp.sites[*s as usize].delta).sum::<i32>() != exp,
                    sites: sites
                        .iter()
                        .map(|s| site_texts.entry(*s).or_insert_with(|| site_out(interp, *s, &care, &mut fuel)).clone())
                        .collect(),
                    incomplete,
                    shared,
                })
                .collect();
            let exponents: Vec<i32> = exponents.into_iter().collect();
            row_conds.push(cond);
            let cut_at_bound = verdict != Verdict::Unknown && cond.meets(&interp.scaled_cuts);
            let mut blocked_by: Vec<Note> = blocked_by.into_iter().map(|b| blocker_note(interp, b)).collect();
            blocked_by.sort();
            blocked_by.dedup();
            let mut normalized_at: Vec<Note> = if parts.is_empty() {
                interp
                    .normalized_away
                    .iter()
                    .filter(|(_, _, at)| at.meets(&cond))
                    .map(|(loc, how, _)| Note {
                        location: Some(Location::new(interp.index, loc.file, loc.span)),
                        what: how.why().to_string(),
                    })
                    .collect()
            } else {
                Vec::new()
            };
            normalized_at.sort();
            normalized_at.dedup();
            let mut unwritten_at: Vec<Note> = if parts.is_empty() && verdict == Verdict::Never {
                interp
                    .unwritten_scaled
                    .iter()
                    .filter(|(_, at)| at.meets(&cond))
                    .map(|(loc, _)| Note {
                        location: Some(Location::new(interp.index, loc.file, loc.span)),
                        what: "scaled a buffer nothing had written".to_string(),
                    })
                    .collect()
            } else {
                Vec::new()
            };
            unwritten_at.sort();
            unwritten_at.dedup();
            Row {
                outcome: Outcome { verdict, exponent: net_exponent(&exponents), exponents },
                configurations,
                parts,
                reason,
                blocked_by,
                cut_at_bound,
                normalized_at,
                unwritten_at,
                unscaled_rest,
            }
        })
        .collect();
    // Rows in order of verdict and text (their conditions in the same order).
    let mut order: Vec<usize> = (0..rows.len()).collect();
    let key = |r: &Row| (r.outcome.verdict, r.configurations.when.clone());
    order.sort_by_key(|&i| key(&rows[i]));
    let mut taken: Vec<Option<Row>> = rows.into_iter().map(Some).collect();
    rows = order.iter().map(|&i| taken[i].take().expect("each row once")).collect();
    let row_conds: Vec<Cond> = order.iter().map(|&i| row_conds[i]).collect();
    let rows_cut = row_conds.iter().any(|c| c.meets(&interp.scaled_cuts));
    // One entry per outcome, whatever code path its configurations take.
    let mut outcomes: Vec<(Outcome, Cond, Vec<usize>)> = Vec::new();
    for (i, (row, cond)) in rows.iter().zip(&row_conds).enumerate() {
        match outcomes.iter_mut().find(|o| o.0 == row.outcome) {
            Some(o) => {
                o.1 = o.1.or(cond);
                o.2.push(i);
            }
            None => outcomes.push((row.outcome.clone(), *cond, vec![i])),
        }
    }
    let verdicts: Vec<VerdictGroup> = outcomes
        .into_iter()
        .map(|(outcome, cond, members)| {
            let configurations = match members.as_slice() {
                [only] => rows[*only].configurations.clone(),
                _ => printed(conds, &conds.decisive(&cond, &care, &mut fuel), &care),
            };
            VerdictGroup { outcome, configurations, rows: members }
        })
        .collect();
    // What was met only in configurations that raise (or where the count cannot matter) did
    // not block anything the table shows.
    let mut unresolved: Vec<Note> = interp
        .blockers
        .iter()
        .enumerate()
        .filter(|(_, b)| conds.feasible(&b.when.and(&care)))
        .map(|(i, _)| blocker_note(interp, i as u32))
        .collect();
    let mut unused: Vec<Note> = interp
        .unused
        .iter()
        .filter(|u| conds.feasible(&u.when.and(&care)))
        .map(|u| {
            let def = Location::new(index, u.def.file, u.def.span);
            Note {
                location: Some(Location::new(index, u.loc.file, u.loc.span)),
                what: format!(
                    "`{}` handed to `{}` as `{}` ({}:{}), which never reads it",
                    options.value, u.callee, u.param, def.path, def.line
                ),
            }
        })
        .collect();
    unused.sort();
    unused.dedup();
    if conds.platforms_linked() {
        unresolved.push(Note {
            location: None,
            what: "assumed: the platform predicates describe one platform (those of two platforms never hold \
                   together; `is_cuda()` implies `is_cuda_alike()`)"
                .into(),
        });
    }
    unresolved.sort();
    unresolved.dedup();
    // Operations of the report itself (merging rows, printing them) can be too large as well.
    let approximated = super::cond::approximated() - widened_runs;
    let mut bounds: Vec<Note> = interp
        .bounds
        .iter()
        .map(|b| Note { location: b.loc.map(|l| Location::new(index, l.file, l.span)), what: b.what.clone() })
        .collect();
    if approximated > 0 {
        bounds.push(Note {
            location: None,
            what: format!(
                "{approximated} conditions grew too large and were widened (kept as possible more often than they are)"
            ),
        });
    }
    if interp.conds.overflowed {
        bounds.push(Note {
            location: None,
            what: format!("more than {} atoms; later conditions were not kept", super::cond::MAX_ATOMS),
        });
    }
    bounds.sort();
    bounds.dedup();

    let mut verdict = overall(&rows);
    // ONCE is a claim about every configuration: where the loader's hook was not run and no
    // configuration reaches a row (they all raised, on an assert of what the hook sets), it
    // is not proven.
    if verdict == Verdict::Once && interp.conds.feasible(&interp.unloaded) {
        let shown = row_conds.iter().fold(vacuous_cond, |all, c| all.or(c));
        if !interp.conds.feasible(&interp.unloaded.and(&shown)) {
            verdict = Verdict::Unknown;
        }
    }
    // A spent budget or widened conditions make every row provisional: the verdict is
    // UNKNOWN (the rows still show what was found).
    let budget_spent = interp.steps > interp.max_steps || interp.conds.overflowed || approximated > 0;
    if budget_spent {
        verdict = Verdict::Unknown;
    }

    // Atoms the rows mention, with the `--assume` spelling that fixes each.
    let mut atom_names: BTreeSet<String> = BTreeSet::new();
    for row in &rows {
        for product in &row.configurations.conditions {
            for lit in product {
                atom_names.insert(lit.atom.clone());
            }
        }
    }
    let atoms = atom_names.into_iter().map(|display| atom_out(&interp.conds, display)).collect();
    // When the evaluation was cut short, the atoms it split on most are what to fix first.
    let widest_splits: Vec<SplitOut> = if budget_spent || rows_cut { widest_splits(interp) } else { Vec::new() };
    let assumptions = interp
        .assumes
        .iter()
        // A platform's predicates the code never tests are not the user's words: not listed.
        .filter(|a| a.from_platform.is_none() || a.used.get())
        .map(|a| AssumptionOut {
            name: a.name.clone(),
            value: match &a.value {
                AssumedValue::Class(c) => index.class_path(*c),
                other => other.to_string(),
            },
            used: a.used.get(),
            platform: a.from_platform.map(|p| p.name()),
        })
        .collect();
    let stopped = interp.steps > interp.max_steps;
    // Where configurations raise, they leave the table: said, widest first (all of them when
    // nothing reached the end).
    let raises = if !stopped {
        conds
            .raise_places()
            .into_iter()
            .take(MAX_RAISES_SHOWN)
            .map(|(loc, share)| {
                let source = interp.text(loc).lines().next().unwrap_or_default().trim().to_string();
                // Not a name that starts so (`raise_on_error`).
                let statement = source == "raise" || source.starts_with("raise ") || source.starts_with("assert ");
                let exception = match interp.raise_kinds.get(&loc) {
                    Some(Some(kind)) if !statement => Some(kind.to_string()),
                    _ => None,
                };
                RaiseOut { location: Location::new(index, loc.file, loc.span), source, exception, share }
            })
            .collect()
    } else {
        Vec::new()
    };
    let never_read = !interp.hops.iter().any(|h| h.kind == super::trace::HopKind::Origin);
    let unused_parameter_of = never_read.then(|| unused_entry_parameter(interp, options, &methods)).flatten();
    TraceReport {
        value: options.value.clone(),
        entry: index.class_path(options.entry),
        methods,
        verdict,
        verdicts,
        rows,
        blocks: Vec::new(),
        split_on: None,
        cases: Vec::new(),
        atoms,
        assumptions,
        untouched_outputs,
        widest_splits,
        vacuous: conds
            .vacuous()
            .iter()
            .filter(|(atom, _)| vacuous_used.contains(atom))
            .map(|&(atom, why)| VacuousOut { condition: conds.literal(atom, true), why: why.to_string() })
            // (Two atoms may read alike: the same test of two values named alike.)
            .fold(Vec::new(), |mut kept: Vec<VacuousOut>, v| {
                if !kept.iter().any(|k| k.condition == v.condition) {
                    kept.push(v);
                }
                kept
            }),
        unused,
        unresolved,
        bounds,
        stopped,
        provisional: budget_spent,
        alone: false,
        never_read,
        rows_cut,
        unused_parameter_of,
        raises,
        stats: TraceStats {
            steps: interp.steps.min(interp.max_steps),
            objects: interp.heap.len(),
            atoms: interp.conds.atoms().len(),
            sites: interp.sites.len(),
        },
    }
}

/// A blocker as the report names it.
/// `cond` without the configurations that raise: one conjunction with them all (`runs`), when
/// that was computed exactly and conjoins within its fuel; raise by raise otherwise. The two
/// agree on the row's own atoms, not as functions: raise by raise leaves out raises about
/// atoms unrelated to the row (they remove none of its configurations), so its condition, and
/// the printed row, stay shorter; each row used to test itself against every raise, a tenth of
/// a large trace.
///
/// `budget`: the new nodes raise-by-raise removal may still make, when it is bounded (after a
/// bound stopped the evaluation, see `answer`); past it, `cond` as it is (wider).
fn without_raising(conds: &super::cond::Conds, cond: &Cond, runs: Option<&Cond>, budget: &mut Option<usize>) -> Cond {
    without_raising_exactly(conds, cond, runs, budget).0
}

/// `without_raising`, and whether every raise was taken out (past the budget none is).
fn without_raising_exactly(
    conds: &super::cond::Conds,
    cond: &Cond,
    runs: Option<&Cond>,
    budget: &mut Option<usize>,
) -> (Cond, bool) {
    if let Some(runs) = runs {
        let before = super::cond::approximated();
        let out = cond.and(runs);
        if super::cond::approximated() == before {
            return (out, true);
        }
        super::cond::forget_approximations(before);
    }
    let Some(left) = budget else { return (conds.without_raising(cond), true) };
    let start = super::cond::node_count();
    let out = conds.without_raising_within(cond, *left);
    *left = left.saturating_sub(super::cond::node_count() - start);
    if out.is_none() {
        *left = 0;
    }
    (out.unwrap_or(*cond), out.is_some())
}

fn blocker_note(interp: &Interp, id: u32) -> Note {
    let b = &interp.blockers[id as usize];
    Note { location: Some(Location::new(interp.index, b.loc.file, b.loc.span)), what: b.what.clone() }
}

/// The net exponent when every scaled part agrees (none scaled: 0).
fn net_exponent(exponents: &[i32]) -> Option<i32> {
    match exponents {
        [] => Some(0),
        [e] => Some(*e),
        _ => None,
    }
}

/// A condition as the report prints it, within the configurations `care`: its products (none
/// when there are too many), its text, and one configuration of it when it is too large.
fn printed(conds: &super::cond::Conds, cond: &Cond, care: &Cond) -> Configurations {
    let literals = |lits: Vec<(usize, bool)>| -> Vec<Literal> {
        lits.into_iter().map(|(atom, value)| Literal { atom: conds.atoms()[atom].display.clone(), value }).collect()
    };
    let products = conds.products_within(cond, care).or_else(|| conds.raw_products(cond));
    let example = match &products {
        // A large `care` (every raise of a large trace) may be too large to search: the rows
        // already leave out the raises about their atoms, so a configuration of the row alone
        // is one of it.
        None => conds
            .example_within(cond, care)
            .or_else(|| conds.example_within(cond, &conds.truth()))
            .map(literals)
            .unwrap_or_default(),
        Some(_) => Vec::new(),
    };
    let when =
        if conds.feasible(&cond.and(care)) { conds.render_products(cond, products.as_deref()) } else { "never".into() };
    let conditions = products.unwrap_or_default().into_iter().map(literals).collect();
    Configurations { conditions, when, example }
}

fn verdict_of(exponents: &BTreeSet<i32>) -> Verdict {
    match exponents.iter().copied().collect::<Vec<_>>().as_slice() {
        [] => Verdict::Never,
        [1] => Verdict::Once,
        [e] if *e > 1 => Verdict::Twice,
        [_] => Verdict::Inverse,
        _ => Verdict::Mixed,
    }
}

/// The verdict over all rows: ONCE when every row is, and none is cut at the alternatives
/// bound; the kind of the problem rows when they agree; MIXED when they do not; UNKNOWN when
/// only unknown or not-final rows keep it from ONCE.
fn overall(rows: &[Row]) -> Verdict {
    let problems: BTreeSet<Verdict> =
        rows.iter().map(|r| r.outcome.verdict).filter(|v| !matches!(v, Verdict::Once | Verdict::Unknown)).collect();
    match problems.len() {
        0 if rows.iter().any(|r| r.outcome.verdict == Verdict::Unknown) || rows.is_empty() => Verdict::Unknown,
        // ONCE is a claim about every configuration: one a cut may have changed is not proven.
        0 if rows.iter().any(|r| r.cut_at_bound) => Verdict::Unknown,
        0 => Verdict::Once,
        1 => *problems.iter().next().expect("one problem"),
        _ => Verdict::Mixed,
    }
}

/// Regions an output value's condition splits into by where its sites ran, with the sites
/// that ran in each. A value whose sites all ran wherever it holds is one region. One merged
/// at the alternatives bound (`G::merged_by_scale`) holds the sites of several histories, and
/// a site that did not run somewhere it holds is no evidence there: split apart, each region
/// shows the sites of its own configurations, as the histories did. Past
/// [`MAX_SITE_REGIONS`], or where a region would keep none of a part's sites, the value stays
/// whole, its sites those that can run where it holds.
fn regions_by_sites(interp: &Interp, n: &Num, cond: Cond) -> Vec<(Cond, BTreeSet<SiteId>)> {
    let conds = &interp.conds;
    let all: BTreeSet<SiteId> = n.parts.iter().flat_map(|p| p.sites.iter().copied()).collect();
    let mut regions = vec![(cond, all.clone())];
    // Where a site ran, as configurations: a site that runs in some iterations of a loop over
    // data ran in every configuration where some iteration runs it.
    let iterations: rustc_hash::FxHashSet<u32> = interp.iteration_atoms.keys().map(|&a| a as u32).collect();
    // A region where none of a part's sites ran says the sites' conditions are not the whole
    // story (evaluated apart from their callers, or widened): then they are not split on.
    let every_part_has_a_site =
        |ran: &BTreeSet<SiteId>| n.parts.iter().all(|p| p.sites.is_empty() || p.sites.iter().any(|s| ran.contains(s)));
    // (Only what a site's condition meets: nothing built for it.)
    let whole = || {
        let met: BTreeSet<SiteId> =
            all.iter().copied().filter(|s| interp.sites[*s as usize].cond.meets(&cond)).collect();
        vec![(cond, if every_part_has_a_site(&met) { met } else { all.clone() })]
    };
    // A region widened to fit the node budget would overlap its neighbours: then none.
    let before = super::cond::approximated();
    for &site in &all {
        let ran = conds.over_atoms(&interp.sites[site as usize].cond, &iterations, true);
        if !conds.feasible(&cond.and(&ran.not())) {
            continue;
        }
        let mut next = Vec::with_capacity(regions.len() * 2);
        for (region, sites) in &regions {
            let inside = region.and(&ran);
            if conds.feasible(&inside) {
                next.push((inside, sites.clone()));
            }
            let outside = region.and(&ran.not());
            if conds.feasible(&outside) {
                let mut without = sites.clone();
                without.remove(&site);
                next.push((outside, without));
            }
        }
        if next.len() > MAX_SITE_REGIONS {
            super::cond::forget_approximations(before);
            return whole();
        }
        regions = next;
    }
    if super::cond::approximated() != before || !regions.iter().all(|(_, ran)| every_part_has_a_site(ran)) {
        super::cond::forget_approximations(before);
        return whole();
    }
    regions
}

/// How many regions one output value may split into by its sites (see `regions_by_sites`).
const MAX_SITE_REGIONS: usize = 64;

fn site_out(interp: &Interp, id: SiteId, care: &Cond, fuel: &mut usize) -> SiteOut {
    let index = interp.index;
    let site = &interp.sites[id as usize];
    let location = Location::new(index, site.loc.file, site.loc.span);
    let evidence = site
        .chain
        .iter()
        .map(|h| {
            let hop = &interp.hops[*h as usize];
            let location = Location::new(index, hop.loc.file, hop.loc.span);
            let code = index.file(hop.loc.file).line_text(location.line).trim().to_string();
            HopOut { kind: hop.kind, location, label: hop.label.clone(), code }
        })
        .collect();
    SiteOut {
        code: index.file(site.loc.file).line_text(location.line).trim().to_string(),
        location,
        kind: site.kind,
        exponent: site.delta,
        when: interp.conds.render_within(&interp.conds.decisive(&site.cond, care, fuel), care),
        callee: site.callee.clone(),
        note: site.note.clone(),
        evidence,
    }
}

/// How to pin an atom with `--assume`, as a shell word: `NAME=true` for a plain atom, the
/// symbol and value for an equality, the class for an "is" atom.
/// The atoms the evaluation split on most. The equalities of one value with several constants
/// (an enum's members, a backend's names) are one entry, the value: one `--assume` fixes them
/// all, and listed apart they would fill the list with one question.
fn widest_splits(interp: &Interp) -> Vec<SplitOut> {
    let conds = &interp.conds;
    let mut by_value: rustc_hash::FxHashMap<SymId, Vec<(usize, usize)>> = Default::default();
    let mut entries: Vec<(usize, usize, Vec<(usize, usize)>)> = Vec::new();
    for (&atom, &branches) in &interp.splits {
        match conds.atoms()[atom].key {
            AtomKey::Equals(sym, _) => by_value.entry(sym).or_default().push((atom, branches)),
            _ => entries.push((branches, atom, Vec::new())),
        }
    }
    for (_, mut members) in by_value {
        members.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let total = members.iter().map(|(_, n)| n).sum();
        let first = members[0].0;
        if members.len() == 1 {
            members.clear();
        }
        entries.push((total, first, members));
    }
    entries.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    entries
        .into_iter()
        .take(MAX_SPLITS_SHOWN)
        .map(|(branches, first, members)| {
            let literal = conds.literal(first, true);
            let assume_as = assume_spelling(&literal);
            let (name, values) = match (&conds.atoms()[first].key, members.is_empty()) {
                (AtomKey::Equals(sym, _), false) => {
                    let values = members
                        .iter()
                        .filter_map(|(atom, _)| match &conds.atoms()[*atom].key {
                            AtomKey::Equals(_, c) => Some(c.to_string()),
                            _ => None,
                        })
                        .collect();
                    (interp.syms[*sym as usize].label(), values)
                }
                _ => (literal, Vec::new()),
            };
            let cases = super::split::cases(interp, first, &members);
            SplitOut { name, assume_as, branches, values, cases, for_cut: false }
        })
        .collect()
}

pub(crate) fn assume_spelling(atom: &str) -> String {
    shell_word(&assignment(atom))
}

fn assignment(atom: &str) -> String {
    if let Some((lhs, rhs)) = atom.split_once(" == ") {
        let one_operand = !lhs.contains(" and ") && !lhs.contains(" or ") && !lhs.starts_with("not ");
        let string = rhs.strip_prefix('"').and_then(|r| r.strip_suffix('"')).filter(|s| !s.contains('"'));
        if one_operand {
            match string {
                // A bare word reads back as that string; anything else keeps its quotes.
                Some(s) if reads_back_as_string(s) => return format!("{lhs}={s}"),
                Some(s) => return format!("{lhs}=\"{s}\""),
                None if rhs.parse::<f64>().is_ok() || matches!(rhs, "True" | "False" | "None") => {
                    return format!("{lhs}={rhs}");
                }
                None => {}
            }
        }
    }
    if let Some((lhs, rhs)) = atom.split_once(" is ") {
        if !rhs.contains(' ') {
            return format!("{lhs}={rhs}");
        }
    }
    format!("{atom}=true")
}

/// An atom of the rows (by its definition, as JSON conditions give it) for the atoms list:
/// named as the rows print it, the variable that holds it (`_use_fast_combine`) when one does.
fn atom_out(conds: &super::cond::Conds, display: String) -> AtomOut {
    let alias = conds.atoms().iter().find(|a| a.display == display).and_then(|a| a.alias.clone());
    match alias {
        Some(alias) => {
            let assignment = match alias.strip_prefix("not ") {
                Some(held) => format!("{held}=false"),
                None => format!("{alias}=true"),
            };
            AtomOut { name: alias, assume_as: shell_word(&assignment), defined_as: Some(display) }
        }
        None => AtomOut { assume_as: assume_spelling(&display), name: display, defined_as: None },
    }
}

/// Whether `--assume NAME=s`, unquoted, means what `== "s"` tests: not a boolean or `None`
/// (a number is taken for its digits when the code compares a string).
fn reads_back_as_string(s: &str) -> bool {
    !s.is_empty()
        && !matches!(s, "true" | "True" | "false" | "False" | "None")
        && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | ':'))
}

/// `text` as one shell word: in single quotes unless every character is safe bare.
pub(crate) fn shell_word(text: &str) -> String {
    if text.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | ':' | '=' | ',')) {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::cond::{AtomKey, Conds};

    /// Taking raises out of a stopped evaluation's rows has a budget: past it, the raises stay
    /// in and the caller is told so (a row of such configurations may be ones that raise, not
    /// configurations the evaluation lost).
    #[test]
    fn raises_left_in_past_the_budget_are_said_to_be() {
        let mut conds = Conds::default();
        let a = conds.atom(AtomKey::Test("a".into()), || "a".into());
        let b = conds.atom(AtomKey::Test("b".into()), || "b".into());
        let c = conds.atom(AtomKey::Test("c".into()), || "c".into());
        let d = conds.atom(AtomKey::Test("d".into()), || "d".into());
        let loc = Loc { file: crate::index::FileId::from_u32(0), span: Default::default() };
        // Three raises: taking them out makes nodes (their union, then the row without it).
        conds.raises(&a.and(&b), loc);
        conds.raises(&a.and(&c), loc);
        conds.raises(&a.and(&d), loc);
        let row = a;
        let (out, exact) = without_raising_exactly(&conds, &row, None, &mut Some(0));
        assert!(!exact);
        assert!(conds.feasible(&out.and(&b)), "past the budget the raises stay in");
        let (out, exact) = without_raising_exactly(&conds, &row, None, &mut None);
        assert!(exact);
        assert!(!conds.feasible(&out.and(&b)), "the raises are taken out");
    }
}
