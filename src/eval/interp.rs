//! The abstract interpreter's state: symbols, the heap, module globals, frames, budgets.
//! Expressions are in `exprs.rs`, statements in `stmts.rs`, calls in `calls.rs`, arithmetic
//! and application sites in `ops.rs`.
//!
//! Writes are gated by the path condition: `x = v` under `pc` makes `x` be `v` where `pc` holds
//! and what it was elsewhere. Both arms of an `if` run on the same state one after the other;
//! reads keep only the alternatives feasible under the current path condition. That gives
//! path-sensitive values without copying or joining states.

use std::rc::Rc;

use ruff_python_ast::name::Name;
use ruff_text_size::Ranged;
use rustc_hash::{FxHashMap, FxHashSet};

use super::assume::assumed_truth;
pub use super::assume::{Assume, AssumedValue, assumed_equals};
use super::builtins::RangeBounds;
use super::cond::{AtomKey, Cond, Conds};
use super::kernels::KernelModels;
use super::trace::{Blocker, BoundHit, HopKind, HopRecord, Normalizer, SiteRecord};
use super::value::*;
use crate::index::{BindingKind, ClassId, FileId, FuncId, GuardKind, Index};
use crate::resolve::Resolver;
use crate::syntax::{Constant, Span, snippet};

/// Nested calls the evaluator follows before it stops with a bound.
pub const MAX_CALL_DEPTH: usize = 48;
/// Expressions one trace may evaluate.
pub const MAX_STEPS: usize = 4_000_000;
/// Decision-diagram nodes one trace may create (about 40 bytes each with their tables).
pub const MAX_NODES: usize = 12_000_000;
/// Methods Python's strings and numbers have: never an enum member's own method.
const STR_AND_NUMBER_METHODS: &[&str] = &[
    "lower",
    "upper",
    "strip",
    "lstrip",
    "rstrip",
    "split",
    "rsplit",
    "join",
    "replace",
    "startswith",
    "endswith",
    "format",
    "encode",
    "find",
    "rfind",
    "index",
    "count",
    "isdigit",
    "isalpha",
    "partition",
    "rpartition",
    "splitlines",
    "title",
    "capitalize",
    "casefold",
    "zfill",
    "center",
    "ljust",
    "rjust",
    "removeprefix",
    "removesuffix",
    "is_integer",
    "bit_length",
    "real",
    "imag",
    "conjugate",
    "hex",
    "as_integer_ratio",
];
/// Implementations enumerated for a method called on an object of unknown class.
pub const MAX_IMPLEMENTATIONS: usize = 48;

/// What kind of thing a heap object is.
#[derive(Clone, Debug)]
pub enum ObjKind {
    /// An instance of a class of the tree, built by the evaluator.
    Instance(ClassId),
    /// An object known only by its class (an implementation chosen for an unknown receiver);
    /// its fields are unknown, reads become symbols under `base`.
    Abstract(ClassId, SymId),
    List(Vec<G>),
    /// String keys; an entry's coverage is the condition under which the key is present.
    Dict(Vec<(Rc<str>, G)>),
    /// `object()`: a sentinel, equal only to itself.
    Sentinel,
    /// The attributes code wrote into an unknown value (`batch.stream.finisher = f` on a
    /// parameter): written fields are kept, the others read as the symbol's attributes.
    Opaque(SymId),
}

#[derive(Clone, Debug)]
pub struct Object {
    pub kind: ObjKind,
    pub fields: FxHashMap<Name, G>,
    pub created: Loc,
}

/// Objects one `copy.deepcopy` copies at most; past them the copy shares the original's
/// objects (and says so).
pub const MAX_DEEP_COPY: usize = 1_000;

/// A block answered on its own (see `Interp::alone`).
#[derive(Clone, Copy, Debug)]
pub struct AloneBlock {
    pub class: ClassId,
    /// The entry's class: what its own constructor raises still counts.
    pub entry: ClassId,
    /// Constructors of `class` running now.
    pub building: u32,
    /// The entry's constructor has returned: raises count again from here on.
    pub entry_built: bool,
}

/// A `try` statement being evaluated: the exceptions each handler catches (`None`: all of
/// them), and where each was raised into it so far.
pub struct Catch {
    pub handlers: Vec<Option<Vec<String>>>,
    /// Per handler, where it caught a raise: relative to the call running the `try` (its
    /// `base`), like that call's own conditions. As absolute conditions, the union of raises
    /// from many paths deep inside the body (every backend a dispatcher tries) grew to
    /// hundreds of thousands of nodes, and every statement after it was narrowed by it.
    pub caught: Vec<Cond>,
    /// The base of the call running the `try` (see `Interp::base`).
    pub base: Cond,
    /// Per handler, the raises it caught (absolute condition, place): a bare `raise` in the
    /// handler raises them again, where they were.
    pub origins: Vec<Vec<(Cond, Loc)>>,
}

impl Catch {
    /// The handler that catches exception `kind` (`None`: not known, which only a handler for
    /// every exception catches).
    fn handler_for(&self, kind: Option<&str>) -> Option<usize> {
        self.handlers.iter().position(|types| match types {
            None => true,
            Some(types) => types
                .iter()
                .any(|t| matches!(t.as_str(), "Exception" | "BaseException") || kind.is_some_and(|k| k == t)),
        })
    }
}

/// What a skipped call could reach of what was handed in (see `Interp::pending_writers`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reached {
    /// A parameter of the entry, and every value that is part of it.
    Param(SymId),
    /// An object held in a field of one.
    Object(HeapId),
}

/// The value being traced.
#[derive(Clone, Debug)]
pub struct Traced {
    /// Attribute or parameter name (`routed_scaling_factor`).
    pub name: String,
    /// When set, only reads at this file and line are origins.
    pub origin: Option<(FileId, u32)>,
}

/// A function body being evaluated.
pub struct Frame {
    pub func: Option<FuncId>,
    pub file: FileId,
    pub locals: FxHashMap<Name, G>,
    /// Where each local an assignment binds has been bound so far (what a read outside it
    /// raises: `UnboundLocalError`). Parameters and the like are bound everywhere.
    pub bound: FxHashMap<Name, Cond>,
    /// The names of the enclosing function this one sees (closures): its locals as last seen
    /// (see `Interp::refresh_closures`).
    pub captured: Option<Rc<FxHashMap<Name, G>>>,
    /// The functions defined in this body so far (they see its locals as they are last).
    pub nested: Vec<FuncId>,
    pub returns: G,
    /// The condition under which the body has not returned or raised.
    pub alive: Cond,
    /// Where the body raised (`raise`, a failing `assert`) and nothing in it caught the
    /// exception. Kept apart from `alive` so that later statements' conditions do not grow
    /// with every raise (the rows drop raising configurations at the end); used only when the
    /// body ends, so that a function does not fall off its end, returning `None`, where it
    /// raised instead.
    pub raised: Cond,
    /// The part of `raised` the rows drop (see `Interp::raise_under`): where every configuration
    /// left has stopped so, the statements after do not run. (Not where a raise was not
    /// recorded: the configurations stay in the rows, and what those statements do with them
    /// must stay too.)
    pub stopped: Cond,
    /// The condition under which the current loop iteration has not broken or continued.
    pub loop_alive: Cond,
    /// The condition under which the current loop iteration hit `break` (an unrolled loop
    /// stops there; `continue` goes on with the next element).
    pub loop_broken: Cond,
    /// Locals holding freshly allocated floating-point tensors (`torch.empty(...)`): an
    /// outside kernel called for its effect writes its result into them.
    pub buffers: rustc_hash::FxHashSet<Name>,
    /// Locals bound to a record of tensors' addresses (`args = Args(x.data_ptr(), ...)`), with
    /// its fields: a call handed the record is handed them; and locals bound to a tuple of
    /// names, whose addresses a record may take one by one (see `pointers.rs`).
    pub address_records: FxHashMap<Name, Rc<[super::pointers::Field]>>,
    /// Parameters still holding the tensor the caller passed (not rebound), with the argument
    /// that passed it: writing into one in place (`out.mul_(v)`, `out[i] = x`, a kernel that
    /// stores through it) writes into the caller's tensor.
    pub aliases: FxHashMap<Name, ArgSlot>,
    /// Aliased parameters written in place: what the caller's argument holds after the call.
    pub written: rustc_hash::FxHashSet<Name>,
    /// Pairs of locals bound to the same tensor, and where (`out = hidden_states if inplace
    /// else torch.empty_like(hidden_states)`: `out` is `hidden_states` where `inplace`): an
    /// in-place write into one is a write into the other.
    pub shares: Vec<(Name, Name, Cond)>,
    /// In a device kernel, what its locals are (see `device.rs`); `None` elsewhere.
    pub kernel: Option<Rc<super::device::KernelLocals>>,
    /// In a generator run for its items, what it yielded so far (see `generators.rs`).
    pub yielded: Option<super::generators::Yielded>,
    /// In a generator run for its items, how many abstract iterations enclosed its call: a
    /// `yield` inside more stands for several items.
    pub generator_depth: u32,
}

/// Which argument of a call passed a value: the `i`-th positional one, or a keyword.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ArgSlot {
    Positional(usize),
    Keyword(Name),
}

