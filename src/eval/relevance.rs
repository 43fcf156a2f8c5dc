//! Which calls are worth evaluating. A serving stack's forward path is mostly code that never
//! sees the traced value (attention, embeddings, communication); evaluating it costs time and
//! fills conditions with atoms that decide nothing. A call is evaluated when it can matter:
//!
//! - it receives the traced value, or an object from which the value is reachable (a module
//!   holding `self.routed_scaling_factor`); data already scaled by it does not count, since a
//!   callee that never names the value can only carry that data along;
//! - its code mentions the value's name, or calls (as far as resolution can tell) code that
//!   does — that covers flags such as `should_fuse_routed_scaling_factor_in_topk` and reads of
//!   `config.routed_scaling_factor`;
//! - it is a factory (returns classes or functions, or builds one of several classes, or
//!   `None`), since structure decides what runs later;
//! - it is a one-line predicate (`return self == Backend.DEEPEP`, `return getattr(layer, "flag",
//!   False)`, `return True`), a `-> bool` function returning one fact of a parameter
//!   (`def is_supported(cls, config) -> bool: return config.fast_ok`), or a small `-> bool`
//!   decision made of `if`s and such returns: cheaper to evaluate than to name, and evaluated,
//!   its answer is an equality on the value it tests, which excludes the other predicates on
//!   that value (one backend at a time), or the fact the caller also tests elsewhere;
//! - it is a classifier: every `return` gives a string or number literal, or `None`
//!   (`if is_cuda(): return "cuda"` ...), directly or through a local list, tuple or dict of
//!   them (a priority list, `mapping.get(name)`). Named by the call, its answer would be a fresh
//!   atom unrelated to the predicates it tests; evaluated, it is those predicates (`is_cuda()`,
//!   which `--assume _is_cuda=true` fixes everywhere), so a platform key and the platform flags
//!   agree;
//! - it changes a list or dict the evaluation built (`_move_to_back(backends, b)`);
//! - it is handed an object it gives back, alone or in a returned tuple (`return
//!   hidden_states, stream`): skipped, the object would come back as data;
//! - it is a getter function reading an attribute code wrote into its argument
//!   (`stream_of(batch)`), or it reads a module global some function rebinds
//!   (`_require_stack()`): named, it would be a fresh unknown instead of that state;
//! - it is a generator whose items the evaluation can list (`_active_variants()`);
//! - it is a method of an object the evaluation built, handed an object, that hands back a
//!   record of the tree its own calls build (`dispatch(x, topk_output)` ending in `return
//!   self._get_impl().dispatch_b(*state)`), or one such method that the record comes through
//!   (`impl.dispatch_b(hidden, weights)`, handed only data), or one that delegates by name to
//!   an object it holds (`getattr(self._inners[i], name)(**kwargs)`) when handed an object:
//!   skipped, the record would be data, and the code path its class picks (`format`) lost;
//! - it is a getter method called on an object the evaluation built (`return runner.backend if
//!   runner is not None else None`, `return self._data.pop(item)`): what it returns is what the
//!   object holds, which the object's own tests also read;
//! - it is a class's own `__getattr__` or `__setattr__`: what an attribute is, and where an
//!   assignment puts it (a state object keeping its attributes in a dict);
//! - it is a method that sets its own object's attributes by name (`for k, v in
//!   values.items(): setattr(self, k, v)`), called on an object the evaluation built: the index
//!   sees no attribute it writes, and skipped, what it set would be lost.
//! - it is handed data that took part in scaling and writes into one of its parameters in
//!   place (`out=p` or a slice
//!   of `p`, `p.copy_(x)`, `p[i] = x`, also through a local bound to `p`), or hands one to a
//!   function that does: skipped, what it wrote would be lost (`inplace_fused_experts(
//!   hidden_states, ...)` returns nothing);
//! - it declares names `nonlocal` (a nested function rebinding its enclosing function's
//!   tensors), or one of its nested functions rebinds its parameters that way: skipped, the
//!   rebinding would be lost.
//!
//! Any other call is an outside computation on the data it receives: scales pass through, no
//! application happens in it, and a condition on its result is an atom named by the call. Not
//! so for a function the tree registers as an operator (`@register_custom_op(...)`): it takes
//! only tensors and numbers, so it runs a module it looks up at run time, and what it gives
//! back is data of unknown scale (`Interp::skipped_call`). Called from a module's method, it is
//! evaluated as that module's code (`custom_ops.rs`); a helper handed data that calls one is
//! evaluated too, so the operator's data never just passes through.

use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};

use ruff_python_ast::{self as ast, Expr, Stmt};

use super::calls::{Arg, Args};
use super::interp::{AssumedValue, Interp, ObjKind};
use super::value::*;
use crate::index::{BindingKind, ClassId, FuncId};
use crate::resolve::{Ctx, Def};

/// How many calls down a record handed back is followed (see `hands_back_record`).
const MAX_RECORD_DEPTH: usize = 3;

/// How far the static "calls code that mentions the value" search goes.
const MAX_STATIC_DEPTH: usize = 6;

#[derive(Default)]
pub struct Relevance {
    mentions: FxHashMap<FuncId, bool>,
    factories: FxHashMap<FuncId, bool>,
    in_progress: FxHashSet<FuncId>,
    class_mentions: FxHashMap<ClassId, bool>,
    predicates: FxHashMap<FuncId, bool>,
    mutators: FxHashMap<FuncId, bool>,
    /// Functions that return one of their parameters as it is (see `returns_parameter`).
    param_returners: FxHashMap<FuncId, bool>,
    /// Functions that add two of their parameters (see `adds_parameters`).
    param_adders: FxHashMap<FuncId, bool>,
    /// The parameters a function gives back, alone or in a returned tuple (see
    /// `gives_back_object`).
    given_back: FxHashMap<FuncId, Rc<[ruff_python_ast::name::Name]>>,
    /// Generators whose `yield`s are statements outside loops (see `generators.rs`).
    item_generators: FxHashMap<FuncId, bool>,
    /// The attributes of its parameters a function reads (see `parameter_attribute_reads`).
    parameter_reads: FxHashMap<FuncId, Rc<[(ruff_python_ast::name::Name, String)]>>,
    /// What each function's `return`s give (see `ReturnKinds`: `returns_none_or_value`,
    /// `returns_tuple`).
    return_kinds: FxHashMap<FuncId, ReturnKinds>,
    classifiers: FxHashMap<FuncId, bool>,
    accessors: FxHashMap<FuncId, bool>,
    /// What each function calls, as resolved statically (see `static_callees`).
    callees: FxHashMap<FuncId, Rc<[FuncId]>>,
    getters: FxHashMap<FuncId, bool>,
    /// Methods that pick one of their object's attributes (see `is_attribute_selector`).
    selectors: FxHashMap<FuncId, bool>,
    /// Enum methods that pick a member (see `is_member_chooser`).
    member_choosers: FxHashMap<FuncId, bool>,
    /// The class outside the tree each function declares it returns, if any (see
    /// `Interp::declared_outside_class`).
    pub(super) declared_outside: FxHashMap<FuncId, Option<Rc<str>>>,
    /// Functions that return lists they fill in a loop over a parameter (see
    /// `fills_lists_from_parameter`).
    fillers: FxHashMap<FuncId, bool>,
    /// Functions that write into a parameter in place (see `writes_into_parameter`).
    parameter_writers: FxHashMap<FuncId, bool>,
    /// Functions that declare names `nonlocal` (see `rebinds_enclosing_names`).
    nonlocal_writers: FxHashMap<FuncId, bool>,
    /// Methods that set their own object's attributes by name (see `sets_own_attributes`).
    attribute_setters: FxHashMap<FuncId, bool>,
    /// Parameters a function never reads (see `never_reads`).
    unread_params: FxHashMap<(FuncId, ruff_python_ast::name::Name), bool>,
    /// Functions that call a method they look up by name (see `delegates_by_name`).
    name_delegators: FxHashMap<FuncId, bool>,
    /// What a function's `return`s look up in (see `returned_lookups`).
    lookups: FxHashMap<FuncId, Rc<[ReadPath]>>,
    handovers: FxHashMap<ClassId, Vec<ruff_python_ast::name::Name>>,
    writes: FxHashMap<FuncId, FxHashMap<String, bool>>,
    writes_in_progress: FxHashSet<FuncId>,
    /// Functions that launch a device kernel of the tree (see `launches_device_kernel`).
    launchers: FxHashMap<FuncId, bool>,
    /// Functions that call, as far as resolution can tell, an operator that runs a module it
    /// looks up (see `calls_module_operator`).
    operator_users: FxHashMap<FuncId, bool>,
    /// Functions without parameters whose every test an assumption fixes (see
    /// `is_decided_by_assumptions`).
    decided: FxHashMap<FuncId, bool>,
    /// The parameters a function returns copies of (see `copied_parameters`).
    copiers: FxHashMap<FuncId, Rc<[ruff_python_ast::name::Name]>>,
    /// The frames (stack depth, function) evaluated because they hand back a record their
    /// calls build (see `hands_back_record`); stale entries are dropped when next read.
    record_chain: Vec<(usize, FuncId)>,
    /// Functions whose `return`s hand back records their calls build (see `hands_back_record`).
    record_handers: FxHashMap<FuncId, bool>,
    /// How many classes of the tree a function's `return`s build, when every one builds one
    /// (see `classes_every_return_builds`).
    record_builders: FxHashMap<FuncId, usize>,
}

impl Interp<'_, '_> {
    /// Whether evaluating a call of `func` with these arguments can matter for the answer.
    pub fn worth_evaluating(&mut self, func: FuncId, receiver: Option<&Value>, args: &Args) -> bool {
        let worth = self.worth_evaluating_by_rules(func, receiver, args);
        // A method of a built object, evaluated, that hands back a record its calls build:
        // the calls the record comes through are evaluated too (see `in_record_chain`).
        if worth && matches!(receiver, Some(Value::Obj(_))) && self.hands_back_record(func) {
            self.prune_record_chain();
            self.relevance.record_chain.push((self.stack.len() + 1, func));
        }
        worth
    }