pub struct Interp<'r, 'a> {
    pub resolver: &'r Resolver<'a>,
    pub index: &'a Index,
    pub conds: Conds,
    pub syms: Vec<Sym>,
    pub(super) sym_by_key: FxHashMap<SymKey, SymId>,
    pub heap: Vec<Object>,
    pub sites: Vec<SiteRecord>,
    pub hops: Vec<HopRecord>,
    pub traced: Traced,
    pub assumes: Vec<Assume>,
    pub kernels: KernelModels,
    globals: FxHashMap<(FileId, Name), G>,
    globals_in_progress: FxHashSet<(FileId, Name)>,
    /// Where a module global is not bound: every binding of it is under a guard
    /// (`if is_flex_available(): from .flex import make_mask`) and none holds. Only globals
    /// with such a place are here.
    global_unbound: FxHashMap<(FileId, Name), Cond>,
    class_attrs: FxHashMap<(ClassId, Name), G>,
    /// Class attributes written by the code evaluated (see `set_class_attr`).
    class_writes: FxHashMap<(ClassId, Name), G>,
    /// What unknown containers hold by string key (see `keyed_caches.rs`).
    pub(super) keyed: super::keyed_caches::KeyedCaches,
    /// Module-level `Class.attr = value` statements by the class and attribute they set (built
    /// on first use): (file, index into its `module_attr_assigns`).
    class_attr_assigns: Option<Rc<FxHashMap<(ClassId, Name), Vec<(FileId, usize)>>>>,
    /// Where import-time code is running (the class-body or module statement being evaluated):
    /// module statements of that file after it have not run yet.
    import_position: Option<(FileId, u32)>,
    /// Closures: what a nested function sees of its enclosing function (its locals when the
    /// function was defined, refreshed where the enclosing function calls it, hands it on or
    /// returns; see `refresh_closures`).
    pub closures: FxHashMap<FuncId, Rc<FxHashMap<Name, G>>>,
    pub stack: Vec<FuncId>,
    pub steps: usize,
    pub bounds: Vec<BoundHit>,
    pub blockers: Vec<Blocker>,
    /// The traced value handed to parameters that are never read (see `note_unused_handover`).
    pub unused: Vec<super::trace::UnusedHandover>,
    /// Classes each unknown receiver may be, for `isinstance` and method dispatch.
    pub universes: FxHashMap<SymId, Vec<ClassId>>,
    pub relevance: super::relevance::Relevance,
    /// The dict-like state shared by a pipeline of methods (`--methods`).
    pub pipeline_state: Option<HeapId>,
    /// The condition under which the current call runs, as seen from the entry. Statements of a
    /// function run under conditions relative to it, so conditions inside a call do not carry
    /// every condition of every caller; it is added back where a value leaves the call's reach
    /// (writes into older objects, application sites, raises).
    pub base: Cond,
    /// Objects numbered below this existed before the current call started.
    pub heap_mark: HeapId,
    /// Per atom, how many branches split on it (both arms feasible): what to `--assume` first
    /// when the evaluation is too large.
    pub splits: FxHashMap<usize, usize>,
    /// The object standing for an unknown value seen as an instance of a class.
    abstracts: FxHashMap<(ClassId, SymId), HeapId>,
    /// The attributes written into unknown values, one object per symbol (`ObjKind::Opaque`).
    opaque: FxHashMap<SymId, HeapId>,
    /// Counts already known to be a whole number in `0..=k` where not above `k`, by count and
    /// `k` (see `close_small_count`).
    pub closed_counts: FxHashSet<(SymId, i64)>,
    /// Unknown values the code itself tests for `None` (`x is None`), as opposed to a `None`
    /// the evaluation allows for a count: ordering them raises where they are `None`.
    pub tested_for_none: FxHashSet<SymId>,
    /// Set while a parameter defaulting to `None` is tested for `None` (`if tp_size is None:
    /// tp_size = ...`): whether the caller passed one, not whether its value may be `None`.
    pub testing_defaulted_parameter: bool,
    /// Module globals functions rebind (see `globals.rs`).
    pub namespaces: super::globals::Namespaces,
    /// Unknown values standing for every element of a loop's sequence (see `iterations.rs`).
    pub loop_elements: rustc_hash::FxHashSet<SymId>,
    /// Per-iteration atoms, with the loop element each tests.
    pub iteration_atoms: FxHashMap<usize, SymId>,
    /// The loops over data being evaluated, innermost last (see `Interp::data_loop`).
    pub data_loops: Vec<SymId>,
    /// Lists of one item standing for every element of a sequence of unknown length
    /// (`enumerate(xs)`, `zip(xs, ys)`): a loop over one is a loop over that sequence.
    pub abstract_lists: rustc_hash::FxHashSet<HeapId>,
    /// Lists known item by item (see `lists.rs`), with the depth of abstract loops they were
    /// made at.
    pub exact_lists: FxHashMap<HeapId, u32>,
    /// The `**kwargs` dicts of calls, with where the call runs (as seen from the entry): an entry
    /// popped there is gone, whatever other configurations its value's conditions name.
    pub keywords_dicts: FxHashMap<HeapId, Cond>,
    /// Dicts known entry by entry: made by a display with constant keys and changed only by
    /// assignments to constant keys outside abstract loops, with the depth of abstract loops
    /// they were made at. A constant key missing from one raises `KeyError`.
    pub exact_dicts: FxHashMap<HeapId, u32>,
    /// Set while an assignment to a constant key of an exact dict changes it (see `touch`).
    pub keyed_write: bool,
    /// Lists that are a dict's `keys()`: compared as sets.
    pub key_views: rustc_hash::FxHashSet<HeapId>,
    /// The raises each `except` handler being evaluated caught, innermost last (see `Catch`).
    pub handling: Vec<Vec<(Cond, Loc)>>,
    /// How many dataclass comparisons are in progress (see `Interp::records_equal`).
    pub comparing_records: u32,
    /// Set while the iterable of a `for` over `range(...)` is evaluated (see `stmts.rs`).
    pub range_stays_abstract: bool,
    /// The bounds of each `range(...)` of unknown length, by the symbol it evaluated to (see
    /// `Interp::unknown_range`).
    pub range_bounds: FxHashMap<SymId, RangeBounds>,
    /// Objects a comprehension made for every element of a range that may be empty, with the
    /// ranges (see `Interp::guard_iteration`). Their conditions are made only when a loop
    /// visits the object: most such ranges (a layer's experts) are never iterated.
    pub maybe_absent: FxHashMap<HeapId, Rc<[RangeBounds]>>,
    /// Objects a comprehension made for every element of a sequence, with the loop elements
    /// they stand for (see `Interp::kinds_in`).
    pub made_for: FxHashMap<HeapId, Rc<FxHashSet<SymId>>>,
    /// Where the raises of the loop body being evaluated can happen, with the depth of the
    /// call running it: an iteration over an object standing for the elements of a sequence
    /// that may be empty raises only where it has elements (see `Interp::guard_iteration`).
    pub raise_guard: (usize, Cond),
    /// How many loops are being evaluated as one abstract iteration (an `append` there adds
    /// one item standing for many).
    pub abstract_depth: u32,
    /// NamedTuples built so far, by class and place (see `Interp::named_tuple`).
    pub records: FxHashMap<(ClassId, Loc), Vec<HeapId>>,
    /// Per object, how many times its contents changed (see `summary.rs`).
    pub versions: Vec<u32>,
    /// Per object, whether it is shared by every call rather than owned by the call that made
    /// it: module globals and class attributes (evaluated once), records, unknown objects.
    pub shared: Vec<bool>,
    /// Above zero while a module global or class attribute is being evaluated.
    pub sharing: usize,
    /// Names of the registries already filled (see `registry.rs`).
    pub registries_filled: rustc_hash::FxHashSet<String>,
    /// Operators registered with PyTorch by the tree, by `NS.NAME` (see `custom_ops.rs`).
    pub custom_ops: FxHashMap<String, Option<FuncId>>,
    /// Functions known to be (or not be) operators that run a module they look up
    /// (`custom_ops::looks_up_its_module`): asked of every function called.
    pub module_operators: FxHashMap<FuncId, bool>,
    /// Functions that run an object they look up by key, themselves or through plain helpers
    /// (`custom_ops.rs`).
    pub lookup_runners: FxHashMap<FuncId, bool>,
    /// The function a callee expression in a function's body resolves to, when only one
    /// (`stmts.rs`, `static_callee`: resolution is a function of the index, asked at every
    /// assignment), by the expression's range.
    pub static_callees: FxHashMap<(FuncId, u32, u32), Option<FuncId>>,
    /// Functions every `return` of which is a fresh allocation (`stmts.rs`, `allocates_buffer`).
    pub buffer_makers: FxHashMap<FuncId, bool>,
    /// Objects that called an operator of the tree, with the call depth of the operator's body.
    pub operator_callers: Vec<(usize, Value)>,
    /// Unknown objects an operator looked up by name, with the object that called the operator,
    /// pinned to the object of the tree taken to be the one looked up (see `custom_ops.rs`).
    pub looked_up: FxHashMap<(SymId, HeapId), Value>,
    /// Where values holding scaled data were dropped at the alternatives bound (as seen from
    /// the entry): a row there may miss an application.
    pub scaled_cuts: Cond,
    /// Where the loader's hook was not run for a module's quantization method (past
    /// `MAX_LOADED_METHODS`, see `loading.rs`): what the forward path reads there may be wrong;
    /// when none of those configurations reaches a row, ONCE is not proven.
    pub unloaded: Cond,
    /// Results of `len(...)` of data (a tensor, a list): `== 0` says the data is empty. The
    /// length of anything else (`len(os.environ.get(...).strip())`) is only a number.
    pub data_lengths: rustc_hash::FxHashSet<SymId>,
    /// Places that took the scale off data scaled as a whole (`RMSNorm(v * x) == RMSNorm(x)`,
    /// `w / w.sum(-1)`), with how and where (as seen from the entry): what a NEVER row says
    /// happened.
    pub normalized_away: Vec<(Loc, Normalizer, Cond)>,
    /// Places that scaled a buffer nothing had written (`torch.empty(...)` read before any
    /// write), and where (as seen from the entry): what a NEVER row says reached the output.
    pub unwritten_scaled: Vec<(Loc, Cond)>,
    /// Non-zero while applying registering decorators: every call is evaluated.
    pub registering: usize,
    /// Non-zero while running the loader's phase (`loading.rs`): every call is evaluated.
    pub loading: usize,
    /// Modules the loader's phase went through (see `modules.rs`: what no code set on them is absent).
    pub loaded: FxHashSet<HeapId>,
    /// Calls skipped as not worth evaluating, by the symbol standing for their result:
    /// `(function, receiver, arguments, base)`, evaluated if the result is called.
    pub deferred: FxHashMap<SymId, Rc<super::calls::Skipped>>,
    /// What deferred calls returned once evaluated.
    pub deferred_results: FxHashMap<SymId, G>,
    /// Skipped calls handed an object that was handed in (see `Interp::is_handed_in`), with
    /// what they could reach of it, in the order they were made: run when a later read of an
    /// attribute of one of those needs what they write (see `Interp::run_writers`).
    pub pending_writers: Vec<(Vec<Reached>, Rc<super::calls::Skipped>)>,
    /// The objects some pending writer reaches (a quick test for reads).
    pub writer_reached: FxHashSet<HeapId>,
    /// Per (what is read, attribute), how many pending writers from the start are known not
    /// to write it (see `Interp::run_writers`).
    writers_checked: FxHashMap<(Reached, String), usize>,
    /// Symbols being called through their deferred call (a guard against calling them again
    /// when that call gives them back).
    pub calling_deferred: rustc_hash::FxHashSet<SymId>,
    /// Instances whose `__init__` was skipped as not worth evaluating: built when a field is
    /// read.
    pub unbuilt: FxHashMap<HeapId, Rc<super::calls::SkippedConstructor>>,
    /// Base-class constructors a constructor skipped (`super().__init__()` into a base that
    /// looked irrelevant), by object: run when a field none of the constructors that ran set
    /// is read (`BaseFusedOp.__init__` setting `self._forward_method = None`). Unlike
    /// `unbuilt`, this holds for objects with outside bases too: the object itself is built.
    pub unbuilt_bases: FxHashMap<HeapId, Vec<Rc<super::calls::SkippedConstructor>>>,
    /// The entry is built and loaded: the forward path runs now (modules built later, on
    /// first call, are loaded as they are built).
    pub loaded_phase_done: bool,
    /// Answering a block on its own (see `report::answer_blocks_alone`): its class, and how many
    /// of its constructors are running. Raises while building the rest of the entry are not
    /// recorded: that code (a model's layer plumbing) takes no part in the block's answer.
    pub alone: Option<AloneBlock>,
    /// The evaluation budget in steps (`--max-steps`, [`MAX_STEPS`] by default).
    pub max_steps: usize,
    /// The decision-diagram bound in nodes ([`MAX_NODES`] by default).
    pub max_nodes: usize,
    /// Alternatives a value keeps (`--max-alternatives`, [`MAX_ALTERNATIVES`] by default).
    pub max_alternatives: usize,
    /// The enum classes of the tree with their members' values, collected on first use (see
    /// [`Interp::enum_member_method`]).
    pub enum_members: Option<Rc<Vec<(ClassId, Vec<Constant>)>>>,
    /// `unique_enum_predicate` by method name (asked on every attribute read of an unknown).
    pub enum_predicates: FxHashMap<String, Option<FuncId>>,
    /// Unknown values annotated as one enum of the tree (`-> MoeRunnerBackend`, or
    /// `Optional[...]` of it): each is one of its members (see `member_equality`), or `None`
    /// when in `enum_or_none`.
    pub enum_typed: FxHashMap<SymId, ClassId>,
    /// The fields of record classes (dataclasses, NamedTuples), by class (see
    /// `Interp::is_record_field`).
    pub record_field_names: FxHashMap<ClassId, Rc<[Name]>>,
    /// Whether a symbol is a rank, by symbol (see `Interp::across_ranks`; aliases a symbol
    /// gets later do not change it).
    pub rank_syms: FxHashMap<SymId, bool>,
    /// The atoms that test a rank, among the first `rank_atoms_scanned` atoms.
    pub rank_atoms: rustc_hash::FxHashSet<u32>,
    pub rank_atoms_scanned: usize,
    /// The decorator that wraps each function, if one does (see `call_through_wrapper`).
    pub wrapping_decorators: FxHashMap<FuncId, Option<FuncId>>,
    /// Functions whose wrapper is running: a call of one of them is a call of the function
    /// as written.
    pub unwrapped: Vec<FuncId>,
    /// Those annotated as the enum or `None` (`Optional[MoeA2ABackend]`).
    pub enum_or_none: rustc_hash::FxHashSet<SymId>,
    /// Those whose "one of the members" constraint is in place.
    pub enum_constrained: rustc_hash::FxHashSet<SymId>,
    /// Symbols standing for a field every write of which gives an object, never `None`
    /// (`self.bias = nn.Parameter(...)`, see `modules::written_never_none`): `x is None` is
    /// false for them.
    pub never_none: rustc_hash::FxHashSet<SymId>,
    /// Untyped unknown values asked an enum's predicate: taken for members (see `getattr`).
    pub enum_valued: rustc_hash::FxHashSet<SymId>,
    /// What the blocks that hold the traced value returned, per class, under conditions
    /// relative to their calls: the modules of a larger entry (a decoder layer's MoE) whose own
    /// output is the question (see `calls::block_called`).
    pub blocks: std::collections::BTreeMap<ClassId, Vec<(Cond, Value)>>,
    /// Per block class (and class of a block's caller), where its `forward` was called,
    /// absolute: configurations that never call it are no part of its answer.
    pub block_reached: std::collections::BTreeMap<ClassId, Cond>,
    /// Calls of such blocks in progress: a block's own parts (its top-k, its experts, which
    /// hold the value too) are not blocks of their own.
    pub in_block: usize,
    /// The entry object (not a block of itself).
    pub entry_object: Option<HeapId>,
    /// Whether a method of the entry's class (other than its constructor) reads the value from
    /// `self`: an entry that only keeps it (vLLM's GLM-4 MoE decoder layer) is no block.
    pub entry_reads_value: bool,
    /// Whether a method of the entry's class (other than its constructor) names the value at
    /// all: one that does not (a decoder layer) asks about the modules it calls that hold it.
    pub entry_names_value: bool,
    /// The `forward` calls of objects of the tree in progress, each with whether what it
    /// returns is to be recorded (it called a block).
    pub forward_frames: Vec<(ClassId, bool)>,
    /// Per block class, the class whose `forward` called it; what those returned, as `blocks`.
    pub block_callers: FxHashMap<ClassId, ClassId>,
    pub caller_blocks: std::collections::BTreeMap<ClassId, Vec<(Cond, Value)>>,
    /// A function to evaluate even if it looks irrelevant (a deferred call being made).
    pub force: Option<FuncId>,
    /// Above zero while a `__getattr__` runs: its raise means "no such attribute" (which
    /// `getattr(x, name, default)` and `hasattr` catch), not a configuration that stops.
    pub raises_muted: usize,
    /// The `try` statements being evaluated, innermost last, with what each catches: a raise
    /// one of them catches goes to its handler instead of ending the configuration.
    pub catching: Vec<Catch>,
    /// The exception each `raise` raises, by where it is (`None`: not known), so that a
    /// replayed call's raises are caught as the first evaluation's were.
    pub raise_kinds: FxHashMap<Loc, Option<Rc<str>>>,
    /// Above zero while a device kernel is evaluated apart from its caller's conditions (see
    /// `device.rs`): sites and raises are kept in the call's session, in selector terms, and
    /// reach the trace when the kernel returns.
    pub apart: u32,
    /// Arguments the last call(s) wrote into in place, by the location of the argument
    /// expression: `(argument, what it holds now, under which condition)`. Taken by the caller's
    /// `eval_call` right after the call.
    pub out_writes: Vec<(Loc, G, Cond)>,
    /// What a nested function just called wrote in place into tensors of its enclosing
    /// function (`full[a:b].copy_(out)` on a captured buffer): name, contents, where.
    pub captured_writes: Vec<(Name, G, Cond)>,
    /// The dimensions of tensors made with a given shape (see `Num::shape`).
    pub shapes: Vec<Rc<[G]>>,
    /// Fields of objects that hold a fresh floating-point allocation (`self.gathered_buffer =
    /// torch.zeros(...)`): a name bound to one is a buffer (see `Interp::field_buffer`).
    pub buffer_fields: rustc_hash::FxHashSet<(u32, Name)>,
    /// The arguments of the call about to be made that are output buffers in the caller
    /// (`Frame::buffers`), by location: the parameters they bind are buffers too.
    pub buffer_args: rustc_hash::FxHashSet<Loc>,
    /// Pairs of arguments of the call about to be made that are one tensor in the caller
    /// (`Frame::shares`, or the same local twice), by location, and where: the parameters they
    /// bind share it too.
    pub shared_args: Vec<(Loc, Loc, Cond)>,
    /// The calls in progress, innermost last (what each read and did, for its summary).
    pub sessions: std::cell::RefCell<Vec<super::summary::Session>>,
    pub summaries: FxHashMap<String, Rc<super::summary::Summary>>,
}