    fn worth_evaluating_by_rules(&mut self, func: FuncId, receiver: Option<&Value>, args: &Args) -> bool {
        if self.stack.is_empty() || self.registering > 0 || self.force.take() == Some(func) {
            return true;
        }
        // In the loader's phase what matters is what a call writes into the modules and their
        // methods: a call handed one of them is evaluated (see `loading.rs`).
        if self.loading > 0
            && (receiver.is_some_and(|r| self.is_instance(r))
                || args.all_values().any(|g| g.iter().any(|(_, v)| self.is_instance(v))))
        {
            return true;
        }
        // An operator that runs the module calling it (see `custom_ops.rs`) is that module's
        // code: evaluated where the module's own methods would be.
        if let Some((depth, caller)) = self.operator_callers.last().cloned() {
            // The operator itself, or (from its body) a plain function through which it
            // reaches its lookup.
            let operator_code = if depth == self.stack.len() + 1 {
                self.looks_up_its_module(func)
            } else {
                receiver.is_none()
                    && self.index.function(func).class().is_none()
                    && self.operator_frame_caller().is_some()
                    && self.runs_looked_up_object(func)
            };
            if operator_code {
                let mentions = match caller {
                    Value::Obj(id) => match self.heap[id as usize].kind {
                        ObjKind::Instance(class) => self.class_mentions(class),
                        _ => false,
                    },
                    _ => false,
                };
                if mentions || self.carries(&caller) {
                    return true;
                }
            }
        }
        // A module function handed data that calls such an operator has no module at hand for
        // it: skipped, the operator's data would pass through unchanged.
        if receiver.is_none() && args.has_data() && self.calls_module_operator(func, 0) {
            return true;
        }
        // A wrapper launching a device kernel of the tree with data that took part in scaling
        // (`invoke_fused_moe_kernel(...)`): evaluated, so that the launch sees the
        // compile-time flags it passes (a kernel may read an input only under one; see
        // `device::live_names`). Skipped, every tensor it is handed would weight its output.
        if receiver.is_none()
            && args.all_values().any(|g| g.iter().any(|(_, v)| matches!(v, Value::Num(n) if n.tensor && n.touched())))
            && self.launches_device_kernel(func)
        {
            return true;
        }
        // A `__getattr__` says what an attribute is (the wrapped object's method, a flag); a
        // `__setattr__` where an assignment puts it.
        if matches!(self.index.function(func).name.as_str(), "__getattr__" | "__setattr__") {
            return true;
        }
        // Handed scaled tensors, a helper that writes into one of its parameters in place (`out=p`,
        // `p[a:b].copy_(x)`, `p[i] = x`, through a local bound to it, or by handing it to a
        // helper that does): skipped, what it wrote would be lost (SGLang's
        // `inplace_fused_experts(hidden_states, ...)` fills `hidden_states` and returns nothing).
        // (Handed data that took part in scaling: a helper moving only unscaled data around
        // is left a summary, which keeps large nothing-assumed traces within their budget.)
        if args.all_values().any(|g| g.iter().any(|(_, v)| matches!(v, Value::Num(n) if n.tensor && n.touched())))
            && self.writes_into_parameter(func, 0)
        {
            return true;
        }
        // A nested function that rebinds its enclosing function's names (`nonlocal
        // hidden_states, residual`): skipped, what it rebinds would keep its old value.
        if self.rebinds_enclosing_names(func) {
            return true;
        }
        if receiver.is_some_and(|r| self.carries(r))
            || args.all_values().any(|g| g.iter().any(|(_, v)| self.carries(v)))
        {
            return true;
        }
        for splat in &args.splats {
            if splat.iter().any(|(_, v)| self.carries(v)) {
                return true;
            }
        }
        // Callables handed over (`make_layers(n, lambda i: Layer(...))`) run inside, as do
        // those a nested function sees from its enclosing one.
        let mut callables: Vec<Value> = args.all_values().flat_map(|g| g.iter().map(|(_, v)| v.clone())).collect();
        if let Some(captured) = self.closures.get(&func).cloned() {
            for g in captured.values() {
                if g.iter().any(|(_, v)| self.carries(v)) {
                    return true;
                }
                callables.extend(g.iter().map(|(_, v)| v.clone()));
            }
        }

        // A sequence of them (`previous_layers=[partial(stage_facts, i) for i in ...]`) runs
        // inside too; an empty one known item by item makes what is done over it exact
        // (nothing: `_neighbour_stage([])` is `None`, where named it was a free value).
        let runs_inside = |items: &[G]| {
            items.is_empty()
                || items.iter().any(|g| g.iter().any(|(_, v)| matches!(v, Value::Lambda(_) | Value::Partial(_))))
        };
        for value in &callables {
            let sequence_runs_inside = match value {
                Value::Tuple(items) => runs_inside(items),
                Value::Obj(id) if self.exact_lists.contains_key(id) => {
                    matches!(&self.read_object(*id).kind, ObjKind::List(items) if runs_inside(items))
                }
                _ => false,
            };
            if sequence_runs_inside {
                return true;
            }
        }
        for value in callables {
            let relevant = match &value {
                Value::Lambda(_) | Value::Partial(_) => true,
                Value::Func(f) | Value::Bound(f, _) => self.mentions(*f, 1),
                Value::Class(c) => self.class_relevant(*c),
                _ => false,
            };
            if relevant {
                return true;
            }
        }
        if self.hands_over_scaled_data(func, receiver, args) {
            return true;
        }
        // Handed an object it gives back (`return hidden_states, stream`, the caller storing
        // the stream again: `hidden_states, batch.stream = self._prepare(...)`): skipped, what
        // it returns would be data, and the object, with what the call left on it, lost.
        if self.gives_back_object(func, args) {
            return true;
        }
        // Handed an object, a function every `return` of which is a copy of that parameter
        // with fields changed (`return replace(moe_runner_config, no_combine=True)`,
        // `copy.copy(config)`, a record's `_replace`): skipped, the copy would be an unknown
        // value, each field read from it a fresh one (a free `no_combine`, and the traced
        // value's name read as a new origin of it).
        if self.copies_object_handed(func, args) {
            return true;
        }
        // Handed an object of the tree, a function every `return` of which builds an object of
        // a class of the tree (`dispatch(x, topk_output)` returning `DispatchOutput(...,
        // topk_output=topk_output)`) repackages it: skipped, the record would be data, and the
        // object it holds, whose class steers the code after it, lost.
        if args.all_values().any(|g| g.iter().any(|(_, v)| self.holds_object(v, 0))) && self.builds_record(func) {
            return true;
        }
        // So does a method of an object the evaluation built that hands back what its own
        // calls build (`dispatch(x, topk_output)` running `dispatch_a`, then `return
        // self._get_impl().dispatch_b(*state)`, which builds the record), and, inside it, the
        // methods through which the record comes (`impl.dispatch_b(hidden, weights)`, handed
        // only data).
        if matches!(receiver, Some(Value::Obj(_)))
            && (self.hands_over_object(args) || self.in_record_chain())
            && self.hands_back_record(func)
        {
            return true;
        }
        // Handed objects, a helper that sorts them into lists it returns (`declarations,
        // bindings = _stage_items(stages)`) repackages them: skipped, the lists would be
        // unknown values, their items and their length lost.
        if self.fills_lists_from_parameter(func)
            && args.all_values().any(|g| g.iter().any(|(_, v)| self.holds_object(v, 0)))
        {
            return true;
        }
        // A lookup in a table of objects of the tree (`return _bound_for(self.paths,
        // variant)`, `return bound[variant]`): skipped, the object found (a stage's path, with
        // the functions it binds) would be an unknown value, and every call through it unresolved.
        if self.looks_up_objects(func, receiver, args) {
            return true;
        }
        // Handed tensors of different scales, a helper that returns one of them as it is
        // (`if flag: out = scaled` ... `return out`, or a result written into `out=`, or a
        // residual summed in and the pair handed back) picks between them or keeps their
        // parts: the outside-computation summary, a product of all, would not.
        // So does one that hands back a tuple (`return gather(x), gather(w), gather(ids)`, or
        // declared `-> tuple[...]`): summarized, each item would be the product of all it was
        // handed, the hidden states carrying the top-k weights' factor. (Not a method of an
        // object known only by its class, vLLM's `get_ep_group().dispatch(...)`: it hands the
        // tensors to attributes the trace does not know (a device communicator), and every row
        // through it would read UNKNOWN, a NEVER among them.)
        let known_receiver = match receiver {
            Some(Value::Sym(_)) => false,
            Some(Value::Obj(id)) => !matches!(self.heap[*id as usize].kind, ObjKind::Abstract(..)),
            _ => true,
        };
        let hands_back_tuple = known_receiver
            && (declares_tuple(self.index.function(func).returns.as_deref()) || self.returns_tuple(func));
        if (self.returns_parameter(func) || hands_back_tuple) && self.differently_scaled_data_in(args) {
            return true;
        }
        // Handed two scaled tensors, a function that adds two of its parameters (`residual =
        // x + residual` in a layer's own add-and-norm) keeps their scale: the summary, a
        // product of all, would multiply them (the stream read as divided twice).
        if self.adds_parameters(func) && self.scaled_arguments(args) >= 2 {
            return true;
        }
        // Handed data, a function that returns `None` on one path and a value on another
        // (`maybe_pre_permute(...)`: `None` means "take the shared path") decides between them:
        // skipped, its result would be data, never `None`, and the caller's `is not None` test
        // would hold in every configuration. So does one that returns `(None, result)` on one
        // path (`_unpack(result)`: a tensor or a `(shared, routed)` pair).
        if args.has_data() && self.returns_none_or_value(func) {
            return true;
        }
        // A method setting its own object's attributes by name (`for k, v in values.items():
        // setattr(self, k, v)`, a state object's `update`), called on an object the evaluation
        // built: skipped, what it set would be lost (the index sees no attribute it writes).
        if matches!(receiver, Some(Value::Obj(_))) && self.sets_own_attributes(func) {
            return true;
        }
        // A method that delegates by name to an object it holds (`return self._execute(
        // "dispatch", **kwargs)`, which calls `getattr(self._inners[i], name)(**kwargs)`),
        // called on an object the evaluation built and handed one: what it runs is known only
        // once `name` and the object are, so no static search sees it. Skipped, the record the
        // delegate hands back (whose class or `format` steers the caller) would be plain data.
        // (What dicts splatted into the call hold counts as handed over: a wrapper passes its
        // `**kwargs` on. Handed only data, as an op's `forward` picking one of its own backend
        // methods by name is, it stays an outside computation on that data.)
        if matches!(receiver, Some(Value::Obj(_))) && self.hands_over_object(args) && self.delegates_by_name(func, 1) {
            return true;
        }
        // A helper that reorders or fills a list or dict built here (`_move_to_back(backends,
        // b)`): skipped, what it does to it would be lost.
        if args.all_values().any(|g| g.iter().any(|(_, v)| self.is_built_container(v))) && self.mutates_parameter(func)
        {
            return true;
        }
        // A method of a known enum member with known arguments (`MoeA2ABackend.DEEPEP
        // .is_mori_epv2()`, or the backend `--assume` fixed) computes structure: cheaper
        // evaluated than named, and exact. So does a class method of an enum with known
        // arguments (`MoEActivation.from_str("silu")`, a lookup among the members): named, it
        // would be a free member, every other member a configuration.
        let known_member = match receiver {
            Some(Value::Const(c)) => !matches!(c, crate::syntax::Constant::None),
            Some(Value::Sym(s)) => self.is_assumed_constant(*s),
            Some(Value::Class(c)) => self.is_enum(*c),
            _ => false,
        };
        if known_member && args.all_values().all(|g| g.iter().all(|(_, v)| matches!(v, Value::Const(_)))) {
            return true;
        }
        // A method of an enum that picks a member (`def resolve(self, is_extend): if self !=
        // Mode.AUTO: return self; ...`), called on a member known only as one of the enum's:
        // evaluated, its result is that member or the ones it picks, under tests on the same
        // value that the enum's predicates (`enable_low_latency()`) also make; named, it was a
        // free member, so a dispatcher's implementation for one mode was read where the mode
        // built only the other.
        let unknown_member = match receiver {
            Some(Value::Sym(s)) => self.syms[*s as usize].class_hint.is_some_and(|c| self.is_enum(c)),
            Some(Value::Obj(id)) => matches!(self.heap[*id as usize].kind, ObjKind::Abstract(c, _) if self.is_enum(c)),
            _ => false,
        };
        if unknown_member && self.is_member_chooser(func) {
            return true;
        }
        // A module function handed known integers or `None`, and otherwise configuration
        // values (`get_pp_indices(num_layers, pp_rank, pp_size)` with the rank and size
        // assumed, `_handed_off(None)`): its result is exact where the known ones decide it
        // (rank 0 starts at layer 0; `None` handed off is `None`); named, it is a free value.
        // (Strings are left out: `get_bool_env_var("SGLANG_X")` named is the readable atom; so
        // are flags, which platform assumptions make known: `--platform cuda` and the same
        // assumptions spelled out must evaluate the same calls.)
        if receiver.is_none() && self.handed_known_scalars(args) {
            return true;
        }
        // An inherited method (a fused op's generic `forward` dispatching by name to the
        // subclass's `forward_cuda`) runs the code of the receiver's class: a class that
        // mentions the value may do anything with it there, and the form of what it returns
        // (which output class) steers the code after it.
        let receiver_mentions = match receiver {
            Some(Value::Obj(id)) => match self.heap[*id as usize].kind {
                ObjKind::Instance(class) => {
                    self.index.function(func).class() != Some(class) && self.class_mentions(class)
                }
                _ => false,
            },
            _ => false,
        };
        receiver_mentions
            || self.is_factory(func)
            || self.mentions(func, 0)
            || self.is_predicate(func)
            || self.is_decided_by_assumptions(func)
            || self.is_classifier(func)
            || self.is_accessor(func)
            || (receiver.is_some_and(|r| matches!(r, Value::Obj(_)))
                && (self.is_getter_method(func) || self.is_attribute_selector(func)))
            || (self.is_getter_function(func) && self.reads_written_attribute(func, args))
            || self.reads_rebound_global(func)
            || self.is_item_generator(func)
    }