impl<'r, 'a> Interp<'r, 'a> {
    pub fn new(resolver: &'r Resolver<'a>, traced: Traced, assumes: Vec<Assume>, kernels: KernelModels) -> Self {
        Interp {
            resolver,
            index: resolver.index,
            conds: Conds::default(),
            syms: Vec::new(),
            sym_by_key: FxHashMap::default(),
            heap: Vec::new(),
            sites: Vec::new(),
            hops: Vec::new(),
            traced,
            assumes,
            kernels,
            globals: FxHashMap::default(),
            closed_counts: Default::default(),
            tested_for_none: Default::default(),
            testing_defaulted_parameter: false,
            namespaces: Default::default(),
            globals_in_progress: FxHashSet::default(),
            global_unbound: FxHashMap::default(),
            class_attrs: FxHashMap::default(),
            class_writes: FxHashMap::default(),
            keyed: Default::default(),
            class_attr_assigns: None,
            import_position: None,
            closures: FxHashMap::default(),
            stack: Vec::new(),
            steps: 0,
            bounds: Vec::new(),
            blockers: Vec::new(),
            unused: Vec::new(),
            universes: FxHashMap::default(),
            relevance: super::relevance::Relevance::default(),
            pipeline_state: None,
            base: Cond::TRUE,
            heap_mark: 0,
            splits: FxHashMap::default(),
            abstracts: FxHashMap::default(),
            opaque: FxHashMap::default(),
            loop_elements: Default::default(),
            iteration_atoms: FxHashMap::default(),
            data_loops: Vec::new(),
            abstract_lists: Default::default(),
            exact_lists: Default::default(),
            exact_dicts: Default::default(),
            keywords_dicts: Default::default(),
            keyed_write: false,
            key_views: Default::default(),
            handling: Vec::new(),
            comparing_records: 0,
            range_stays_abstract: false,
            range_bounds: FxHashMap::default(),
            maybe_absent: FxHashMap::default(),
            made_for: FxHashMap::default(),
            raise_guard: (0, Cond::TRUE),
            abstract_depth: 0,
            records: FxHashMap::default(),
            versions: Vec::new(),
            shared: Vec::new(),
            sharing: 0,
            registries_filled: Default::default(),
            custom_ops: Default::default(),
            module_operators: Default::default(),
            lookup_runners: Default::default(),
            buffer_makers: Default::default(),
            static_callees: Default::default(),
            operator_callers: Vec::new(),
            looked_up: FxHashMap::default(),
            scaled_cuts: Cond::FALSE,
            unloaded: Cond::FALSE,
            data_lengths: rustc_hash::FxHashSet::default(),
            normalized_away: Vec::new(),
            unwritten_scaled: Vec::new(),
            registering: 0,
            loading: 0,
            loaded: FxHashSet::default(),
            deferred: FxHashMap::default(),
            pending_writers: Vec::new(),
            writer_reached: FxHashSet::default(),
            writers_checked: FxHashMap::default(),
            deferred_results: FxHashMap::default(),
            calling_deferred: Default::default(),
            unbuilt: FxHashMap::default(),
            unbuilt_bases: FxHashMap::default(),
            loaded_phase_done: false,
            alone: None,
            max_steps: MAX_STEPS,
            max_nodes: MAX_NODES,
            max_alternatives: MAX_ALTERNATIVES,
            enum_members: None,
            enum_predicates: FxHashMap::default(),
            enum_typed: FxHashMap::default(),
            record_field_names: FxHashMap::default(),
            rank_syms: FxHashMap::default(),
            rank_atoms: Default::default(),
            rank_atoms_scanned: 0,
            wrapping_decorators: FxHashMap::default(),
            unwrapped: Vec::new(),
            enum_or_none: rustc_hash::FxHashSet::default(),
            enum_constrained: rustc_hash::FxHashSet::default(),
            never_none: Default::default(),
            enum_valued: rustc_hash::FxHashSet::default(),
            blocks: std::collections::BTreeMap::new(),
            block_reached: std::collections::BTreeMap::new(),
            in_block: 0,
            entry_object: None,
            entry_reads_value: false,
            entry_names_value: false,
            forward_frames: Vec::new(),
            block_callers: FxHashMap::default(),
            caller_blocks: std::collections::BTreeMap::new(),
            force: None,
            raises_muted: 0,
            catching: Vec::new(),
            raise_kinds: FxHashMap::default(),
            apart: 0,
            out_writes: Vec::new(),
            captured_writes: Vec::new(),
            shapes: Vec::new(),
            buffer_args: Default::default(),
            buffer_fields: Default::default(),
            shared_args: Vec::new(),
            sessions: Default::default(),
            summaries: FxHashMap::default(),
        }
    }

    pub fn text(&self, loc: Loc) -> String {
        snippet(&self.index.file(loc.file).text, loc.span)
    }

    pub fn loc(&self, file: FileId, node: &impl Ranged) -> Loc {
        Loc { file, span: Span::of(node) }
    }

    /// `g` within the alternatives bound; a cut is reported as `what`, and where it dropped
    /// scaled data is remembered (`scaled_cuts`).
    pub fn bounded(&mut self, g: G, loc: Option<Loc>, what: impl FnOnce() -> String) -> G {
        let (g, cut) = g.bounded(&self.conds, self.max_alternatives);
        if let Some(cut) = cut {
            self.bound(loc, what());
            if cut.scaled {
                // Apart from its callers (a kernel), conditions are over selector atoms: kept
                // as they are, the cut is flagged wherever it may meet a row.
                let absolute = if self.apart > 0 { cut.cond } else { cut.cond.and(&self.base) };
                self.scaled_cuts = self.scaled_cuts.or(&absolute);
            }
        }
        g
    }

    pub fn bound(&mut self, loc: Option<Loc>, what: impl Into<String>) {
        self.not_replayable();
        let hit = BoundHit { loc, what: what.into() };
        if !self.bounds.contains(&hit) {
            self.bounds.push(hit);
        }
    }

    /// Records what blocked precision here; its index in `blockers`.
    pub fn blocker(&mut self, loc: Loc, what: impl Into<String>, pc: &Cond) -> u32 {
        let what = what.into();
        let when = self.base.and(pc);
        match self.blockers.iter().position(|b| b.loc == loc && b.what == what) {
            Some(i) => {
                self.blockers[i].when = self.blockers[i].when.or(&when);
                i as u32
            }
            None => {
                self.blockers.push(Blocker { loc, what, when });
                (self.blockers.len() - 1) as u32
            }
        }
    }

    pub fn hop(&mut self, loc: Loc, kind: HopKind, label: String) -> HopId {
        self.hops.push(HopRecord { loc, kind, label });
        (self.hops.len() - 1) as HopId
    }

    // --- symbols and assumptions -------------------------------------------------------

    fn assumption(&self, display: &str) -> Option<&Assume> {
        self.assumes.iter().find(|a| names_match(&a.name, display))
    }

    /// The value for an unknown thing: an assumed constant or class if `--assume` names it
    /// (as it is printed, or by the last part of a dotted path), otherwise its symbol. A name
    /// only found as a word inside it (`FOLD` in `os.environ.get("FOLD", "0")`) does not make
    /// it that value: the name is often the variable the read is tested into (`FOLD =
    /// os.environ.get("FOLD", "0") == "1"`), and `1` or `True` compared with the read's
    /// strings would turn the switch off. Its tests take the assumption instead (see `atom`).
    pub fn sym(&mut self, key: SymKey, display: String, class_hint: Option<ClassId>) -> Value {
        if let Some(assume) = self.assumes.iter().find(|a| names_match_exactly(&a.name, &display)) {
            assume.used.set(true);
            let value = assume.value.clone();
            return match value {
                // A value of a known class (an enum such as the all-to-all backend) keeps its
                // methods: it stays a symbol, and its equalities with constants are fixed by
                // the assumption (see `atom`).
                AssumedValue::Const(Constant::Str(_)) if class_hint.is_some() => {
                    Value::Sym(self.sym_id(key, display, class_hint))
                }
                AssumedValue::Const(c) => Value::Const(c),
                // Its equalities with constants are fixed false (see `atom`); it stays unknown.
                AssumedValue::NoneOf(_) => Value::Sym(self.sym_id(key, display, class_hint)),
                AssumedValue::Class(class) => {
                    let id = self.sym_id(key, display, Some(class));
                    self.abstract_object(class, id)
                }
            };
        }
        Value::Sym(self.sym_id(key, display, class_hint))
    }

    pub fn sym_id(&mut self, key: SymKey, display: String, class_hint: Option<ClassId>) -> SymId {
        if let Some(&id) = self.sym_by_key.get(&key) {
            return id;
        }
        let id = self.syms.len() as SymId;
        let display = bounded_label(display, id);
        if super::exprs::names_a_count(&display) {
            self.conds.mark_count(id);
        }
        self.syms.push(Sym { key: key.clone(), display, class_hint, aliases: Vec::new() });

        self.sym_by_key.insert(key, id);
        id
    }

    /// An object known only by its class (its fields read as symbols under `base`).
    pub fn abstract_object(&mut self, class: ClassId, base: SymId) -> Value {
        // One unknown value seen as one class is one object, however often it is met: calls on
        // it and reads from it then name the same symbols (the same facts, the same atoms).
        if let Some(&id) = self.abstracts.get(&(class, base)) {
            return Value::Obj(id);
        }
        let created = Loc { file: class.file, span: self.index.class(class).name_range };
        let id = self.alloc(ObjKind::Abstract(class, base), created);
        self.shared[id as usize] = true;
        self.abstracts.insert((class, base), id);
        Value::Obj(id)
    }

    /// The condition "atom holds", creating the atom on first use; an `--assume` that names
    /// it (or the symbol it tests) fixes its value in the constraints.
    pub fn atom(&mut self, key: AtomKey, display: impl FnOnce() -> String) -> Cond {
        let before = self.conds.atoms().len();
        let cond = self.conds.atom(key.clone(), display);
        if self.conds.atoms().len() > before {
            let atom = self.conds.atoms()[before].clone();
            if let Some(element) = atom.key.about().and_then(|s| self.loop_element_of(s)) {
                self.iteration_atoms.insert(before, element);
            }
            let names: Vec<String> = match atom.key.about() {
                Some(s) => {
                    let sym = &self.syms[s as usize];
                    std::iter::once(sym.display.clone()).chain(sym.aliases.iter().cloned()).collect()
                }
                None => vec![atom.display.clone()],
            };
            if let Some(assume) =
                self.assumes.iter().find(|a| a.name == atom.display || equal_but_for_spaces(&a.name, &atom.display))
            {
                // The test itself named, as the output prints it (`--assume 'config.n_group >
                // 1=true'`, `--assume 'k_cls is element 1 of kernels=true'`): its truth.
                assume.used.set(true);
                if let AssumedValue::Const(c) = &assume.value {
                    self.conds.fix(before, super::cond::constant_truthy(c));
                }
            } else {
                let tested = match &atom.key {
                    AtomKey::Equals(_, c) => Some(c),
                    _ => None,
                };
                if let Some(assume) = self.assumption_of_test(&names, tested) {
                    assume.used.set(true);
                    if let Some(holds) = assumed_truth(&atom.key, &assume.value) {
                        self.conds.fix(before, holds);
                    }
                }
            }
        }
        cond
    }

    /// The `--assume` that names a value tested against `tested` (by one of `names`). A
    /// `true`/`false` said of a string test (`read.lower() == "true"`) by a name only found
    /// inside the read's text is about something else: the variable the test is stored in,
    /// whose name the output gives the atom (see `name_condition`).
    pub fn assumption_of_test(&self, names: &[String], tested: Option<&Constant>) -> Option<&Assume> {
        let assume = self.assumes.iter().find(|a| names.iter().any(|n| names_match(&a.name, n)))?;
        let about_a_string =
            matches!((tested, &assume.value), (Some(Constant::Str(_)), AssumedValue::Const(Constant::Bool(_))))
                && !names.iter().any(|n| names_match_exactly(&assume.name, n));
        (!about_a_string).then_some(assume)
    }

    /// Whether an `--assume` gives the unknown value `s` a constant (by its name or an alias).
    pub fn is_assumed_constant(&self, s: SymId) -> bool {
        self.assumed_constant(s).is_some()
    }

    /// The constant an `--assume` gives the unknown value `s` (by its name or an alias).
    pub fn assumed_constant(&self, s: SymId) -> Option<Constant> {
        let sym = &self.syms[s as usize];
        std::iter::once(&sym.display).chain(sym.aliases.iter()).find_map(|n| match self.assumption(n) {
            Some(Assume { value: AssumedValue::Const(c), .. }) => Some(c.clone()),
            _ => None,
        })
    }

    /// An `--assume` naming `alias`, a name `s` got after atoms about it were made (an
    /// accessor's result, named after the accessor when it returns): fixes those atoms too.
    pub fn assume_by_alias(&mut self, s: SymId, alias: &str) {
        let Some(assume) = self.assumes.iter().find(|a| names_match(&a.name, alias)) else { return };
        assume.used.set(true);
        let value = assume.value.clone();
        let about: Vec<(usize, AtomKey)> = self
            .conds
            .atoms()
            .iter()
            .enumerate()
            .filter(|(_, a)| a.key.about() == Some(s))
            .map(|(i, a)| (i, a.key.clone()))
            .collect();
        for (atom, key) in about {
            if let Some(holds) = assumed_truth(&key, &value) {
                self.conds.fix(atom, holds);
            }
        }
    }