    /// Whether `func` reads an attribute of a parameter (`batch.residual_stream`) that code
    /// wrote into the object given for it: evaluated, the read gives what was written; named,
    /// a fresh unknown value.
    fn reads_written_attribute(&mut self, func: FuncId, args: &Args) -> bool {
        let reads = self.parameter_attribute_reads(func);
        if reads.is_empty() {
            return false;
        }
        let bound: Vec<(ruff_python_ast::name::Name, G)> =
            self.bound_arguments(func, args).into_iter().map(|(name, arg)| (name, arg.value.clone())).collect();
        for (param, attr) in reads.iter() {
            for (name, value) in &bound {
                if name != param {
                    continue;
                }
                for (_, v) in value.iter() {
                    let written = match v {
                        Value::Obj(id) => Some(*id),
                        Value::Sym(s) => self.opaque_object(*s, None),
                        _ => None,
                    };
                    if written.is_some_and(|id| self.heap[id as usize].fields.contains_key(attr.as_str())) {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// The parameters arguments bind to by position or keyword, with the arguments.
    fn bound_arguments<'a>(&self, func: FuncId, args: &'a Args) -> Vec<(ruff_python_ast::name::Name, &'a Arg)> {
        let params = self.index.function(func).call_params();
        let slots = crate::index::positional_slots(params);
        let positional = args.positional.iter().zip(slots).map(|(arg, slot)| (params[slot].name.clone(), arg));
        positional.chain(args.keywords.iter().map(|(name, arg)| (name.clone(), arg))).collect()
    }

    /// Whether a method of an object of the tree passes scaled data from one call to a later
    /// one through the object (`dispatch_a(hidden_states, topk_output)` keeping its result in
    /// `self._dispatch_intermediate_state`, `dispatch_b()` returning it): it is handed scaled
    /// data and writes an attribute other methods read, or it reads such an attribute while
    /// the object holds scaled data there. Skipped, the data it keeps would be lost.
    fn hands_over_scaled_data(&mut self, func: FuncId, receiver: Option<&Value>, args: &Args) -> bool {
        let Some(Value::Obj(id)) = receiver else { return false };
        let (ObjKind::Instance(class) | ObjKind::Abstract(class, _)) = self.heap[*id as usize].kind else {
            return false;
        };
        if self.index.function(func).name.as_str() == "__init__" {
            return false;
        }
        let handed = self.handover_attributes(class);
        let facts = self.index.function(func);
        let text = &self.index.file(func.file).text[facts.range.start as usize..facts.range.end as usize];
        let writes = self.index.class(class).attr_writes.iter().any(|w| w.method == func && handed.contains(&w.name));
        let handed_data = self.scaled_data_in(args);
        if handed_data && !writes && self.unbuilt.contains_key(id) {
            // What it holds is only known once it is built (it would be, to run the method).
            let created = self.heap[*id as usize].created;
            self.build_skipped(*id, created);
        }
        // (Handed on by a wrapper to an object it holds that keeps state.)
        if handed_data && (writes || self.below(*id, &mut |this, class, _| !this.handover_attributes(class).is_empty()))
        {
            return true;
        }
        let object = self.read_object(*id);
        let reads_back = handed.iter().any(|name| {
            text.contains(&format!("self.{name}"))
                && object.fields.get(name).is_some_and(|g| g.iter().any(|(_, v)| self.holds_scaled(v)))
        });
        // A wrapper's method (`MaybeTboDeepEPDispatcher.dispatch_b` calling its inner
        // dispatcher's) hands back what an object it holds keeps.
        reads_back
            || self.below(*id, &mut |this, class, child| {
                let handed = this.handover_attributes(class);
                let object = this.read_object(child);
                handed
                    .iter()
                    .any(|name| object.fields.get(name).is_some_and(|g| g.iter().any(|(_, v)| this.holds_scaled(v))))
            })
    }

    /// Whether an object of the tree held by `id` (through fields and list items, a few
    /// levels down) passes `test` (given its class and itself).
    fn below(&mut self, id: HeapId, test: &mut dyn FnMut(&mut Self, ClassId, HeapId) -> bool) -> bool {
        let mut seen = vec![id];
        let mut frontier = vec![(id, 0usize)];
        while let Some((at, depth)) = frontier.pop() {
            if depth > 3 {
                continue;
            }
            let children: Vec<HeapId> = {
                let object = self.read_object(at);
                let mut values: Vec<&G> = object.fields.values().collect();
                if let ObjKind::List(items) = &object.kind {
                    values.extend(items.iter());
                }
                values
                    .iter()
                    .flat_map(|g| g.iter())
                    .filter_map(|(_, v)| if let Value::Obj(o) = v { Some(*o) } else { None })
                    .collect()
            };
            for child in children {
                if seen.contains(&child) {
                    continue;
                }
                seen.push(child);
                if let ObjKind::Instance(class) | ObjKind::Abstract(class, _) = self.heap[child as usize].kind {
                    if test(self, class, child) {
                        return true;
                    }
                }
                frontier.push((child, depth + 1));
            }
        }
        false
    }

    /// The attributes of `class` that a method other than `__init__` writes.
    fn handover_attributes(&mut self, class: ClassId) -> Vec<ruff_python_ast::name::Name> {
        if let Some(known) = self.relevance.handovers.get(&class) {
            return known.clone();
        }
        let mut names: Vec<ruff_python_ast::name::Name> = self
            .index
            .class(class)
            .attr_writes
            .iter()
            .filter(|w| self.index.function(w.method).name.as_str() != "__init__")
            .map(|w| w.name.clone())
            .collect();
        names.sort();
        names.dedup();
        self.relevance.handovers.insert(class, names.clone());
        names
    }

    /// Whether arguments hold data the traced value scaled (directly or in a record).
    fn scaled_data_in(&self, args: &Args) -> bool {
        args.all_values().chain(args.splats.iter()).any(|g| g.iter().any(|(_, v)| self.holds_scaled(v)))
    }

    /// Whether tensors of different scales are handed over (`pick(out, scaled, flag)`): the
    /// outside-computation summary takes their product, which is wrong for a helper that
    /// returns one of them, or writes one into the other, under conditions of its own.
    fn differently_scaled_data_in(&self, args: &Args) -> bool {
        // The scales each argument's tensors have, for the arguments that hold tensors.
        let mut per_argument: Vec<Vec<Vec<i32>>> = Vec::new();
        for g in args.all_values().chain(args.splats.iter()) {
            let mut scales: Vec<Vec<i32>> = Vec::new();
            for (_, v) in g.iter() {
                let mut held = Vec::new();
                self.held_tensors(v, 0, &mut Vec::new(), &mut held);
                for n in held {
                    let exps: Vec<i32> = n.parts.iter().map(|p| p.exp).collect();
                    if !scales.contains(&exps) {
                        scales.push(exps);
                    }
                }
            }
            if !scales.is_empty() {
                scales.sort();
                per_argument.push(scales);
            }
        }
        let scaled = |s: &Vec<Vec<i32>>| s.iter().any(|e| e.iter().any(|x| *x != 0));
        per_argument.iter().any(scaled) && per_argument.iter().any(|s| s != &per_argument[0])
    }

    /// How many arguments hold a scaled tensor.
    fn scaled_arguments(&self, args: &Args) -> usize {
        args.all_values()
            .chain(args.splats.iter())
            .filter(|g| g.iter().any(|(_, v)| matches!(v, Value::Num(n) if n.tensor) && self.holds_scaled(v)))
            .count()
    }

    /// Runs `visitor` over the statements of `func`'s body (nothing when its `def` is not
    /// found): the syntactic facts below are each one visitor.
    fn visit_body<V>(&self, func: FuncId, visitor: &mut V)
    where
        V: for<'a> ruff_python_ast::visitor::Visitor<'a>,
    {
        let module = self.index.file(func.file).ast();
        let range = self.index.function(func).range;
        if let Some(Stmt::FunctionDef(def)) = crate::syntax::stmt_with_range(&module.body, range) {
            for stmt in &def.body {
                visitor.visit_stmt(stmt);
            }
        }
    }

    /// Whether `func` adds two of its parameters (`x + residual`, `x += residual`,
    /// `x.add_(residual)`).
    fn adds_parameters(&mut self, func: FuncId) -> bool {
        if let Some(&known) = self.relevance.param_adders.get(&func) {
            return known;
        }
        let names: Vec<ruff_python_ast::name::Name> =
            self.index.function(func).params.iter().map(|p| p.name.clone()).collect();
        let mut finder = ParameterSum { names: &names, found: false };
        self.visit_body(func, &mut finder);
        let found = finder.found;
        self.relevance.param_adders.insert(func, found);
        found
    }

    fn holds_scaled(&self, value: &Value) -> bool {
        let mut held = Vec::new();
        self.held_tensors(value, 0, &mut Vec::new(), &mut held);
        held.iter().any(|n| n.parts.iter().any(|p| p.exp != 0))
    }

    /// Whether `func` takes nothing and reads a setting: a few statements binding names to
    /// attribute paths (`moe = get_flags().moe`), defaults filled in under simple tests, and
    /// `return` of such a path. Named by the call, its answer would be a fresh atom beside
    /// the path it reads (`get_moe_runner_backend()` beside `get_flags().moe.runner_backend`,
    /// both read in the same forward pass); evaluated, it is that path.
    pub(super) fn is_accessor(&mut self, func: FuncId) -> bool {
        if let Some(&known) = self.relevance.accessors.get(&func) {
            return known;
        }
        let facts = self.index.function(func);
        let found = facts.params.is_empty() && facts.class().is_none() && {
            let module = self.index.file(func.file).ast();
            matches!(
                crate::syntax::stmt_with_range(&module.body, facts.range),
                Some(Stmt::FunctionDef(def)) if is_accessor_body(&def.body)
            )
        };
        self.relevance.accessors.insert(func, found);
        found
    }

    /// Whether `func` is a method that only reads its object's attributes: a few statements
    /// binding names to, or returning, attribute paths of its parameters, literals, and
    /// choices between them (`runner = self._aiter if self._aiter is not None else
    /// self.runner`; `return runner.runner_backend if runner is not None else None`), with no
    /// call. Called on an object the evaluation built, it is cheaper evaluated than named, and
    /// exact: named, `q.get_moe_runner_backend(layer)` was an atom beside the backend the
    /// object holds, so its predicates decided nothing.
    pub(super) fn is_getter_method(&mut self, func: FuncId) -> bool {
        self.index.function(func).class().is_some() && self.has_getter_body(func)
    }

    /// Whether `func` is a generator whose items the evaluation can list (see
    /// `generators.rs`): they are structure (`tuple(_active_variants())`, the batch variants a
    /// stage binds a plan for), cheaper evaluated than named. (Not one that yields in a loop:
    /// whether that is followed is only known as it runs.)
    fn is_item_generator(&mut self, func: FuncId) -> bool {
        !self.is_context_manager(func)
            && self.definition_fact(
                func,
                |r| &mut r.item_generators,
                |def| {
                    super::calls::contains_yield(&def.body)
                        && super::generators::yield_statements(&def.body) == Some(false)
                },
            )
    }

    /// Whether `func` returns (alone or in a tuple) a list or dict it made by a literal and
    /// filled in a `for` loop over one of its parameters.
    fn fills_lists_from_parameter(&mut self, func: FuncId) -> bool {
        self.definition_fact(func, |r| &mut r.fillers, fills_lists_from_parameter)
    }

    /// Whether every argument is an integer, `None` or an unknown configuration value, and at
    /// least one is known.
    fn handed_known_scalars(&self, args: &Args) -> bool {
        if !args.splats.is_empty() || args.unknown_star || (args.positional.is_empty() && args.keywords.is_empty()) {
            return false;
        }
        let mut known = false;
        for g in args.all_values() {
            for (_, v) in g.iter() {
                match v {
                    Value::Const(crate::syntax::Constant::Int(_) | crate::syntax::Constant::None) => known = true,
                    Value::Sym(_) => {}
                    _ => return false,
                }
            }
        }
        known
    }

    /// Whether `func` returns what it looks up in a table (see `returned_lookups`) that holds
    /// objects of the tree here: a field of the receiver or an argument.
    fn looks_up_objects(&mut self, func: FuncId, receiver: Option<&Value>, args: &Args) -> bool {
        let lookups = self.returned_lookups(func);
        if lookups.is_empty() {
            return false;
        }
        let facts = self.index.function(func);
        let receiver_name = (facts.call_params().len() < facts.params.len()).then(|| facts.params[0].name.clone());
        let bound = self.bound_arguments(func, args);
        for path in lookups.iter() {
            let root: Vec<Value> = if receiver_name.as_ref() == Some(&path.root) {
                receiver.cloned().into_iter().collect()
            } else {
                bound
                    .iter()
                    .filter(|(name, _)| *name == path.root)
                    .flat_map(|(_, a)| a.value.iter().map(|(_, v)| v.clone()))
                    .collect()
            };
            if root.iter().any(|v| self.path_holds_objects(v, &path.attrs)) {
                return true;
            }
        }
        false
    }

    /// Whether following `attrs` from `value` (through the fields of objects) reaches a table
    /// (a list, tuple or dict) of objects of the tree.
    fn path_holds_objects(&mut self, value: &Value, attrs: &[ruff_python_ast::name::Name]) -> bool {
        let Some((first, rest)) = attrs.split_first() else {
            // A table, not an object itself (`get_quant_method(self, layer)` returning a method
            // made for the layer is a factory, not a lookup).
            let table = match value {
                Value::Obj(id) => matches!(self.heap[*id as usize].kind, ObjKind::List(_) | ObjKind::Dict(_)),
                Value::Tuple(_) => true,
                _ => false,
            };
            return table && self.holds_object(value, 0);
        };
        let Value::Obj(id) = value else { return false };
        if !self.read_object(*id).fields.contains_key(first.as_str())
            && self.unbuilt.contains_key(id)
            && self.sets_container(*id, first)
        {
            // What it holds is only known once it is built (it would be, to run the method).
            let created = self.heap[*id as usize].created;
            self.build_skipped(*id, created);
        }
        let Some(field) = self.read_object(*id).fields.get(first.as_str()).cloned() else { return false };
        field.iter().any(|(_, v)| self.path_holds_objects(v, rest))
    }

    /// Whether the class of object `id` (or one of its bases) sets attribute `attr` to a
    /// container display (`self.paths = {}`), or `dict(...)`/`list(...)`/`tuple(...)`: an object
    /// not yet built is built to look into it only then (building every layer read through a
    /// path is what bounds the evaluation).
    fn sets_container(&self, id: HeapId, attr: &str) -> bool {
        let (ObjKind::Instance(class) | ObjKind::Abstract(class, _)) = self.heap[id as usize].kind else {
            return false;
        };
        self.resolver.mro(class).classes.iter().any(|&c| {
            let file = &self.index.file(c.file).text;
            self.index.class(c).attr_writes.iter().filter(|w| w.name.as_str() == attr).any(|w| {
                w.value.is_some_and(|span| {
                    let text = &file[span.start as usize..span.end as usize];
                    text.starts_with(['{', '[', '('])
                        || ["dict(", "list(", "tuple("].iter().any(|call| text.starts_with(call))
                })
            })
        })
    }

    /// The paths (`self.paths`, `bound`) `func`'s `return`s look up in: `return p[key]`,
    /// `return p.get(key)`, or `return f(..., p, ...)`.
    fn returned_lookups(&mut self, func: FuncId) -> Rc<[ReadPath]> {
        if let Some(known) = self.relevance.lookups.get(&func) {
            return known.clone();
        }
        let mut paths = Vec::new();
        self.visit_body(func, &mut ReturnedLookups { paths: &mut paths });
        let paths: Rc<[ReadPath]> = Rc::from(paths);
        self.relevance.lookups.insert(func, paths.clone());
        paths
    }

    /// Whether `value` is an object of the tree, or a tuple, list or dict holding one (two
    /// levels down at most: `((declaration, norm), ...)`).
    fn holds_object(&self, value: &Value, depth: usize) -> bool {
        self.holds(value, depth, |kind| matches!(kind, ObjKind::Instance(_)))
    }

    /// Whether `value` is an object whose kind passes `leaf`, or a tuple, list or dict holding
    /// one (two levels down at most).
    fn holds(&self, value: &Value, depth: usize, leaf: fn(&ObjKind) -> bool) -> bool {
        let items: Vec<&G> = match value {
            Value::Obj(id) => match &self.heap[*id as usize].kind {
                ObjKind::List(items) => items.iter().collect(),
                ObjKind::Dict(entries) => entries.iter().map(|(_, g)| g).collect(),
                kind => return leaf(kind),
            },
            Value::Tuple(items) => items.iter().collect(),
            _ => return false,
        };
        depth < 2 && items.iter().any(|g| g.iter().any(|(_, v)| self.holds(v, depth + 1, leaf)))
    }

    /// A fact of `func`'s definition, computed once (`cache` says where it is kept); false when
    /// the definition is not found.
    fn definition_fact(
        &mut self,
        func: FuncId,
        cache: fn(&mut Relevance) -> &mut FxHashMap<FuncId, bool>,
        test: impl FnOnce(&ast::StmtFunctionDef) -> bool,
    ) -> bool {
        if let Some(&known) = cache(&mut self.relevance).get(&func) {
            return known;
        }
        let range = self.index.function(func).range;
        let module = self.index.file(func.file).ast();
        let found =
            matches!(crate::syntax::stmt_with_range(&module.body, range), Some(Stmt::FunctionDef(def)) if test(def));
        cache(&mut self.relevance).insert(func, found);
        found
    }

    /// Whether `func` never reads its parameter `param`: no load of the name in its body (nor
    /// in functions nested there), and no `locals()`, `vars()`, `eval` or `exec` that could.
    /// A value handed to such a parameter stops there (vLLM 0.34's MXINT4 experts accept
    /// `routed_scaling_factor` and hand the kernel `None`).
    pub fn never_reads(&mut self, func: FuncId, param: &ruff_python_ast::name::Name) -> bool {
        let key = (func, param.clone());
        if let Some(&known) = self.relevance.unread_params.get(&key) {
            return known;
        }
        let range = self.index.function(func).range;
        let module = self.index.file(func.file).ast();
        let unread = match crate::syntax::stmt_with_range(&module.body, range) {
            Some(Stmt::FunctionDef(def)) => {
                let mut finder = FindRead { name: param, found: false };
                for stmt in &def.body {
                    ruff_python_ast::visitor::Visitor::visit_stmt(&mut finder, stmt);
                }
                !finder.found
            }
            _ => false,
        };
        self.relevance.unread_params.insert(key, unread);
        unread
    }

    /// Whether method `func` calls `setattr` on its own object (its first parameter; a static
    /// method has none).
    fn sets_own_attributes(&mut self, func: FuncId) -> bool {
        let facts = self.index.function(func);
        if facts.class().is_none() || facts.call_params().len() == facts.params.len() {
            return false;
        }
        let receiver = facts.params[0].name.clone();
        // `setattr(self, ...)`.
        self.definition_fact(
            func,
            |r| &mut r.attribute_setters,
            |def| {
                body_calls(def, |call| {
                    is_name(Some(&call.func), "setattr") && is_name(call.arguments.args.first(), &receiver)
                })
            },
        )
    }

    /// Whether a call hands over an object of the tree, also as an entry of a dict it splats
    /// (`self._execute("dispatch", **kwargs)`).
    fn hands_over_object(&self, args: &Args) -> bool {
        if args.all_values().any(|g| g.iter().any(|(_, v)| self.holds_object(v, 0))) {
            return true;
        }
        if args.splats.is_empty() {
            return false;
        }
        let expanded = self.with_splatted_entries(Args { splats: args.splats.clone(), ..Args::default() });
        expanded.all_values().any(|g| g.iter().any(|(_, v)| self.holds_object(v, 0)))
    }

    /// Whether method `func` calls what `getattr` looks up on another object than its own
    /// (`getattr(self._inners[i], name)(**kwargs)`; not `getattr(self, name)(...)`, an op
    /// picking one of its own methods), or, up to `depth` calls down (as resolved statically),
    /// calls a method that does.
    fn delegates_by_name(&mut self, func: FuncId, depth: usize) -> bool {
        let facts = self.index.function(func);
        if facts.class().is_none() || facts.call_params().len() == facts.params.len() {
            return false;
        }
        let receiver = facts.params[0].name.clone();
        // `getattr(obj, name)(...)`, `obj` not `self`.
        let direct = self.definition_fact(
            func,
            |r| &mut r.name_delegators,
            |def| {
                body_calls(def, |call| {
                    matches!(call.func.as_ref(), Expr::Call(inner)
                        if is_name(Some(&inner.func), "getattr") && !is_name(inner.arguments.args.first(), &receiver))
                })
            },
        );
        direct
            || (depth > 0 && self.static_callees(func).iter().any(|&callee| self.delegates_by_name(callee, depth - 1)))
    }

    /// Whether `func` is a module function with a getter's body (see `is_getter_method`):
    /// `stream_of(batch)` returning `batch.residual_stream` after checking it is set.
    fn is_getter_function(&mut self, func: FuncId) -> bool {
        self.index.function(func).class().is_none() && self.has_getter_body(func)
    }

    /// Whether `func` is a method that picks one of its object's attributes: its every
    /// `return` gives an attribute of `self` (`return self._normal_dispatcher`), under tests
    /// that may call anything (`if self.mode.resolve(get_is_extend_in_batch()) == NORMAL:`).
    /// Called on an object the evaluation built, evaluated, it gives the objects the object
    /// holds; named, it was an unknown of its annotated class, standing for every subclass,
    /// classes the object never holds among them (SGLang's MoRI dispatcher `_get_impl()`:
    /// its EPv2 implementation in EPv1 configurations, whose unbuilt op blocked the trace).
    fn is_attribute_selector(&mut self, func: FuncId) -> bool {
        if self.index.function(func).class().is_none() {
            return false;
        }
        self.definition_fact(
            func,
            |r| &mut r.selectors,
            |def| {
                def.decorator_list.is_empty()
                    && receiver_parameter(def).is_some_and(|receiver| is_attribute_selector_body(&def.body, receiver))
            },
        )
    }

    /// Whether `func` is a method of an enum whose every `return` gives its receiver, a member
    /// of its class (`Mode.NORMAL`) or a literal, in a body of at most twelve `if`s,
    /// assignments to names, `raise`s and such `return`s.
    fn is_member_chooser(&mut self, func: FuncId) -> bool {
        let Some(class) = self.index.function(func).class() else { return false };
        if !self.is_enum(class) {
            return false;
        }
        let class_name = self.index.class(class).name.to_string();
        self.definition_fact(
            func,
            |r| &mut r.member_choosers,
            |def| {
                let Some(receiver) = receiver_parameter(def) else { return false };
                let returns_member = |expr: &Expr| match expr {
                    Expr::Name(n) => n.id.as_str() == receiver,
                    Expr::Attribute(a) => matches!(a.value.as_ref(), Expr::Name(n) if n.id.as_str() == class_name),
                    e => e.is_literal_expr(),
                };
                def.decorator_list.is_empty() && is_small_choice_body(&def.body, &returns_member)
            },
        )
    }

    fn has_getter_body(&mut self, func: FuncId) -> bool {
        self.definition_fact(func, |r| &mut r.getters, |def| def.decorator_list.is_empty() && is_getter_body(&def.body))
    }

    /// The attributes of its parameters `func` reads (`batch.residual_stream`: `("batch",
    /// "residual_stream")`).
    fn parameter_attribute_reads(&mut self, func: FuncId) -> Rc<[(ruff_python_ast::name::Name, String)]> {
        if let Some(known) = self.relevance.parameter_reads.get(&func) {
            return known.clone();
        }
        let params: Vec<ruff_python_ast::name::Name> =
            self.index.function(func).params.iter().map(|p| p.name.clone()).collect();
        let mut finder = ParameterAttributeReads { params: &params, reads: Vec::new() };
        self.visit_body(func, &mut finder);
        let mut reads = finder.reads;
        reads.sort();
        reads.dedup();
        let reads: Rc<[(ruff_python_ast::name::Name, String)]> = Rc::from(reads);
        self.relevance.parameter_reads.insert(func, reads.clone());
        reads
    }

    /// Whether every `return` of `func` gives a string or number literal, `None` or a member of
    /// an enum of the tree, at least one of them a string or a member (a key such as a platform
    /// or backend name: `return MoeRunnerBackend.TRITON`), directly or through a local (see
    /// `literal_key`); or the answer of a call of a classifier (a property `return
    /// get_routing_method_type(scoring_func=self.scoring_func, ...)`): its keys are the
    /// classifier's, and named by the call they would be a free value.
    pub(super) fn is_classifier(&mut self, func: FuncId) -> bool {
        if let Some(&known) = self.relevance.classifiers.get(&func) {
            return known;
        }
        // Not one while it is being decided (classifiers that call each other).
        self.relevance.classifiers.insert(func, false);
        let scope = self.resolver.local_scope(func);
        let ctx = Ctx::function(func);
        let mut keys = 0;
        let mut all_keyed = !scope.returns.is_empty();
        for ret in scope.returns.iter() {
            let key = match ret.value.as_deref() {
                Some(value) => match self.literal_key(&ctx, &scope, value, 0) {
                    Some(key) => Some(key),
                    None => self.classifier_call(&ctx, value).then_some(true),
                },
                None => None,
            };
            match key {
                Some(key) => keys += usize::from(key),
                None => all_keyed = false,
            }
            if !all_keyed {
                break;
            }
        }
        let found = all_keyed && keys > 0;
        self.relevance.classifiers.insert(func, found);
        found
    }

    /// Whether `expr` is a call of a function (or method) the resolver finds, every one of
    /// which is a classifier.
    fn classifier_call(&mut self, ctx: &Ctx, expr: &Expr) -> bool {
        let Expr::Call(call) = expr else { return false };
        let callees: Vec<FuncId> = self
            .resolver
            .resolve(ctx, &call.func)
            .iter()
            .filter_map(|found| match found.def {
                Def::Function(f) | Def::BoundMethod { func: f, .. } => Some(f),
                _ => None,
            })
            .collect();
        !callees.is_empty() && callees.into_iter().all(|f| self.is_classifier(f))
    }

    /// Whether `expr` gives a literal: `Some(true)` for a key (a string literal or an enum
    /// member), `Some(false)` for a number or `None`, `None` for anything else. A local bound
    /// only to such, or looked up in a local dict literal of such (`mapping.get(backend)`,
    /// `mapping[backend]`), gives one too: a function that maps one key to another classifies.
    fn literal_key(&self, ctx: &Ctx, scope: &crate::resolve::LocalScope, expr: &Expr, depth: usize) -> Option<bool> {
        const MAX_DEPTH: usize = 3;
        match expr {
            Expr::StringLiteral(_) => Some(true),
            Expr::NumberLiteral(_) | Expr::NoneLiteral(_) => Some(false),
            // A list of them (backends in priority order).
            Expr::List(ast::ExprList { elts, .. }) | Expr::Tuple(ast::ExprTuple { elts, .. }) if !elts.is_empty() => {
                let mut key = false;
                for elt in elts {
                    key |= self.literal_key(ctx, scope, elt, depth)?;
                }
                Some(key)
            }
            Expr::Attribute(attr) => {
                let classes = self.resolver.resolve(ctx, &attr.value);
                classes.iter().any(|f| matches!(f.def, Def::Class(c) if self.is_enum(c))).then_some(true)
            }
            Expr::Name(name) if depth < MAX_DEPTH => {
                let bindings = scope.bindings.get(&name.id)?;
                let mut key = false;
                for binding in bindings {
                    let crate::resolve::LocalKind::Value(value) = &binding.kind else { return None };
                    key |= self.literal_key(ctx, scope, value, depth + 1)?;
                }
                (!bindings.is_empty()).then_some(key)
            }
            Expr::Subscript(item) if depth < MAX_DEPTH => self.literal_dict(ctx, scope, &item.value, depth + 1),
            // (`Method.A if renormalize else Method.B`.)
            Expr::If(choice) => Some(
                self.literal_key(ctx, scope, &choice.body, depth)?
                    | self.literal_key(ctx, scope, &choice.orelse, depth)?,
            ),
            Expr::Call(call) if depth < MAX_DEPTH => match call.func.as_ref() {
                Expr::Attribute(method) if method.attr.as_str() == "get" && call.arguments.args.len() == 1 => {
                    self.literal_dict(ctx, scope, &method.value, depth + 1)
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// Whether `expr` is a local bound only to dict literals whose values all give literals
    /// (see `literal_key`).
    fn literal_dict(&self, ctx: &Ctx, scope: &crate::resolve::LocalScope, expr: &Expr, depth: usize) -> Option<bool> {
        let Expr::Name(name) = expr else { return None };
        let bindings = scope.bindings.get(&name.id)?;
        let mut key = false;
        for binding in bindings {
            let crate::resolve::LocalKind::Value(value) = &binding.kind else { return None };
            let Expr::Dict(dict) = value.as_ref() else { return None };
            for item in &dict.items {
                key |= self.literal_key(ctx, scope, &item.value, depth)?;
            }
        }
        (!bindings.is_empty()).then_some(key)
    }

    /// Whether `expr` is a call of a class of the tree, or a conditional expression between
    /// such calls; the classes go into `classes`.
    fn constructed_classes(&self, ctx: &Ctx, expr: &Expr, classes: &mut FxHashSet<ClassId>) -> bool {
        match expr {
            Expr::If(choice) => {
                self.constructed_classes(ctx, &choice.body, classes)
                    && self.constructed_classes(ctx, &choice.orelse, classes)
            }
            Expr::Call(call) => {
                let found = self.resolver.resolve(ctx, &call.func);
                let built: Vec<ClassId> = found
                    .iter()
                    .filter_map(|f| match f.def {
                        Def::Class(c) => Some(c),
                        _ => None,
                    })
                    .collect();
                let builds = !built.is_empty();
                classes.extend(built);
                builds
            }
            _ => false,
        }
    }

    /// Whether every `return` of `func` builds an object of a class of the tree, or gives
    /// `None` (at least one builds).
    fn builds_record(&mut self, func: FuncId) -> bool {
        self.classes_every_return_builds(func) >= 1
    }

    /// Whether the function being evaluated was evaluated because it hands back a record its
    /// calls build.
    fn in_record_chain(&mut self) -> bool {
        self.prune_record_chain();
        self.relevance.record_chain.last().is_some_and(|&(depth, _)| depth == self.stack.len())
    }

    /// Drops the chain's frames that have returned, so that it holds only frames on the stack.
    fn prune_record_chain(&mut self) {
        let stack = &self.stack;
        self.relevance.record_chain.retain(|&(depth, func)| stack.get(depth - 1) == Some(&func));
    }

    /// Whether every `return` of `func` gives a record of the tree that it builds or that the
    /// functions it calls there give (as resolved statically, [`MAX_RECORD_DEPTH`] calls down),
    /// directly or through a local assigned once (`ret = self.dispatch_b(); return ret`).
    fn hands_back_record(&mut self, func: FuncId) -> bool {
        if let Some(&known) = self.relevance.record_handers.get(&func) {
            return known;
        }
        let found = self.hands_back_record_within(func, MAX_RECORD_DEPTH);
        self.relevance.record_handers.insert(func, found);
        found
    }

    fn hands_back_record_within(&mut self, func: FuncId, depth: usize) -> bool {
        if self.builds_record(func) {
            return true;
        }
        if depth == 0 {
            return false;
        }
        let scope = self.resolver.local_scope(func);
        let ctx = Ctx::function(func);
        let mut any = false;
        for ret in &scope.returns {
            let mut value = match ret.value.as_deref() {
                None | Some(Expr::NoneLiteral(_)) => continue,
                Some(value) => value,
            };
            if let Expr::Name(name) = value {
                match scope.bindings.get(&name.id).map(Vec::as_slice) {
                    Some([binding]) => match &binding.kind {
                        crate::resolve::LocalKind::Value(expr) => value = expr,
                        _ => return false,
                    },
                    _ => return false,
                }
            }
            let Expr::Call(call) = value else { return false };
            let callees: Vec<FuncId> = self
                .resolver
                .resolve(&ctx, &call.func)
                .iter()
                .filter_map(|found| match found.def {
                    Def::Function(f) | Def::BoundMethod { func: f, .. } => Some(f),
                    _ => None,
                })
                .collect();
            // (A base's abstract method, which only raises, returns nothing: it does not count.)
            let returning: Vec<FuncId> =
                callees.into_iter().filter(|f| !self.resolver.local_scope(*f).returns.is_empty()).collect();
            if returning.is_empty() || !returning.into_iter().all(|f| self.hands_back_record_within(f, depth - 1)) {
                return false;
            }
            any = true;
        }
        any
    }

    /// How many classes of the tree `func`'s `return`s build when every one of them builds an
    /// object of a class of the tree or gives `None` (at least one builds); 0 otherwise.
    pub(super) fn classes_every_return_builds(&mut self, func: FuncId) -> usize {
        if let Some(&known) = self.relevance.record_builders.get(&func) {
            return known;
        }
        let scope = self.resolver.local_scope(func);
        let ctx = Ctx::function(func);
        let mut built = FxHashSet::default();
        // (`return None` where nothing applies, as a quantization config's `get_quant_method`
        // does for layers it does not quantize, still leaves the choice to the others.)
        let all_build = !scope.returns.is_empty()
            && scope.returns.iter().all(|ret| match ret.value.as_deref() {
                None | Some(Expr::NoneLiteral(_)) => true,
                Some(value) => self.constructed_classes(&ctx, value, &mut built),
            });
        let count = if all_build { built.len() } else { 0 };
        self.relevance.record_builders.insert(func, count);
        count
    }

    pub(super) fn is_predicate(&mut self, func: FuncId) -> bool {
        if let Some(&known) = self.relevance.predicates.get(&func) {
            return known;
        }
        let module = self.index.file(func.file).ast();
        let range = self.index.function(func).range;
        // A platform predicate (`is_cuda()`: `torch.cuda.is_available() and ...`) stays the
        // atom `--platform` and `--assume _is_cuda=...` name, not the facts it combines.
        let platform = super::platform::Platform::tests_platform(&format!("{}()", self.index.function(func).name));
        let found = matches!(
            crate::syntax::stmt_with_range(&module.body, range),
            Some(ruff_python_ast::Stmt::FunctionDef(def))
                if is_simple_predicate(&def.body)
                    || (!platform && is_combined_predicate(&def.body))
                    || is_boolean_decision(def)
                    || is_declared_fact_of_parameter(def)
        );
        self.relevance.predicates.insert(func, found);
        found
    }

    /// Whether `func` takes no parameters and is made of `if`s whose every test is a flag an
    /// assumption fixes (`if current_platform.is_out_of_tree(): return key`, then `return
    /// None`, with `--platform` given), and `return`s and imports: evaluated, its result is
    /// what the assumptions decide (`None`); named, a free value, and every path behind it (a
    /// platform plugin's) a configuration of a platform that has none. (A test left free would
    /// add atoms through its branches: such a helper stays named.)
    pub(super) fn is_decided_by_assumptions(&mut self, func: FuncId) -> bool {
        if let Some(&known) = self.relevance.decided.get(&func) {
            return known;
        }
        let module = self.index.file(func.file).ast();
        let range = self.index.function(func).range;
        let fixed = |test: &Expr| {
            let test = match test {
                Expr::UnaryOp(u) if u.op == ast::UnaryOp::Not => &*u.operand,
                _ => test,
            };
            let name = match test {
                Expr::Call(call) if call.arguments.is_empty() => {
                    crate::syntax::dotted_name(&call.func).map(|name| format!("{name}()"))
                }
                Expr::Name(_) | Expr::Attribute(_) => crate::syntax::dotted_name(test),
                _ => None,
            };
            name.is_some_and(|name| {
                self.assumes.iter().any(|a| {
                    matches!(a.value, AssumedValue::Const(crate::syntax::Constant::Bool(_)))
                        && super::interp::names_match_exactly(&a.name, &name)
                })
            })
        };
        let found = matches!(
            crate::syntax::stmt_with_range(&module.body, range),
            Some(Stmt::FunctionDef(def))
                if def.parameters.is_empty() && decided_body(without_docstring(&def.body), &fixed) == Some(true)
        );
        self.relevance.decided.insert(func, found);
        found
    }

    /// Whether constructing or calling an instance of `class` can matter.
    pub fn class_relevant(&mut self, class: ClassId) -> bool {
        let mro = self.resolver.mro(class);
        for name in ["__init__", "forward", "__call__"] {
            let method = mro.classes.iter().find_map(|k| {
                self.index.class(*k).body.iter().find_map(|b| match b.kind {
                    BindingKind::Function(f) if b.name.as_str() == name => Some(f),
                    _ => None,
                })
            });
            if let Some(f) = method {
                if self.mentions(f, 1) {
                    return true;
                }
            }
        }
        false
    }

    /// Whether `value` is a list or dict the evaluation built (its contents are tracked).
    fn is_built_container(&self, value: &Value) -> bool {
        matches!(value, Value::Obj(id) if matches!(self.heap[*id as usize].kind, ObjKind::List(_) | ObjKind::Dict(_)))
    }

    /// Whether the body of `func` changes a container one of its parameters holds: calls a
    /// mutating method on it (`backends.append(...)`) or assigns an item of it.
    fn mutates_parameter(&mut self, func: FuncId) -> bool {
        if let Some(&known) = self.relevance.mutators.get(&func) {
            return known;
        }
        let params: Vec<ruff_python_ast::name::Name> =
            self.index.function(func).params.iter().map(|p| p.name.clone()).collect();
        let mut finder = ParameterMutation { params: &params, found: false };
        self.visit_body(func, &mut finder);
        let found = finder.found;
        self.relevance.mutators.insert(func, found);
        found
    }

    /// Whether `func` returns a parameter, or a local only ever bound to parameters, as it is
    /// (`return out`; `a = b` ... `return a`; `return a if c else b`; from a module function,
    /// `return out, aux`).
    fn returns_parameter(&mut self, func: FuncId) -> bool {
        if let Some(&known) = self.relevance.param_returners.get(&func) {
            return known;
        }
        let mut names: Vec<ruff_python_ast::name::Name> =
            self.index.function(func).params.iter().map(|p| p.name.clone()).collect();
        let mut finder = ReturnedParameter { names: &mut names, returns: Vec::new(), in_tuples: Vec::new() };
        self.visit_body(func, &mut finder);
        // A module function may also give one back as an item of the tuple it returns
        // (`hidden_states += residual; residual = None; return hidden_states, residual`):
        // summarized, every item would be the product of all its inputs, the residual's part
        // lost. (Not a method: a stage handing its inputs on to the next stage in a tuple
        // (`dispatch_a` of a dispatcher) is evaluated by the rules for its object.)
        let ReturnedParameter { returns, in_tuples, .. } = finder;
        let items = if self.index.function(func).class().is_none() { in_tuples.as_slice() } else { &[] };
        // A nested function may rebind a parameter (`nonlocal hidden_states, residual`) and
        // hand it back through its own `return` (SGLang's `_communicate_summable_tensor_pair`
        // returns `context.check_shapes(_inner(), ...)`, the residual summed in inside).
        let mut rebinding = NonlocalParameters { params: &names, found: false, depth: 0 };
        self.visit_body(func, &mut rebinding);
        let found = returns.iter().chain(items).any(|r| names.contains(r)) || rebinding.found;
        self.relevance.param_returners.insert(func, found);
        found
    }

    /// Whether `func` writes into one of its parameters in place (see `ParameterWrites`), or
    /// hands one to a function of the tree that does (`depth` such hops so far).
    fn writes_into_parameter(&mut self, func: FuncId, depth: usize) -> bool {
        if let Some(&known) = self.relevance.parameter_writers.get(&func) {
            return known;
        }
        if depth > MAX_STATIC_DEPTH || !self.relevance.in_progress.insert(func) {
            return false;
        }
        let params: Vec<ruff_python_ast::name::Name> =
            self.index.function(func).params.iter().map(|p| p.name.clone()).filter(|n| n.as_str() != "self").collect();
        let mut finder = ParameterWrites { names: params, writes: false, handed_to: Vec::new() };
        self.visit_body(func, &mut finder);
        let mut found = finder.writes;
        if !found && !finder.handed_to.is_empty() {
            let ctx = Ctx::function(func);
            'calls: for callee in &finder.handed_to {
                for resolved in self.resolver.resolve(&ctx, callee) {
                    let writes = match resolved.def {
                        Def::Function(f) => self.writes_into_parameter(f, depth + 1),
                        // A kernel its model says writes into an argument (`moe_sum(input,
                        // output)`).
                        Def::External(path) => self.kernels.find(&path).is_some_and(|m| m.output.is_some()),
                        _ => false,
                    };
                    if writes {
                        found = true;
                        break 'calls;
                    }
                }
            }
        }
        self.relevance.in_progress.remove(&func);
        self.relevance.parameter_writers.insert(func, found);
        found
    }

    /// Whether `func` declares a name `nonlocal` in its own body (not in a function nested in
    /// it).
    fn rebinds_enclosing_names(&mut self, func: FuncId) -> bool {
        if let Some(&known) = self.relevance.nonlocal_writers.get(&func) {
            return known;
        }
        let mut finder = OwnNonlocal { found: false };
        self.visit_body(func, &mut finder);
        self.relevance.nonlocal_writers.insert(func, finder.found);
        finder.found
    }

    /// Whether an argument that is an object a call may leave something on (not data, not a
    /// constant, not a list of data) binds a parameter `func` returns, alone or as an item of a
    /// returned tuple.
    fn gives_back_object(&mut self, func: FuncId, args: &Args) -> bool {
        let given_back = self.given_back_parameters(func);
        if given_back.is_empty() {
            return false;
        }
        self.bound_arguments(func, args).into_iter().any(|(name, arg)| {
            given_back.contains(&name)
                && arg.value.iter().any(|(_, v)| matches!(v, Value::Obj(_)) && self.keeps_state(v))
        })
    }

    /// Whether a parameter `func` returns a copy of (see `copied_parameters`) is bound to an
    /// object of the tree.
    fn copies_object_handed(&mut self, func: FuncId, args: &Args) -> bool {
        let copied = self.copied_parameters(func);
        !copied.is_empty()
            && self
                .bound_arguments(func, args)
                .into_iter()
                .any(|(name, arg)| copied.contains(&name) && arg.value.iter().any(|(_, v)| self.holds_object(v, 0)))
    }

    /// The parameters every `return` of `func` copies (`replace(p, ...)`, `copy.copy(p)`,
    /// `copy.deepcopy(p)`, `p._replace(...)`); empty unless every `return` is such a copy.
    fn copied_parameters(&mut self, func: FuncId) -> Rc<[ruff_python_ast::name::Name]> {
        if let Some(known) = self.relevance.copiers.get(&func) {
            return known.clone();
        }
        let params: Vec<&ruff_python_ast::name::Name> =
            self.index.function(func).params.iter().map(|p| &p.name).collect();
        let copied_name = |value: Option<&Expr>| -> Option<ruff_python_ast::name::Name> {
            let Some(Expr::Call(call)) = value else { return None };
            let copied = match call.func.as_ref() {
                Expr::Attribute(attr) if attr.attr.as_str() == "_replace" => Some(attr.value.as_ref()),
                func => {
                    let name = crate::syntax::dotted_name(func)?;
                    let last = name.rsplit('.').next().unwrap_or(&name);
                    matches!(last, "replace" | "copy" | "deepcopy").then(|| call.arguments.args.first()).flatten()
                }
            };
            match copied {
                Some(Expr::Name(n)) if params.contains(&&n.id) => Some(n.id.clone()),
                _ => None,
            }
        };
        let scope = self.resolver.local_scope(func);
        let copies: Option<Vec<ruff_python_ast::name::Name>> =
            scope.returns.iter().map(|r| copied_name(r.value.as_deref())).collect();
        let found: Rc<[ruff_python_ast::name::Name]> = match copies {
            Some(names) if !names.is_empty() => names.into(),
            _ => Rc::from([]),
        };
        self.relevance.copiers.insert(func, found.clone());
        found
    }

    /// Whether `value` is an object a call may leave something on: an instance, an object
    /// known by its class, an unknown value code wrote into, or a list or dict holding one. A
    /// list of tensors handed back (`return x` where `x` may be `[hidden]`) is data: skipped,
    /// the call carries it along.
    fn keeps_state(&self, value: &Value) -> bool {
        self.holds(value, 0, |_| true)
    }

    /// The parameters `func` returns as they are, alone or as items of a returned tuple.
    fn given_back_parameters(&mut self, func: FuncId) -> Rc<[ruff_python_ast::name::Name]> {
        if let Some(known) = self.relevance.given_back.get(&func) {
            return known.clone();
        }
        let params: Vec<ruff_python_ast::name::Name> =
            self.index.function(func).params.iter().map(|p| p.name.clone()).collect();
        let mut names = params.clone();
        let mut finder = ReturnedParameter { names: &mut names, returns: Vec::new(), in_tuples: Vec::new() };
        self.visit_body(func, &mut finder);
        let ReturnedParameter { returns, in_tuples, .. } = finder;
        // (A parameter renamed before it is returned is not followed.)
        let found: Rc<[ruff_python_ast::name::Name]> =
            returns.into_iter().chain(in_tuples).filter(|r| params.contains(r)).collect();
        self.relevance.given_back.insert(func, found.clone());
        found
    }

    /// Whether `func` has a `return` of `None` (a bare one, or a tuple with a `None` item) and a
    /// `return` of something else.
    fn returns_none_or_value(&mut self, func: FuncId) -> bool {
        let kinds = self.return_kinds(func);
        kinds.none && kinds.value
    }

    /// Whether `func` has a `return` of a tuple it builds (`return a, b`).
    fn returns_tuple(&mut self, func: FuncId) -> bool {
        self.return_kinds(func).tuple
    }

    /// What `func`'s own `return`s give, found once.
    fn return_kinds(&mut self, func: FuncId) -> ReturnKinds {
        if let Some(&known) = self.relevance.return_kinds.get(&func) {
            return known;
        }
        let mut finder = ReturnKinds::default();
        self.visit_body(func, &mut finder);
        self.relevance.return_kinds.insert(func, finder);
        finder
    }

    fn is_instance(&self, value: &Value) -> bool {
        matches!(value, Value::Obj(id) if matches!(self.heap[*id as usize].kind, ObjKind::Instance(_)))
    }

    /// Whether a value carries the traced value or data scaled by it, or reaches one.
    fn carries(&self, value: &Value) -> bool {
        self.carries_in(value, 0, &mut FxHashSet::default())
    }

    fn carries_in(&self, value: &Value, depth: usize, seen: &mut FxHashSet<HeapId>) -> bool {
        if depth > 8 {
            return false;
        }
        match value {
            // The traced value itself (or a scalar derived from it) can be applied by the callee;
            // data already scaled can only be carried along, which the outside-computation
            // summary does.
            Value::Num(n) => !n.tensor && n.carries_traced(),
            Value::Tuple(items) => items.iter().any(|g| g.iter().any(|(_, v)| self.carries_in(v, depth + 1, seen))),
            Value::Bound(_, receiver) | Value::Property(_, receiver) | Value::Super(_, receiver) => {
                self.carries_in(receiver, depth + 1, seen)
            }
            Value::Partial(p) => p
                .args
                .iter()
                .chain(p.kwargs.iter().map(|(_, g)| g))
                .chain(std::iter::once(&p.func))
                .any(|g| g.iter().any(|(_, v)| self.carries_in(v, depth + 1, seen))),
            // What code wrote into an unknown value (a copy of the batch handed in) counts as
            // that value does: not at all. The forward leaves state there (a stage's transport,
            // which reaches the MoE), and every call handed the batch is not worth evaluating
            // for it.
            Value::Obj(id) if matches!(self.heap[*id as usize].kind, ObjKind::Opaque(_)) => false,
            Value::Obj(id) => {
                if !seen.insert(*id) {
                    return false;
                }
                let object = self.read_object(*id);
                let fields = object.fields.values();
                let items: Vec<&G> = match &object.kind {
                    ObjKind::List(items) => items.iter().collect(),
                    ObjKind::Dict(entries) => entries.iter().map(|(_, g)| g).collect(),
                    _ => Vec::new(),
                };
                fields.chain(items).any(|g| g.iter().any(|(_, v)| self.carries_in(v, depth + 1, seen)))
            }
            _ => false,
        }
    }

    /// Whether `func`'s code, its class's code, or code it calls (as resolved statically)
    /// mentions the traced value's name.
    pub fn mentions(&mut self, func: FuncId, depth: usize) -> bool {
        if let Some(&known) = self.relevance.mentions.get(&func) {
            return known;
        }
        let facts = self.index.function(func);
        let text = &self.index.file(func.file).text[facts.range.start as usize..facts.range.end as usize];
        let direct = text.contains(self.traced.name.as_str()) || facts.class().is_some_and(|c| self.class_mentions(c));
        if direct {
            self.relevance.mentions.insert(func, true);
            return true;
        }
        if depth >= MAX_STATIC_DEPTH || !self.relevance.in_progress.insert(func) {
            return false;
        }
        let mut found = false;
        for &callee in self.static_callees(func).iter() {
            if self.mentions(callee, depth + 1) {
                found = true;
                break;
            }
        }
        self.relevance.in_progress.remove(&func);
        // Answers reached through a cut cycle or the depth bound depend on the path; only keep
        // the positive ones and the complete negatives.
        if found || depth == 0 {
            self.relevance.mentions.insert(func, found);
        }
        found
    }

    /// Whether `func` calls, directly or through code it calls (as far as resolution can
    /// tell), an operator that runs a module it looks up (`custom_ops::looks_up_its_module`).
    fn calls_module_operator(&mut self, func: FuncId, depth: usize) -> bool {
        if let Some(&known) = self.relevance.operator_users.get(&func) {
            return known;
        }
        if depth >= MAX_STATIC_DEPTH {
            return false;
        }
        // Marked first: a cycle of calls ends here.
        self.relevance.operator_users.insert(func, false);
        let mut found = false;
        for &callee in self.static_callees(func).iter() {
            if self.looks_up_its_module(callee) || self.calls_module_operator(callee, depth + 1) {
                found = true;
                break;
            }
        }
        if found || depth == 0 {
            self.relevance.operator_users.insert(func, found);
        } else {
            self.relevance.operator_users.remove(&func);
        }
        found
    }

    /// Whether `func`, or code it calls (as far as resolution can tell), may assign an
    /// attribute named `attr` (`x.attr = ...`, also inside a tuple target).
    pub fn writes_attribute(&mut self, func: FuncId, attr: &str, depth: usize) -> bool {
        if let Some(&known) = self.relevance.writes.get(&func).and_then(|m| m.get(attr)) {
            return known;
        }
        let facts = self.index.function(func);
        let text = &self.index.file(func.file).text[facts.range.start as usize..facts.range.end as usize];
        // Cheap first: the name must appear after a dot somewhere for a direct write.
        let direct = text.contains(&format!(".{attr}")) && {
            let module = self.index.file(func.file).ast();
            match crate::syntax::stmt_with_range(&module.body, facts.range) {
                Some(Stmt::FunctionDef(def)) => assigns_attribute(&def.body, attr, 0),
                _ => false,
            }
        };
        if direct {
            self.relevance.writes.entry(func).or_default().insert(attr.to_string(), true);
            return true;
        }
        if depth >= MAX_STATIC_DEPTH || !self.relevance.writes_in_progress.insert(func) {
            return false;
        }
        let mut found = false;
        for &callee in self.static_callees(func).iter() {
            if self.writes_attribute(callee, attr, depth + 1) {
                found = true;
                break;
            }
        }
        self.relevance.writes_in_progress.remove(&func);
        // As for `mentions`: answers cut by a cycle or the depth bound are not kept.
        if found || depth == 0 {
            self.relevance.writes.entry(func).or_default().insert(attr.to_string(), found);
        }
        found
    }

    pub(super) fn class_mentions(&mut self, class: ClassId) -> bool {
        if let Some(&known) = self.relevance.class_mentions.get(&class) {
            return known;
        }
        let facts = self.index.class(class);
        let text = &self.index.file(class.file).text[facts.range.start as usize..facts.range.end as usize];
        let found = text.contains(self.traced.name.as_str());
        self.relevance.class_mentions.insert(class, found);
        found
    }

    /// Whether `func` launches a device kernel of the tree (`kernel[grid](...)`).
    fn launches_device_kernel(&mut self, func: FuncId) -> bool {
        if let Some(&known) = self.relevance.launchers.get(&func) {
            return known;
        }
        let facts = self.index.function(func).clone();
        let text = &self.index.file(func.file).text[facts.range.start as usize..facts.range.end as usize];
        // Cheap first: a launch is a subscript called.
        let found = text.contains("](") && {
            let module = self.index.file(func.file).ast();
            let mut calls: Vec<Expr> = Vec::new();
            if let Some(ruff_python_ast::Stmt::FunctionDef(def)) =
                crate::syntax::stmt_with_range(&module.body, facts.range)
            {
                collect_calls(&def.body, &mut calls);
            }
            let ctx = Ctx::function(func);
            calls.iter().filter_map(|c| if let Expr::Subscript(sub) = c { Some(&*sub.value) } else { None }).any(
                |kernel| {
                    self.resolver.resolve(&ctx, kernel).iter().any(|found| {
                        matches!(found.def, Def::Function(f) if super::calls::is_device_kernel(self.index.function(f)))
                    })
                },
            )
        };
        self.relevance.launchers.insert(func, found);
        found
    }

    /// The functions a function may call, as resolution sees them statically: functions and
    /// methods, constructors (`__init__`), and module calls (`forward`).
    pub(super) fn static_callees(&mut self, func: FuncId) -> Rc<[FuncId]> {
        // Resolution is a function of the index: the callees of a function are the same every
        // time the static searches (which keep only some of their answers) walk through it.
        if let Some(known) = self.relevance.callees.get(&func) {
            return known.clone();
        }
        let callees: Rc<[FuncId]> = self.resolve_static_callees(func).into();
        self.relevance.callees.insert(func, callees.clone());
        callees
    }

    fn resolve_static_callees(&mut self, func: FuncId) -> Vec<FuncId> {
        let module = self.index.file(func.file).ast();
        let facts = self.index.function(func).clone();
        let Some(ruff_python_ast::Stmt::FunctionDef(def)) = crate::syntax::stmt_with_range(&module.body, facts.range)
        else {
            return Vec::new();
        };
        let mut calls: Vec<Expr> = Vec::new();
        collect_calls(&def.body, &mut calls);
        let ctx = Ctx::function(func);
        let mut out = Vec::new();
        for callee in calls.iter().take(512) {
            for found in self.resolver.resolve(&ctx, callee) {
                match found.def {
                    Def::Function(f) | Def::BoundMethod { func: f, .. } => out.push(f),
                    Def::Class(c) | Def::Instance(c) => {
                        let names: &[&str] =
                            if matches!(found.def, Def::Class(_)) { &["__init__"] } else { &["forward", "__call__"] };
                        let mro = self.resolver.mro(c);
                        for name in names {
                            if let Some(f) = mro.classes.iter().find_map(|k| {
                                self.index.class(*k).body.iter().find_map(|b| match b.kind {
                                    BindingKind::Function(f) if b.name.as_str() == *name => Some(f),
                                    _ => None,
                                })
                            }) {
                                out.push(f);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        // Functions defined in the body run on its behalf, called there or handed on
        // (`make_pp_layers(n, layer_fn)` with a nested `def layer_fn` building the layers), as
        // a lambda's body does; not counted, a model building its layers that way read as
        // code that never sees the value.
        let nested = self.index.file(func.file).facts.functions.iter().enumerate().filter_map(|(local, f)| {
            matches!(f.parent, crate::index::Parent::Function(p) if p == func)
                .then_some(FuncId { file: func.file, local: local as u32 })
        });
        out.extend(nested);
        out.sort();
        out.dedup();
        out
    }

    /// Whether `func` may return a class or a function (a factory).
    fn is_factory(&mut self, func: FuncId) -> bool {
        if let Some(&known) = self.relevance.factories.get(&func) {
            return known;
        }
        // Declared to return a callable or a class (`-> Optional[Callable]`, `-> type[Op]`).
        let declared = self.index.function(func).returns.as_deref().is_some_and(returns_callable);
        let scope = self.resolver.local_scope(func);
        let ctx = Ctx::function(func);
        let mut found = declared;
        for ret in scope.returns.iter().filter(|_| !declared) {
            let Some(value) = &ret.value else { continue };
            if self.resolver.resolve(&ctx, value).iter().any(|f| matches!(f.def, Def::Class(_) | Def::Function(_))) {
                found = true;
                break;
            }
        }
        // A function choosing which class to build (`create_moe_dispatcher` returning a
        // `StandardDispatcher(...)` or a `DeepEPDispatcher(...)` by backend, or `return
        // Monolithic() if use_monolithic else Modular()`): every `return` builds an object of a
        // class of the tree, of at least two classes. Which one it is decides what its methods
        // do later; named by the call, its class would be free, unrelated to the flag that
        // chose it, and a later `isinstance` test would pair each class with either value.
        if !found {
            found = self.classes_every_return_builds(func) >= 2;
        }
        // A lazy import (`from flashinfer.fused_moe import cutlass_fused_moe` in the body, then
        // `return cutlass_fused_moe, ActivationType`): every `return` gives names from outside
        // the tree. Named by the call, the kernel it hands out would be an unresolved callee;
        // evaluated, it is that kernel, which a kernel model may describe.
        if !found && !scope.returns.is_empty() {
            let outside = |this: &mut Self, expr: &Expr| {
                matches!(expr, Expr::Name(_)) && {
                    let found = this.resolver.resolve(&ctx, expr);
                    !found.is_empty() && found.iter().all(|f| matches!(f.def, Def::External(_)))
                }
            };
            found = scope.returns.iter().all(|ret| match ret.value.as_deref() {
                Some(Expr::Tuple(t)) => !t.elts.is_empty() && t.elts.iter().all(|e| outside(self, e)),
                Some(e) => outside(self, e),
                None => false,
            });
        }
        self.relevance.factories.insert(func, found);
        found
    }
}

/// Whether a return annotation says the function returns a callable or a class.
fn returns_callable(annotation: &Expr) -> bool {
    use ruff_python_ast::visitor::{Visitor, walk_expr};
    #[derive(Default)]
    struct Finder {
        found: bool,
    }
    impl<'a> Visitor<'a> for Finder {
        fn visit_expr(&mut self, expr: &'a Expr) {
            let name = match expr {
                Expr::Name(n) => Some(n.id.as_str()),
                Expr::Attribute(a) => Some(a.attr.as_str()),
                Expr::StringLiteral(s) => {
                    let text = s.value.to_str();
                    self.found |= text.contains("Callable") || text.starts_with("type[") || text.starts_with("Type[");
                    None
                }
                _ => None,
            };
            self.found |= matches!(name, Some("Callable" | "type" | "Type"));
            walk_expr(self, expr);
        }
    }
    let mut finder = Finder::default();
    finder.visit_expr(annotation);
    finder.found
}

/// The callee expressions of every call in a body (not in nested functions).
fn collect_calls(body: &[ruff_python_ast::Stmt], out: &mut Vec<Expr>) {
    use ruff_python_ast::visitor::{Visitor, walk_expr, walk_stmt};
    struct Calls<'o> {
        out: &'o mut Vec<Expr>,
        depth: usize,
    }
    impl<'a> Visitor<'a> for Calls<'_> {
        fn visit_stmt(&mut self, stmt: &'a ruff_python_ast::Stmt) {
            if !matches!(stmt, ruff_python_ast::Stmt::FunctionDef(_) | ruff_python_ast::Stmt::ClassDef(_)) {
                walk_stmt(self, stmt);
            }
        }
        fn visit_expr(&mut self, expr: &'a Expr) {
            if self.depth > crate::syntax::MAX_NESTING {
                return;
            }
            if let Expr::Call(call) = expr {
                self.out.push((*call.func).clone());
            }
            self.depth += 1;
            walk_expr(self, expr);
            self.depth -= 1;
        }
    }
    let mut calls = Calls { out, depth: 0 };
    for stmt in body {
        calls.visit_stmt(stmt);
    }
}

/// Whether statements (nested blocks included, nested functions not) assign an attribute
/// named `attr`.
fn assigns_attribute(body: &[Stmt], attr: &str, depth: usize) -> bool {
    if depth > crate::syntax::MAX_NESTING {
        return false;
    }
    fn target(expr: &Expr, attr: &str) -> bool {
        match expr {
            Expr::Attribute(a) => a.attr.as_str() == attr,
            Expr::Tuple(t) => t.elts.iter().any(|e| target(e, attr)),
            Expr::List(l) => l.elts.iter().any(|e| target(e, attr)),
            Expr::Starred(s) => target(&s.value, attr),
            _ => false,
        }
    }
    body.iter().any(|stmt| match stmt {
        Stmt::Assign(a) => a.targets.iter().any(|t| target(t, attr)),
        Stmt::AugAssign(a) => target(&a.target, attr),
        Stmt::AnnAssign(a) => target(&a.target, attr),
        Stmt::FunctionDef(_) | Stmt::ClassDef(_) => false,
        _ => crate::syntax::child_suites(stmt).into_iter().any(|suite| assigns_attribute(suite.body, attr, depth + 1)),
    })
}

/// Whether `def` makes lists or dicts (`declarations, bindings = [], []`, `connections =
/// [first]`), fills one in a `for` loop over a parameter (`for item in stages`, `for i, s in
/// enumerate(line)`; `declarations.append(declaration)`, `table[key] = item`), and returns
/// it, alone or in a tuple.
fn fills_lists_from_parameter(def: &ast::StmtFunctionDef) -> bool {
    fn list_or_dict_literal(expr: &Expr) -> bool {
        matches!(expr, Expr::List(_) | Expr::Dict(_))
    }
    /// `p`, `p.items`, or a builtin walking one (`enumerate(p)`, `zip(p, q)`).
    fn over_parameter(expr: &Expr, params: &[&ruff_python_ast::name::Name]) -> bool {
        match expr {
            Expr::Name(n) => params.contains(&&n.id),
            Expr::Attribute(a) => over_parameter(&a.value, params),
            Expr::Call(call) => {
                matches!(call.func.as_ref(), Expr::Name(f) if matches!(f.id.as_str(), "enumerate" | "zip" | "reversed" | "sorted" | "list" | "tuple"))
                    && call.arguments.args.iter().any(|a| over_parameter(a, params))
            }
            _ => false,
        }
    }
    /// Whether a statement of `body` (at any depth) adds to one of `made`.
    fn fills(body: &[Stmt], made: &[&ruff_python_ast::name::Name]) -> bool {
        let receiver = |expr: &Expr| matches!(expr, Expr::Name(n) if made.contains(&&n.id));
        body.iter().any(|stmt| match stmt {
            Stmt::Expr(e) => matches!(e.value.as_ref(), Expr::Call(call) if matches!(call.func.as_ref(),
                Expr::Attribute(a) if matches!(a.attr.as_str(), "append" | "extend" | "insert") && receiver(&a.value))),
            Stmt::Assign(a) => a.targets.iter().any(|t| matches!(t, Expr::Subscript(s) if receiver(&s.value))),
            Stmt::If(node) => fills(&node.body, made) || node.elif_else_clauses.iter().any(|c| fills(&c.body, made)),
            Stmt::For(node) => fills(&node.body, made),
            Stmt::With(node) => fills(&node.body, made),
            _ => false,
        })
    }
    let p = &def.parameters;
    let params: Vec<&ruff_python_ast::name::Name> = p
        .posonlyargs
        .iter()
        .chain(&p.args)
        .chain(&p.kwonlyargs)
        .map(|a| &a.parameter.name.id)
        .chain(p.vararg.iter().map(|a| &a.name.id))
        .collect();
    let mut made: Vec<&ruff_python_ast::name::Name> = Vec::new();
    for stmt in &def.body {
        let Stmt::Assign(assign) = stmt else { continue };
        match (assign.targets.as_slice(), assign.value.as_ref()) {
            ([Expr::Name(name)], value) if list_or_dict_literal(value) => made.push(&name.id),
            ([Expr::Tuple(names)], Expr::Tuple(values)) if names.elts.len() == values.elts.len() => {
                for (name, value) in names.elts.iter().zip(&values.elts) {
                    if let (Expr::Name(name), true) = (name, list_or_dict_literal(value)) {
                        made.push(&name.id);
                    }
                }
            }
            _ => {}
        }
    }
    let filled_in_loop = def
        .body
        .iter()
        .any(|stmt| matches!(stmt, Stmt::For(node) if over_parameter(&node.iter, &params) && fills(&node.body, &made)));
    let returned = |expr: &Expr| matches!(expr, Expr::Name(n) if made.contains(&&n.id));
    filled_in_loop
        && def.body.iter().any(|stmt| {
            matches!(stmt, Stmt::Return(ret) if ret.value.as_deref().is_some_and(|v| returned(v)
                || matches!(v, Expr::Tuple(t) if t.elts.iter().any(returned))))
        })
}

/// The statements of a getter method (see `Interp::is_getter_method`): at most four, each
/// binding a name to a read or returning one, ending in a `return`.
fn is_getter_body(body: &[Stmt]) -> bool {
    /// `a`, `a.b`, a literal, `x if test else y` of such, or an entry of a container read so
    /// (`self._data[item]`, `self._data.pop(item)`: a state object keeping its attributes in a
    /// dict).
    fn read(expr: &Expr) -> bool {
        match expr {
            Expr::Name(_) => true,
            Expr::Attribute(a) => read(&a.value),
            Expr::Subscript(item) => read(&item.value) && read(&item.slice),
            Expr::Call(call) => match call.func.as_ref() {
                Expr::Attribute(method) if matches!(method.attr.as_str(), "get" | "pop") => {
                    read(&method.value) && call.arguments.keywords.is_empty() && call.arguments.args.iter().all(read)
                }
                _ => false,
            },
            Expr::If(e) => test(&e.test) && read(&e.body) && read(&e.orelse),
            e => e.is_literal_expr(),
        }
    }
    fn test(expr: &Expr) -> bool {
        match expr {
            Expr::Compare(c) => read(&c.left) && c.comparators.iter().all(read),
            Expr::UnaryOp(u) => test(&u.operand),
            e => read(e),
        }
    }
    let body = without_docstring(body);
    let Some((Stmt::Return(last), before)) = body.split_last() else { return false };
    body.len() <= 4
        && last.value.as_deref().is_some_and(read)
        && before.iter().all(|stmt| match stmt {
            Stmt::Assign(a) => a.targets.iter().all(|t| matches!(t, Expr::Name(_))) && read(&a.value),
            // A check that it is set (`if stream is None: raise RuntimeError(...)`).
            Stmt::If(check) => {
                check.elif_else_clauses.is_empty()
                    && test(&check.test)
                    && matches!(check.body.as_slice(), [Stmt::Raise(_)])
            }
            _ => false,
        })
}

/// A method's first parameter (`self`, `cls`), by name.
fn receiver_parameter(def: &ast::StmtFunctionDef) -> Option<&str> {
    def.parameters.posonlyargs.first().or(def.parameters.args.first()).map(|p| p.parameter.name.id.as_str())
}

/// The statements of an attribute selector (see `Interp::is_attribute_selector`): what
/// every `return` gives is an attribute path of `receiver`.
fn is_attribute_selector_body(body: &[Stmt], receiver: &str) -> bool {
    fn own_attribute(expr: &Expr, receiver: &str) -> bool {
        match expr {
            Expr::Attribute(a) => match a.value.as_ref() {
                Expr::Name(n) => n.id.as_str() == receiver,
                inner => own_attribute(inner, receiver),
            },
            _ => false,
        }
    }
    is_small_choice_body(body, &|expr| own_attribute(expr, receiver))
}

/// A body that chooses what to return (see `is_attribute_selector_body`,
/// `Interp::is_member_chooser`): at most twelve statements, of `if` (any test), assignments to
/// names, `raise` and `return` of what `returned` accepts; at least one such `return`, and no
/// other.
fn is_small_choice_body(body: &[Stmt], returned: &dyn Fn(&Expr) -> bool) -> bool {
    fn walk(body: &[Stmt], returned: &dyn Fn(&Expr) -> bool, count: &mut usize, returns: &mut usize) -> bool {
        body.iter().all(|stmt| {
            *count += 1;
            *count <= 12
                && match stmt {
                    Stmt::Return(ret) => {
                        *returns += 1;
                        ret.value.as_deref().is_some_and(returned)
                    }
                    Stmt::Raise(_) | Stmt::Pass(_) => true,
                    Stmt::Assign(a) => a.targets.iter().all(|t| matches!(t, Expr::Name(_))),
                    Stmt::If(node) => {
                        walk(&node.body, returned, count, returns)
                            && node.elif_else_clauses.iter().all(|c| walk(&c.body, returned, count, returns))
                    }
                    _ => false,
                }
        })
    }
    let body = without_docstring(body);
    let (mut count, mut returns) = (0, 0);
    walk(body, returned, &mut count, &mut returns) && returns > 0
}

/// The statements of an accessor (see `Interp::is_accessor`): at most six, each binding a name
/// to an attribute path, assigning a default under a simple test, or returning a path; at
/// least one `return` of a path.
fn is_accessor_body(body: &[Stmt]) -> bool {
    /// `a`, `a.b`, `f()`, `f().b.c`: names, attributes and calls without arguments.
    fn path(expr: &Expr) -> bool {
        match expr {
            Expr::Name(_) => true,
            Expr::Attribute(a) => path(&a.value),
            Expr::Call(c) => c.arguments.is_empty() && path(&c.func),
            _ => false,
        }
    }
    fn test(expr: &Expr) -> bool {
        match expr {
            Expr::Compare(c) => path(&c.left) && c.comparators.iter().all(|e| path(e) || e.is_literal_expr()),
            Expr::UnaryOp(u) => test(&u.operand),
            e => path(e),
        }
    }
    fn simple_assign(stmt: &Stmt) -> bool {
        match stmt {
            Stmt::Assign(a) => {
                a.targets.iter().all(|t| matches!(t, Expr::Name(_) | Expr::Attribute(_)))
                    && (path(&a.value) || a.value.is_literal_expr())
            }
            _ => false,
        }
    }
    let body = without_docstring(body);
    /// The name or call a path starts at.
    fn root(expr: &Expr) -> &Expr {
        match expr {
            Expr::Attribute(a) => root(&a.value),
            other => other,
        }
    }
    // Locals bound to a path that starts at a call (`moe = get_flags().moe`).
    let mut from_calls: Vec<&str> = Vec::new();
    let read_through_call = |expr: &Expr, from_calls: &[&str]| match root(expr) {
        Expr::Call(_) => true,
        Expr::Name(n) => from_calls.contains(&n.id.as_str()),
        _ => false,
    };
    let mut returns_path = false;
    let ok = body.len() <= 6
        && body.iter().all(|stmt| match stmt {
            // A module global read directly (`return _forward_context`) may be rebound at run
            // time by code the evaluation does not see run; a setting read through a call is
            // an unknown value in any case.
            Stmt::Return(ret) => {
                let reads = ret.value.as_deref().is_some_and(|v| path(v) && read_through_call(v, &from_calls));
                returns_path |= reads;
                reads
            }
            Stmt::Assign(a) if a.targets.len() == 1 && matches!(&a.targets[0], Expr::Name(_)) && path(&a.value) => {
                if let (Expr::Name(n), true) = (&a.targets[0], read_through_call(&a.value, &from_calls)) {
                    from_calls.push(n.id.as_str());
                }
                true
            }
            Stmt::If(i) => {
                test(&i.test)
                    && i.elif_else_clauses.is_empty()
                    && i.body.iter().all(|s| {
                        simple_assign(s) || matches!(s, Stmt::Return(r) if r.value.as_deref().is_some_and(path))
                    })
            }
            other => simple_assign(other),
        });
    ok && returns_path
}

/// Whether a function's own `return`s (not those of nested functions) give `None` (alone or
/// as an item of a returned tuple), something else, a tuple they build.
#[derive(Clone, Copy, Default)]
struct ReturnKinds {
    none: bool,
    value: bool,
    /// A tuple of two items or more, none of them `None`, is returned.
    tuple: bool,
}

impl<'a> ruff_python_ast::visitor::Visitor<'a> for ReturnKinds {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::Return(ret) => match ret.value.as_deref() {
                Some(Expr::Tuple(t)) if t.elts.len() >= 2 && !t.elts.iter().any(Expr::is_none_literal_expr) => {
                    self.value = true;
                    self.tuple = true;
                }
                None | Some(Expr::NoneLiteral(_)) => self.none = true,
                // `return (None, result)` (beside `return result`, or alone): the caller
                // unpacks the pair and tests the item for `None`, so it counts as both.
                Some(Expr::Tuple(t)) if t.elts.iter().any(Expr::is_none_literal_expr) => {
                    self.none = true;
                    self.value = true;
                }
                Some(_) => self.value = true,
            },
            Stmt::FunctionDef(_) | Stmt::ClassDef(_) => {}
            _ => ruff_python_ast::visitor::walk_stmt(self, stmt),
        }
    }
}

/// Collects the names a function returns and the locals bound to parameters (see
/// `Interp::returns_parameter`; flow-insensitive: a local bound to a parameter anywhere).
/// A name and the attributes read from it (`self.paths`: `self`, `[paths]`).
#[derive(Clone, Debug)]
pub struct ReadPath {
    root: ruff_python_ast::name::Name,
    attrs: Vec<ruff_python_ast::name::Name>,
}

impl ReadPath {
    fn of(expr: &Expr) -> Option<ReadPath> {
        match expr {
            Expr::Name(name) => Some(ReadPath { root: name.id.clone(), attrs: Vec::new() }),
            Expr::Attribute(attr) => {
                let mut path = ReadPath::of(&attr.value)?;
                path.attrs.push(ruff_python_ast::name::Name::new(attr.attr.as_str()));
                Some(path)
            }
            _ => None,
        }
    }
}

/// The paths `return`s look up in (see `Interp::returned_lookups`); nested functions are their
/// own.
struct ReturnedLookups<'p> {
    paths: &'p mut Vec<ReadPath>,
}

impl ReturnedLookups<'_> {
    fn lookups(&mut self, expr: &Expr) {
        match expr {
            Expr::Subscript(sub) => self.paths.extend(ReadPath::of(&sub.value)),
            Expr::If(node) => {
                self.lookups(&node.body);
                self.lookups(&node.orelse);
            }
            Expr::Call(call) => match call.func.as_ref() {
                Expr::Attribute(method) if matches!(method.attr.as_str(), "get" | "setdefault") => {
                    self.paths.extend(ReadPath::of(&method.value));
                }
                _ => {
                    let arguments = call.arguments.args.iter().chain(call.arguments.keywords.iter().map(|k| &k.value));
                    self.paths.extend(arguments.filter_map(ReadPath::of));
                }
            },
            _ => {}
        }
    }
}

impl<'a> ruff_python_ast::visitor::Visitor<'a> for ReturnedLookups<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::Return(ret) => {
                if let Some(value) = &ret.value {
                    self.lookups(value);
                }
            }
            Stmt::FunctionDef(_) | Stmt::ClassDef(_) => {}
            _ => ruff_python_ast::visitor::walk_stmt(self, stmt),
        }
    }
}

/// Finds a sum of two parameters (see `Interp::adds_parameters`).
struct ParameterSum<'n> {
    names: &'n [ruff_python_ast::name::Name],
    found: bool,
}

impl ParameterSum<'_> {
    fn is_parameter(&self, expr: &Expr) -> bool {
        matches!(expr, Expr::Name(name) if self.names.contains(&name.id))
    }
}

impl<'a> ruff_python_ast::visitor::Visitor<'a> for ParameterSum<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if let Stmt::AugAssign(node) = stmt {
            if node.op == ruff_python_ast::Operator::Add
                && self.is_parameter(&node.target)
                && self.is_parameter(&node.value)
            {
                self.found = true;
            }
        }
        ruff_python_ast::visitor::walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::BinOp(node)
                if node.op == ruff_python_ast::Operator::Add
                    && self.is_parameter(&node.left)
                    && self.is_parameter(&node.right) =>
            {
                self.found = true;
            }
            Expr::Call(call) => {
                if let Expr::Attribute(method) = call.func.as_ref() {
                    if matches!(method.attr.as_str(), "add" | "add_")
                        && self.is_parameter(&method.value)
                        && call.arguments.args.first().is_some_and(|a| self.is_parameter(a))
                    {
                        self.found = true;
                    }
                }
            }
            _ => {}
        }
        ruff_python_ast::visitor::walk_expr(self, expr);
    }
}

struct ReturnedParameter<'n> {
    names: &'n mut Vec<ruff_python_ast::name::Name>,
    /// Names returned as they are.
    returns: Vec<ruff_python_ast::name::Name>,
    /// Names returned as items of a tuple (`return hidden_states, stream`).
    in_tuples: Vec<ruff_python_ast::name::Name>,
}

impl ReturnedParameter<'_> {
    fn returned_names(&mut self, expr: &Expr) {
        match expr {
            Expr::Name(name) => self.returns.push(name.id.clone()),
            Expr::If(node) => {
                self.returned_names(&node.body);
                self.returned_names(&node.orelse);
            }
            Expr::Tuple(tuple) => {
                for item in &tuple.elts {
                    if let Expr::Name(name) = item {
                        self.in_tuples.push(name.id.clone());
                    }
                }
            }
            _ => {}
        }
    }
}

impl<'a> ruff_python_ast::visitor::Visitor<'a> for ReturnedParameter<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::Return(ret) => {
                if let Some(value) = &ret.value {
                    self.returned_names(value);
                }
            }
            Stmt::Assign(assign) => {
                if let (Expr::Name(value), [Expr::Name(target)]) = (assign.value.as_ref(), assign.targets.as_slice()) {
                    if self.names.contains(&value.id) && !self.names.contains(&target.id) {
                        self.names.push(target.id.clone());
                    }
                }
            }
            _ => {}
        }
        // Nested definitions run only if called; they are not the body.
        if !matches!(stmt, Stmt::FunctionDef(_) | Stmt::ClassDef(_)) {
            ruff_python_ast::visitor::walk_stmt(self, stmt);
        }
    }
}