    /// The condition under which `value` (one alternative) is truthy.
    pub fn truthy_value(&mut self, value: &Value, loc: Loc) -> Cond {
        if let Some(tested) = self.tested_outside_value(value) {
            return self.truthy_value(&tested, loc);
        }
        match value {
            Value::Const(c) => self.conds.constant(super::cond::constant_truthy(c)),
            Value::Sym(s) => {
                let sym = &self.syms[*s as usize];
                let display = sym.label();
                let names: Vec<String> =
                    std::iter::once(sym.display.clone()).chain(sym.aliases.iter().cloned()).collect();
                if let Some(assume) = names.iter().find_map(|n| self.assumption(n)) {
                    assume.used.set(true);
                    if let AssumedValue::Const(c) = &assume.value {
                        let truth = super::cond::constant_truthy(c);
                        return self.conds.constant(truth);
                    }
                }
                self.atom(AtomKey::Truthy(*s), || display)
            }
            Value::Tuple(items) => self.conds.constant(!items.is_empty()),
            Value::Obj(id) => match &self.read_object(*id).kind {
                // An item appended on some paths only is there on those: the list is non-empty
                // where some item is.
                ObjKind::List(items) => {
                    let mut any = self.conds.falsity();
                    for item in items.clone() {
                        any = any.or(&item.coverage(&self.conds));
                    }
                    any
                }
                ObjKind::Dict(entries) => {
                    let mut any = self.conds.falsity();
                    for (_, g) in entries.clone() {
                        any = any.or(&g.coverage(&self.conds));
                    }
                    any
                }
                _ => self.conds.truth(),
            },
            // The traced value (or a number made of it) is one value however it is named: where it
            // is 0 or None there is nothing to apply, and those configurations are left out of
            // the answer like a value of 1 (`if not factor: return x`).
            Value::Num(n) if !n.tensor && n.carries_traced() => {
                let name = self.traced.name.to_string();
                let falsy = self.atom(AtomKey::Test(format!("not bool({name})")), || format!("not {name}"));
                self.leave_out(&falsy, super::exprs::NOTHING_TO_APPLY);
                falsy.not()
            }
            Value::Num(_) | Value::Unknown(_) => {
                let text = self.text(loc);
                self.atom(AtomKey::Test(format!("bool({text})")), || text)
            }
            _ => self.conds.truth(),
        }
    }

    /// The condition under which `g` is truthy.
    pub fn truthy(&mut self, g: &G, loc: Loc) -> Cond {
        let mut out = self.conds.falsity();
        for (c, v) in g.0.clone() {
            let t = self.truthy_value(&v, loc);
            out = out.or(&c.and(&t));
        }
        out
    }

    /// A boolean value from a condition: `True` where it holds, `False` elsewhere (within `pc`).
    pub fn bool_value(&self, cond: &Cond, pc: &Cond) -> G {
        let mut g = G::empty();
        g.push(&self.conds, pc.and(cond), Value::Const(Constant::Bool(true)));
        g.push(&self.conds, pc.and(&cond.not()), Value::Const(Constant::Bool(false)));
        g
    }

    // --- heap --------------------------------------------------------------------------

    pub fn alloc(&mut self, kind: ObjKind, created: Loc) -> HeapId {
        self.heap.push(Object { kind, fields: FxHashMap::default(), created });
        self.versions.push(0);
        self.shared.push(self.sharing > 0);
        (self.heap.len() - 1) as HeapId
    }

    /// A shallow copy of object `id` (`dict.copy()`, `copy.copy(obj)`, a record's `_replace`):
    /// a new object of the same kind holding the same values. (A copy of what was written into
    /// an unknown value holds it as the original does, as seen from the entry; other new
    /// objects hold what they hold as seen from the current call.)
    pub fn copy_object(&mut self, id: HeapId, loc: Loc) -> HeapId {
        let older = self.older_than_call(id) && !matches!(self.heap[id as usize].kind, ObjKind::Opaque(_));
        let base = self.base;
        let object = self.read_object(id).clone();
        let seen = |this: &Self, g: &G| if older { g.relative_to(&this.conds, &base) } else { g.clone() };
        let kind = match &object.kind {
            ObjKind::List(items) => ObjKind::List(items.iter().map(|g| seen(self, g)).collect()),
            ObjKind::Dict(entries) => ObjKind::Dict(entries.iter().map(|(k, g)| (k.clone(), seen(self, g))).collect()),
            other => other.clone(),
        };
        let fields = object.fields.iter().map(|(k, g)| (k.clone(), seen(self, g))).collect();
        let copy = self.alloc(kind, loc);
        self.heap[copy as usize].fields = fields;
        copy
    }

    /// A copy of object `id` whose objects are copies too, each copied once (`copied`: the
    /// copy of each object met, so shared and cyclic references stay so), at most
    /// [`MAX_DEEP_COPY`] objects: past them the copy shares the original's objects (false when
    /// it did).
    pub fn deep_copy_object(&mut self, id: HeapId, loc: Loc, copied: &mut FxHashMap<HeapId, HeapId>) -> (HeapId, bool) {
        if let Some(&copy) = copied.get(&id) {
            return (copy, true);
        }
        self.build_skipped(id, loc);
        let copy = self.copy_object(id, loc);
        copied.insert(id, copy);
        let mut whole = true;
        let mut deepen = |this: &mut Self, g: &G, whole: &mut bool| -> G {
            G(g.iter()
                .map(|(c, v)| match v {
                    Value::Obj(child) if copied.len() < MAX_DEEP_COPY => {
                        let (child_copy, child_whole) = this.deep_copy_object(*child, loc, copied);
                        *whole &= child_whole;
                        (*c, Value::Obj(child_copy))
                    }
                    Value::Obj(_) => {
                        *whole = false;
                        (*c, v.clone())
                    }
                    other => (*c, other.clone()),
                })
                .collect())
        };
        let mut names: Vec<Name> = self.heap[copy as usize].fields.keys().cloned().collect();
        names.sort_unstable();
        for name in names {
            let g = self.heap[copy as usize].fields[&name].clone();
            let deep = deepen(self, &g, &mut whole);
            self.heap[copy as usize].fields.insert(name, deep);
        }
        let kind = match self.heap[copy as usize].kind.clone() {
            ObjKind::List(items) => ObjKind::List(items.iter().map(|g| deepen(self, g, &mut whole)).collect()),
            ObjKind::Dict(entries) => {
                ObjKind::Dict(entries.iter().map(|(k, g)| (k.clone(), deepen(self, g, &mut whole))).collect())
            }
            other => other,
        };
        self.heap[copy as usize].kind = kind;
        (copy, whole)
    }

    /// The absolute condition for a write under `pc` into object `id`: objects made during the
    /// current call exist only where the call runs, so `pc` is enough; older objects need the
    /// call's own condition too.
    pub fn gate(&self, id: HeapId, pc: &Cond) -> Cond {
        if self.older_than_call(id) { pc.and(&self.base) } else { *pc }
    }

    /// Whether object `id` holds conditions as seen from the entry: it existed before the
    /// current call, or it holds what was written into an unknown value, which is reachable
    /// wherever the evaluation is, whenever it was first written.
    pub fn older_than_call(&self, id: HeapId) -> bool {
        id < self.heap_mark || matches!(self.heap[id as usize].kind, ObjKind::Opaque(_))
    }

    /// Whether the unknown value `s` is (part of) a parameter: an object handed in, such as the
    /// batch a forward passes from step to step, whose attributes code may write to carry
    /// state. A setting (a global, what a getter returns) is not: its symbol already stands
    /// for every value it may have, and code that fills in a default
    /// (`if moe.backend is None: moe.backend = AUTO`) only names one of them.
    pub fn is_handed_in(&self, s: SymId) -> bool {
        self.handed_in_root(s).is_some()
    }

    /// The parameter the unknown value `s` is part of (`forward_batch` for
    /// `forward_batch.residual_stream`), if it is part of one.
    pub fn handed_in_root(&self, s: SymId) -> Option<SymId> {
        let mut at = s;
        loop {
            match &self.syms[at as usize].key {
                SymKey::Path(base, _) => at = *base,
                SymKey::Param(..) => return Some(at),
                _ => return None,
            }
        }
    }

    /// The parameter a value is part of: an unknown value, or the object standing for one
    /// seen as an instance of a class (an annotated `forward_batch: ForwardBatch`).
    pub fn handed_in_value_root(&self, value: &Value) -> Option<SymId> {
        match value {
            Value::Sym(s) => self.handed_in_root(*s),
            Value::Obj(id) => match &self.heap[*id as usize].kind {
                ObjKind::Abstract(_, base) | ObjKind::Opaque(base) => self.handed_in_root(*base),
                _ => None,
            },
            _ => None,
        }
    }