/// Finds in-place writes into a function's parameters or locals bound to them (flow-
/// insensitive): an `out=` keyword naming one (or a slice of one), an in-place tensor method
/// (`p.copy_(x)`, `p[a:b].mul_(f)`: a name ending in one underscore, but for constant fills),
/// an item assignment
/// (`p[i] = x`); and the callees one is handed to (`handed_to`, for `writes_into_parameter`).
struct ParameterWrites {
    names: Vec<ruff_python_ast::name::Name>,
    writes: bool,
    handed_to: Vec<Expr>,
}

impl ParameterWrites {
    /// Whether `expr` is one of the names, or an item or slice of one.
    fn names_one(&self, expr: &Expr) -> bool {
        match expr {
            Expr::Name(name) => self.names.contains(&name.id),
            Expr::Subscript(sub) => self.names_one(&sub.value),
            _ => false,
        }
    }
}

impl<'a> ruff_python_ast::visitor::Visitor<'a> for ParameterWrites {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::Assign(assign) => {
                // `out = hidden_states` (or one arm of a conditional) names the same tensor.
                let sources: Vec<&Expr> = match assign.value.as_ref() {
                    Expr::If(node) => vec![node.body.as_ref(), node.orelse.as_ref()],
                    other => vec![other],
                };
                if sources.iter().any(|s| matches!(s, Expr::Name(n) if self.names.contains(&n.id))) {
                    for target in &assign.targets {
                        if let Expr::Name(target) = target {
                            if !self.names.contains(&target.id) {
                                self.names.push(target.id.clone());
                            }
                        }
                    }
                }
                if assign.targets.iter().any(|t| matches!(t, Expr::Subscript(sub) if self.names_one(&sub.value))) {
                    self.writes = true;
                }
            }
            Stmt::FunctionDef(_) | Stmt::ClassDef(_) => return,
            _ => {}
        }
        ruff_python_ast::visitor::walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Call(call) = expr {
            if call
                .arguments
                .keywords
                .iter()
                .any(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == "out") && self.names_one(&k.value))
            {
                self.writes = true;
            }
            if let Expr::Attribute(method) = call.func.as_ref() {
                let name = method.attr.as_str();
                // (Filling with a constant, `fill_(0)`, `zero_()`, writes no data of the caller.)
                let constant_fill = matches!(name, "fill_" | "zero_" | "fill_diagonal_");
                if name.ends_with('_') && !name.ends_with("__") && !constant_fill && self.names_one(&method.value) {
                    self.writes = true;
                }
            }
            if call
                .arguments
                .args
                .iter()
                .chain(call.arguments.keywords.iter().map(|k| &k.value))
                .any(|a| self.names_one(a))
            {
                self.handed_to.push(call.func.as_ref().clone());
            }
        }
        ruff_python_ast::visitor::walk_expr(self, expr);
    }
}