    /// What a skipped call handed `values` can reach of what was handed in to the entry: the
    /// parameters they are part of, and the objects held in fields of those (the residual
    /// stream an annotated `forward_batch` holds).
    pub fn writer_reach<'v>(&self, values: impl Iterator<Item = &'v Value>) -> Vec<Reached> {
        let mut out = Vec::new();
        for value in values {
            let Some(root) = self.handed_in_value_root(value) else { continue };
            out.push(Reached::Param(root));
            let holder = match value {
                Value::Obj(id) => Some(*id),
                Value::Sym(s) => self.opaque.get(s).copied(),
                _ => None,
            };
            if let Some(id) = holder {
                for g in self.heap[id as usize].fields.values() {
                    out.extend(g.iter().filter_map(|(_, v)| match v {
                        Value::Obj(held) => Some(Reached::Object(*held)),
                        _ => None,
                    }));
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Before `attr` of `what` is read: the skipped calls that could reach it and whose code
    /// may write an attribute of that name run now, in the order they were made (SGLang's
    /// stage `prepare(hidden_states, forward_batch)` sets `forward_batch.residual_stream
    /// .transport`, which the stage's exit reads back). Their results were named when they
    /// were skipped; only what they write matters now.
    pub fn run_writers(&mut self, what: Reached, attr: &str, loc: Loc) {
        if let Reached::Object(id) = what {
            if !self.writer_reached.contains(&id) {
                return;
            }
        }
        // Reads of the same attribute are frequent (`forward_batch.x` in every layer): the
        // calls already found not to write it are not asked again, until one runs.
        let key = (what, attr.to_string());
        let start = self.writers_checked.get(&key).copied().unwrap_or(0);
        let mut matching = Vec::new();
        for i in start..self.pending_writers.len() {
            let (reach, skipped) = &self.pending_writers[i];
            if reach.contains(&what) && self.writes_attribute(skipped.0, attr, 0) {
                matching.push(i);
            }
        }
        if matching.is_empty() {
            self.writers_checked.insert(key, self.pending_writers.len());
            return;
        }
        self.writers_checked.clear();
        let run: Vec<_> = matching.iter().rev().map(|&i| self.pending_writers.remove(i).1).collect();
        for skipped in run.into_iter().rev() {
            self.evaluate_skipped(&skipped, loc);
        }
    }

    /// The object holding what code wrote into the unknown value `s`: made by the first write
    /// (`first_write`, where it is), `None` before it.
    pub fn opaque_object(&mut self, s: SymId, first_write: Option<Loc>) -> Option<HeapId> {
        if let Some(&id) = self.opaque.get(&s) {
            return Some(id);
        }
        let created = first_write?;
        let id = self.alloc(ObjKind::Opaque(s), created);
        self.shared[id as usize] = true;
        self.opaque.insert(s, id);
        Some(id)
    }

    /// Counts a branch on `test` whose two arms both run in some configuration.
    pub fn note_split(&mut self, test: &Cond, yes: &Cond, no: &Cond) {
        if self.conds.feasible(yes) && self.conds.feasible(no) {
            for atom in self.conds.support(test) {
                if self.conds.is_internal(atom) {
                    // Not a configuration: `--assume` cannot narrow it.
                    continue;
                }
                *self.splits.entry(atom).or_default() += 1;
            }
        }
    }

    /// Records that the code raises exception `kind` (`None`: not known) where `pc` holds;
    /// whether the configurations there are taken out of the rows (see `raise_under`).
    pub fn raise_of(&mut self, kind: Option<&str>, pc: &Cond, loc: Loc) -> bool {
        self.raise_kinds.entry(loc).or_insert_with(|| kind.map(Rc::from));
        self.raise_under(pc, loc)
    }

    /// Where a raise met so far was caught by a `try` being evaluated. Exact where the current
    /// call runs: each `try`'s part is relative to the call running it, which encloses this one.
    pub fn caught_so_far(&self) -> Cond {
        let mut caught = self.conds.falsity();
        for catch in &self.catching {
            for c in &catch.caught {
                if !c.is_false() {
                    caught = caught.or(c);
                }
            }
        }
        caught
    }

    /// Whether every call running is a constructor of the entry's class or of one of its bases
    /// (the entry's own `assert config.x is not None`): what it requires holds for a block
    /// answered on its own too, unlike what the layers it builds raise.
    fn in_entry_constructor(&self) -> bool {
        let Some(entry) = self.alone.map(|a| a.entry) else { return false };
        let classes = &self.resolver.mro(entry).classes;
        !self.stack.is_empty()
            && self.stack.iter().all(|&func| {
                let facts = self.index.function(func);
                facts.name.as_str() == "__init__" && facts.class().is_some_and(|c| classes.contains(&c))
            })
    }

    /// Records that the code raises where `pc` holds (in the current call). True where the
    /// raise was recorded, so that the rows drop those configurations: the code after it may
    /// then be skipped there (`Frame::stopped`). Not where it was caught (the handler runs),
    /// muted, left out, or its condition could not be computed exactly.
    pub fn raise_under(&mut self, pc: &Cond, loc: Loc) -> bool {
        // Raising removes configurations from every row: an over-approximated condition would
        // remove too many, so one that could not be computed exactly is not recorded (the
        // configurations it covers stay, which is safe).
        if self.raises_muted > 0 {
            return false;
        }
        if self.alone.is_some_and(|a| a.building == 0 && !a.entry_built) && !self.in_entry_constructor() {
            return false;
        }
        // Caught by a `try` being evaluated: its handler runs there instead (see `stmts.rs`).
        // What the calls in between did is not a summary to replay.
        let kind = self.raise_kinds.get(&loc).cloned().flatten();
        let absolute = pc.and(&self.base);
        for catch in self.catching.iter_mut().rev() {
            if let Some(handler) = catch.handler_for(kind.as_deref()) {
                let relative = absolute.simplify_within(&catch.base);
                catch.caught[handler] = catch.caught[handler].or(&relative);
                catch.origins[handler].push((absolute, loc));
                self.not_replayable();
                return false;
            }
        }
        self.note_raise(*pc, loc);
        if self.apart > 0 {
            return false;
        }
        let before = super::cond::approximated();
        let absolute = pc.and(&self.base);
        let exact = super::cond::approximated() == before;
        if exact {
            self.conds.raises(&absolute, loc);
        }
        exact
    }

    /// `Class.name = value` (or `cls.name = value`) under `pc`, run by the code evaluated:
    /// the class has that attribute from then on, where `pc` holds; where it does not, the
    /// one it had (its body's, or an earlier write).
    pub fn set_class_attr(&mut self, class: ClassId, name: &Name, value: G, pc: &Cond, loc: Loc) {
        // (A class exists before every call: its attributes hold conditions as seen from the
        // entry, as an older object's do.)
        let pc = &pc.and(&self.base);
        let value = value.restrict(&self.conds, pc);
        let old = match self.class_writes.get(&(class, name.clone())) {
            Some(written) => written.clone(),
            None => self.class_attr(class, name.as_str(), loc).map(|(_, g)| g).unwrap_or_default(),
        };
        let new = old.overwritten(&self.conds, value, pc);
        self.class_writes.insert((class, name.clone()), new);
        // A class is older than every call, and its attributes are not versioned as objects
        // are: a call that writes one (`cls._buffer = Buffer(...)`, a process-wide buffer made
        // once) has an effect a summary cannot replay. Replayed under another configuration, it
        // gave back the class attribute as first read, `None` where the first call had not
        // made the buffer.
        self.not_replayable();
    }

    /// `obj.name = value` under `pc`.
    pub fn set_field(&mut self, id: HeapId, name: &Name, value: G, pc: &Cond) {
        let pc = &self.gate(id, pc);
        let value = value.restrict(&self.conds, pc);
        self.touch(id);
        let old = self.heap[id as usize].fields.get(name).cloned().unwrap_or_default();
        let new = old.overwritten(&self.conds, value, pc);
        let created = self.heap[id as usize].created;
        let new = self.bounded(new, Some(created), || format!("attribute `{name}` took more alternatives than kept"));
        self.heap[id as usize].fields.insert(name.clone(), new);
    }

    /// Display name of an object for symbols read from it (`FusedMoE.quant_method`).
    pub fn object_label(&self, id: HeapId) -> String {
        match &self.heap[id as usize].kind {
            ObjKind::Instance(c) | ObjKind::Abstract(c, _) => self.index.class(*c).name.to_string(),
            ObjKind::List(_) => "list".into(),
            ObjKind::Dict(_) => "dict".into(),
            ObjKind::Sentinel => "object".into(),
            ObjKind::Opaque(s) => self.syms[*s as usize].label(),
        }
    }

    // --- frames ------------------------------------------------------------------------

    pub fn frame(&self, func: Option<FuncId>, file: FileId) -> Frame {
        Frame {
            func,
            file,
            locals: FxHashMap::default(),
            bound: FxHashMap::default(),
            captured: func.and_then(|f| self.closures.get(&f).cloned()),
            nested: Vec::new(),
            returns: G::empty(),
            alive: self.conds.truth(),
            raised: self.conds.falsity(),
            stopped: self.conds.falsity(),
            loop_alive: self.conds.truth(),
            loop_broken: self.conds.falsity(),
            buffers: Default::default(),
            address_records: FxHashMap::default(),
            aliases: FxHashMap::default(),
            written: Default::default(),
            shares: Vec::new(),
            kernel: None,
            yielded: None,
            generator_depth: 0,
        }
    }

    /// `name = value` in `frame` under `pc`.
    pub fn assign_local(&mut self, frame: &mut Frame, name: &Name, value: G, pc: &Cond) {
        if let Some(func) = frame.func.filter(|f| self.declares_global(*f, name.as_str())) {
            let loc = Loc { file: func.file, span: self.index.function(func).name_range };
            self.assign_global(frame.file, name, value, pc, loc);
            return;
        }
        // A new value, not a write into the tensor the caller passed (see `assign_in_place`),
        // nor into the tensor another local still holds (where this binding runs).
        frame.aliases.remove(name);
        if frame.shares.iter().any(|(a, b, _)| a == name || b == name) {
            frame.shares.retain_mut(|(a, b, c)| {
                if a == name || b == name {
                    *c = c.and(&pc.not());
                }
                !c.is_false()
            });
        }
        match frame.bound.get_mut(name) {
            Some(bound) => *bound = bound.or(pc),
            None if !frame.locals.contains_key(name) => {
                frame.bound.insert(name.clone(), *pc);
            }
            // Bound before by other means (a parameter): everywhere.
            None => {}
        }
        let old = frame.locals.get(name).cloned().unwrap_or_default();
        let new = old.overwritten(&self.conds, value, pc);
        let new = self.bounded(new, None, || format!("local `{name}` took more alternatives than kept"));
        frame.locals.insert(name.clone(), new);
    }

    /// A name read in `frame`: local (by Python's rule: assigned anywhere in the function),
    /// captured from an enclosing function, module global, or builtin.
    pub fn lookup(&mut self, frame: &Frame, name: &str, pc: &Cond, loc: Loc) -> G {
        if let Some(func) = frame.func {
            let scope = self.resolver.local_scope(func);
            if scope.is_local(name) {
                return match frame.locals.get(name) {
                    Some(g) => {
                        let g = g.restrict(&self.conds, pc);
                        if g.is_empty() {
                            G::under(pc.clone(), Value::unknown(format!("`{name}` unbound here")))
                        } else {
                            // Bound on some paths only (`if a: w = ... elif b: w = ...`, then
                            // `w` read): elsewhere Python raises `UnboundLocalError`. (Where
                            // it was bound, not where its value is known: a value can cover
                            // less than its binding when alternatives were cut. Not in a device
                            // kernel: its conditions are per program, see `device.rs`.)
                            let unbound = match frame.kernel {
                                // Not where the function stopped already at a raise.
                                None => frame.bound.get(name).map(|b| pc.and(&b.not()).and(&frame.stopped.not())),
                                Some(_) => None,
                            };
                            if let Some(unbound) = unbound.filter(|u| self.conds.feasible(u)) {
                                self.raise_of(Some("UnboundLocalError"), &unbound, loc);
                            }
                            g
                        }
                    }
                    None => {
                        // Bound by no path evaluated so far, though every binding is an
                        // assignment this read comes after (`if a: out = ... elif b: out = ...`
                        // where each arm raises): Python raises `UnboundLocalError`. (Not in a
                        // loop evaluated once for all its iterations, where an earlier one may
                        // have bound it; not in a device kernel.)
                        let after_assignments = scope.bindings.get(name).is_some_and(|bindings| {
                            !bindings.is_empty()
                                && bindings.iter().all(|b| {
                                    matches!(b.kind, crate::resolve::LocalKind::Value(_))
                                        && b.stmt.end <= loc.span.start
                                })
                        });
                        if after_assignments && frame.kernel.is_none() && self.abstract_depth == 0 {
                            let unbound = pc.and(&frame.stopped.not());
                            if self.conds.feasible(&unbound) {
                                self.raise_of(Some("UnboundLocalError"), &unbound, loc);
                            }
                        }
                        G::under(pc.clone(), Value::unknown(format!("`{name}` not yet bound")))
                    }
                };
            }
        }
        // Not a local by Python's rule but bound in this frame: a comprehension's variable.
        if let Some(g) = frame.locals.get(name) {
            let g = g.restrict(&self.conds, pc);
            if !g.is_empty() {
                return g;
            }
        }
        if let Some(captured) = &frame.captured {
            if let Some(g) = captured.get(name) {
                let g = g.restrict(&self.conds, pc);
                if !g.is_empty() {
                    return g;
                }
            }
        }
        if let Some(g) = self.rebound_global(frame.file, name, pc, loc) {
            return g;
        }
        let g = self.global(frame.file, name, loc);
        // Where no binding's guard holds, Python raises `NameError` (a function of the
        // flex-attention path called where the import that defines it did not run): those
        // configurations end there, they are not configurations the output lost.
        // Most trees have no such global: no key is built for every read.
        let unbound =
            if self.global_unbound.is_empty() { None } else { self.global_unbound.get(&(frame.file, Name::new(name))) };
        if let Some(unbound) = unbound {
            let unbound = pc.and(unbound);
            if self.conds.feasible(&unbound) {
                self.raise_of(Some("NameError"), &unbound, loc);
            }
        }
        g.restrict(&self.conds, pc)
    }

    // --- module globals ------------------------------------------------------------------

    /// Runs `f` as code that runs when its module is imported (a module-level value, a class
    /// attribute): unconditionally, whichever call first needs it, and making objects shared by
    /// every call. Evaluated from inside a call, an object it builds (`FLAG = EnvField(None)`)
    /// held its fields only under that call's condition, and a read from another call raised.
    pub fn at_import_time<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        let saved = (self.base, self.heap_mark);
        self.base = Cond::TRUE;
        self.heap_mark = self.heap.len() as HeapId;
        self.sharing += 1;
        let out = f(self);
        self.sharing -= 1;
        (self.base, self.heap_mark) = saved;
        out
    }

    /// [`Interp::at_import_time`] for the statement at `position`: what the module sets after it
    /// (`EnvField._allow_set_name = False` below the class that reads it while being created)
    /// is not set yet.
    fn at_import_position<R>(&mut self, position: (FileId, u32), f: impl FnOnce(&mut Self) -> R) -> R {
        let saved = self.import_position.replace(position);
        let out = self.at_import_time(f);
        self.import_position = saved;
        out
    }

    /// The value of a module-level name, evaluated on first use (imports followed, assignments
    /// evaluated in a module frame). Values that depend on things outside the tree become one
    /// symbol named after the variable, so `_use_aiter` is one atom wherever it is read.
    pub fn global(&mut self, file: FileId, name: &str, loc: Loc) -> G {
        let key = (file, Name::new(name));
        if let Some(g) = self.globals.get(&key) {
            return g.clone();
        }
        if self.globals_in_progress.contains(&key) {
            return G::one(&self.conds, Value::unknown(format!("`{name}` is defined in terms of itself")));
        }
        self.globals_in_progress.insert(key.clone());
        let g = self.at_import_time(|this| this.compute_global(file, name, loc));
        self.globals_in_progress.remove(&key);
        self.globals.insert(key, g.clone());
        self.fill_registry(name, &g, loc);
        g
    }

    fn compute_global(&mut self, file: FileId, name: &str, loc: Loc) -> G {
        let facts = &self.index.file(file).facts;
        let bindings: Vec<crate::index::Binding> =
            facts.bindings.iter().filter(|b| b.name.as_str() == name).cloned().collect();
        let mut out = G::empty();
        if bindings.is_empty() {
            let stars = facts.star_imports.clone();
            for star in stars {
                if let Some(source) = self.index.module(&star.module) {
                    let exported = match &self.index.file(source).facts.dunder_all {
                        Some(all) => all.iter().any(|n| n.as_str() == name),
                        None => !name.starts_with('_'),
                    };
                    if exported && self.index.file(source).facts.bindings.iter().any(|b| b.name.as_str() == name) {
                        return self.global(source, name, loc);
                    }
                }
            }
            let module = self.index.file(file).module.clone();
            let sub = format!("{module}.{name}");
            if self.index.module(&sub).is_some() || self.index.is_package(&sub) {
                return G::one(&self.conds, self.module_value(&sub));
            }
            if crate::resolve::BUILTINS.contains(&name) {
                return G::one(&self.conds, Value::Builtin(Rc::from(name)));
            }
            if let Some(g) = self.module_getattr(file, name, loc) {
                return g;
            }
            return G::one(&self.conds, Value::unknown(format!("`{name}` is not defined in {module}")));
        }
        // Declared only for type checkers, the name is not bound when the module runs: a
        // module `__getattr__` answers for it (vLLM's `envs.VLLM_X`, each read through its
        // environment variable), where the declaration gives a value, which is only a
        // default. A declaration of a type alone (`current_platform: Platform`) already says
        // all that is known of what the hook computes from the machine: it is read (below),
        // as is any declaration of a module without a hook.
        if bindings.iter().all(|b| self.type_checking_guard(file, &b.guards).is_some())
            && bindings.iter().any(|b| matches!(b.kind, BindingKind::Value { .. }))
        {
            if let Some(g) = self.module_getattr(file, name, loc) {
                return g;
            }
        }
        // Later bindings win where their guards hold (a module runs top to bottom).
        let key = (file, Name::new(name));
        let mut bound = self.conds.falsity();
        for binding in &bindings {
            // What the module's code reads of the name from here on is what it holds so far
            // (`HAS_TRITON = ...`, then `if HAS_TRITON: ... HAS_TRITON = False`), not a value
            // defined in terms of itself. (`global` caches the final value.)
            if !out.is_empty() {
                self.globals.insert(key.clone(), out.clone());
            }
            let guard = self.module_guard(file, &binding.guards);
            bound = bound.or(&guard);
            // Read as declared, a declaration for type checkers is a setting's default (vLLM's
            // `envs.VLLM_X`, read at run time through the module's `__getattr__`): said once
            // per module, where the declarations are.
            if !guard.is_false() && !matches!(binding.kind, BindingKind::Annotated { .. }) {
                if let Some(at) = self.type_checking_guard(file, &binding.guards) {
                    let tt = self.conds.truth();
                    self.blocker(
                        at,
                        "assumed: names declared under `if TYPE_CHECKING:` are read as declared there, \
                         though those lines do not run (a setting's declared default is taken for its value)",
                        &tt,
                    );
                }
            }
            if guard.is_false() {
                continue;
            }
            let value = self.binding_value(file, binding, loc, &guard);
            let mut merged = value.restrict(&self.conds, &guard);
            merged.extend(&self.conds, out.restrict(&self.conds, &guard.not()));
            out = merged;
        }
        if !bound.is_true() {
            self.global_unbound.insert((file, Name::new(name)), bound.not());
        }
        self.settings_filled_at_run_time(file, name, &out, loc);
        // A value that depends on the outside world is one named symbol; so is a global that
        // starts as a constant and that a function of the module sets (`global _TP`, a flag a
        // context manager turns on): the constant only says what it is before that runs, and
        // at run time it is whatever was set.
        let informative = out.iter().all(|(_, v)| !matches!(v, Value::Unknown(_) | Value::Num(_)));
        let set_later = matches!(out.single(), Some(Value::Const(_)))
            && self.index.file(file).facts.rebound_globals.iter().any(|n| n.as_str() == name);
        if set_later && matches!(out.single(), Some(Value::Const(Constant::None))) {
            if let Some(set) = self.lazily_set_global(file, name) {
                return set;
            }
        }
        if !informative || out.is_empty() || set_later {
            let display = name.to_string();
            let value = self.sym(SymKey::Global(file, Name::new(name)), display, None);
            // Its declaration still says what it may be (`X: Optional[SomeEnum] = None`).
            let module = self.index.file(file).ast();
            let declared = bindings.iter().find_map(|b| annotation_of(&module.body, b.range)).cloned();
            if let Some(annotation) = declared {
                self.note_annotated(&value, file, &annotation);
            }
            return G::one(&self.conds, value);
        }
        out
    }

    /// The place of the `if TYPE_CHECKING:` among a binding's guards, if it has one.
    fn type_checking_guard(&self, file: FileId, guards: &[crate::index::Guard]) -> Option<Loc> {
        guards.iter().map(|g| (g, Loc { file, span: g.range })).find_map(|(g, at)| {
            let test = self.text(at);
            (g.kind == GuardKind::IfTrue && matches!(test.as_str(), "TYPE_CHECKING" | "typing.TYPE_CHECKING"))
                .then_some(at)
        })
    }

    /// The condition of module-level guards (`if _is_cuda:` around an import).
    fn module_guard(&mut self, file: FileId, guards: &[crate::index::Guard]) -> Cond {
        let mut cond = self.conds.truth();
        for guard in guards {
            let loc = Loc { file, span: guard.range };
            let holds = match guard.kind {
                GuardKind::Except | GuardKind::Case => {
                    let text = self.text(loc);
                    let kind = if guard.kind == GuardKind::Except { "except" } else { "case" };
                    self.atom(AtomKey::Test(format!("{kind} {text} @{}:{}", file.as_u32(), guard.range.start)), || {
                        format!("{kind} {text}")
                    })
                }
                _ => {
                    let module = self.index.file(file).ast();
                    let truth = match find_expr(&module.body, guard.range) {
                        // Tested where the enclosing guards hold (`if HAS_TRITON:` around
                        // `if is_distributed_env:`, a name bound under the first).
                        Some(test) => {
                            let mut frame = self.frame(None, file);
                            let g = self.eval(&mut frame, test, &cond);
                            self.truthy(&g, loc)
                        }
                        None => self.conds.truth(),
                    };
                    if guard.kind == GuardKind::IfTrue { truth } else { truth.not() }
                }
            };
            cond = cond.and(&holds);
        }
        cond
    }

    /// What `binding` gives its name, evaluated where its guards hold (`guard`): the
    /// statements of an `if HAS_TRITON:` block read names bound in that block.
    fn binding_value(&mut self, file: FileId, binding: &crate::index::Binding, loc: Loc, guard: &Cond) -> G {
        match &binding.kind {
            BindingKind::Class(c) => G::one(&self.conds, Value::Class(*c)),
            BindingKind::Function(f) => G::one(&self.conds, Value::Func(*f)),
            BindingKind::Import { module } => G::one(&self.conds, self.module_value(module)),
            BindingKind::ImportFrom { module, name } => self.import_from(module, name, loc),
            BindingKind::Value { value: Some(expr) } => {
                let mut frame = self.frame(None, file);
                let expr = expr.clone();
                let g = self.eval(&mut frame, &expr, guard);
                // Name the symbol after the variable when the value is an anonymous unknown.
                let label = binding.name.to_string();
                self.name_condition(&g, &label);
                G(g.0.into_iter().map(|(c, v)| (c, self.name_symbol(v, &label))).collect())
            }
            _ => {
                let value = self.sym(SymKey::Global(file, binding.name.clone()), binding.name.to_string(), None);
                G::one(&self.conds, value)
            }
        }
    }

    /// Records the variable that holds a computed symbol (the result of some call), so atoms
    /// print as `_use_aiter` rather than `get_bool_env_var("SGLANG_USE_AITER") and _is_hip`,
    /// and `--assume _use_aiter=...` finds it. The symbol itself (its identity) is unchanged:
    /// `_is_cuda = is_cuda()` in two modules is one atom.
    fn name_symbol(&mut self, value: Value, label: &str) -> Value {
        if let Value::Sym(s) = &value {
            let sym = &mut self.syms[*s as usize];
            if sym.display.contains('(') && !sym.aliases.iter().any(|a| a == label) {
                sym.aliases.push(label.to_string());
            }
            if let Some(assume) = self.assumes.iter().find(|a| names_match(&a.name, label)) {
                assume.used.set(true);
                return match &assume.value {
                    AssumedValue::Const(c) => Value::Const(c.clone()),
                    AssumedValue::Class(_) | AssumedValue::NoneOf(_) => value,
                };
            }
        }
        value
    }

    /// A global that holds a test (`_use_fast = os.environ.get("FAST") == "1"`): the atom is
    /// named after the global, and `--assume _use_fast=...` fixes it.
    fn name_condition(&mut self, g: &G, label: &str) {
        let truth = g.iter().find(|(_, v)| matches!(v, Value::Const(Constant::Bool(true)))).map(|(c, _)| c.clone());
        let only_bools = g.iter().all(|(_, v)| matches!(v, Value::Const(Constant::Bool(_))));
        let (Some(truth), true) = (truth, only_bools) else { return };
        let Some((atom, holds)) = self.conds.as_literal(&truth) else { return };
        if holds {
            self.conds.alias(atom, label);
        } else {
            self.conds.alias(atom, &format!("not {label}"));
        }
        if let Some(assume) = self.assumes.iter().find(|a| names_match(&a.name, label)) {
            assume.used.set(true);
            if let AssumedValue::Const(c) = &assume.value {
                let value = super::cond::constant_truthy(c);
                self.conds.fix(atom, if holds { value } else { !value });
            }
        }
    }

    /// What an attribute of something outside the tree is (`outside_lib.attr`, also imported
    /// by name): the outside thing, by path; PyTorch's build versions (`torch.version.hip`,
    /// `torch.version.cuda`, which `--platform` fixes) are unknown values instead. As paths they
    /// were truthy and never `None`: `if torch.version.hip:` ran on CUDA.
    pub fn outside_attribute(&mut self, path: String) -> Value {
        if matches!(path.as_str(), "torch.version.hip" | "torch.version.cuda") {
            return self.sym(SymKey::External(path.clone()), path, None);
        }
        Value::External(Rc::from(path))
    }

    /// An outside path as the value a test reads: a module constant (`deep_gemm.ENABLE_FAST`,
    /// `HAS_X` imported from a package: upper case, of a lower-case module outside the standard
    /// library, not an enum's member) is an unknown value, so `if outside_kernels.HAS_X:` and
    /// `X is None` are atoms; anything else (a function, a class, a module) stays the path,
    /// which is truthy and not `None`. Only tests read it so: the same names are registries
    /// too (`ACT2FN[act](x)`), which calls and subscripts take as outside things.
    pub fn tested_outside_value(&mut self, value: &Value) -> Option<Value> {
        let Value::External(path) = value else { return None };
        let (parent, last) = path.rsplit_once('.')?;
        let module_constant = last.chars().any(|c| c.is_ascii_uppercase())
            && last.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            && parent.rsplit('.').next().is_some_and(|m| {
                !m.is_empty() && m.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            })
            // (Not the standard library's: `typing.TYPE_CHECKING` guards declarations the
            // evaluation reads.)
            && !super::ops::is_standard_library(path);
        module_constant.then(|| self.sym(SymKey::External(path.to_string()), path.to_string(), None))
    }

    pub fn module_value(&self, dotted: &str) -> Value {
        match self.index.module(dotted) {
            Some(file) => Value::Module(file),
            None if self.index.is_package(dotted) => Value::Namespace(Rc::from(dotted)),
            None => Value::External(Rc::from(dotted)),
        }
    }

    /// A name a module does not define: its module-level `__getattr__` (PEP 562) answers it,
    /// as vLLM's `envs.VLLM_X` reads the environment through one. Called with the name, once
    /// (the answer is the module global's).
    fn module_getattr(&mut self, file: FileId, name: &str, loc: Loc) -> Option<G> {
        if name.starts_with("__")
            || !self.index.file(file).facts.bindings.iter().any(|b| b.name.as_str() == "__getattr__")
        {
            return None;
        }
        let hook = self.global(file, "__getattr__", loc);
        if !hook.iter().any(|(_, v)| matches!(v, Value::Func(_))) {
            return None;
        }
        // A setting assumed by its name (`--assume VLLM_X=true`) is that value: what the hook
        // would compute from the environment (`os.getenv("VLLM_X", "False").lower() in
        // ("true", "1")`) is not evaluated, and its string tests not fixed by a value they
        // do not compare with.
        let assumed = self.assumes.iter().find_map(|a| match &a.value {
            AssumedValue::Const(value)
                if a.name == name || a.name.strip_suffix(name).is_some_and(|rest| rest.ends_with('.')) =>
            {
                a.used.set(true);
                Some(value.clone())
            }
            _ => None,
        });
        if let Some(value) = assumed {
            return Some(G::one(&self.conds, Value::Const(value)));
        }
        let tt = self.conds.truth();
        let key = G::one(&self.conds, Value::Const(Constant::Str(name.to_string())));
        let args = super::calls::Args {
            positional: vec![super::calls::Arg { value: key, loc: None }],
            ..super::calls::Args::default()
        };
        let g = self.call(&hook, args, &tt, loc);
        // Named after the attribute, as a module global is after its variable.
        self.name_condition(&g, name);
        Some(G(g.0.into_iter().map(|(c, v)| (c, self.name_symbol(v, name))).collect()))
    }

    pub fn import_from(&mut self, module: &str, name: &str, loc: Loc) -> G {
        if let Some(file) = self.index.module(module) {
            if self.index.file(file).facts.bindings.iter().any(|b| b.name.as_str() == name)
                || !self.index.file(file).facts.star_imports.is_empty()
            {
                return self.global(file, name, loc);
            }
            let sub = format!("{module}.{name}");
            if self.index.module(&sub).is_some() || self.index.is_package(&sub) {
                return G::one(&self.conds, self.module_value(&sub));
            }
            return self.global(file, name, loc);
        }
        if self.index.is_package(module) {
            return G::one(&self.conds, self.module_value(&format!("{module}.{name}")));
        }
        let value = self.outside_attribute(format!("{module}.{name}"));
        G::one(&self.conds, value)
    }

    /// Python calls `value.__set_name__(owner, name)` for each object of a class body whose
    /// class defines it (a descriptor learning its attribute's name: `SGLANG_X =
    /// EnvBool(False)` reads `os.getenv("SGLANG_X")`).
    fn set_names(&mut self, value: &G, owner: ClassId, name: &Name, loc: Loc) {
        for (c, v) in value.0.clone() {
            let Value::Obj(id) = v else { continue };
            let ObjKind::Instance(class) = self.heap[id as usize].kind else { continue };
            let Some((_, hook)) = self.class_attr(class, "__set_name__", loc) else { continue };
            let Some(Value::Func(hook)) = hook.single().cloned() else { continue };
            let args = super::calls::Args {
                positional: vec![
                    super::calls::Arg { value: G::under(c, Value::Class(owner)), loc: None },
                    super::calls::Arg { value: G::under(c, Value::Const(Constant::Str(name.to_string()))), loc: None },
                ],
                ..Default::default()
            };
            // Now, while the class is being created (not when `self.name` is first read).
            self.force = Some(hook);
            self.call_function(hook, Some(Value::Obj(id)), args, &c, loc);
        }
    }

    /// The module-level statements that set attribute `name` on `class` (`Config.MethodCls =
    /// Method` after the class statement), in file and source order.
    fn class_attr_assigned(&mut self, class: ClassId, name: &str) -> Vec<(FileId, usize)> {
        let assigns = match &self.class_attr_assigns {
            Some(assigns) => assigns.clone(),
            None => {
                let mut assigns: FxHashMap<(ClassId, Name), Vec<(FileId, usize)>> = FxHashMap::default();
                for (file, f) in self.index.files.iter_enumerated() {
                    for (i, assign) in f.facts.module_attr_assigns.iter().enumerate() {
                        for found in self.resolver.global(file, &assign.object).iter() {
                            if let crate::resolve::Def::Class(c) = found.def {
                                assigns.entry((c, assign.attr.clone())).or_default().push((file, i));
                            }
                        }
                    }
                }
                let assigns = Rc::new(assigns);
                self.class_attr_assigns = Some(assigns.clone());
                assigns
            }
        };
        assigns.get(&(class, Name::new(name))).cloned().unwrap_or_default()
    }

    /// A class-level attribute (through the MRO) as seen from the class itself.
    pub fn class_attr(&mut self, class: ClassId, name: &str, loc: Loc) -> Option<(ClassId, G)> {
        let mro = self.resolver.mro(class);
        for base in mro.classes.iter().copied() {
            // Written by code run on the forward path (`cls._buffer = Buffer(...)` in a getter
            // that builds a process-wide object once): that value where it was written, the
            // class body's elsewhere (see `set_class_attr`).
            if let Some(written) = self.class_writes.get(&(base, Name::new(name))) {
                // What code wrote there may change again after this call: not a summary.
                self.not_replayable();
                return Some((base, written.clone()));
            }
            // Set on the class by the module's code after the class statement: that value is
            // the one the class has once its module is imported (the last statement wins), or,
            // read by import-time code of that module, the last that has run. (What is read
            // before the module has run is not cached.)
            let assigns = self.class_attr_assigned(base, name);
            let ran = |(file, i): &(FileId, usize)| match self.import_position {
                Some((at_file, at)) if at_file == *file => {
                    self.index.file(*file).facts.module_attr_assigns[*i].range.start < at
                }
                _ => true,
            };
            let visible: Vec<(FileId, usize)> = assigns.iter().copied().filter(ran).collect();
            let cacheable = visible.len() == assigns.len();
            let key = (base, Name::new(name));
            if let Some(&(file, i)) = visible.last() {
                if let Some(g) = self.class_attrs.get(&key).filter(|_| cacheable) {
                    return Some((base, g.clone()));
                }
                // (A value too deeply nested to keep: the class body's, if any.)
                let assign = &self.index.file(file).facts.module_attr_assigns[i];
                if let Some(expr) = assign.value.clone() {
                    let at = assign.range.start;
                    let mut frame = self.frame(None, file);
                    let tt = self.conds.truth();
                    let value = self.at_import_position((file, at), |this| this.eval(&mut frame, &expr, &tt));
                    if cacheable {
                        self.class_attrs.insert(key, value.clone());
                    }
                    self.fill_registry(name, &value, loc);
                    return Some((base, value));
                }
            }
            // `value: str` with no value declares an instance attribute: no class attribute
            // (each instance has its own, an enum member's `value` its own value).
            let bindings: Vec<crate::index::Binding> = self
                .index
                .class(base)
                .body
                .iter()
                .filter(|b| b.name.as_str() == name && !matches!(b.kind, BindingKind::Annotated { .. }))
                .cloned()
                .collect();
            if bindings.is_empty() {
                continue;
            }
            if let Some(g) = self.class_attrs.get(&key).filter(|_| cacheable) {
                return Some((base, g.clone()));
            }
            let mut out = G::empty();
            for binding in &bindings {
                let value = match &binding.kind {
                    BindingKind::Function(f) => G::one(&self.conds, Value::Func(*f)),
                    BindingKind::Class(c) => G::one(&self.conds, Value::Class(*c)),
                    BindingKind::Value { value: Some(expr) } if is_enum_auto(expr) => {
                        G::one(&self.conds, Value::Const(self.enum_auto_value(base, &binding.name)))
                    }
                    BindingKind::Value { value: Some(expr) }
                        if self.tuple_member_name(base, &binding.name, expr).is_some() =>
                    {
                        let member = self.tuple_member_name(base, &binding.name, expr).expect("checked");
                        G::one(&self.conds, Value::Const(member))
                    }
                    BindingKind::Value { value: Some(expr) } => {
                        let mut frame = self.frame(None, base.file);
                        // The class body is a scope of its own: the functions and classes it
                        // defined before this statement are names there (`forward_native =
                        // forward_cuda`).
                        for earlier in &self.index.class(base).body {
                            if earlier.range.start >= binding.range.start {
                                continue;
                            }
                            let value = match earlier.kind {
                                BindingKind::Function(f) => Value::Func(f),
                                BindingKind::Class(c) => Value::Class(c),
                                _ => continue,
                            };
                            frame.locals.insert(earlier.name.clone(), G::one(&self.conds, value));
                        }
                        let tt = self.conds.truth();
                        let expr = self.enum_value_expr(base, expr).clone();
                        let name = binding.name.clone();
                        self.at_import_position((base.file, binding.range.start), |this| {
                            let value = this.eval(&mut frame, &expr, &tt);
                            this.set_names(&value, base, &name, loc);
                            value
                        })
                    }
                    BindingKind::Import { module } => G::one(&self.conds, self.module_value(module)),
                    BindingKind::ImportFrom { module, name } => self.import_from(module, name, loc),
                    _ => {
                        let display = format!("{}.{}", self.index.class(base).name, binding.name);
                        let v = self.sym(
                            SymKey::At(Loc { file: base.file, span: binding.range }, display.clone()),
                            display,
                            None,
                        );
                        G::one(&self.conds, v)
                    }
                };
                out = value;
            }
            if cacheable {
                self.class_attrs.insert(key, out.clone());
            }
            self.fill_registry(name, &out, loc);
            return Some((base, out));
        }
        None
    }

    /// The method `name` of the enum member whose value is `value` (members are held as their
    /// values): found when the enums of the tree with such a member agree on one function
    /// (`MoeRunnerBackend.TRITON.is_triton()`). Strings and numbers have their own methods;
    /// those are never looked up here.
    pub fn enum_member_method(&mut self, value: &Constant, name: &str) -> Option<FuncId> {
        if STR_AND_NUMBER_METHODS.contains(&name) {
            return None;
        }
        self.agreed_enum_method(name, |members| members.contains(value))
    }

    /// What `with context as name` binds: `context.__enter__()` for an object of the tree whose
    /// class defines it (run for what it sets, too: a scope it opens holds in the body), the
    /// context itself otherwise (an outside context manager, `torch.no_grad()`).
    pub fn entered(&mut self, context: G, pc: &Cond, loc: Loc) -> G {
        let mut out = G::empty();
        for (c, v) in context.0 {
            match self.instance_method(&v, "__enter__") {
                Some(func) => {
                    self.force = Some(func);
                    let result = self.call_function(func, Some(v), super::calls::Args::default(), &c.and(pc), loc);
                    self.force = None;
                    out.extend(&self.conds, result);
                }
                None => out.push(&self.conds, c, v),
            }
        }
        out
    }

    /// Leaving `with context:` (by its end or a `return` in it): `context.__exit__(None, None,
    /// None)` for an object of the tree whose class defines it, run for what it does (releases
    /// a transport its stage left on the batch, clears a flag its `__enter__` set). Under `pc`,
    /// the `with` statement's condition: Python runs it however the block is left.
    pub fn exited(&mut self, context: &G, pc: &Cond, loc: Loc) {
        for (c, v) in context.0.clone() {
            if let Some(func) = self.instance_method(&v, "__exit__") {
                let none = || super::calls::Arg { value: G::under(Cond::TRUE, Value::none()), loc: None };
                let args = super::calls::Args { positional: vec![none(), none(), none()], ..Default::default() };
                self.force = Some(func);
                self.call_function(func, Some(v), args, &c.and(pc), loc);
                self.force = None;
            }
        }
    }

    /// The method `name` of an object of the tree, defined by its class or inherited.
    fn instance_method(&mut self, value: &Value, name: &str) -> Option<FuncId> {
        match value {
            Value::Obj(id) => match self.heap[*id as usize].kind {
                ObjKind::Instance(class) => self.method_through_mro(class, name),
                _ => None,
            },
            _ => None,
        }
    }

    /// The function `name` that `class` defines or inherits.
    pub fn method_through_mro(&mut self, class: ClassId, name: &str) -> Option<FuncId> {
        let mro = self.resolver.mro(class);
        mro.classes.iter().find_map(|c| {
            self.index.class(*c).body.iter().find_map(|b| match b.kind {
                BindingKind::Function(f) if b.name.as_str() == name => Some(f),
                _ => None,
            })
        })
    }

    /// What the predicate `name` says of the enum member whose value is `value`, when the enums
    /// of the tree with such a member define it differently but every definition is a one-line
    /// member test giving the same answer (`"triton".is_triton()`: SGLang's MoE, FP8 GEMM and
    /// linear-attention backends each have a `triton` member and their own `is_triton`).
    /// Members are held as their values, so which enum it is cannot be told; here it need not.
    pub fn agreed_member_predicate(&mut self, value: &Constant, name: &str) -> Option<bool> {
        if STR_AND_NUMBER_METHODS.contains(&name) || name.starts_with("__") {
            return None;
        }
        if self.enum_members.is_none() {
            self.enum_members = Some(Rc::new(self.collect_enum_members()));
        }
        let enums = self.enum_members.clone().expect("collected");
        let mut answer: Option<bool> = None;
        for (class, members) in enums.iter() {
            if !members.contains(value) {
                continue;
            }
            let method = self.method_through_mro(*class, name);
            let Some(f) = method else { continue };
            let says = self.predicate_members(f)?.contains(value);
            match answer {
                None => answer = Some(says),
                Some(known) if known == says => {}
                Some(_) => return None,
            }
        }
        answer
    }

    /// The predicate `name` when exactly one function of the enums of the tree has that name
    /// and it is a one-line predicate (`def is_deep_gemm(self): return self == DEEP_GEMM`):
    /// called on an unknown value (a backend kept in an untyped field), it is that enum's
    /// predicate, so `x.is_a()` and `x.is_b()` are equalities of one value and exclude each other.
    pub fn unique_enum_predicate(&mut self, name: &str) -> Option<FuncId> {
        if STR_AND_NUMBER_METHODS.contains(&name) || name.starts_with("__") {
            return None;
        }
        if let Some(known) = self.enum_predicates.get(name) {
            return *known;
        }
        let found = self
            .agreed_enum_method(name, |_| true)
            .or_else(|| self.equivalent_enum_predicates(name))
            .filter(|&f| self.is_predicate(f));
        self.enum_predicates.insert(name.to_string(), found);
        found
    }

    /// When several enums define a predicate `name` and every one tests the value against
    /// the same member values (`is_flashinfer_trtllm` of the FP8 and FP4 GEMM runner backends,
    /// each `self == X.FLASHINFER_TRTLLM` with the value `"flashinfer_trtllm"`), they say the
    /// same thing of an unknown value: the first of them, in the order of the tree. (One that
    /// also accepts another member is a different predicate, and then none is chosen.)
    fn equivalent_enum_predicates(&mut self, name: &str) -> Option<FuncId> {
        if self.enum_members.is_none() {
            self.enum_members = Some(Rc::new(self.collect_enum_members()));
        }
        let enums = self.enum_members.clone().expect("collected");
        let mut functions: Vec<FuncId> = Vec::new();
        for (class, _) in enums.iter() {
            let method = self.method_through_mro(*class, name);
            if let Some(f) = method {
                if !functions.contains(&f) {
                    functions.push(f);
                }
            }
        }
        functions.sort();
        let mut tested: Option<Vec<Constant>> = None;
        for &f in &functions {
            let values = self.predicate_members(f)?;
            match &tested {
                None => tested = Some(values),
                Some(known) if *known == values => {}
                Some(_) => return None,
            }
        }
        functions.first().copied()
    }

    /// The member values a one-line enum predicate compares `self` with (`return self ==
    /// X.A`, `return self.value == X.A.value`, `return self in (X.A, X.B)`), sorted; `None`
    /// for any other body.
    fn predicate_members(&mut self, func: FuncId) -> Option<Vec<Constant>> {
        use ruff_python_ast::{CmpOp, Expr, Stmt};
        let module = self.index.file(func.file).ast();
        let Some(Stmt::FunctionDef(def)) =
            crate::syntax::stmt_with_range(&module.body, self.index.function(func).range)
        else {
            return None;
        };
        let body: Vec<&Stmt> =
            def.body.iter().filter(|s| !matches!(s, Stmt::Expr(e) if e.value.is_string_literal_expr())).collect();
        let [Stmt::Return(ret)] = body.as_slice() else { return None };
        let Some(Expr::Compare(cmp)) = ret.value.as_deref() else { return None };
        let (Some(op), Some(right)) = (cmp.ops.first(), cmp.comparators.first()) else { return None };
        let is_self = |e: &Expr| match e {
            Expr::Name(n) => n.id.as_str() == "self",
            Expr::Attribute(a) => {
                a.attr.as_str() == "value" && matches!(&*a.value, Expr::Name(n) if n.id.as_str() == "self")
            }
            _ => false,
        };
        if cmp.ops.len() != 1 || !is_self(&cmp.left) {
            return None;
        }
        let ctx = crate::resolve::Ctx::function(func);
        // `self.value == "a"` tests the value itself (`self == "a"` would be false for a plain enum).
        let of_value = matches!(&*cmp.left, Expr::Attribute(_));
        let mut member = |e: &Expr| -> Option<Constant> {
            if of_value && e.is_literal_expr() {
                return crate::syntax::constant(e);
            }
            let e = match e {
                Expr::Attribute(a) if a.attr.as_str() == "value" => &*a.value,
                other => other,
            };
            let Expr::Attribute(attr) = e else { return None };
            let classes = self.resolver.resolve(&ctx, &attr.value);
            let class = classes.iter().find_map(|f| match f.def {
                crate::resolve::Def::Class(c) if self.is_enum(c) => Some(c),
                _ => None,
            })?;
            self.enum_member_value(class, attr.attr.as_str())
        };
        let mut values = match (op, right) {
            (CmpOp::Eq | CmpOp::Is, e) => vec![member(e)?],
            (CmpOp::In, Expr::Tuple(t)) => t.elts.iter().map(&mut member).collect::<Option<Vec<_>>>()?,
            _ => return None,
        };
        values.sort_by_key(|c| c.to_string());
        Some(values)
    }

    /// The value of member `name` of enum `class` (a literal or `auto()`).
    fn enum_member_value(&self, class: ClassId, name: &str) -> Option<Constant> {
        self.index.class(class).body.iter().find_map(|binding| {
            let BindingKind::Value { value: Some(expr) } = &binding.kind else { return None };
            if binding.name.as_str() != name {
                return None;
            }
            if is_enum_auto(expr) {
                Some(self.enum_auto_value(class, &binding.name))
            } else {
                self.tuple_member_name(class, &binding.name, expr)
                    .or_else(|| crate::syntax::constant(self.enum_value_expr(class, expr)))
            }
        })
    }

    /// The one function named `name` that the enums of the tree whose members pass `which`
    /// define (through their MRO), if they agree on one.
    fn agreed_enum_method(&mut self, name: &str, which: impl Fn(&[Constant]) -> bool) -> Option<FuncId> {
        if self.enum_members.is_none() {
            self.enum_members = Some(Rc::new(self.collect_enum_members()));
        }
        let enums = self.enum_members.clone().expect("collected");
        let mut found: Option<FuncId> = None;
        for (class, members) in enums.iter() {
            if !which(members) {
                continue;
            }
            let method = self.method_through_mro(*class, name);
            match (found, method) {
                (_, None) => {}
                (None, Some(f)) => found = Some(f),
                (Some(g), Some(f)) if g == f => {}
                (Some(_), Some(_)) => return None,
            }
        }
        found
    }

    /// Every enum class of the tree with the values of its members.
    fn collect_enum_members(&mut self) -> Vec<(ClassId, Vec<Constant>)> {
        let candidates: Vec<ClassId> =
            self.index
                .all_classes()
                .filter(|&c| {
                    self.index.class(c).bases.iter().any(|b| {
                        crate::syntax::dotted_name(b).is_some_and(|d| d.ends_with("Enum") || d.ends_with("Flag"))
                    })
                })
                .collect();
        let mut out = Vec::new();
        for class in candidates {
            if !self.is_enum(class) {
                continue;
            }
            let members = self.enum_members_of(class).into_iter().flatten().collect();
            out.push((class, members));
        }
        out
    }

    /// The values of the members of enum `class`, in the order written, `None` for a member
    /// whose value is not a constant.
    fn enum_members_of(&self, class: ClassId) -> Vec<Option<Constant>> {
        let mut members = Vec::new();
        for binding in &self.index.class(class).body {
            let BindingKind::Value { value: Some(expr) } = &binding.kind else { continue };
            if is_enum_auto(expr) {
                members.push(Some(self.enum_auto_value(class, &binding.name)));
            } else {
                members.push(
                    self.tuple_member_name(class, &binding.name, expr)
                        .or_else(|| crate::syntax::constant(self.enum_value_expr(class, expr))),
                );
            }
        }
        members
    }

    /// Every member of enum `class` of the tree, in order (iterating the class), when each
    /// one's value is a constant.
    pub fn enum_iteration(&self, class: ClassId) -> Option<Vec<Constant>> {
        if !self.is_enum(class) {
            return None;
        }
        self.enum_members_of(class).into_iter().collect()
    }

    /// The values of the members of enum `class` (empty when it is not an enum of the tree).
    pub fn enum_member_values(&mut self, class: ClassId) -> Vec<Constant> {
        if self.enum_members.is_none() {
            self.enum_members = Some(Rc::new(self.collect_enum_members()));
        }
        let enums = self.enum_members.clone().expect("collected");
        enums.iter().find(|(c, _)| *c == class).map(|(_, members)| members.clone()).unwrap_or_default()
    }

    /// Notes that the unknown value of `value` was declared by `annotation` (in `file`): when
    /// that names exactly one enum class of the tree, the value is one of its members; when it
    /// is that enum made optional (`Optional[E]`, `E | None`, `Union[E, None]`), `None` or one
    /// of its members. Any other union says nothing.
    pub fn note_annotated(&mut self, value: &Value, file: FileId, annotation: &ruff_python_ast::Expr) {
        let Value::Sym(s) = value else { return };
        if self.enum_typed.contains_key(s) {
            return;
        }
        let (annotation, optional) = match crate::syntax::optional_inner(annotation) {
            Some(inner) => (inner, true),
            None => (annotation, false),
        };
        let exact = matches!(
            annotation,
            ruff_python_ast::Expr::Name(_)
                | ruff_python_ast::Expr::Attribute(_)
                | ruff_python_ast::Expr::StringLiteral(_)
        );
        if !exact {
            return;
        }
        let ctx = crate::resolve::Ctx::module(file);
        let classes = self.resolver.annotation_classes(&ctx, annotation, &mut crate::resolve::Walk::default());
        if let [class] = classes.as_slice() {
            if self.is_enum(*class) && !self.enum_member_values(*class).is_empty() {
                self.enum_typed.insert(*s, *class);
                if optional {
                    self.enum_or_none.insert(*s);
                }
            }
        }
    }

    /// Whether `class` is an enum (an `Enum`, `IntEnum`, `StrEnum`, `Flag`... outside the tree
    /// among its bases).
    pub fn is_enum(&self, class: ClassId) -> bool {
        let mro = self.resolver.mro(class);
        mro.external.iter().any(|e| e.starts_with("enum.") || e.ends_with("Enum"))
    }

    /// The expression that gives a member of enum `class` its value. An enum of a data type
    /// (`IntEnum`, `StrEnum`, `class E(int, Enum)`) hands a tuple to that type's constructor:
    /// `Renormalize = (1,)` in an `IntEnum` is the member `1`, equal to `1`, not a tuple.
    pub fn enum_value_expr<'e>(&self, class: ClassId, expr: &'e ruff_python_ast::Expr) -> &'e ruff_python_ast::Expr {
        let ruff_python_ast::Expr::Tuple(tuple) = expr else { return expr };
        let [only] = tuple.elts.as_slice() else { return expr };
        let mro = self.resolver.mro(class);
        let data_type = |name: &str| {
            let last = name.rsplit('.').next().unwrap_or(name);
            matches!(last, "IntEnum" | "StrEnum" | "IntFlag" | "int" | "str" | "float")
        };
        let has_data_type = mro.external.iter().any(|e| data_type(e))
            || mro.classes.iter().any(|c| {
                self.index.class(*c).bases.iter().any(|b| crate::syntax::dotted_name(b).is_some_and(|d| data_type(&d)))
            });
        if self.is_enum(class) && has_data_type { only } else { expr }
    }

    /// How a member of a plain enum whose value is a tuple of literals (`Standard =
    /// ("standard",)`, the trailing comma making it a tuple) is held: by its name,
    /// `Class.Member`, a constant like other members' values, so that its methods and
    /// properties are found and it equals itself and no other member (a plain enum compares
    /// members by identity). Held as the tuple, `Format.Standard.is_batched` was an unknown.
    fn tuple_member_name(&self, class: ClassId, name: &Name, expr: &ruff_python_ast::Expr) -> Option<Constant> {
        let ruff_python_ast::Expr::Tuple(tuple) = self.enum_value_expr(class, expr) else { return None };
        let literals = tuple.elts.iter().all(|e| crate::syntax::constant(e).is_some());
        (literals && self.is_enum(class)).then(|| Constant::Str(format!("{}.{name}", self.index.class(class).name)))
    }

    /// What `auto()` gives member `name` of enum class `class`, as Python computes it: the
    /// member's name lower-cased in a `StrEnum`, else one more than the previous member's
    /// integer value (1 for the first). Members would otherwise all be the one unknown `auto()`
    /// and equal to each other (a dict keyed by them would have one key).
    fn enum_auto_value(&self, class: ClassId, name: &Name) -> Constant {
        let facts = self.index.class(class);
        let str_enum =
            facts.bases.iter().any(|b| crate::syntax::dotted_name(b).is_some_and(|d| d.ends_with("StrEnum")));
        if str_enum {
            return Constant::Str(name.as_str().to_lowercase());
        }
        let mut last = 0i64;
        for binding in &facts.body {
            let BindingKind::Value { value: Some(expr) } = &binding.kind else { continue };
            if is_enum_auto(expr) {
                last += 1;
            } else if let Some(Constant::Int(i)) = crate::syntax::constant(self.enum_value_expr(class, expr)) {
                last = i;
            }
            if binding.name == *name {
                break;
            }
        }
        Constant::Int(last)
    }

    /// Counts one evaluation step; false once the budget is spent, or once the answer this
    /// evaluation was started for ahead of time is no longer needed (see `report::run`).
    pub fn step(&mut self, loc: Loc) -> bool {
        self.steps += 1;
        if self.steps % 1024 == 0 && abandoned() {
            self.steps = self.steps.max(self.max_steps + 2);
            return false;
        }
        // Checked at every step (a thread-local read): a few large operations between sparser
        // checks took a trace millions of nodes past the bound.
        if self.steps <= self.max_steps && super::cond::node_count() > self.max_nodes {
            let max_nodes = self.max_nodes;
            self.bound(
                Some(loc),
                format!("conditions grew past {max_nodes} decision-diagram nodes; evaluation stopped here"),
            );
            self.steps = self.max_steps + 1;
        }
        if self.steps > self.max_steps {
            if self.steps == self.max_steps + 1 {
                self.bound(Some(loc), format!("evaluation budget of {} steps spent", self.max_steps));
            }
            return false;
        }
        true
    }
}

thread_local! {
    /// Set on a thread that evaluates ahead of time what may not be needed: once it reads
    /// true, evaluation stops as if the budget were spent (the result is thrown away).
    static ABANDON: std::cell::RefCell<Option<std::sync::Arc<std::sync::atomic::AtomicBool>>> =
        const { std::cell::RefCell::new(None) };
}

/// Makes evaluations on this thread stop once `flag` is set.
pub fn abandon_when(flag: std::sync::Arc<std::sync::atomic::AtomicBool>) {
    ABANDON.with(|a| *a.borrow_mut() = Some(flag));
}

/// Whether this thread's evaluation was told to stop (see [`abandon_when`]).
pub fn abandoned() -> bool {
    ABANDON.with(|a| a.borrow().as_ref().is_some_and(|f| f.load(std::sync::atomic::Ordering::Relaxed)))
}

/// `auto()` or `enum.auto()`: an enum member's value chosen by the enum class.
fn is_enum_auto(expr: &ruff_python_ast::Expr) -> bool {
    use ruff_python_ast::Expr;
    match expr {
        Expr::Call(call) if call.arguments.is_empty() => match &*call.func {
            Expr::Name(n) => n.id.as_str() == "auto",
            Expr::Attribute(a) => {
                a.attr.as_str() == "auto" && matches!(&*a.value, Expr::Name(n) if n.id.as_str() == "enum")
            }
            _ => false,
        },
        _ => false,
    }
}