/// Finds a `nonlocal` declaration in a function's own body (see
/// `Interp::rebinds_enclosing_names`).
struct OwnNonlocal {
    found: bool,
}

impl<'a> ruff_python_ast::visitor::Visitor<'a> for OwnNonlocal {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::Nonlocal(_) => self.found = true,
            Stmt::FunctionDef(_) | Stmt::ClassDef(_) => {}
            _ => ruff_python_ast::visitor::walk_stmt(self, stmt),
        }
    }
}

/// Finds a nested function declaring one of the enclosing function's parameters `nonlocal`
/// (see `Interp::returns_parameter`).
struct NonlocalParameters<'n> {
    params: &'n [ruff_python_ast::name::Name],
    found: bool,
    /// How many nested definitions enclose the statement visited.
    depth: usize,
}

impl<'a> ruff_python_ast::visitor::Visitor<'a> for NonlocalParameters<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::Nonlocal(node) if self.depth > 0 => {
                self.found |= node.names.iter().any(|n| self.params.iter().any(|p| p.as_str() == n.as_str()));
            }
            Stmt::FunctionDef(_) => {
                self.depth += 1;
                ruff_python_ast::visitor::walk_stmt(self, stmt);
                self.depth -= 1;
            }
            Stmt::ClassDef(_) => {}
            _ => ruff_python_ast::visitor::walk_stmt(self, stmt),
        }
    }
}

/// Collects reads of a parameter's attributes (see `Interp::parameter_attribute_reads`).
struct ParameterAttributeReads<'p> {
    params: &'p [ruff_python_ast::name::Name],
    reads: Vec<(ruff_python_ast::name::Name, String)>,
}

impl<'a> ruff_python_ast::visitor::Visitor<'a> for ParameterAttributeReads<'_> {
    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Attribute(attr) = expr {
            if let Expr::Name(name) = attr.value.as_ref() {
                if self.params.contains(&name.id) {
                    self.reads.push((name.id.clone(), attr.attr.to_string()));
                }
            }
        }
        ruff_python_ast::visitor::walk_expr(self, expr);
    }
}

/// Finds a call for which `test` holds in a function's body, outside nested definitions
/// (`setattr(self, ...)`, `getattr(self._inner, name)(...)`).
struct FindCall<F: Fn(&ast::ExprCall) -> bool> {
    test: F,
    found: bool,
}

impl<'a, F: Fn(&ast::ExprCall) -> bool> ruff_python_ast::visitor::Visitor<'a> for FindCall<F> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if !matches!(stmt, Stmt::FunctionDef(_) | Stmt::ClassDef(_)) {
            ruff_python_ast::visitor::walk_stmt(self, stmt);
        }
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Call(call) = expr {
            if (self.test)(call) {
                self.found = true;
            }
        }
        ruff_python_ast::visitor::walk_expr(self, expr);
    }
}