/// Whether an `--assume` name designates a symbol's display text: the same text, its last
/// dotted component, or a whole identifier inside it (`SGLANG_USE_AITER` in
/// `envs.SGLANG_USE_AITER.get()`).
pub fn names_match(name: &str, display: &str) -> bool {
    if names_match_exactly(name, display) {
        return true;
    }
    if name.contains(|c: char| !(c.is_alphanumeric() || c == '_')) {
        return false;
    }
    display.split(|c: char| !(c.is_alphanumeric() || c == '_')).any(|part| part == name)
        && name.chars().any(|c| c.is_ascii_uppercase())
}

/// Whether an `--assume` name is the display itself (however it is spaced: `layer_id <
/// config.n` and `layer_id<config.n`, `f(a,b)` and `f(a, b)`), or the last part of its dotted
/// path.
pub fn names_match_exactly(name: &str, display: &str) -> bool {
    name == display || display.ends_with(&format!(".{name}")) || equal_but_for_spaces(name, display)
}

/// Whether two texts are equal once the spaces outside string literals are dropped.
fn equal_but_for_spaces(a: &str, b: &str) -> bool {
    fn tokens(text: &str) -> impl Iterator<Item = char> + '_ {
        let mut quote: Option<char> = None;
        text.chars().filter(move |&c| {
            match quote {
                Some(q) if c == q => quote = None,
                None if c == '"' || c == '\'' => quote = Some(c),
                _ => {}
            }
            quote.is_some() || !c.is_whitespace()
        })
    }
    (a.contains(char::is_whitespace) || b.contains(char::is_whitespace)) && tokens(a).eq(tokens(b))
}