/// Finds a read of a name, or a call that could read any name (`locals()`, `vars()`,
/// `eval`, `exec`), anywhere in a function's body, nested definitions included.
struct FindRead<'n> {
    name: &'n ruff_python_ast::name::Name,
    found: bool,
}

impl<'a> ruff_python_ast::visitor::Visitor<'a> for FindRead<'_> {
    fn visit_expr(&mut self, expr: &'a Expr) {
        if self.found {
            return;
        }
        match expr {
            Expr::Name(n) if n.id == *self.name && !matches!(n.ctx, ast::ExprContext::Store) => self.found = true,
            Expr::Call(call) if ["locals", "vars", "eval", "exec"].iter().any(|f| is_name(Some(&call.func), f)) => {
                self.found = true
            }
            _ => ruff_python_ast::visitor::walk_expr(self, expr),
        }
    }
}

/// Whether `def`'s own body has a call for which `test` holds.
fn body_calls(def: &ast::StmtFunctionDef, test: impl Fn(&ast::ExprCall) -> bool) -> bool {
    let mut finder = FindCall { test, found: false };
    for stmt in &def.body {
        ruff_python_ast::visitor::Visitor::visit_stmt(&mut finder, stmt);
    }
    finder.found
}

/// Whether `expr` is the name `name`.
fn is_name(expr: Option<&Expr>, name: &str) -> bool {
    matches!(expr, Some(Expr::Name(n)) if n.id.as_str() == name)
}

/// Finds a change to a container a parameter holds (see `Interp::mutates_parameter`).
struct ParameterMutation<'p> {
    params: &'p [ruff_python_ast::name::Name],
    found: bool,
}

const MUTATING_METHODS: &[&str] =
    &["append", "extend", "insert", "pop", "remove", "sort", "reverse", "clear", "update", "setdefault"];

impl ParameterMutation<'_> {
    fn is_param(&self, expr: &Expr) -> bool {
        matches!(expr, Expr::Name(name) if self.params.contains(&name.id))
    }
}

impl<'a> ruff_python_ast::visitor::Visitor<'a> for ParameterMutation<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        let targets: &[Expr] = match stmt {
            Stmt::Assign(assign) => &assign.targets,
            Stmt::AugAssign(assign) => std::slice::from_ref(assign.target.as_ref()),
            _ => &[],
        };
        if targets.iter().any(|t| matches!(t, Expr::Subscript(item) if self.is_param(&item.value))) {
            self.found = true;
        }
        // Nested definitions run only if called; they are not the body.
        if !matches!(stmt, Stmt::FunctionDef(_) | Stmt::ClassDef(_)) {
            ruff_python_ast::visitor::walk_stmt(self, stmt);
        }
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Call(call) = expr {
            if let Expr::Attribute(method) = call.func.as_ref() {
                if MUTATING_METHODS.contains(&method.attr.as_str()) && self.is_param(&method.value) {
                    self.found = true;
                }
            }
        }
        ruff_python_ast::visitor::walk_expr(self, expr);
    }
}

/// A function declared `-> bool` that returns one fact of a parameter (`def is_supported(cls,
/// config) -> bool: return config.fast_ok`): which fact depends on the class it is called
/// on, so named by the call, two classes' answers would be one name unrelated to either fact.
/// (A fact of no parameter, `def is_cuda() -> bool: return torch.version.cuda`, stays named.)
fn is_declared_fact_of_parameter(def: &ast::StmtFunctionDef) -> bool {
    let [Stmt::Return(ast::StmtReturn { value: Some(value), .. })] = without_docstring(&def.body) else {
        return false;
    };
    let params: Vec<&str> = def.parameters.iter_non_variadic_params().map(|p| p.parameter.name.as_str()).collect();
    declares_bool(def) && is_fact(value, true) && mentions_any(value, &params)
}

/// Whether `def` is annotated `-> bool`.
fn declares_bool(def: &ast::StmtFunctionDef) -> bool {
    matches!(def.returns.as_deref(), Some(Expr::Name(n)) if n.id.as_str() == "bool")
}

/// For a body of `if`s, `return`s and imports whose every `if` tests what `fixed` accepts:
/// whether it has an `if` (`None` for any other body).
fn decided_body(body: &[Stmt], fixed: &dyn Fn(&Expr) -> bool) -> Option<bool> {
    let mut tests = false;
    for stmt in body {
        match stmt {
            Stmt::Return(_) | Stmt::Import(_) | Stmt::ImportFrom(_) | Stmt::Pass(_) => {}
            Stmt::If(branch) => {
                let clauses_decided = branch.elif_else_clauses.iter().all(|clause| {
                    clause.test.as_ref().is_none_or(fixed) && decided_body(&clause.body, fixed).is_some()
                });
                if !fixed(&branch.test) || decided_body(&branch.body, fixed).is_none() || !clauses_decided {
                    return None;
                }
                tests = true;
            }
            _ => return None,
        }
    }
    Some(tests)
}

/// A body without its leading docstring.
fn without_docstring(body: &[Stmt]) -> &[Stmt] {
    match body {
        [Stmt::Expr(doc), rest @ ..] if doc.value.is_string_literal_expr() => rest,
        _ => body,
    }
}

/// Whether `expr` reads one of `names`.
fn mentions_any(expr: &Expr, names: &[&str]) -> bool {
    struct Finder<'n> {
        names: &'n [&'n str],
        found: bool,
    }
    impl<'a> ruff_python_ast::visitor::Visitor<'a> for Finder<'_> {
        fn visit_expr(&mut self, expr: &'a Expr) {
            if let Expr::Name(n) = expr {
                self.found |= self.names.contains(&n.id.as_str());
            }
            ruff_python_ast::visitor::walk_expr(self, expr);
        }
    }
    let mut finder = Finder { names, found: false };
    ruff_python_ast::visitor::Visitor::visit_expr(&mut finder, expr);
    finder.found
}

/// A body that is one `return` (after local names for facts) of `and`s and `or`s (or their
/// negation) of facts that may call without arguments (`return not get_flags().disable_gather and
/// get_backend().is_cutlass() and is_dp_attention_enabled()`). The flag is the facts it
/// combines: named by the call, it would be unrelated to them (the backend it tests, chosen
/// elsewhere, could pair with it either way).
fn is_combined_predicate(body: &[Stmt]) -> bool {
    fn combination(expr: &Expr) -> bool {
        match expr {
            Expr::BoolOp(b) => b.values.iter().all(|v| is_fact(v, true)),
            Expr::UnaryOp(u) if u.op == ast::UnaryOp::Not => combination(&u.operand),
            _ => false,
        }
    }
    // Local names for facts first (`b = get_moe_a2a_backend()`), as decisions have.
    match without_docstring(body) {
        [names @ .., Stmt::Return(ret)] => {
            names.iter().all(|stmt| {
                matches!(stmt, Stmt::Assign(assign)
                    if matches!(assign.targets.as_slice(), [Expr::Name(_)]) && is_fact(&assign.value, true))
            }) && ret.value.as_deref().is_some_and(combination)
        }
        _ => false,
    }
}

/// A small function declared `-> bool` made only of `if`s, `return`s, imports and local names for
/// facts: literals, comparisons, attributes, and calls without arguments (`if self.kernel is
/// None: return self.experts_cls.is_monolithic()`; `method = config.routing_method_type`;
/// `return False`). Such a flag decides which path runs later: named by the call, it would be
/// unrelated to the facts it tests.
fn is_boolean_decision(def: &ast::StmtFunctionDef) -> bool {
    const MAX_STATEMENTS: usize = 24;
    if !declares_bool(def) {
        return false;
    }
    let fact = |e: &Expr| is_fact(e, true);
    // One `return` is a predicate or an accessor (see `is_simple_predicate`); a decision tests.
    if !def.body.iter().any(|stmt| matches!(stmt, Stmt::If(_))) {
        return false;
    }
    fn suite(body: &[Stmt], count: &mut usize, fact: &dyn Fn(&Expr) -> bool) -> bool {
        body.iter().all(|stmt| {
            *count += 1;
            *count <= MAX_STATEMENTS
                && match stmt {
                    Stmt::Return(ret) => ret.value.as_deref().is_some_and(fact),
                    Stmt::If(node) => {
                        fact(&node.test)
                            && suite(&node.body, count, fact)
                            && node
                                .elif_else_clauses
                                .iter()
                                .all(|clause| clause.test.as_ref().is_none_or(fact) && suite(&clause.body, count, fact))
                    }
                    Stmt::Expr(doc) => doc.value.is_string_literal_expr(),
                    Stmt::Assign(assign) => matches!(assign.targets.as_slice(), [Expr::Name(_)]) && fact(&assign.value),
                    // A lazy import binds a name and decides nothing (`from vllm.platforms.rocm
                    // import on_mi3xx` before `return on_mi3xx()`).
                    Stmt::Import(_) | Stmt::ImportFrom(_) => true,
                    _ => false,
                }
        })
    }
    suite(&def.body, &mut 0, &fact)
}

/// Whether `expr` tests facts only: comparisons and boolean combinations of names, attributes
/// and literals; with `calls`, also calls without arguments (`self.kernel_cls.is_monolithic()`)
/// and `getattr`/`hasattr`/`isinstance` of facts.
fn is_fact(expr: &Expr, calls: bool) -> bool {
    let fact = |e: &Expr| is_fact(e, calls);
    match expr {
        Expr::Compare(c) => fact(&c.left) && c.comparators.iter().all(fact),
        Expr::BoolOp(b) => b.values.iter().all(fact),
        Expr::UnaryOp(u) => fact(&u.operand),
        // (`backend in [A, B]` is as simple as `in (A, B)`.)
        Expr::Tuple(t) => t.elts.iter().all(fact),
        Expr::List(l) => l.elts.iter().all(fact),
        Expr::Name(_) => true,
        Expr::Attribute(a) => fact(&a.value),
        Expr::Call(call) if calls => {
            call.arguments.keywords.is_empty()
                && call.arguments.args.iter().all(fact)
                && (call.arguments.args.is_empty() || reads_a_fact_by_name(&call.func))
                && fact(&call.func)
        }
        e => e.is_literal_expr(),
    }
}

/// `getattr`, `hasattr`, `isinstance`: builtins that read a fact of an object.
fn reads_a_fact_by_name(func: &Expr) -> bool {
    matches!(func, Expr::Name(n) if matches!(n.id.as_str(), "getattr" | "hasattr" | "isinstance"))
}

/// A body that is one `return` of a comparison or a boolean combination of comparisons over
/// names, attributes and constants (no calls), of a fact read by `getattr`/`hasattr`/
/// `isinstance`, or of `True` or `False`.
fn is_simple_predicate(body: &[Stmt]) -> bool {
    let simple = |e: &Expr| is_fact(e, false);
    let body = without_docstring(body);
    // `return getattr(layer, "use_intel_amx_backend", False)`: a fact of an object, read.
    let reads_a_fact = |v: &Expr| match v {
        Expr::Call(call) => {
            reads_a_fact_by_name(&call.func)
                && call.arguments.keywords.is_empty()
                && call.arguments.args.iter().all(simple)
        }
        _ => false,
    };
    match body {
        // (`return True`: a constant flag of a class, `def is_monolithic(): return True`.)
        [Stmt::Return(ret)] => ret.value.as_deref().is_some_and(|v| {
            (matches!(v, Expr::Compare(_) | Expr::BoolOp(_) | Expr::UnaryOp(_)) && simple(v))
                || reads_a_fact(v)
                || v.is_boolean_literal_expr()
        }),
        _ => false,
    }
}

/// Whether a return annotation declares a tuple (`-> tuple[torch.Tensor, torch.Tensor]`, a
/// union of tuples, `Tuple[...]`): summarized, each item of what the call gives would be the
/// product of all it was handed.
fn declares_tuple(returns: Option<&Expr>) -> bool {
    match returns {
        Some(Expr::Subscript(sub)) => crate::syntax::dotted_name(&sub.value)
            .is_some_and(|head| matches!(head.rsplit('.').next(), Some("tuple" | "Tuple"))),
        Some(Expr::BinOp(op)) => declares_tuple(Some(&op.left)) || declares_tuple(Some(&op.right)),
        _ => false,
    }
}