/// The annotation of the annotated assignment at `range` (`name: T = value`), searched in
/// `suite` and the blocks of its `if`s and `try`s.
fn annotation_of(suite: &[ruff_python_ast::Stmt], range: Span) -> Option<&ruff_python_ast::Expr> {
    use ruff_python_ast::Stmt;
    suite.iter().find_map(|stmt| {
        let stmt_range: Span = stmt.range().into();
        if stmt_range.start > range.start || stmt_range.end < range.end {
            return None;
        }
        match stmt {
            Stmt::AnnAssign(assign) if stmt_range == range => Some(assign.annotation.as_ref()),
            Stmt::If(s) => annotation_of(&s.body, range)
                .or_else(|| s.elif_else_clauses.iter().find_map(|c| annotation_of(&c.body, range))),
            Stmt::Try(s) => annotation_of(&s.body, range)
                .or_else(|| annotation_of(&s.orelse, range))
                .or_else(|| annotation_of(&s.finalbody, range)),
            _ => None,
        }
    })
}

/// The expression with exactly `range` inside a module (used for guard tests).
pub fn find_expr(suite: &[ruff_python_ast::Stmt], range: Span) -> Option<&ruff_python_ast::Expr> {
    use ruff_python_ast::visitor::{Visitor, walk_expr, walk_stmt};
    struct Finder<'a> {
        range: Span,
        found: Option<&'a ruff_python_ast::Expr>,
        depth: usize,
    }
    impl<'a> Visitor<'a> for Finder<'a> {
        fn visit_stmt(&mut self, stmt: &'a ruff_python_ast::Stmt) {
            if self.found.is_none() && Span::of(stmt).start <= self.range.start && Span::of(stmt).end >= self.range.end
            {
                walk_stmt(self, stmt);
            }
        }
        fn visit_expr(&mut self, expr: &'a ruff_python_ast::Expr) {
            if self.found.is_some() || self.depth > crate::syntax::MAX_NESTING {
                return;
            }
            let span = Span::of(expr);
            if span == self.range {
                self.found = Some(expr);
                return;
            }
            if span.start <= self.range.start && span.end >= self.range.end {
                self.depth += 1;
                walk_expr(self, expr);
                self.depth -= 1;
            }
        }
    }
    let mut finder = Finder { range, found: None, depth: 0 };
    for stmt in suite {
        finder.visit_stmt(stmt);
        if finder.found.is_some() {
            break;
        }
    }
    finder.found
}

/// Characters a symbol's label keeps (see [`bounded_label`]).
const MAX_LABEL: usize = 160;

/// A symbol's label, shortened past [`MAX_LABEL`] characters to its start and its end and made
/// unique by the symbol's number. Labels are built from the labels of the values a symbol is
/// computed from, and some code doubles them at each step: a recursive helper renaming an
/// unknown layer name (`name.replace(name.split(".")[-1], shard)`, called on its result)
/// built labels of gigabytes. Tests of values are atoms named by their operands' labels, so
/// the number keeps two long symbols from naming one atom.
fn bounded_label(label: String, id: SymId) -> String {
    let count = label.chars().count();
    if count <= MAX_LABEL {
        return label;
    }
    let head: String = label.chars().take(MAX_LABEL / 2).collect();
    let tail: String = label.chars().skip(count - MAX_LABEL / 4).collect();
    format!("{head}…{tail} #{id}")
}
