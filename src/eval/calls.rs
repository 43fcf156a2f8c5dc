//! Calls: functions of the tree (arguments bound, body evaluated), constructors, module calls
//! (`module(x)` runs `forward`), methods of unknown receivers (one alternative per
//! implementation in the tree), builtins, and callees outside the tree.

use std::rc::Rc;

use ruff_python_ast::name::Name;
use ruff_python_ast::{self as ast, Expr, Stmt};

use super::cond::{AtomKey, Cond};
use super::interp::{ArgSlot, Frame, Interp, MAX_CALL_DEPTH, MAX_IMPLEMENTATIONS, ObjKind};

/// A call whose result has more alternatives than this, none of them structural, returns one
/// symbol instead.
const COLLAPSE_RESULTS: usize = 3;
use super::trace::{HopKind, Normalizer};
use super::value::*;
use crate::index::{ClassId, FuncId, ParamKind};
use crate::syntax::{Constant, stmt_with_range};

/// One argument as evaluated.
#[derive(Clone, Debug)]
pub struct Arg {
    pub value: G,
    pub loc: Option<Loc>,
}

/// The field holding the entries of an instance of a `dict` subclass of the tree.
pub const DICT_CONTENTS: &str = "__dict_contents__";

/// Whether an outside base class is `dict` or one of its standard subclasses.
pub fn is_dict_base(path: &str) -> bool {
    matches!(path.rsplit('.').next(), Some("dict" | "Dict" | "OrderedDict" | "defaultdict" | "UserDict"))
}

/// A call skipped as not worth evaluating, kept to evaluate later: the function, its receiver
/// and arguments, and the (absolute) condition it was made under.
pub type Skipped = (FuncId, Option<Value>, Args, Cond);

/// A constructor skipped on an object (see `Interp::skipped_call`), with the object's fields
/// as they were when it was skipped: what was written into the object after that point (the
/// rest of a subclass's constructor after `super().__init__()`, or code setting an attribute
/// of the built object) comes after it in program order, and wins over what it writes when it
/// finally runs.
pub struct SkippedConstructor {
    pub call: Skipped,
    pub fields_then: rustc_hash::FxHashMap<ruff_python_ast::name::Name, G>,
}

/// A call's arguments as evaluated.
#[derive(Clone, Debug, Default)]
pub struct Args {
    pub positional: Vec<Arg>,
    /// A `*expr` whose items are not known: the positionals after it are not known either
    /// (unless `bind_params` can place them).
    pub unknown_star: bool,
    /// Where such stars were: the index in `positional` of the argument after each.
    pub stars_at: Vec<usize>,
    pub keywords: Vec<(Name, Arg)>,
    /// `**expr` values (dict objects, or unknown).
    pub splats: Vec<G>,
    /// The data in `*expr` values whose items are not known (`f(*inner_state)`, the state the
    /// summary of a call not evaluated): a call not evaluated is handed that data.
    pub star_data: Vec<G>,
}

impl Args {
    pub fn all_values(&self) -> impl Iterator<Item = &G> {
        self.positional.iter().map(|a| &a.value).chain(self.keywords.iter().map(|(_, a)| &a.value))
    }

    /// Whether some argument may be data (a number or tensor).
    /// Whether some argument is the traced value (or a scalar derived from it).
    pub fn carry_traced(&self) -> bool {
        self.all_values().any(|g| g.iter().any(|(_, v)| matches!(v, Value::Num(n) if !n.tensor && n.carries_traced())))
    }

    /// The argument passed as keyword `name`, or else at `position` (how a kernel model names
    /// a parameter).
    pub fn named_or_at(&self, name: &str, position: Option<usize>) -> Option<&Arg> {
        self.keywords
            .iter()
            .find(|(k, _)| k.as_str() == name)
            .map(|(_, a)| a)
            .or_else(|| position.and_then(|p| self.positional.get(p)))
    }

    /// No arguments at all (`value.method()`).
    pub fn is_empty(&self) -> bool {
        self.positional.is_empty() && !self.unknown_star && self.keywords.is_empty() && self.splats.is_empty()
    }

    pub fn has_data(&self) -> bool {
        self.all_values().any(|g| g.iter().any(|(_, v)| matches!(v, Value::Num(_))))
    }
}

impl Interp<'_, '_> {
    pub fn eval_call(&mut self, frame: &mut Frame, call: &ast::ExprCall, pc: &Cond) -> G {
        let loc = self.loc(frame.file, call);
        // `super()` needs the frame: the class of the method and its `self`.
        if let Expr::Name(name) = call.func.as_ref() {
            if name.id.as_str() == "super" && frame.locals.get("super").is_none() {
                return self.eval_super(frame, call, pc, loc);
            }
        }
        // `impl.combine_b(*inner)` where `inner` is one tuple or another as the configuration
        // decides (two implementations' intermediate states): one call per alternative, each
        // with its own items. (Merged, the items of neither were known.)
        if let Some((name, alternatives)) = self.splatted_alternatives(frame, call) {
            let saved = frame.locals.get(&name).cloned();
            let mut out = G::empty();
            for (c, v) in alternatives {
                let under = pc.and(&c);
                if !self.conds.feasible(&under) {
                    continue;
                }
                frame.locals.insert(name.clone(), G::under(under, v));
                let result = self.eval_call(frame, call, &under);
                out.extend(&self.conds, result);
            }
            if let Some(saved) = saved {
                frame.locals.insert(name, saved);
            }
            return out;
        }
        let callee = self.eval(frame, &call.func, pc);
        let args = self.eval_args(frame, &call.arguments, pc);
        self.refresh_closures(frame, callee.iter().chain(args.all_values().flat_map(|g| g.iter())));
        let stored = self.device_store_value(call, &callee, &args);
        self.out_writes.clear();
        self.captured_writes.clear();
        let operator_caller = self.operator_caller(frame, &callee);
        if let Some(caller) = operator_caller.clone() {
            self.operator_callers.push((self.stack.len() + 1, caller));
        }
        let mut result = self.call(&callee, args, pc, loc);
        if let Expr::Attribute(attr) = call.func.as_ref() {
            if is_shared_expert(attr.attr.as_str()) {
                result = self.map(&result, |_, v| shared_output(v));
            }
        }
        if operator_caller.is_some() {
            self.operator_callers.pop();
        }
        self.write_back_arguments(frame, call, pc);
        self.write_back_captured(frame, pc);
        if let Some((pointer, value)) = stored {
            self.device_store(frame, pointer, value, pc);
        }

        // In-place tensor methods (`x.mul_(v)`, `shared.add_(routed, alpha=v)`) update `x`.
        if let Expr::Attribute(attr) = call.func.as_ref() {
            if is_in_place_method(attr.attr.as_str()) && is_assignable(&attr.value) {
                // (The receiver of a chained call, `out.mul_(v).add_(y)`, is `out` as the inner
                // call left it: evaluating the inner call again would apply it again.)
                let receiver = self.eval(frame, written_base(&attr.value), pc);
                let tensor = |v: &Value| {
                    matches!(v, Value::Num(_))
                        || matches!(v, Value::Sym(_)) && super::exprs::SCALING_METHODS.contains(&attr.attr.as_str())
                };
                if receiver.iter().any(|(_, v)| tensor(v)) {
                    let mut updated = G::empty();
                    for (c, v) in result.0.clone() {
                        if matches!(v, Value::Num(_)) {
                            updated.push(&self.conds, c, v);
                        }
                    }
                    if !updated.is_empty() {
                        let covered = updated.coverage(&self.conds);
                        updated.extend(&self.conds, receiver.restrict(&self.conds, &covered.not()));
                        self.assign_in_place(frame, &attr.value, updated, pc);
                    }
                }
            }
        }
        result
    }

    /// A local starred into the call (`f(*inner)`) that holds a tuple or something else as
    /// the configuration decides, with those alternatives (a few at most).
    fn splatted_alternatives(&self, frame: &Frame, call: &ast::ExprCall) -> Option<(Name, Vec<(Cond, Value)>)> {
        const MAX_SPLIT: usize = 8;
        call.arguments.args.iter().find_map(|arg| {
            let Expr::Starred(star) = arg else { return None };
            let Expr::Name(name) = star.value.as_ref() else { return None };
            let value = frame.locals.get(&name.id)?;
            let alternatives: Vec<(Cond, Value)> = value.iter().map(|(c, v)| (*c, v.clone())).collect();
            let tuple = alternatives.iter().any(|(_, v)| matches!(v, Value::Tuple(_)));
            (alternatives.len() > 1 && alternatives.len() <= MAX_SPLIT && tuple)
                .then(|| (name.id.clone(), alternatives))
        })
    }

    /// What the call just made wrote into tensors it was handed (`Interp::out_writes`) lands in
    /// the caller's argument expressions.
    fn write_back_arguments(&mut self, frame: &mut Frame, call: &ast::ExprCall, pc: &Cond) {
        if self.out_writes.is_empty() {
            return;
        }
        let writes = std::mem::take(&mut self.out_writes);
        let arguments = call.arguments.args.iter().chain(call.arguments.keywords.iter().map(|k| &k.value));
        for expr in arguments {
            if matches!(expr, Expr::Starred(_)) {
                continue;
            }
            let here = self.loc(frame.file, expr);
            for (loc, value, cond) in &writes {
                if *loc == here {
                    let under = pc.and(cond);
                    if self.conds.feasible(&under) {
                        self.assign_in_place(frame, expr, value.clone(), &under);
                    }
                }
            }
        }
    }

    /// The names a function nested in `frame`'s function sees: the enclosing function's locals
    /// and what it sees itself.
    pub fn enclosing_names(frame: &Frame) -> rustc_hash::FxHashMap<Name, G> {
        let mut names = frame.captured.as_deref().cloned().unwrap_or_default();
        names.extend(frame.locals.iter().map(|(k, v)| (k.clone(), v.clone())));
        names
    }

    /// Python reads a closure's variables when it runs, not when it is defined: a nested function
    /// called (or handed on) by its enclosing function sees that function's locals as they are
    /// now, including those bound after the `def`.
    fn refresh_closures<'v>(&mut self, frame: &Frame, values: impl Iterator<Item = &'v (Cond, Value)>) {
        let Some(enclosing) = frame.func else { return };
        let mut nested: Vec<FuncId> = values
            .filter_map(|(_, v)| match v {
                Value::Func(f) if self.closures.contains_key(f) => Some(*f),
                _ => None,
            })
            .filter(|f| matches!(self.index.function(*f).parent, crate::index::facts::Parent::Function(p) if p == enclosing))
            .collect();
        nested.dedup();
        if nested.is_empty() {
            return;
        }
        let names = Rc::new(Self::enclosing_names(frame));
        for func in nested {
            self.closures.insert(func, names.clone());
        }
    }

    /// What the nested function just called wrote into its enclosing function's tensors lands
    /// in this frame's locals of those names (the enclosing function is the usual caller).
    fn write_back_captured(&mut self, frame: &mut Frame, pc: &Cond) {
        if self.captured_writes.is_empty() {
            return;
        }
        for (name, value, cond) in std::mem::take(&mut self.captured_writes) {
            let known =
                frame.locals.contains_key(&name) || frame.captured.as_ref().is_some_and(|c| c.contains_key(&name));
            let under = pc.and(&cond);
            if known && self.conds.feasible(&under) {
                self.write_local_in_place(frame, &name, value, &under, &mut Vec::new());
            }
        }
    }

    /// `tl.store(out_ptr + offsets, value)` (in a device kernel): the pointer expression and
    /// the value stored.
    fn device_store_value<'e>(&self, call: &'e ast::ExprCall, callee: &G, args: &Args) -> Option<(&'e Expr, G)> {
        let is_store = callee.iter().any(|(_, v)| {
            matches!(v, Value::External(path)
                if (path.starts_with("triton.language.") || path.starts_with("tl."))
                    && matches!(path.rsplit('.').next(), Some("store" | "atomic_add" | "atomic_xchg")))
        });
        if !is_store {
            return None;
        }
        let keyword = |name: &str| {
            call.arguments.keywords.iter().position(|k| k.arg.as_ref().is_some_and(|a| a.id.as_str() == name))
        };
        let pointer = match call.arguments.args.first() {
            Some(p) => p,
            None => &call.arguments.keywords[keyword("pointer")?].value,
        };
        let value = match args.positional.get(1) {
            Some(arg) => arg.value.clone(),
            None => {
                let name = call.arguments.keywords[keyword("value")?].arg.clone()?;
                args.keywords.iter().find(|(k, _)| *k == name.id)?.1.value.clone()
            }
        };
        Some((pointer, value))
    }

    /// The stored value lands in the tensor the pointer's base parameter was handed: the
    /// pointer is that parameter plus offsets.
    fn device_store(&mut self, frame: &mut Frame, pointer: &Expr, value: G, pc: &Cond) {
        // Through a pointer local (`c_ptrs = c_ptr + offsets`): the parameter it points into.
        let handed = |name: &Name| frame.aliases.contains_key(name);
        if let Some(base) = frame.kernel.as_deref().and_then(|k| super::device::pointer_base(k, pointer, handed)) {
            if value.iter().any(|(_, v)| matches!(v, Value::Num(_))) {
                self.write_local_in_place(frame, &base, value, pc, &mut Vec::new());
            }
            return;
        }
        let mut base = pointer;
        while let Expr::BinOp(op) = base {
            base = if matches!(op.left.as_ref(), Expr::Name(_) | Expr::BinOp(_)) { &op.left } else { &op.right };
        }
        let Expr::Name(name) = base else { return };
        if frame.aliases.contains_key(&name.id) && value.iter().any(|(_, v)| matches!(v, Value::Num(_))) {
            self.assign_in_place(frame, base, value, pc);
        }
    }

    fn eval_super(&mut self, frame: &mut Frame, call: &ast::ExprCall, pc: &Cond, loc: Loc) -> G {
        let args = &call.arguments.args;
        if args.len() == 2 {
            let class = self.eval(frame, &args[0], pc);
            let receiver = self.eval(frame, &args[1], pc);
            if let (Some(Value::Class(c)), Some(r)) = (class.single(), receiver.single()) {
                return G::under(pc.clone(), Value::Super(*c, Box::new(r.clone())));
            }
        }
        let Some(func) = frame.func else { return G::under(pc.clone(), Value::unknown("super() outside a method")) };
        let mut owner = self.index.function(func).class();
        let mut enclosing = func;
        while owner.is_none() {
            match self.index.function(enclosing).parent {
                crate::index::Parent::Function(outer) => {
                    enclosing = outer;
                    owner = self.index.function(outer).class();
                }
                _ => break,
            }
        }
        let Some(class) = owner else { return G::under(pc.clone(), Value::unknown("super() outside a method")) };
        let first = self.index.function(enclosing).params.first().map(|p| p.name.clone());
        let receiver = match first.and_then(|n| frame.locals.get(&n).cloned()) {
            Some(g) => g,
            None => return G::under(pc.clone(), Value::unknown("super() without self")),
        };
        let _ = loc;
        self.map(&receiver.restrict(&self.conds, pc), |_, r| Value::Super(class, Box::new(r)))
    }

    /// The data a starred value of unknown items holds: the value itself where it is data, the
    /// data items of a tuple it may be, under that alternative's condition. (An item's own
    /// conditions are relative to the call that made the tuple, which need not be this one's:
    /// restricted here, they could leave nothing.)
    fn starred_data(&self, value: &G) -> G {
        let mut data = G::empty();
        for (c, v) in value.iter() {
            match v {
                Value::Num(_) => data.push(&self.conds, *c, v.clone()),
                Value::Tuple(items) => {
                    for item in items.iter() {
                        for (_, iv) in item.iter() {
                            if matches!(iv, Value::Num(_)) {
                                data.push(&self.conds, *c, iv.clone());
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        data
    }

    pub fn eval_args(&mut self, frame: &mut Frame, arguments: &ast::Arguments, pc: &Cond) -> Args {
        let mut args = Args::default();
        for arg in arguments.args.iter() {
            let loc = Some(self.loc(frame.file, arg));
            if let Expr::Starred(star) = arg {
                let value = self.eval(frame, &star.value, pc);
                match value.single() {
                    Some(Value::Tuple(items)) => {
                        args.positional.extend(items.iter().map(|g| Arg { value: g.clone(), loc }))
                    }
                    Some(Value::Obj(id)) if matches!(self.heap[*id as usize].kind, ObjKind::List(_)) => {
                        let ObjKind::List(items) = self.read_object(*id).kind.clone() else { unreachable!() };
                        args.positional.extend(items.into_iter().map(|g| Arg { value: g, loc }));
                    }
                    _ => {
                        args.unknown_star = true;
                        args.stars_at.push(args.positional.len());
                        let data = self.starred_data(&value);
                        if !data.is_empty() {
                            args.star_data.push(data);
                        }
                    }
                }
                continue;
            }
            let value = self.eval(frame, arg, pc);
            args.positional.push(Arg { value, loc });
        }
        for keyword in arguments.keywords.iter() {
            let mut value = self.eval(frame, &keyword.value, pc);
            // `fused_moe(..., routed_scaling_factor=self.route_scale)`: an unknown value passed
            // under the traced name is the traced value read under another key, as a store
            // under that name is (`Interp::named_origin`).
            if keyword.arg.as_ref().is_some_and(|name| *name.id == *self.traced.name) {
                value = self.named_origin(value, self.loc(frame.file, &keyword.value));
            }
            match &keyword.arg {
                Some(name) => args
                    .keywords
                    .push((name.id.clone(), Arg { value, loc: Some(self.loc(frame.file, &keyword.value)) })),
                None => args.splats.push(value),
            }
        }
        // Which arguments are output buffers in this frame: the parameters they bind become
        // buffers of the callee.
        self.buffer_args.clear();
        let named = arguments.args.iter().chain(arguments.keywords.iter().map(|k| &k.value));
        for expr in named {
            if super::stmts::writable_buffer(frame, expr) {
                self.buffer_args.insert(self.loc(frame.file, expr));
            }
        }
        self.note_shared_args(frame, arguments);
        args
    }

    /// Which arguments are one tensor in the caller (`Interp::shared_args`).
    fn note_shared_args(&mut self, frame: &Frame, arguments: &ast::Arguments) {
        self.shared_args.clear();
        let named = arguments.args.iter().chain(arguments.keywords.iter().map(|k| &k.value));
        let tensors: Vec<(Loc, &Name)> = named
            .filter_map(|expr| Some((self.loc(frame.file, expr), super::exprs::viewed_local(frame, expr)?)))
            .collect();
        for (i, (first_loc, first)) in tensors.iter().enumerate() {
            for (second_loc, second) in &tensors[i + 1..] {
                let mut shared = if first == second { self.conds.truth() } else { self.conds.falsity() };
                for (a, b, c) in &frame.shares {
                    if (a == *first && b == *second) || (a == *second && b == *first) {
                        shared = shared.or(c);
                    }
                }
                if !shared.is_false() {
                    self.shared_args.push((*first_loc, *second_loc, shared));
                }
            }
        }
    }

    /// Calls every alternative of `callee`.
    pub fn call(&mut self, callee: &G, args: Args, pc: &Cond, loc: Loc) -> G {
        let mut out = G::empty();
        // An optional module (`SharedExperts(config) if n_shared else None`) called where it is
        // `None` raises `TypeError` (see `getattr_g` for why only an optional one).
        let optional = callee.iter().any(|(_, v)| matches!(v, Value::Const(Constant::None)))
            && callee.iter().any(|(_, v)| matches!(v, Value::Obj(_) | Value::ExternalObj(_)));
        // A method of an object that is one of several (a quantization method chosen by the
        // configuration), or a function that is one of several (a kernel looked up in a table
        // by a configured key), whose parameters cannot take these arguments, is not what is
        // called where this call runs: Python raises `TypeError` there. Only among alternatives
        // some of which can take them: a call of one known function, or of several none of which
        // can take it, is evaluated as it is. (An unknown receiver's implementations are each
        // judged on their own, `dispatch_unknown`: none taking the call is a crash of the code,
        // as SGLang 0.5.4.post3's mooncake `combine_b(*inner_state)`, four items for three
        // parameters.)
        let refused: Vec<bool> = callee
            .iter()
            .map(|(_, v)| match v {
                Value::Bound(f, receiver) if callee.0.len() > 1 => {
                    matches!(**receiver, Value::Obj(_)) && cannot_take(self.index.function(*f), &args)
                }
                Value::Func(f) if callee.0.len() > 1 => cannot_take(self.index.function(*f), &args),
                _ => false,
            })
            .collect();
        let some_taken = callee
            .iter()
            .zip(&refused)
            .any(|((_, v), refused)| !refused && matches!(v, Value::Bound(..) | Value::Func(_)));
        for (i, (c, v)) in callee.0.clone().into_iter().enumerate() {
            let c = c.and(pc);
            if !self.conds.feasible(&c) {
                continue;
            }
            if (optional && matches!(v, Value::Const(Constant::None))) || (some_taken && refused[i]) {
                self.raise_of(Some("TypeError"), &c, loc);
                continue;
            }
            let result = self.call_value(&v, args.clone(), &c, loc);
            out.extend(&self.conds, result);
        }
        self.bounded(out, Some(loc), || "a call returned more alternatives than kept".to_string())
    }

    /// `value.method()` named by an `--assume` (`'get_backend().is_fused()=false'`) where the
    /// method ran (an enum's predicate comparing the value with members): its result is no
    /// atom the assumption could fix, so the assumption constrains the atoms about the value
    /// the result was computed from. Atoms about anything else are quantified away: the
    /// constraint says only what the value cannot be.
    fn constrain_by_assumed_call(&mut self, s: SymId, method: FuncId, result: &G, loc: Loc) {
        // (Most calls meet no such assumption: nothing is formatted for them.)
        let name = self.index.function(method).name.as_str();
        let names_call = |a: &super::interp::Assume| {
            a.name.strip_suffix("()").and_then(|n| n.strip_suffix(name)).is_some_and(|n| n.ends_with('.'))
        };
        if !self.assumes.iter().any(names_call) {
            return;
        }
        let suffix = format!(".{name}()");
        let sym = &self.syms[s as usize];
        let calls: Vec<String> =
            std::iter::once(&sym.display).chain(sym.aliases.iter()).map(|n| format!("{n}{suffix}")).collect();
        let Some(assumed) = self
            .assumes
            .iter()
            .find(|a| calls.iter().any(|c| super::interp::names_match_exactly(&a.name, c)))
            .and_then(|a| match &a.value {
                super::interp::AssumedValue::Const(c) => {
                    a.used.set(true);
                    Some(super::cond::constant_truthy(c))
                }
                super::interp::AssumedValue::Class(_) | super::interp::AssumedValue::NoneOf(_) => None,
            })
        else {
            return;
        };
        let holds = self.truthy(result, loc);
        let ran = result.iter().fold(self.conds.falsity(), |acc, (c, _)| acc.or(c));
        let contrary = if assumed { ran.and(&holds.not()) } else { holds };
        let others: rustc_hash::FxHashSet<u32> = self
            .conds
            .support(&contrary)
            .into_iter()
            .filter(|&a| self.conds.atoms()[a].key.about() != Some(s))
            .map(|a| a as u32)
            .collect();
        let contrary = self.conds.over_atoms(&contrary, &others, true);
        // (Quantifying gives up on a too large condition: then nothing is said.)
        if self.conds.support(&contrary).iter().all(|&a| self.conds.atoms()[a].key.about() == Some(s)) {
            self.conds.constrain_about(s, &contrary.not());
        }
    }

    pub fn call_value(&mut self, callee: &Value, args: Args, pc: &Cond, loc: Loc) -> G {
        match callee {
            Value::Func(f) => self.call_function(*f, None, args, pc, loc),
            Value::Bound(f, receiver) => {
                // A method of what a skipped call returned (`impl_getter().apply(x)`) is the
                // method of what that call returns: the call is evaluated now. Named by the
                // return annotation instead, the method would run on every subclass of it.
                if let Value::Sym(s) = receiver.as_ref() {
                    if let Some(object) = self.skipped_result(*s, loc) {
                        let name = self.index.function(*f).name.clone();
                        let method = self.getattr_g(&object, &name, pc, loc);
                        let result = self.call(&method, args, pc, loc);
                        self.calling_deferred.remove(s);
                        return result;
                    }
                }
                let asked = match receiver.as_ref() {
                    Value::Sym(s) if args.is_empty() => Some(*s),
                    _ => None,
                };
                let result = match receiver.as_ref() {
                    Value::Sym(s) if self.syms[*s as usize].class_hint.is_some() => {
                        self.dispatch_unknown(*s, *f, args, pc, loc)
                    }
                    _ => self.call_function(*f, Some(receiver.as_ref().clone()), args, pc, loc),
                };
                if let Some(s) = asked {
                    self.constrain_by_assumed_call(s, *f, &result, loc);
                }
                result
            }
            Value::Class(class) => self.construct(*class, args, pc, loc),
            Value::Obj(id) => self.call_object(*id, args, pc, loc),
            Value::External(path) => {
                let path = path.clone();
                // `torch.ops.NS.NAME(...)` of an operator the tree registers: its code runs.
                if let Some(func) = self.custom_op(&path) {
                    self.force = Some(func);
                    let result = self.call_function(func, None, args, pc, loc);
                    self.force = None;
                    return result;
                }
                self.call_external(&path, None, args, pc, loc)
            }
            Value::ExternalObj(path) => {
                let path = path.clone();
                if is_normalization(&path) {
                    if let Some(normalized) = self.normalization_call(&args, pc, loc) {
                        return normalized;
                    }
                }
                self.call_external(&format!("{path}.__call__"), Some(callee.clone()), args, pc, loc)
            }
            Value::Builtin(name) => {
                let name = name.clone();
                self.call_builtin(&name, args, pc, loc)
            }
            Value::Method(receiver, name) => {
                let (receiver, name) = (receiver.as_ref().clone(), name.clone());
                self.call_method(&receiver, &name, args, pc, loc)
            }
            Value::Partial(partial) => {
                let mut merged = Args {
                    positional: partial.args.iter().map(|g| Arg { value: g.clone(), loc: None }).collect(),
                    ..Args::default()
                };
                let shift = merged.positional.len();
                merged.positional.extend(args.positional);
                merged.unknown_star = args.unknown_star;
                merged.stars_at = args.stars_at.iter().map(|i| i + shift).collect();
                merged.keywords =
                    partial.kwargs.iter().map(|(n, g)| (n.clone(), Arg { value: g.clone(), loc: None })).collect();
                merged.keywords.extend(args.keywords);
                merged.splats = args.splats;
                let func = partial.func.clone();
                self.call(&func, merged, pc, loc)
            }
            Value::Sym(s) => match self.call_through_deferred(*s, args, pc, loc) {
                Ok(result) => result,
                Err(args) => {
                    if let Some(read) = self.cache_get(*s, &args, pc, loc) {
                        return read;
                    }
                    let label = self.syms[*s as usize].label();
                    // A method of what an outside call returned (`load_inline(...).fused_gate`),
                    // handed the traced value, is an outside kernel like the call itself: a
                    // delegated application. Handed only data, it stays unresolved: it may read
                    // what was put into an object it is given (a buffer), which is not followed.
                    if self.outside_rooted(*s) && args.carry_traced() {
                        self.call_external(&label, None, args, pc, loc)
                    } else {
                        self.call_unknown(&label, Some(*s), args, pc, loc)
                    }
                }
            },
            Value::Unknown(reason) => {
                let label = format!("unresolved callee ({reason})");
                self.call_unknown(&label, None, args, pc, loc)
            }
            Value::Lambda(lambda) => {
                let lambda = lambda.clone();
                self.call_lambda(&lambda, args, pc, loc)
            }
            Value::Property(func, receiver) => {
                let value = self.call_function(*func, Some(receiver.as_ref().clone()), Args::default(), pc, loc);
                self.call(&value, args, pc, loc)
            }
            // `None(...)` raises `TypeError` (a callee that is `None` where the code tested it
            // was not: a configuration that cannot exist, or a crash).
            Value::Const(Constant::None) => {
                self.raise_of(Some("TypeError"), pc, loc);
                G::empty()
            }
            other => G::under(pc.clone(), Value::unknown(format!("calling {}", super::exprs::short_kind(other)))),
        }
    }

    /// A device kernel's arguments without the data it cannot read in this launch: a
    /// parameter read only under compile-time flags the launch turns off
    /// (`device::live_names`). Its data takes no part in what the kernel computes.
    fn without_dead_inputs(&mut self, facts: &crate::index::FunctionFacts, mut args: Args) -> Args {
        let module = self.index.file(facts.file).ast();
        let Some(Stmt::FunctionDef(def)) = stmt_with_range(&module.body, facts.range) else { return args };
        let params = &facts.params;
        let constant = |g: &G| match g.single() {
            Some(Value::Const(c)) => Some(super::cond::constant_truthy(c)),
            _ => None,
        };
        let mut flags: rustc_hash::FxHashMap<Name, bool> = rustc_hash::FxHashMap::default();
        for param in params {
            let passed = args.keywords.iter().find(|(k, _)| *k == param.name).map(|(_, a)| &a.value).or_else(|| {
                params.iter().position(|p| p.name == param.name).and_then(|i| args.positional.get(i)).map(|a| &a.value)
            });
            let value = match passed {
                Some(g) => constant(g),
                None => {
                    param.default.as_deref().and_then(crate::syntax::constant).map(|c| super::cond::constant_truthy(&c))
                }
            };
            if let Some(value) = value {
                flags.insert(param.name.clone(), value);
            }
        }
        let live = super::device::live_names(def, &flags);
        let flow = super::device::data_params(def, &flags);
        // Not read in this launch, or read only to address or mask other data (indices), or
        // only written (what a buffer held before the kernel filled it). (What the kernel
        // writes lands in its buffer arguments by the call's syntax: `writable_buffer`.)
        let dead = |name: &Name| !live.contains(name) || flow.as_ref().is_some_and(|data| !data.contains(name));
        let none = G::under(Cond::TRUE, Value::none());
        for (i, arg) in args.positional.iter_mut().enumerate() {
            if params.get(i).is_some_and(|p| dead(&p.name)) {
                arg.value = none.clone();
            }
        }
        for (name, arg) in args.keywords.iter_mut() {
            if params.iter().any(|p| p.name == *name) && dead(name) {
                arg.value = none.clone();
            }
        }
        args
    }

    /// Whether the unknown value `s` is (an attribute of) what a callee outside the tree
    /// returned.
    fn outside_rooted(&self, mut s: SymId) -> bool {
        loop {
            match &self.syms[s as usize].key {
                SymKey::Path(parent, _) => s = *parent,
                SymKey::External(_) => return true,
                _ => return false,
            }
        }
    }

    /// `container.get(key[, default])` on an unknown container, `method` being the unknown
    /// `container.get`: what code stored there (see `keyed_caches.rs`); `None` where that does
    /// not answer.
    fn cache_get(&mut self, method: SymId, args: &Args, pc: &Cond, loc: Loc) -> Option<G> {
        let SymKey::Path(container, name) = &self.syms[method as usize].key else { return None };
        if name != "get" || !args.keywords.is_empty() || args.unknown_star || !(1..=2).contains(&args.positional.len())
        {
            return None;
        }
        let Some(Value::Const(Constant::Str(key))) = args.positional[0].value.single() else { return None };
        let (container, key) = (*container, key.clone());
        let default = args.positional.get(1).map_or_else(|| G::under(*pc, Value::none()), |d| d.value.clone());
        // (The arguments are copied only where the call stays unknown: most reads of unknown
        // values by key are not of a cache.)
        let unknown = |this: &mut Self| {
            let label = this.syms[method as usize].label();
            this.call_unknown(&label, Some(method), args.clone(), pc, loc)
        };
        self.read_keyed(container, &key, Some(default), unknown, pc, loc)
    }

    /// A callee that could not be resolved: data passed to it comes back as data of unknown
    /// scale (reported), anything else as a symbol.
    fn call_unknown(&mut self, label: &str, sym: Option<SymId>, args: Args, pc: &Cond, loc: Loc) -> G {
        let args = self.with_splatted_data(args);
        let carries_data = args.has_data();
        // A wrapper handed one container of objects (`offloader.wrap_modules(layers)`) is
        // assumed to give the same items back; said so, since it is an assumption.
        if !carries_data && args.positional.len() == 1 {
            let only = args.positional[0].value.clone();
            let is_container = only.iter().all(|(_, v)| {
                matches!(v, Value::Tuple(_))
                    || matches!(v, Value::Obj(id) if matches!(self.heap[*id as usize].kind, ObjKind::List(_)))
            });
            if is_container && !only.is_empty() {
                self.blocker(loc, format!("`{label}` is not resolved; assumed to return the items it is given"), pc);
                return only.restrict(&self.conds, pc);
            }
        }
        // A collective of a communicator chosen at run time (`group.all_reduce(x)`,
        // `group.all_gather_into_tensor(out, x)`): it combines the ranks' shares of one
        // computation, so what it gives has the scale of the data it combines. An assumption
        // about a callee not seen, listed as one.
        if let Some(combined) = self.collective_result(label, &args, pc) {
            self.blocker(
                loc,
                format!("`{label}` is not resolved; assumed a collective: what it gives has the scale of the data it combines"),
                pc,
            );
            return combined;
        }
        // Data inside a record handed over (`dispatcher.combine(combine_input=...)` with the
        // expert output in a NamedTuple) passes through as well.
        if !carries_data {
            if let Some(held) = self.held_scaled_data(&args, pc) {
                let blocker = self.blocker(loc, data_through_unresolved(label), pc);
                return self.map(&held, |_, v| match v {
                    Value::Num(n) => Value::Num(Rc::new(taint(&n, blocker))),
                    other => other,
                });
            }
        }
        if carries_data {
            let blocker = self.blocker(loc, data_through_unresolved(label), pc);
            let mut result = self.call_external(label, None, args, pc, loc);
            result = self.map(&result, |_, v| match v {
                Value::Num(n) => Value::Num(Rc::new(taint(&n, blocker))),
                other => other,
            });
            return result;
        }
        let text = self.text(loc);
        let value = match (sym, self.unknown_call_arguments(&args)) {
            (Some(s), Some((key, shown))) => self.sym(SymKey::Path(s, key), format!("{label}{shown}"), None),
            _ => self.sym(SymKey::At(loc, text.clone()), text, None),
        };
        G::under(pc.clone(), value)
    }

    /// The arguments of a call of an unknown value, when each is one constant or one unknown
    /// value: what tells its result apart from other calls of it (`cfg.get("bits")` is not
    /// `cfg.get("group_size")`; two calls with the same arguments are the same value), and
    /// how it is shown. `None` otherwise: the call is then a value of its own, by where it is.
    pub(super) fn unknown_call_arguments(&self, args: &Args) -> Option<(String, String)> {
        if args.unknown_star || !args.splats.is_empty() {
            return None;
        }
        let one = |g: &G| match g.single() {
            Some(Value::Const(c)) => Some((c.to_string(), c.to_string())),
            Some(Value::Sym(s)) => Some((format!("${s}"), self.syms[*s as usize].label())),
            _ => None,
        };
        let mut keys = Vec::new();
        let mut shown = Vec::new();
        for arg in &args.positional {
            let (key, text) = one(&arg.value)?;
            keys.push(key);
            shown.push(text);
        }
        for (name, arg) in &args.keywords {
            let (key, text) = one(&arg.value)?;
            keys.push(format!("{name}={key}"));
            shown.push(format!("{name}={text}"));
        }
        Some((format!("({})", keys.join(", ")), format!("({})", shown.join(", "))))
    }

    /// What a collective communication gives (`group.all_reduce(x)`, `all_gatherv([w, ids,
    /// x])`) when `label` names one and it is handed data: the data it combines, whose scale
    /// it keeps; a list of tensors is combined tensor by tensor, into a list of results each of
    /// its input's scale (a product of them all would give every result every input's scale).
    fn collective_result(&mut self, label: &str, args: &Args, pc: &Cond) -> Option<G> {
        let combined = collective_input(label, args)?.restrict(&self.conds, pc);
        let combined = self.map(&combined, |interp, v| match v {
            Value::Obj(id) => match &interp.read_object(id).kind {
                ObjKind::List(items) => Value::Tuple(Rc::new(items.clone())),
                _ => Value::Obj(id),
            },
            other => other,
        });
        let holds_data = |v: &Value| match v {
            Value::Num(_) => true,
            Value::Tuple(items) => items.iter().any(|g| g.iter().any(|(_, v)| matches!(v, Value::Num(_)))),
            _ => false,
        };
        let any_data = combined.iter().any(|(_, v)| holds_data(v));
        any_data.then(|| self.across_ranks(combined, pc))
    }

    /// What a collective gives every rank, from `input` as each rank hands it: the rank is no
    /// configuration (every rank runs), so where the input differs by rank (only rank 0
    /// copies its tokens into the buffer the all-reduce sums), the result holds the data of
    /// every rank's input. Ranks are the values named `rank` (`get_rank()`, `tp_rank`,
    /// `group.rank_in_group`), as `torch.distributed` names them.
    fn across_ranks(&mut self, input: G, pc: &Cond) -> G {
        // (Alternatives holding the same data leave nothing to merge.)
        let alike = {
            let mut values = input.iter().map(|(_, v)| v);
            values.next().is_none_or(|first| values.all(|v| v.same(first)))
        };
        if alike {
            return input;
        }
        // Atoms testing ranks, found once each (most traces have none).
        while self.rank_atoms_scanned < self.conds.atoms().len() {
            let atom = self.rank_atoms_scanned;
            self.rank_atoms_scanned += 1;
            if self.is_rank_atom(atom) {
                self.rank_atoms.insert(atom as u32);
            }
        }
        let ranks = self.rank_atoms.clone();
        if ranks.is_empty() || !input.iter().all(|(_, v)| matches!(v, Value::Num(_))) {
            return input;
        }
        let mut merged: Vec<(Cond, Rc<Num>)> = Vec::new();
        for (c, v) in input.iter() {
            let Value::Num(n) = v else { continue };
            let on_every_rank = self.conds.over_atoms(c, &ranks, true).and(pc);
            let mut next = Vec::new();
            let mut covered = self.conds.falsity();
            for (other, sum) in merged {
                covered = covered.or(&other);
                let both = other.and(&on_every_rank);
                if self.conds.feasible(&both) {
                    next.push((both, Rc::new(super::ops::union(&sum, n))));
                }
                let rest = other.and(&on_every_rank.not());
                if self.conds.feasible(&rest) {
                    next.push((rest, sum));
                }
            }
            let alone = on_every_rank.and(&covered.not());
            if self.conds.feasible(&alone) {
                next.push((alone, n.clone()));
            }
            merged = next;
        }
        let mut out = G::empty();
        for (c, n) in merged {
            out.push(&self.conds, c, Value::Num(n));
        }
        out
    }

    /// Whether atom `atom` tests a rank (see `across_ranks`).
    fn is_rank_atom(&mut self, atom: usize) -> bool {
        let Some(s) = self.conds.atoms()[atom].key.about() else { return false };
        if let Some(&known) = self.rank_syms.get(&s) {
            return known;
        }
        let sym = &self.syms[s as usize];
        let rank = std::iter::once(&sym.display)
            .chain(sym.aliases.iter())
            .any(|name| name.split(|c: char| !c.is_ascii_alphanumeric()).any(|word| word.eq_ignore_ascii_case("rank")));
        self.rank_syms.insert(s, rank);
        rank
    }

    /// Evaluates a function of the tree with its parameters bound.
    pub fn call_function(&mut self, func: FuncId, receiver: Option<Value>, args: Args, pc: &Cond, loc: Loc) -> G {
        if let Some(decorator) = self.wrapping_decorator(func) {
            if !self.unwrapped.contains(&func) {
                return self.call_through_wrapper(decorator, func, receiver, args, pc, loc);
            }
            // The function as written, called by its wrapper: evaluated, as it is where the
            // caller called it (summarized, it would be named `func(*args, **kwargs)`).
            self.force = Some(func);
        }
        let block = self.block_called(func, receiver.as_ref());
        // Another method of a module that holds the value, on the forward path (a stage of
        // its computation run by an executor: `op_experts(state)`): its parts (the experts it
        // calls) are that module's, not blocks of their own.
        let holder_stage = block.is_none()
            && self.loaded_phase_done
            && self.index.function(func).name.as_str() != "__init__"
            && matches!(&receiver, Some(Value::Obj(id)) if Some(*id) != self.entry_object && self.holds_traced_value(*id));
        self.in_block += usize::from(holder_stage);
        if let Some(class) = block {
            self.in_block += 1;
            // The module whose forward called it: the block, when this one turns out to be a
            // router (see `report::run`).
            if let Some(caller) = self.forward_frames.last_mut() {
                caller.1 = true;
                self.block_callers.insert(class, caller.0);
            }
        }
        let forward_of = match &receiver {
            Some(Value::Obj(id)) if self.index.function(func).name.as_str() == "forward" => {
                match self.heap[*id as usize].kind {
                    ObjKind::Instance(class) => Some(class),
                    _ => None,
                }
            }
            _ => None,
        };
        if let Some(class) = forward_of {
            self.forward_frames.push((class, false));
        }
        let result = self.call_function_body(func, receiver, args, pc, loc);
        if forward_of.is_some() {
            if let Some((class, true)) = self.forward_frames.pop() {
                self.note_block_reached(class, pc);
                let entry = self.caller_blocks.entry(class).or_default();
                for (c, v) in result.iter() {
                    entry.push((*c, v.clone()));
                }
            }
        }
        if let Some(class) = block {
            // Conditions relative to the call: the block's answer is for whenever it runs,
            // not for the ways the model reaches it (pipeline ranks, layer kinds before it).
            // Except what no configuration of this call reaches: the body runs from `true`, so
            // a branch on a setting the caller already tested (`if not flag:` in a block called
            // under `flag`) ran too, reading the block's fields as absent there; its unknown
            // result was a row of the block.
            self.in_block -= 1;
            self.note_block_reached(class, pc);
            let here = self.base.and(pc);
            let reached: Vec<(Cond, Value)> =
                result.iter().filter(|(c, _)| !here.and(c).is_false()).map(|(c, v)| (*c, v.clone())).collect();
            self.blocks.entry(class).or_default().extend(reached);
        }
        self.in_block -= usize::from(holder_stage);
        if self.is_accessor(func) {
            return self.name_accessor_result(func, result);
        }
        result
    }

    /// The class of a block whose `forward` this call runs: a module inside the entry (below a
    /// module the entry calls) that holds the traced value itself (`self.routed_scaling_factor`),
    /// called on the forward path outside any other block. Its output is what the question
    /// asks about when the entry is a whole model, whose own output went through norms, heads
    /// and sums since.
    fn block_called(&self, func: FuncId, receiver: Option<&Value>) -> Option<ClassId> {
        if self.in_block > 0 || !self.loaded_phase_done || self.index.function(func).name.as_str() != "forward" {
            return None;
        }
        // An entry that holds the value and uses it is the block itself.
        let Some(entry) = self.entry_object else { return None };
        let keeps_only = self.holds_traced_value(entry);
        if keeps_only && self.entry_reads_value {
            return None;
        }
        // Called by a module inside the entry (a decoder layer), not by the entry itself: what
        // the entry calls directly (its router, its experts) is part of its own answer. An
        // entry that only keeps the value, or never names it outside its constructor (a
        // decoder layer), asks about the block it calls.
        let forwards = self.stack.iter().filter(|f| self.index.function(**f).name.as_str() == "forward").count();
        if forwards < if keeps_only || !self.entry_names_value { 1 } else { 2 } {
            return None;
        }
        let Some(Value::Obj(id)) = receiver else { return None };
        let ObjKind::Instance(class) = self.heap[*id as usize].kind else { return None };
        self.holds_traced_value(*id).then_some(class)
    }

    /// Whether an object keeps the traced value itself in a field of its name.
    pub(super) fn holds_traced_value(&self, id: HeapId) -> bool {
        self.heap[id as usize]
            .fields
            .get(self.traced.name.as_str())
            .is_some_and(|g| g.iter().any(|(_, v)| matches!(v, Value::Num(n) if !n.tensor && n.carries_traced())))
    }

    /// What an accessor (`get_moe_runner_backend()` returning `get_flags().moe.runner_backend`)
    /// gave: the unknown value it read, which other reads of that path name too. It is also
    /// named after the accessor (so the output and `--assume` can use either), and is of the
    /// class the accessor declares it returns, when nothing else said what it is.
    fn name_accessor_result(&mut self, func: FuncId, result: G) -> G {
        let name = format!("{}()", self.index.function(func).name);
        let declared = self.index.function(func).returns.clone().and_then(|r| {
            let ctx = crate::resolve::Ctx::module(func.file);
            self.resolver.annotation_classes(&ctx, &r, &mut crate::resolve::Walk::default()).into_iter().next()
        });
        for (_, value) in result.iter() {
            let Value::Sym(s) = value else { continue };
            let sym = &mut self.syms[*s as usize];
            if !sym.aliases.contains(&name) {
                sym.aliases.push(name.clone());
            }
            if sym.class_hint.is_none() {
                sym.class_hint = declared;
                if let Some(returns) = self.index.function(func).returns.clone() {
                    self.note_annotated(value, func.file, &returns);
                }
            }
            self.assume_by_alias(*s, &name);
        }
        result
    }

    /// The block `class` was called here (`pc` in the caller).
    fn note_block_reached(&mut self, class: ClassId, pc: &Cond) {
        let here = self.base.and(pc);
        let reached = self.block_reached.entry(class).or_insert(Cond::FALSE);
        *reached = reached.or(&here);
    }

    /// A call of `func`, decorated by `decorator`, a function of the tree that returns a wrapper
    /// it defines (`def wrapper(*args, **kwargs): if supported(): return func(*args, **kwargs)`,
    /// vLLM's `@if_aiter_supported`): the wrapper runs, with `func` as the function it was
    /// given and the receiver as its first argument; in it, `func` is the function as written.
    fn call_through_wrapper(
        &mut self,
        decorator: FuncId,
        func: FuncId,
        receiver: Option<Value>,
        mut args: Args,
        pc: &Cond,
        loc: Loc,
    ) -> G {
        let given = Arg { value: G::under(*pc, Value::Func(func)), loc: None };
        self.force = Some(decorator);
        let wrappers =
            self.call_function(decorator, None, Args { positional: vec![given], ..Args::default() }, pc, loc);
        if let Some(receiver) = receiver {
            args.positional.insert(0, Arg { value: G::under(*pc, receiver), loc: None });
            args.stars_at.iter_mut().for_each(|at| *at += 1);
        }
        self.unwrapped.push(func);
        let mut out = G::empty();
        for (c, wrapper) in wrappers.iter() {
            let result = match wrapper {
                Value::Func(w) => {
                    self.force = Some(*w);
                    self.call_function(*w, None, args.clone(), c, loc)
                }
                other => self.call_value(other, args.clone(), c, loc),
            };
            out.extend(&self.conds, result);
        }
        self.unwrapped.pop();
        out
    }

    /// The decorator of `func` that gates it (see `call_through_wrapper`): a decorator of the
    /// tree written as a bare name, returning a wrapper it defines that gives the function's
    /// result or a constant.
    fn wrapping_decorator(&mut self, func: FuncId) -> Option<FuncId> {
        if self.index.function(func).decorators.is_empty() {
            return None;
        }
        if let Some(&known) = self.wrapping_decorators.get(&func) {
            return known;
        }
        let ctx = crate::resolve::Ctx::module(func.file);
        let decorators = self.index.function(func).decorators.clone();
        let found = decorators.iter().find_map(|d| {
            if !matches!(d, Expr::Name(_) | Expr::Attribute(_)) {
                return None;
            }
            let resolved = self.resolver.resolve(&ctx, d);
            let [found] = resolved.as_slice() else { return None };
            let crate::resolve::Def::Function(decorator) = found.def else { return None };
            // The decorator returns a function it defines, ...
            let wrapped = self.index.function(decorator).params.first()?.name.clone();
            let scope = self.resolver.local_scope(decorator);
            let [ret] = scope.returns.as_slice() else { return None };
            let Some(Expr::Name(returned)) = ret.value.as_deref() else { return None };
            let file = &self.index.file(decorator.file).facts;
            let local = file.functions.iter().position(|f| {
                matches!(f.parent, crate::index::Parent::Function(p) if p == decorator) && f.name == returned.id
            })?;
            let wrapper = FuncId { file: decorator.file, local: local as u32 };
            // ... a gate: each `return` gives the function's own result (`return func(*args,
            // **kwargs)` where supported) or a constant (`return None` elsewhere), and both
            // occur. Other wrappers (a cache, a timer) call the function and give what it
            // gives, as the function itself does: it runs as written.
            let scope = self.resolver.local_scope(wrapper);
            let calls_wrapped = |e: &Expr| {
                matches!(e, Expr::Call(call) if matches!(call.func.as_ref(), Expr::Name(n) if n.id == wrapped))
            };
            let constant = |e: &Expr| crate::syntax::constant(e).is_some();
            let values: Vec<Option<&Expr>> = scope.returns.iter().map(|r| r.value.as_deref()).collect();
            let gate = values.iter().any(|v| v.is_some_and(calls_wrapped))
                && values.iter().any(|v| v.is_none_or(constant))
                && values.iter().all(|v| v.is_none_or(|e| calls_wrapped(e) || constant(e)));
            gate.then_some(decorator)
        });
        self.wrapping_decorators.insert(func, found);
        found
    }

    /// `call_function` without what it records around the call (blocks, accessors).
    fn call_function_body(&mut self, func: FuncId, receiver: Option<Value>, args: Args, pc: &Cond, loc: Loc) -> G {
        if self.stack.len() >= MAX_CALL_DEPTH {
            self.bound(Some(loc), format!("calls nested deeper than {MAX_CALL_DEPTH}"));
            return G::under(
                pc.clone(),
                Value::unknown(format!("call depth bound at {}", self.index.function_path(func))),
            );
        }
        if self.stack.iter().filter(|&&f| f == func).count() >= 2 {
            self.not_replayable();
            return G::under(
                pc.clone(),
                Value::unknown(format!("recursive call of {}", self.index.function_path(func))),
            );
        }
        let facts = self.index.function(func).clone();
        // A kernel model for a function of the tree replaces evaluating its body.
        let path = self.index.function_path(func);
        if self.kernels.find(&path).is_some() {
            return self.call_external(&path, receiver, args, pc, loc);
        }
        // Device kernels (`@triton.jit`) run on data through pointers; unless the traced value
        // is handed to one, it is an outside computation on the data it receives.
        if is_device_kernel(&facts)
            && !args
                .all_values()
                .any(|g| g.iter().any(|(_, v)| matches!(v, Value::Num(n) if !n.tensor && n.carries_traced())))
        {
            let args = self.without_dead_inputs(&facts, args);
            return self.call_external(&path, receiver, args, pc, loc);
        }
        if !self.worth_evaluating(func, receiver.as_ref(), &args) {
            return self.skipped_call(func, receiver, args, pc, loc);
        }
        let module = self.index.file(func.file).ast();
        let Some(Stmt::FunctionDef(def)) = stmt_with_range(&module.body, facts.range) else {
            return G::under(pc.clone(), Value::unknown("function body not found"));
        };
        if contains_yield(&def.body) {
            if let Some(items) = self.call_generator(func, receiver.clone(), args.clone(), &def.body, pc, loc) {
                return items;
            }
            self.blocker(loc, format!("{} is a generator: not followed", self.index.function_path(func)), pc);
            return G::under(pc.clone(), Value::unknown("generator"));
        }
        // The body runs relative to the call (below): so do the arguments. A device kernel's
        // run relative to selectors standing for their conditions (see `device.rs`).
        let mut args = self.args_relative_to(args, pc);
        let selections = if is_device_kernel(&facts) { self.select_arguments(&mut args) } else { Vec::new() };
        let key = self.call_key(&receiver, &args, loc);
        let summary_key = self.summary_key(func, &receiver, &args);
        // Where each argument came from, for what the body writes into them.
        let arg_locs: Vec<Option<Loc>> = args.positional.iter().map(|a| a.loc).collect();
        let keyword_locs: Vec<(Name, Option<Loc>)> = args.keywords.iter().map(|(k, a)| (k.clone(), a.loc)).collect();
        // Calls made by the body take their own writes; the caller's pending ones wait.
        let pending = std::mem::take(&mut self.out_writes);
        let mut captured_writes: Vec<(Name, G)> = Vec::new();
        let callee_base = if selections.is_empty() { self.base.and(pc) } else { Cond::TRUE };
        let (returns, alive, written) = match self.replay(&summary_key, pc, &callee_base, &selections) {
            Some(replayed) => replayed,
            None => {
                let mut frame = self.frame(Some(func), func.file);
                self.bind_params(&mut frame, func, &facts.params, receiver, args, &Cond::TRUE, &callee_base, loc);
                // A device kernel's buffers before it runs (see `device.rs`).
                let device_initial: Option<Vec<(ArgSlot, G)>> = is_device_kernel(&facts).then(|| {
                    frame.kernel = Some(super::device::kernel_locals(def));
                    frame.aliases.iter().filter_map(|(n, s)| Some((s.clone(), frame.locals.get(n)?.clone()))).collect()
                });
                // The body runs relative to the call: its conditions start from `true`, and the
                // caller's condition joins the base (see `Interp::base`).
                let outer = (self.base, self.heap_mark);
                // Apart from the caller, the body's conditions are its own: from `true`.
                self.base = callee_base;
                self.apart += u32::from(!selections.is_empty());
                self.heap_mark = self.heap.len() as HeapId;
                let local = Cond::TRUE;
                self.stack.push(func);
                self.begin_session();
                self.exec_block(&mut frame, &def.body, &local);
                // A nested function returned or stored sees the locals as the body left them.
                if !frame.nested.is_empty() {
                    let names = Rc::new(Self::enclosing_names(&frame));
                    for nested in &frame.nested {
                        self.closures.insert(*nested, names.clone());
                    }
                }
                // A nested function's in-place writes into its enclosing function's tensors
                // (locals of that function it only reads, by Python's rule) go back to the
                // caller after the call; a summary would not carry them.
                captured_writes = match &frame.captured {
                    Some(captured) => {
                        let scope = self.resolver.local_scope(func);
                        // Where the body did not write it, it holds what it held.
                        let mut writes: Vec<(Name, G)> = Vec::new();
                        for (name, written) in &frame.locals {
                            let Some(before) = captured.get(name).filter(|_| !scope.is_local(name)) else { continue };
                            let mut value = written.clone();
                            let unwritten = value.coverage(&self.conds).not();
                            value.extend(&self.conds, before.restrict(&self.conds, &unwritten));
                            writes.push((name.clone(), value));
                        }
                        writes.sort_by(|a, b| a.0.cmp(&b.0));
                        writes
                    }
                    None => Vec::new(),
                };
                if !captured_writes.is_empty() {
                    self.not_replayable();
                }
                // Where the body raised, it does not fall off its end.
                if !frame.raised.is_false() {
                    frame.alive = frame.alive.and(&frame.raised.not());
                }
                let mut written = written_arguments(&frame);
                if let Some(initial) = &device_initial {
                    self.over_programs(&mut frame.returns, &mut frame.alive, &mut written, initial);
                }
                let (sites, raises) =
                    self.end_session(summary_key, pc, &frame.returns, frame.alive, &written, &selections);
                self.stack.pop();
                self.apart -= u32::from(!selections.is_empty());
                (self.base, self.heap_mark) = outer;
                if !selections.is_empty() {
                    self.apply_effects(&sites, &raises, pc, &selections);
                }
                (frame.returns, frame.alive, written)
            }
        };
        // Back in the caller's terms.
        let (returns, alive, written) = if selections.is_empty() {
            (returns, alive, written)
        } else {
            let returns = self.unselect(&returns, &selections);
            let alive = self.unselect_cond(&alive, &selections);
            let written = written.iter().map(|(slot, g)| (slot.clone(), self.unselect(g, &selections))).collect();
            (returns, alive, written)
        };
        self.out_writes = pending;
        for (name, value) in captured_writes {
            let value = value.restrict(&self.conds, pc);
            self.captured_writes.push((name, value, *pc));
        }
        for (slot, value) in written {
            let loc = match &slot {
                super::interp::ArgSlot::Positional(i) => arg_locs.get(*i).copied().flatten(),
                super::interp::ArgSlot::Keyword(name) => {
                    keyword_locs.iter().find(|(k, _)| k == name).and_then(|(_, l)| *l)
                }
            };
            if let Some(loc) = loc {
                self.out_writes.push((loc, value.restrict(&self.conds, pc), *pc));
            }
        }
        let mut result = returns.restrict(&self.conds, pc);
        // An unknown it returns is of the class it declares: one outside the tree (`->
        // ElasticBuffer`, a buffer a registry the trace cannot see holds) is an instance of
        // it, whose methods are outside calls, as those of the one made on another path are.
        // Named, every call on it was unresolved.
        if result.iter().any(|(_, v)| matches!(v, Value::Sym(_))) {
            if let Some(path) = self.declared_outside_class(func) {
                result = self.map(&result, |_, v| match v {
                    Value::Sym(_) => Value::ExternalObj(path.clone()),
                    other => other,
                });
            }
        }
        let falls_off = pc.and(&alive);
        if self.conds.feasible(&falls_off) {
            result.push(&self.conds, falls_off, Value::none());
        }
        // Many different results that carry nothing traced only steer control flow later:
        // one symbol for "what this call returned" keeps conditions small (at the price of
        // forgetting how the result relates to the atoms inside the call).
        // A classifier's keys stay: they are what makes a platform key agree with the platform
        // flags it tests (see `relevance.rs`); so does a predicate's answer, for the same reason,
        // and what a getter reads (the backend a runner holds, which its predicates test).
        if result.0.len() > COLLAPSE_RESULTS
            && !result.iter().any(|(_, v)| self.structural(v))
            && !self.is_classifier(func)
            && !self.is_predicate(func)
            && !self.is_getter_method(func)
        {
            let text = self.text(loc);
            let name = self.index.function(func).qualname.clone();
            let display = if text.len() <= 100 && !text.contains('\n') { text } else { format!("{name}(...)") };
            let value = self.sym(SymKey::Call(func, key), display, None);
            return G::under(*pc, value);
        }
        // The traced value leaving a function is a hop worth showing.
        let label = format!("returned by {}", self.index.function(func).qualname);
        let ret_loc = Loc { file: func.file, span: facts.name_range };
        self.map(&result, |this, v| match v {
            Value::Num(n) if !n.tensor && n.carries_traced() => {
                let hop = this.hop(ret_loc, HopKind::Return, label.clone());
                Value::Num(Rc::new(super::exprs::extend_chain(&n, hop)))
            }
            other => other,
        })
    }

    /// The class outside the tree `func` declares it returns (`-> ElasticBuffer`, imported
    /// from a package not in the tree), by dotted path: a plain name or attribute that
    /// resolves to one outside class only. Not `torch`'s (tensors are data, not objects), the
    /// standard library's or `typing`'s.
    fn declared_outside_class(&mut self, func: FuncId) -> Option<Rc<str>> {
        if let Some(known) = self.relevance.declared_outside.get(&func) {
            return known.clone();
        }
        let found = self.find_declared_outside_class(func);
        self.relevance.declared_outside.insert(func, found.clone());
        found
    }

    fn find_declared_outside_class(&self, func: FuncId) -> Option<Rc<str>> {
        let returns = self.index.function(func).returns.clone()?;
        if !matches!(returns.as_ref(), Expr::Name(_) | Expr::Attribute(_)) {
            return None;
        }
        let ctx = crate::resolve::Ctx::module(func.file);
        let found = self.resolver.resolve(&ctx, &returns);
        let mut paths = found.iter().map(|f| match &f.def {
            crate::resolve::Def::External(path) => Some(path.as_str()),
            _ => None,
        });
        let path = paths.next()??;
        if paths.any(|p| p != Some(path)) {
            return None;
        }
        let (module, class) = path.rsplit_once('.')?;
        let root = module.split('.').next().unwrap_or(module);
        let outside_class = class.chars().next().is_some_and(|c| c.is_ascii_uppercase())
            && !matches!(root, "torch" | "typing" | "typing_extensions" | "builtins" | "numpy")
            && !super::ops::is_standard_library(path);
        outside_class.then(|| Rc::from(path))
    }

    /// The arguments as seen from inside a call made under `pc` (conditions `pc` decides are
    /// simplified away; alternatives that cannot hold under `pc` are dropped).
    pub fn args_relative_to(&self, mut args: Args, pc: &Cond) -> Args {
        if pc.is_true() {
            return args;
        }
        for arg in args.positional.iter_mut().chain(args.keywords.iter_mut().map(|(_, a)| a)) {
            arg.value = arg.value.relative_to(&self.conds, pc);
        }
        for splat in args.splats.iter_mut().chain(args.star_data.iter_mut()) {
            *splat = splat.relative_to(&self.conds, pc);
        }
        args
    }

    /// Calls a lambda: its parameters bound like a function's, its body evaluated with the
    /// enclosing function's locals visible.
    fn call_lambda(&mut self, lambda: &Lambda, args: Args, pc: &Cond, loc: Loc) -> G {
        if self.stack.len() >= MAX_CALL_DEPTH {
            self.bound(Some(loc), format!("calls nested deeper than {MAX_CALL_DEPTH}"));
            return G::under(pc.clone(), Value::unknown("call depth bound at a lambda"));
        }
        let module = self.index.file(lambda.loc.file).ast();
        let Some(Expr::Lambda(node)) = super::interp::find_expr(&module.body, lambda.loc.span) else {
            return G::under(pc.clone(), Value::unknown("lambda not found"));
        };
        let mut frame = self.frame(None, lambda.loc.file);
        let mut captured = (*lambda.captured).clone();
        if let Some(parameters) = &node.parameters {
            let mut positional = args.positional.iter();
            let by_position = parameters.posonlyargs.iter().chain(parameters.args.iter()).map(|p| (p, true));
            let by_keyword = parameters.kwonlyargs.iter().map(|p| (p, false));
            for (param, takes_positional) in by_position.chain(by_keyword) {
                let name = &param.parameter.name.id;
                let value = args
                    .keywords
                    .iter()
                    .find(|(k, _)| k == name)
                    .map(|(_, a)| a.value.clone())
                    .or_else(|| if takes_positional { positional.next().map(|a| a.value.clone()) } else { None })
                    .or_else(|| {
                        param.default.as_deref().map(|d| {
                            let mut defaults = self.frame(None, lambda.loc.file);
                            self.eval(&mut defaults, d, pc)
                        })
                    })
                    .unwrap_or_else(|| {
                        G::under(pc.clone(), Value::unknown(format!("lambda parameter `{name}` not given")))
                    });
                captured.insert(name.clone(), value);
            }
        }
        frame.captured = Some(Rc::new(captured));
        self.eval(&mut frame, &node.body, pc)
    }

    /// A call not worth evaluating (see `relevance.rs`): data passed in comes back as data
    /// with the same scales; anything else is a symbol named by the call, one per function and
    /// receiver, so the same query met twice is the same atom.
    fn skipped_call(&mut self, func: FuncId, receiver: Option<Value>, args: Args, pc: &Cond, loc: Loc) -> G {
        // A constructor not evaluated now is evaluated when a field it would set is read.
        if self.index.function(func).name.as_str() == "__init__" {
            if let Some(Value::Obj(id)) = &receiver {
                if matches!(self.heap[*id as usize].kind, ObjKind::Instance(_)) {
                    let later = Rc::new(SkippedConstructor {
                        call: (func, receiver.clone(), args.clone(), self.base.and(pc)),
                        fields_then: self.heap[*id as usize].fields.clone(),
                    });
                    // Called by a constructor on an object older than its call (its `self`,
                    // not an object it just made): a base class's part of an object being built.
                    let base_part = *id < self.heap_mark
                        && self
                            .stack
                            .last()
                            .is_some_and(|caller| self.index.function(*caller).name.as_str() == "__init__");
                    if base_part {
                        self.unbuilt_bases.entry(*id).or_default().push(later);
                    } else {
                        self.unbuilt.insert(*id, later);
                    }
                }
            }
        }
        // What it writes into an object that was handed in may be read later: kept, to run then.
        if self.index.function(func).name.as_str() != "__init__" {
            let values: Vec<Value> = receiver
                .iter()
                .cloned()
                .chain(args.all_values().flat_map(|g| g.iter().map(|(_, v)| v.clone())))
                .collect();
            let mut reach = self.writer_reach(values.iter());
            // A method that sets attributes of its object (`self.finalize_weights()` filling
            // `self._transformed_l1_weights`, asserted right after) writes into it too.
            // (The index keeps a method's writes with the class that defines it.)
            if let Some(Value::Obj(id)) = &receiver {
                let writes_self = matches!(self.heap[*id as usize].kind, ObjKind::Instance(_))
                    && self
                        .index
                        .function(func)
                        .class()
                        .is_some_and(|c| self.index.class(c).attr_writes.iter().any(|w| w.method == func));
                if writes_self && !reach.contains(&super::interp::Reached::Object(*id)) {
                    reach.push(super::interp::Reached::Object(*id));
                }
            }
            if !reach.is_empty() {
                self.writer_reached.extend(reach.iter().filter_map(|r| match r {
                    super::interp::Reached::Object(id) => Some(*id),
                    super::interp::Reached::Param(_) => None,
                }));
                let later = Rc::new((func, receiver.clone(), args.clone(), self.base.and(pc)));
                self.pending_writers.push((reach, later));
            }
        }
        let mut args = self.with_splatted_data(args);
        // Data starred into the call, its items unknown, is handed over as it is.
        for value in std::mem::take(&mut args.star_data) {
            args.positional.push(Arg { value, loc: None });
        }
        let has_data = args.has_data();
        // An operator the tree registers (`@register_custom_op(...)`) takes tensors and numbers
        // only, so a module it runs is looked up at run time (`moe_layers[layer_id]`): it may
        // apply anything, and its data does not just pass through. Said so, rather than counted.
        // (An operator that only wraps a kernel is an outside computation like any other.)
        if has_data && self.looks_up_its_module(func) {
            let path = self.index.function_path(func);
            let what = format!(
                "data passes through the operator `{path}`, not evaluated: the module it runs is looked up at run time"
            );
            let blocker = self.blocker(loc, what, pc);
            let result = self.call_external(&path, None, args, pc, loc);
            return self.map(&result, |_, v| match v {
                Value::Num(n) => Value::Num(Rc::new(taint(&n, blocker))),
                other => other,
            });
        }
        let name = self.index.function(func).name.clone();
        if let Some(combined) = self.collective_result(name.as_str(), &args, pc) {
            return combined;
        }
        if has_data {
            let path = self.index.function_path(func);
            let receiver = receiver.filter(|r| matches!(r, Value::Num(_)));
            // Scaled data in a record handed over beside it (`experts(x, routing)`, the weights
            // in `routing`) takes part like data handed over directly.
            let held = if self.index.function(func).name.as_str() != "__init__" {
                self.held_scaled_data(&args, pc)
            } else {
                None
            };
            let result = self.call_external(&path, receiver, args, pc, loc);
            return match held {
                Some(held) => self.times_held(&result, &held),
                None => result,
            };
        }
        // Scaled data inside a record handed over (`dispatcher.combine(combine_input)`, the
        // expert output in a NamedTuple) passes through like data handed over directly.
        if self.index.function(func).name.as_str() != "__init__" {
            if let Some(held) = self.held_scaled_data(&args, pc) {
                return held;
            }
            // Handed records holding only unscaled data, a function declared to return a
            // tensor (`combine(self, combine_input) -> torch.Tensor`) gives data: named, its
            // result would be an unknown value, and what the caller does to it (scale it) a
            // number, not data.
            if declares_tensor(self.index.function(func).returns.as_deref()) && self.holds_data(&args) {
                return G::under(*pc, Value::Num(Rc::new(Num::plain_tensor())));
            }
        }
        let key = self.call_key(&receiver, &args, loc);
        let text = self.text(loc);
        let name = self.index.function(func).qualname.clone();
        let display = if text.len() <= 100 && !text.contains('\n') {
            self.naming_classes(text, &receiver, &args, loc)
        } else {
            format!("{name}(...)")
        };
        // The return annotation, when it names a class of the tree, bounds what it can be.
        let hint = self.index.function(func).returns.clone().and_then(|r| {
            let ctx = crate::resolve::Ctx::module(func.file);
            self.resolver.annotation_classes(&ctx, &r, &mut crate::resolve::Walk::default()).into_iter().next()
        });
        let value = self.sym(SymKey::Call(func, key), display, hint);
        if let Some(returns) = self.index.function(func).returns.clone() {
            self.note_annotated(&value, func.file, &returns);
            // Declared to return a tensor, it does not return `None` (`all_reduce(shared) ->
            // torch.Tensor` then `shared is None`).
            if let (Value::Sym(s), true) = (&value, declares_tensor(Some(&returns))) {
                self.never_none.insert(*s);
            }
        }
        // Evaluated after all if the result is called (a registry lookup, a factory of
        // functions): see `call_through_deferred`. The same symbol met again (the same call
        // made elsewhere: `ACT2FN[config.hidden_act]` in the dense MLP and in every expert) is
        // made wherever either place runs. Its result, if already evaluated under the first
        // place alone, is evaluated again when next called: gated by that place's condition, it
        // held nothing on the other paths.
        if let Value::Sym(s) = &value {
            let at = self.base.and(pc);
            match self.deferred.get(s) {
                None => {
                    self.deferred.insert(*s, Rc::new((func, receiver, args, at)));
                }
                Some(first) if at.meets(&first.3.not()) => {
                    let wider = first.3.or(&at);
                    let (func, receiver, args, _) = first.as_ref().clone();
                    self.deferred.insert(*s, Rc::new((func, receiver, args, wider)));
                    self.deferred_results.remove(s);
                }
                Some(_) => {}
            }
        }
        G::under(pc.clone(), value)
    }

    /// Calling the result of a call that was skipped as not worth evaluating, or a method of
    /// that result (`get_core().run(x)`): the call is evaluated now (see `evaluate_skipped`)
    /// and what it gives called. The arguments come back when `sym` stands for no such call,
    /// or is already being called this way (the call may give it back).
    fn call_through_deferred(&mut self, sym: SymId, args: Args, pc: &Cond, loc: Loc) -> Result<G, Args> {
        if self.calling_deferred.contains(&sym) {
            return Err(args);
        }
        let callee = if self.deferred.contains_key(&sym) {
            self.calling_deferred.insert(sym);
            self.deferred_result(sym, loc)
        } else {
            match &self.syms[sym as usize].key {
                SymKey::Path(base, attr) if self.deferred.contains_key(base) && !attr.starts_with('[') => {
                    let (base, attr) = (*base, attr.clone());
                    self.calling_deferred.insert(sym);
                    let object = self.deferred_result(base, loc);
                    self.getattr_g(&object, &attr, pc, loc)
                }
                _ => return Err(args),
            }
        };
        let result = self.call(&callee, args, pc, loc);
        self.calling_deferred.remove(&sym);
        Ok(result)
    }

    /// What the skipped call standing behind `sym` returns, when every `return` of it builds
    /// an object of a class of the tree (`return NoOpReduce()`) and it is not being called
    /// through already; `sym` is then marked as being called through (the caller unmarks it).
    /// (A getter of a global set elsewhere, `return _EP`, gives less than its return
    /// annotation, which bounds the classes the result can be.)
    fn skipped_result(&mut self, sym: SymId, loc: Loc) -> Option<G> {
        let func = self.deferred.get(&sym)?.0;
        if self.classes_every_return_builds(func) == 0 || !self.calling_deferred.insert(sym) {
            return None;
        }
        Some(self.deferred_result(sym, loc))
    }

    /// What the skipped call standing behind `sym` returns, evaluated once.
    fn deferred_result(&mut self, sym: SymId, loc: Loc) -> G {
        if let Some(g) = self.deferred_results.get(&sym) {
            return g.clone();
        }
        let deferred = self.deferred[&sym].clone();
        let g = self.evaluate_skipped(&deferred, loc);
        self.deferred_results.insert(sym, g.clone());
        g
    }

    /// Runs the skipped constructor of the object `id` now; on the forward path, the loader's
    /// hook too, for it and what it builds.
    pub fn build_skipped(&mut self, id: HeapId, loc: Loc) {
        let Some(skipped) = self.unbuilt.remove(&id) else { return };
        let first = self.heap.len() as HeapId;
        self.run_skipped_constructor(id, &skipped, loc);
        if self.loaded_phase_done {
            self.after_loading(first..self.heap.len() as HeapId, loc);
            self.after_loading(id..id + 1, loc);
        }
    }

    /// Runs a constructor skipped earlier on object `id`, then puts back what was written into
    /// the object since it was skipped (see `SkippedConstructor`). Run over them, a base
    /// class's `self.impl = Plain()` replaced the subclass's `self.impl = Scaled(scale)`, set
    /// after `super().__init__()`: the scaling implementation the object holds was lost.
    pub fn run_skipped_constructor(&mut self, id: HeapId, skipped: &SkippedConstructor, loc: Loc) {
        let before = self.heap[id as usize].fields.clone();
        self.evaluate_skipped(&skipped.call, loc);
        let written_since: Vec<(ruff_python_ast::name::Name, G)> = before
            .into_iter()
            .filter(|(name, g)| !skipped.fields_then.get(name).is_some_and(|then| then.same_as(g)))
            .collect();
        if written_since.is_empty() {
            return;
        }
        self.touch(id);
        for (name, g) in written_since {
            self.heap[id as usize].fields.insert(name, g);
        }
    }

    /// Evaluates a call skipped earlier, as it would have run then: under the condition it
    /// was made under (conditions in the result are relative to it), with every object made
    /// since counted as older (so its writes into them are gated by that condition).
    pub fn evaluate_skipped(&mut self, skipped: &Skipped, loc: Loc) -> G {
        let (func, receiver, args, at) = skipped;
        let saved = (self.base, self.heap_mark);
        self.base = *at;
        self.heap_mark = self.heap.len() as HeapId;
        self.force = Some(*func);
        // The arguments were seen where the call was made, under the condition of that place:
        // the call now runs from `true` under `at`, and they cover all of it.
        let args = self.args_relative_to(args.clone(), at);
        let result = self.call_function(*func, receiver.clone(), args, &Cond::TRUE, loc);
        self.force = None;
        (self.base, self.heap_mark) = saved;
        result
    }

    /// The text of a call with the classes it is handed by a variable written by name
    /// (`k_cls.is_supported_config(k_cls, config)` asked of `TrtLlmExperts` reads
    /// `TrtLlmExperts.is_supported_config(TrtLlmExperts, config)`): the same text asked of
    /// several classes names several questions, and the output has to tell them apart. The
    /// receiver and the positional arguments written as a plain name are replaced where they
    /// stand in the source, which is then shown as any call's text is.
    fn naming_classes(&self, text: String, receiver: &Option<Value>, args: &Args, loc: Loc) -> String {
        let source = &self.index.file(loc.file).text;
        let (start, end) = (loc.span.start as usize, loc.span.end as usize);
        let Some(raw) = source.get(start..end) else { return text };
        let is_name = |t: &str| !t.is_empty() && t.chars().all(|c| c.is_alphanumeric() || c == '_');
        let class_name = |v: Option<&Value>| match v {
            Some(Value::Class(c)) => Some(self.index.class(*c).name.to_string()),
            _ => None,
        };
        // (start, end) in `raw`, and the class's name.
        let mut renames: Vec<(usize, usize, String)> = Vec::new();
        if let (Some(name), Some((written, _))) = (class_name(receiver.as_ref()), raw.split_once('.')) {
            if is_name(written) {
                renames.push((0, written.len(), name));
            }
        }
        for arg in &args.positional {
            let (Some(name), Some(at)) = (class_name(arg.value.single()), arg.loc) else { continue };
            let (a, b) = (at.span.start as usize, at.span.end as usize);
            if at.file == loc.file && start <= a && b <= end && is_name(&raw[a - start..b - start]) {
                renames.push((a - start, b - start, name));
            }
        }
        // A static method called on the variable it is also handed (`k_cls.f(k_cls, ...)`):
        // the receiver is that variable too.
        if let Some((written, _)) = raw.split_once('.') {
            let same = renames.iter().find(|(a, b, _)| *a > 0 && raw[*a..*b] == *written).map(|(_, _, n)| n.clone());
            if let (Some(name), false) = (same, renames.iter().any(|(a, _, _)| *a == 0)) {
                renames.push((0, written.len(), name));
            }
        }
        renames.retain(|(a, b, name)| raw[*a..*b] != *name);
        if renames.is_empty() {
            return text;
        }
        renames.sort();
        let mut replaced = String::with_capacity(raw.len());
        let mut at = 0;
        for (a, b, name) in renames {
            replaced.push_str(&raw[at..a]);
            replaced.push_str(&name);
            at = b;
        }
        replaced.push_str(&raw[at..]);
        let whole = ruff_text_size::TextRange::up_to(ruff_text_size::TextSize::of(replaced.as_str()));
        crate::syntax::snippet(&replaced, whole)
    }

    /// Identity of a call for the symbol of its result: the receiver and the arguments when
    /// they are simple, the call site otherwise.
    fn call_key(&self, receiver: &Option<Value>, args: &Args, loc: Loc) -> String {
        let receiver_key = match receiver {
            Some(Value::Obj(id)) => format!("#{id}"),
            Some(Value::Sym(s)) => format!("${s}"),
            Some(Value::Class(c)) => self.index.class_path(*c),
            _ => String::new(),
        };
        // An argument that is not simple, or arguments not seen one by one (`*args`,
        // `**kwargs`), make the call one of its own, by where it is.
        let place = format!("@{}:{}", loc.file.as_u32(), loc.span.start);
        // A class or function handed over is named by its path: asked of each class in
        // turn (`k_cls.is_supported_config(k_cls, config)`), the question is one per class.
        let one = |g: &G| match g.single() {
            Some(Value::Const(c)) => c.to_string(),
            Some(Value::Sym(s)) => format!("${s}"),
            Some(Value::Obj(id)) => format!("#{id}"),
            Some(Value::Class(c)) => self.index.class_path(*c),
            Some(Value::Func(f)) => self.index.function_path(*f),
            _ => place.clone(),
        };
        // Keywords by name: `setting(layer="moe")` is not `setting(kind="moe")`.
        let mut args_key: Vec<String> = args.positional.iter().map(|a| one(&a.value)).collect();
        args_key.extend(args.keywords.iter().map(|(name, a)| format!("{name}={}", one(&a.value))));
        if args.unknown_star || !args.splats.is_empty() {
            args_key.push(place.clone());
        }
        format!("{receiver_key}({})", args_key.join(","))
    }

    /// What a call's evaluation depends on besides the objects it reads: the function, the
    /// receiver and the arguments with their conditions (and where an argument carrying the
    /// traced value comes from, which its evidence chain records).
    fn summary_key(&self, func: FuncId, receiver: &Option<Value>, args: &Args) -> String {
        use std::fmt::Write;
        let mut key = format!("{func:?}|{receiver:?}");
        let carries = |g: &G| g.iter().any(|(_, v)| matches!(v, Value::Num(n) if !n.tensor && n.carries_traced()));
        for arg in &args.positional {
            let _ = write!(key, "|{:?}", arg.value);
            if carries(&arg.value) {
                let _ = write!(key, "@{:?}", arg.loc);
            }
        }
        for (name, arg) in &args.keywords {
            let _ = write!(key, "|{name}={:?}", arg.value);
            if carries(&arg.value) {
                let _ = write!(key, "@{:?}", arg.loc);
            }
        }
        let _ = write!(key, "|{:?}|{}", args.splats, args.unknown_star);
        // Output buffers and arguments that are one tensor change what the body writes where.
        let locs = args.positional.iter().map(|a| a.loc).chain(args.keywords.iter().map(|(_, a)| a.loc));
        for (i, loc) in locs.enumerate() {
            let Some(loc) = loc else { continue };
            if self.buffer_args.contains(&loc) {
                let _ = write!(key, "|buffer {i}");
            }
            for (first, second, shared) in &self.shared_args {
                if *first == loc {
                    let _ = write!(key, "|shared {i} {second:?} {shared:?}");
                }
            }
        }
        // A nested function sees its enclosing function's locals as they were last seen (see
        // `refresh_closures`): other locals make another function.
        if let Some(captured) = self.closures.get(&func) {
            let mut names: Vec<_> = captured.iter().collect();
            names.sort_by(|a, b| a.0.cmp(b.0));
            let _ = write!(key, "|closure {names:?}");
        }
        key
    }

    /// Values that decide structure or carry the traced value (never collapsed).
    fn structural(&self, value: &Value) -> bool {
        matches!(
            value,
            Value::Num(_)
                | Value::Obj(_)
                | Value::Class(_)
                | Value::Func(_)
                | Value::Bound(..)
                | Value::Lambda(_)
                | Value::Partial(_)
                | Value::Tuple(_)
                | Value::Module(_)
        )
    }

    /// Binds arguments to parameters the way Python does. `runs_where`: where the call runs,
    /// as seen from the entry (the `**kwargs` dict holds its entries there only).
    #[allow(clippy::too_many_arguments)]
    pub fn bind_params(
        &mut self,
        frame: &mut Frame,
        func: FuncId,
        params: &[crate::index::Param],
        receiver: Option<Value>,
        args: Args,
        pc: &Cond,
        runs_where: &Cond,
        loc: Loc,
    ) {
        let mut params: Vec<crate::index::Param> = params.to_vec();
        if let Some(receiver) = receiver {
            if params.first().is_some_and(|p| p.takes_positional()) {
                let first = params.remove(0);
                frame.locals.insert(first.name, G::under(pc.clone(), receiver));
            }
        }
        let qualname = self.index.function(func).qualname.clone();
        let mut given: Vec<Option<G>> = vec![None; params.len()];
        // Parameters an argument expression of the call names (not a `**` entry, which may be
        // there under some conditions only).
        let mut named: Vec<bool> = vec![false; params.len()];
        // Which argument passed a tensor to each parameter (for writes through it).
        let mut slots: Vec<Option<super::interp::ArgSlot>> = vec![None; params.len()];
        let mut buffers: Vec<bool> = vec![false; params.len()];
        // The parameter each argument location binds (for arguments that are one tensor).
        let mut bound_at: Vec<(Loc, usize)> = Vec::new();
        let is_tensor = |g: &G| g.iter().any(|(_, v)| matches!(v, Value::Num(n) if n.tensor));
        let mut extra_positional: Vec<G> = Vec::new();
        let mut extra_keywords: Vec<(Rc<str>, G)> = Vec::new();
        let positional = crate::index::positional_slots(&params);
        let placed = self.place_after_stars(&params, &args);
        for (i, arg) in args.positional.iter().enumerate() {
            let slot = match &placed {
                Some(places) => places[i],
                None => positional.get(i).copied(),
            };
            let value = self.note_argument(
                &arg.value,
                arg.loc.unwrap_or(loc),
                &qualname,
                slot.map(|p| params[p].name.as_str()).unwrap_or("*args"),
            );
            match slot {
                Some(p) => {
                    // (A buffer holding storage the caller was handed, an unknown tensor, is
                    // written through as a tensor is.)
                    let buffer = arg.loc.is_some_and(|l| self.buffer_args.contains(&l));
                    if is_tensor(&value) || buffer {
                        slots[p] = Some(super::interp::ArgSlot::Positional(i));
                        buffers[p] = buffer;
                        bound_at.extend(arg.loc.map(|l| (l, p)));
                    }
                    given[p] = Some(value);
                    named[p] = true;
                }
                None => extra_positional.push(value),
            }
        }
        for (name, arg) in &args.keywords {
            let value = self.note_argument(&arg.value, arg.loc.unwrap_or(loc), &qualname, name.as_str());
            match crate::index::keyword_slot(&params, name.as_str()) {
                Some(p) => {
                    // (A buffer holding storage the caller was handed, an unknown tensor, is
                    // written through as a tensor is.)
                    let buffer = arg.loc.is_some_and(|l| self.buffer_args.contains(&l));
                    if is_tensor(&value) || buffer {
                        slots[p] = Some(super::interp::ArgSlot::Keyword(name.clone()));
                        buffers[p] = buffer;
                        bound_at.extend(arg.loc.map(|l| (l, p)));
                    }
                    given[p] = Some(value);
                    named[p] = true;
                }
                None => extra_keywords.push((Rc::from(name.as_str()), value)),
            }
        }
        let mut unknown_keywords = false;
        for splat in &args.splats {
            let (entries, unknown) = self.splatted_entries(splat);
            unknown_keywords |= unknown;
            for (key, entry, _) in entries {
                let entry = self.note_argument(&entry, loc, &qualname, &key);
                match crate::index::keyword_slot(&params, &key) {
                    Some(p) => {
                        // The entry may be present only under some conditions: overlay it.
                        let covered = entry.coverage(&self.conds);
                        let mut merged = entry;
                        if let Some(old) = given[p].take() {
                            merged.extend(&self.conds, old.restrict(&self.conds, &covered.not()));
                        }
                        given[p] = Some(merged);
                    }
                    None => extra_keywords.push((key, entry)),
                }
            }
        }
        for (p, value) in given.iter().enumerate() {
            if value.as_ref().is_some_and(carries_traced_scalar) && self.never_reads(func, &params[p].name) {
                self.note_unused_handover(func, params[p].name.as_str(), pc, loc);
            }
        }
        for (i, param) in params.iter().enumerate() {
            let value = match param.kind {
                ParamKind::VarPositional => {
                    G::under(pc.clone(), Value::Tuple(Rc::new(std::mem::take(&mut extra_positional))))
                }
                ParamKind::VarKeyword => {
                    let id = self.alloc(ObjKind::Dict(std::mem::take(&mut extra_keywords)), loc);
                    // Its entries exist where the call runs only (see `pop`).
                    self.keywords_dicts.insert(id, *runs_where);
                    G::under(pc.clone(), Value::Obj(id))
                }
                _ => {
                    let explicit = given[i].take().unwrap_or_default();
                    let covered = explicit.coverage(&self.conds);
                    let rest = pc.and(&covered.not());
                    let mut value = explicit;
                    // An argument the call names but whose value covers less than the call:
                    // where it has none, the code before the call raised (or the value was
                    // cut). No default or unknown stands in for it there: that value would
                    // flow on in configurations that never get here.
                    if !named[i] && self.conds.feasible(&rest) {
                        let fallback = if param.name.as_str() == self.traced.name
                            && (param.default.is_none()
                                || (args.unknown_star && param.kind != ParamKind::KeywordOnly)
                                || unknown_keywords)
                        {
                            // A parameter named after the traced value that nobody passes
                            // (or that unknown `*args`/`**kwargs` may pass).
                            G::under(rest.clone(), self.traced_origin(Loc { file: func.file, span: param.range }))
                        } else if args.unknown_star
                            && param.kind != ParamKind::KeywordOnly
                            && !args.star_data.is_empty()
                        {
                            // An item of a starred value whose items are not known, which
                            // holds data (`stage_b(*state)`, `state` the summary of a stage not
                            // evaluated): the data it holds, whichever item this is.
                            let mut data = G::empty();
                            for g in &args.star_data {
                                data.extend(&self.conds, g.restrict(&self.conds, &rest));
                            }
                            data
                        } else if (args.unknown_star && param.kind != ParamKind::KeywordOnly) || unknown_keywords {
                            let display = param.name.to_string();
                            let v = self.param_symbol(func, param, display);
                            G::under(rest.clone(), v)
                        } else if let Some(default) = &param.default {
                            let mut defaults = self.frame(None, func.file);
                            let default = default.clone();
                            self.eval(&mut defaults, &default, &rest)
                        } else {
                            let v = self.param_symbol(func, param, param.name.to_string());
                            G::under(rest.clone(), v)
                        };
                        value.extend(&self.conds, fallback);
                    }
                    value
                }
            };
            frame.locals.insert(param.name.clone(), value);
            if let Some(slot) = slots[i].take() {
                frame.aliases.insert(param.name.clone(), slot);
                if buffers[i] {
                    frame.buffers.insert(param.name.clone());
                }
            }
        }
        let param_at = |loc: &Loc| bound_at.iter().find(|(l, _)| l == loc).map(|(_, p)| params[*p].name.clone());
        for (first, second, shared) in &self.shared_args {
            if let (Some(a), Some(b)) = (param_at(first), param_at(second)) {
                if a != b {
                    frame.shares.push((a, b, *shared));
                }
            }
        }
    }

    /// Where positional arguments go when `*expr` of unknown length sits among them
    /// (`kernel[grid](x, *x.stride(), out, *out.stride())`): the parameter of each argument
    /// (`None`: a `*args` or not known), or `None` when they cannot be placed. Arguments before
    /// the first star bind in order. With one star, it takes exactly the parameters no argument
    /// fills; with several, an argument that is a plain name binds the next parameter named
    /// after it (`out` → `out` or `out_ptr`), as kernels name their pointers.
    fn place_after_stars(&self, params: &[crate::index::Param], args: &Args) -> Option<Vec<Option<usize>>> {
        let first_star = *args.stars_at.first()?;
        if params.iter().any(|p| p.kind == ParamKind::VarPositional) {
            return None;
        }
        let by_keyword = |p: &crate::index::Param| args.keywords.iter().any(|(k, _)| k == &p.name);
        let free: Vec<usize> =
            crate::index::positional_slots(params).into_iter().filter(|&p| !by_keyword(&params[p])).collect();
        let mut places: Vec<Option<usize>> = free.iter().copied().map(Some).take(first_star).collect();
        places.resize(first_star.min(args.positional.len()), None);
        let after = first_star..args.positional.len();
        if args.stars_at.len() == 1 {
            let absorbed = free.len().checked_sub(args.positional.len())?;
            places.extend(after.map(|i| free.get(i + absorbed).copied()));
            return Some(places);
        }
        let mut cursor = first_star;
        for i in after {
            let arg_loc = args.positional[i].loc?;
            let text = self.text(arg_loc);
            let named = |p: &usize| {
                let name = params[*p].name.as_str();
                name == text || name.strip_prefix(text.as_str()).is_some_and(|rest| rest.starts_with('_'))
            };
            let found = free.iter().skip(cursor).position(named)? + cursor;
            places.push(Some(free[found]));
            cursor = found + 1;
        }
        Some(places)
    }

    /// The value of a parameter no argument gives: a symbol, of the annotated class when the
    /// annotation names one (so its methods can be enumerated).
    pub fn param_symbol(&mut self, func: FuncId, param: &crate::index::Param, display: String) -> Value {
        let hint = param.annotation.as_deref().and_then(|a| {
            let ctx = crate::resolve::Ctx::module(func.file);
            let mut walk = crate::resolve::Walk::default();
            self.resolver.annotation_classes(&ctx, a, &mut walk).into_iter().next()
        });
        let value = self.sym(SymKey::Param(func, param.name.clone()), display, hint);
        if let Some(annotation) = param.annotation.as_deref() {
            self.note_annotated(&value, func.file, annotation);
        }
        value
    }

    /// Records that the call at `loc` hands the traced value to parameter `param` of `func`,
    /// which never reads it, where `pc` holds.
    fn note_unused_handover(&mut self, func: FuncId, param: &str, pc: &Cond, loc: Loc) {
        let when = pc.and(&self.base);
        if let Some(known) = self.unused.iter_mut().find(|u| u.loc == loc && u.param == param) {
            known.when = known.when.or(&when);
            return;
        }
        let facts = self.index.function(func);
        let def = Loc { file: func.file, span: facts.range };
        let callee = facts.qualname.to_string();
        self.unused.push(super::trace::UnusedHandover { loc, callee, def, param: param.to_string(), when });
    }

    /// Records the hop when an argument carries the traced value.
    fn note_argument(&mut self, value: &G, loc: Loc, callee: &str, param: &str) -> G {
        if !carries_traced_scalar(value) {
            return value.clone();
        }
        let label = format!("{callee}({param}=...)");
        let hop = self.hop(loc, HopKind::Argument, label);
        self.map(value, |_, v| match v {
            Value::Num(n) if !n.tensor && n.carries_traced() => {
                Value::Num(Rc::new(super::exprs::extend_chain(&n, hop)))
            }
            other => other,
        })
    }

    /// `Class(...)`: a new object, initialized by `__init__` through the MRO; NamedTuples and
    /// dataclasses get their fields from the arguments.
    pub fn construct(&mut self, class: ClassId, args: Args, pc: &Cond, loc: Loc) -> G {
        let id = self.alloc(ObjKind::Instance(class), loc);
        match crate::query::instances::constructor_params(self.resolver, class) {
            Some((Some(init), _, _)) => {
                let alone = self.alone.is_some_and(|a| a.class == class);
                if alone {
                    self.alone.as_mut().expect("just checked").building += 1;
                }
                self.call_function(init, Some(Value::Obj(id)), args, pc, loc);
                if alone {
                    self.alone.as_mut().expect("just checked").building -= 1;
                }
            }
            Some((None, params, _)) => {
                let mut frame = self.frame(None, class.file);
                let fake = self.alloc_params_frame(&mut frame, &params, args, pc, loc, class);
                if self.resolver.mro(class).is_named_tuple() {
                    return self.named_tuple(id, &params, fake, pc);
                }
                for param in &params {
                    if let Some(g) = fake.get(param.name.as_str()) {
                        self.set_field(id, &param.name, g.clone(), pc);
                    }
                }
                // A dataclass finishes building itself in `__post_init__` (fields derived from
                // others, checks); it is part of construction, so it runs whatever it mentions.
                if let Some((_, hook)) = self.class_attr(class, "__post_init__", loc) {
                    if let Some(Value::Func(func)) = hook.single() {
                        self.force = Some(*func);
                        self.call_function(*func, Some(Value::Obj(id)), Args::default(), pc, loc);
                        self.force = None;
                    }
                }
            }
            None => {
                // A subclass of `dict` built from a dict (`ClassInstantier(ACT2CLS)`) holds its
                // entries: `super().__getitem__(key)` reads them.
                let dict_like = self.resolver.mro(class).external.iter().any(|e| is_dict_base(e));
                if let (true, Some(first)) = (dict_like, args.positional.first()) {
                    let contents = first.value.clone();
                    self.set_field(id, &Name::new_static(DICT_CONTENTS), contents, pc);
                }
            }
        }
        G::under(pc.clone(), Value::Obj(id))
    }

    /// A NamedTuple cannot change once built, so it is a value: the same class built at the same
    /// place from the same fields is the same object. Its fields are kept relative to where it
    /// was built (reads go through the condition of the object's alternative), which is what
    /// lets the same record built on two paths be one alternative instead of two.
    fn named_tuple(
        &mut self,
        id: HeapId,
        params: &[crate::index::Param],
        mut fields: rustc_hash::FxHashMap<Name, G>,
        pc: &Cond,
    ) -> G {
        let mut ordered = Vec::with_capacity(params.len());
        for param in params {
            if let Some(g) = fields.remove(param.name.as_str()) {
                ordered.push((param.name.clone(), g.relative_to(&self.conds, pc)));
            }
        }
        let created = self.heap[id as usize].created;
        let ObjKind::Instance(class) = self.heap[id as usize].kind else { unreachable!("records are instances") };
        let candidates = self.records.entry((class, created)).or_default().clone();
        for other in candidates {
            let object = &self.heap[other as usize];
            let equal = object.fields.len() == ordered.len()
                && ordered.iter().all(|(name, g)| object.fields.get(name).is_some_and(|h| h.same_as(g)));
            if equal {
                return G::under(*pc, Value::Obj(other));
            }
        }
        self.heap[id as usize].fields = ordered.into_iter().collect();
        self.shared[id as usize] = true;
        self.records.entry((class, created)).or_default().push(id);
        G::under(*pc, Value::Obj(id))
    }

    /// Binds record fields like parameters (NamedTuple / dataclass constructors).
    fn alloc_params_frame(
        &mut self,
        frame: &mut Frame,
        params: &[crate::index::Param],
        args: Args,
        pc: &Cond,
        loc: Loc,
        class: ClassId,
    ) -> rustc_hash::FxHashMap<Name, G> {
        // Record classes have no FuncId; bind against a pseudo function of the class's file.
        let mut out = rustc_hash::FxHashMap::default();
        for (i, param) in params.iter().enumerate() {
            let explicit = args
                .keywords
                .iter()
                .find(|(n, _)| *n == param.name)
                .map(|(_, a)| a.value.clone())
                .or_else(|| args.positional.get(i).map(|a| a.value.clone()));
            let value = match explicit {
                Some(v) => v,
                None => match (
                    param.default.as_deref().and_then(dataclass_default),
                    param.default.as_deref().and_then(|d| field_keyword(d, "default_factory")),
                ) {
                    (Some(default), _) => {
                        let default = default.clone();
                        self.eval(frame, &default, pc)
                    }
                    // `field(default_factory=dict)`: a fresh value from the factory.
                    (None, Some(factory)) => {
                        let factory = self.eval(frame, &factory.clone(), pc);
                        self.call(&factory, Args::default(), pc, loc)
                    }
                    (None, None) => {
                        let label = format!("{}.{}", self.index.class(class).name, param.name);
                        let v = self.sym(SymKey::At(loc, label.clone()), label, None);
                        G::under(pc.clone(), v)
                    }
                },
            };
            out.insert(param.name.clone(), value);
        }
        out
    }

    /// Calling an object: `__call__`, or `forward` for modules.
    fn call_object(&mut self, id: HeapId, args: Args, pc: &Cond, loc: Loc) -> G {
        let class = match &self.heap[id as usize].kind {
            ObjKind::Instance(c) | ObjKind::Abstract(c, _) => *c,
            _ => return G::under(pc.clone(), Value::unknown("calling a container")),
        };
        let normalizes = {
            let mro = self.resolver.mro(class);
            mro.classes.iter().any(|c| is_normalization(self.index.class(*c).name.as_str()))
                || mro.external.iter().any(|e| is_normalization(e))
        };
        if normalizes && !self.class_mentions(class) {
            if let Some(normalized) = self.normalization_call(&args, pc, loc) {
                return normalized;
            }
        }
        for name in ["__call__", "forward"] {
            if let Some((_, g)) = self.class_attr(class, name, loc) {
                let g = self.map(&g, |this, v| this.bind_class_attr(v, Value::Obj(id), false));
                return self.call(&g, args, pc, loc);
            }
        }
        G::under(
            pc.clone(),
            Value::unknown(format!("{} has no __call__ or forward in the tree", self.index.class(class).name)),
        )
    }

    /// The entries of the dicts a `**splat` may be, each restricted to where the splat is that
    /// dict (with that condition), and whether it may also be something else (not a dict the
    /// evaluation built).
    pub(super) fn splatted_entries(&self, splat: &G) -> (Vec<(Rc<str>, G, Cond)>, bool) {
        let mut entries = Vec::new();
        let mut unknown = false;
        for (c, v) in splat.iter() {
            let dict = match v {
                Value::Obj(id) => match &self.read_object(*id).kind {
                    ObjKind::Dict(dict) => Some(dict),
                    _ => None,
                },
                _ => None,
            };
            let Some(dict) = dict else {
                unknown = true;
                continue;
            };
            entries.extend(dict.iter().map(|(key, g)| (key.clone(), g.restrict(&self.conds, c), *c)));
        }
        (entries, unknown)
    }

    /// `args` with the entries of the dicts it splats (`self.self_attn(**attn_kwargs)`) as
    /// keywords, when they hold data and nothing else does: for a call not evaluated, data
    /// handed in a dict is data handed over, and what it gives is data too. (Named by the call
    /// instead, the result was an unknown value, which `x *= 1 / v` then took for a number
    /// derived from the factor.) An entry present only in some configurations is handed where
    /// it is, and `None` elsewhere.
    fn with_splatted_data(&self, args: Args) -> Args {
        if args.has_data() || args.splats.is_empty() {
            return args;
        }
        let mut expanded = self.with_splatted_entries(args.clone());
        if !expanded.keywords.iter().any(|(_, a)| a.value.iter().any(|(_, v)| matches!(v, Value::Num(_)))) {
            return args;
        }
        expanded.splats.clear();
        expanded
    }

    /// `args` with the entries of the dicts it splats as keywords, whatever they hold (a
    /// kernel handed `**kwargs` built with `dict(..., routed_scaling_factor=...)` is handed
    /// those keywords, and its model finds the factor among them). An entry present only in
    /// some configurations is handed where it is, and `None` elsewhere. Entries of a splat that
    /// may be something else than a dict the evaluation built are not known: that splat stays.
    pub fn with_splatted_entries(&self, args: Args) -> Args {
        if args.splats.is_empty() {
            return args;
        }
        let mut keywords: Vec<(Name, Arg)> = Vec::new();
        let mut kept = Vec::new();
        for splat in &args.splats {
            let (entries, unknown) = self.splatted_entries(splat);
            if unknown {
                kept.push(splat.clone());
                continue;
            }
            for (key, mut value, c) in entries {
                if args.keywords.iter().any(|(k, _)| k.as_str() == &*key) {
                    continue;
                }
                // Absent where the entry is not set: handed nothing there.
                let gap = c.and(&value.coverage(&self.conds).not());
                value.push(&self.conds, gap, Value::none());
                // The same key from another dict the splat may be: one keyword.
                match keywords.iter_mut().find(|(k, _)| k.as_str() == &*key) {
                    Some((_, arg)) => arg.value.extend(&self.conds, value),
                    None => keywords.push((Name::new(&*key), Arg { value, loc: None })),
                }
            }
        }
        let mut expanded = args;
        expanded.keywords.extend(keywords);
        expanded.splats = kept;
        expanded
    }

    /// A normalization layer called on data (`self.norm(x)`, `self.post_attention_layernorm(x,
    /// residual)`): its output does not depend on the scale of its input (`RMSNorm(v * x) ==
    /// RMSNorm(x)`), so data scaled as a whole comes out of no scale; a factor applied to the
    /// input of the next layer's norm is gone from what the norm gives. Data whose parts are
    /// scaled differently (`routed * v + shared`) keeps its parts: the norm rescales the sum, the
    /// factor still weighs one part against the other. Handed a residual too (the fused
    /// add-and-norm of serving stacks), it normalizes `x + residual` and carries that sum on.
    /// `None` when not called on data, or when handed the traced value itself (then its code is
    /// evaluated).
    fn normalization_call(&mut self, args: &Args, pc: &Cond, loc: Loc) -> Option<G> {
        if args.carry_traced() {
            return None;
        }
        let named = |names: &[&str]| {
            args.keywords.iter().find(|(k, _)| names.contains(&k.as_str())).map(|(_, a)| a.value.clone())
        };
        let x = args.positional.first().map(|a| a.value.clone()).or_else(|| named(&["x", "hidden_states", "input"]))?;
        if !x.iter().any(|(_, v)| matches!(v, Value::Num(n) if n.tensor)) {
            return None;
        }
        let residual = args.positional.get(1).map(|a| a.value.clone()).or_else(|| named(&["residual"]));
        let mut out = G::empty();
        for (c, r) in residual.unwrap_or_else(|| G::under(*pc, Value::none())).restrict(&self.conds, pc).0 {
            let input = match &r {
                Value::Const(Constant::None) => x.restrict(&self.conds, &c),
                _ => self.union_nums(&x.restrict(&self.conds, &c), &G::under(c, r.clone()), &c),
            };
            // Where data scaled as a whole loses its scale here, say so (a NEVER row then
            // names the norm rather than nothing).
            for (ic, iv) in input.iter() {
                if let Value::Num(n) = iv {
                    if n.carries_traced() && !n.parts.windows(2).any(|w| w[0].exp != w[1].exp) {
                        self.note_normalized(loc, Normalizer::Layer, ic);
                    }
                }
            }
            let normalized = self.map(&input, |_, v| normalized(v));
            let value = match r {
                Value::Const(Constant::None) => normalized,
                _ => G::under(c, Value::Tuple(Rc::new(vec![normalized, input]))),
            };
            out.extend(&self.conds, value);
        }
        Some(out)
    }

    /// A method called on an object whose class is unknown but bounded by a base class: one
    /// alternative per implementation in the tree, each under "the object is of that class".
    fn dispatch_unknown(&mut self, sym: SymId, func: FuncId, args: Args, pc: &Cond, loc: Loc) -> G {
        let name = self.index.function(func).name.clone();
        let universe = self.universe(sym);
        let mut groups: Vec<(FuncId, ClassId, Vec<ClassId>)> = Vec::new();
        for class in &universe {
            let mro = self.resolver.mro(*class);
            let implementation = mro.classes.iter().find_map(|c| {
                self.index.class(*c).body.iter().find_map(|b| match b.kind {
                    crate::index::BindingKind::Function(f) if b.name == name => Some((f, *c)),
                    _ => None,
                })
            });
            let Some((f, owner)) = implementation else { continue };
            match groups.iter_mut().find(|(g, _, _)| *g == f) {
                Some((_, _, members)) => members.push(*class),
                None => groups.push((f, owner, vec![*class])),
            }
        }
        let mut out = G::empty();
        for (f, owner, members) in groups {
            if is_abstract(self.index.function(f)) {
                continue;
            }
            let c = pc.and(&self.of_classes(sym, &members));
            if !self.conds.feasible(&c) {
                continue;
            }
            // Python raises `TypeError` there, before any code of the method runs.
            if cannot_take(self.index.function(f), &args) {
                self.raise_of(Some("TypeError"), &c, loc);
                continue;
            }
            let receiver = self.abstract_object(owner, sym);
            let result = self.call_function(f, Some(receiver), args.clone(), &c, loc);
            out.extend(&self.conds, result);
        }
        if out.is_empty() {
            out.push(&self.conds, pc.clone(), Value::unknown(format!("no implementation of `{name}` in the tree")));
        }
        out
    }

    /// The classes an unknown receiver may be: its hint and every subclass, with the atoms
    /// "it is exactly this class" constrained to exactly one.
    pub fn universe(&mut self, sym: SymId) -> Vec<ClassId> {
        if let Some(u) = self.universes.get(&sym) {
            return u.clone();
        }
        let Some(hint) = self.syms[sym as usize].class_hint else { return Vec::new() };
        let mut classes = vec![hint];
        classes.extend(self.resolver.all_subclasses(hint));
        // A class with a method still abstract cannot be made: no object is of it exactly
        // (an `ABC` the value is declared as; where it was a configuration, a method abstract
        // there ran nothing, and the configuration was lost).
        classes.retain(|c| !self.has_abstract_method(*c));
        if classes.len() > MAX_IMPLEMENTATIONS {
            let loc = Loc { file: hint.file, span: self.index.class(hint).name_range };
            self.bound(
                Some(loc),
                format!(
                    "{} has more than {MAX_IMPLEMENTATIONS} subclasses; the rest are not enumerated",
                    self.index.class(hint).name
                ),
            );
            // Those kept are the nearest to the base class in the package tree: a serving
            // layer's quantization config is one of its own package's, before those another
            // product in the same distribution derives from it (SGLang's `multimodal_gen`).
            let home = &self.index.file(hint.file).module;
            let nearness = |c: &ClassId| common_prefix(home, &self.index.file(c.file).module);
            classes[1..].sort_by_key(|c| (std::cmp::Reverse(nearness(c)), *c));
            classes.truncate(MAX_IMPLEMENTATIONS);
            classes[1..].sort();
        }
        // A single candidate is no choice: no atom, the class is known.
        if classes.len() > 1 {
            let atoms: Vec<Cond> = classes.iter().map(|c| self.new_class_atom(sym, *c)).collect();
            self.conds.exactly_one(sym, &atoms, true);
        }
        self.universes.insert(sym, classes.clone());
        classes
    }

    /// Whether a method of `class`, as its MRO resolves it, is abstract.
    fn has_abstract_method(&mut self, class: ClassId) -> bool {
        let mro = self.resolver.mro(class);
        let mut seen: rustc_hash::FxHashSet<&str> = rustc_hash::FxHashSet::default();
        for c in &mro.classes {
            // (Any binding of the name overrides it: a method, or a function assigned.)
            for binding in &self.index.class(*c).body {
                let first = seen.insert(binding.name.as_str());
                if let crate::index::BindingKind::Function(f) = binding.kind {
                    if first && is_abstract(self.index.function(f)) {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// "The unknown object `sym` is of one of `classes`" (each exactly).
    pub fn of_classes(&mut self, sym: SymId, classes: &[ClassId]) -> Cond {
        let mut cond = self.conds.falsity();
        for class in classes {
            let atom = self.class_atom(sym, *class);
            cond = cond.or(&atom);
        }
        cond
    }

    /// "The unknown object `sym` is exactly of `class`": a constant when its universe decides
    /// it (one candidate, or a class outside the candidates), an atom otherwise.
    pub fn class_atom(&mut self, sym: SymId, class: ClassId) -> Cond {
        let universe = self.universe(sym);
        match universe.as_slice() {
            [] => self.new_class_atom(sym, class),
            [only] => self.conds.constant(*only == class),
            _ if !universe.contains(&class) => self.conds.falsity(),
            _ => self.new_class_atom(sym, class),
        }
    }

    fn new_class_atom(&mut self, sym: SymId, class: ClassId) -> Cond {
        let label = self.syms[sym as usize].label();
        let class_name = self.index.class(class).name.to_string();
        self.atom(AtomKey::IsClass(sym, class), || format!("{label} is {class_name}"))
    }

    /// `isinstance(value, classes)` for one alternative.
    pub fn isinstance(&mut self, value: &Value, classes: &[Value], loc: Loc) -> Cond {
        let targets: Vec<ClassId> =
            classes.iter().filter_map(|c| if let Value::Class(c) = c { Some(*c) } else { None }).collect();
        let external: Vec<&str> =
            classes.iter().filter_map(|c| if let Value::External(p) = c { Some(p.as_ref()) } else { None }).collect();
        match value {
            Value::Obj(id) => match self.heap[*id as usize].kind.clone() {
                ObjKind::Instance(k) | ObjKind::Abstract(k, _) => {
                    let mro = self.resolver.mro(k);
                    let yes = targets.iter().any(|t| mro.classes.contains(t))
                        || external.iter().any(|e| mro.external.iter().any(|x| x == e));
                    self.conds.constant(yes)
                }
                ObjKind::List(_) => self.conds.constant(external.iter().any(|e| e.ends_with("list"))),
                ObjKind::Dict(_) => self.conds.constant(external.iter().any(|e| e.ends_with("dict"))),
                ObjKind::Sentinel => self.conds.constant(external.iter().any(|e| e.ends_with("object"))),
                // (Never a value: it only holds what was written into a symbol.)
                ObjKind::Opaque(s) => self.isinstance(&Value::Sym(s), classes, loc),
            },
            Value::Sym(s) if self.syms[*s as usize].class_hint.is_some() && !targets.is_empty() => {
                // What a skipped call returned is what that call returns (see `call_value`).
                if let Some(object) = self.skipped_result(*s, loc) {
                    let mut holds = self.conds.falsity();
                    for (c, v) in object.0 {
                        let t = self.isinstance(&v, classes, loc);
                        holds = holds.or(&c.and(&t));
                    }
                    self.calling_deferred.remove(s);
                    return holds;
                }
                let instances: Vec<ClassId> = self
                    .universe(*s)
                    .into_iter()
                    .filter(|k| targets.iter().any(|t| self.resolver.mro(*k).classes.contains(t)))
                    .collect();
                self.of_classes(*s, &instances)
            }
            Value::Num(_) => {
                self.conds.constant(external.iter().any(|e| e.ends_with("Tensor") || e.ends_with("Parameter")))
            }
            // An object made by an outside class is an instance of that class (of its bases too,
            // which are not known: those stay open).
            Value::ExternalObj(made) if external.iter().any(|e| *e == made.as_ref()) => self.conds.truth(),
            // A tuple is a `tuple`; a class is a `type` (`content if isinstance(content, tuple)
            // else (content, {})` over a table of classes and `(class, kwargs)` pairs).
            Value::Tuple(_) => {
                let yes = classes.iter().any(|c| matches!(c, Value::Builtin(b) if b.as_ref() == "tuple"));
                self.conds.constant(yes)
            }
            Value::Class(_) => {
                let yes = classes.iter().any(|c| matches!(c, Value::Builtin(b) if b.as_ref() == "type"));
                self.conds.constant(yes)
            }
            // Something outside the tree that is named (`nn.SiLU`, `F.gelu`), or a function:
            // not a container or a scalar.
            Value::External(_) | Value::Func(_) | Value::Bound(..) | Value::Lambda(_)
                if classes.iter().all(|c| {
                    matches!(c, Value::Builtin(b)
                        if matches!(b.as_ref(), "tuple" | "list" | "dict" | "set" | "str" | "int" | "float" | "bool"))
                }) =>
            {
                self.conds.falsity()
            }
            // A function of the tree (a bound method, a lambda, a partial) is no instance of a
            // class of the tree (`isinstance(op, YieldOperation)` over a list of operations).
            Value::Func(_) | Value::Bound(..) | Value::Lambda(_) | Value::Partial(_)
                if !classes.is_empty() && classes.iter().all(|c| matches!(c, Value::Class(_))) =>
            {
                self.conds.falsity()
            }
            Value::Const(c) => {
                let kind = match c {
                    Constant::None => "NoneType",
                    Constant::Bool(_) => "bool",
                    Constant::Int(_) => "int",
                    Constant::Float(_) => "float",
                    Constant::Str(_) => "str",
                };
                let builtin = classes.iter().any(
                    |c| matches!(c, Value::Builtin(b) if b.as_ref() == kind || (kind == "bool" && b.as_ref() == "int")),
                );
                // Enum members are their values here: a value one of the enum's members has
                // is taken as that member (`isinstance(rows.group, SumGroup)` over a field
                // declared to hold one).
                let member = !matches!(c, Constant::None)
                    && targets.iter().any(|t| {
                        self.is_enum(*t) && self.enum_member_values(*t).iter().any(|m| super::exprs::consts_equal(m, c))
                    });
                self.conds.constant(builtin || member)
            }
            _ => {
                // Named by the unknown value it tests, or else by the test as written (the
                // value is not a symbol, and the call's own text already names both).
                let label = match value {
                    Value::Sym(s) => self.syms[*s as usize].label(),
                    _ => {
                        let text = self.text(loc);
                        if text.starts_with("isinstance(") || text.starts_with("issubclass(") {
                            return self.atom(AtomKey::Test(text.clone()), || text);
                        }
                        text
                    }
                };
                let names: Vec<String> = classes
                    .iter()
                    .map(|c| match c {
                        Value::Class(k) => self.index.class(*k).name.to_string(),
                        Value::External(p) | Value::Builtin(p) => p.rsplit('.').next().unwrap_or_default().to_string(),
                        _ => "?".into(),
                    })
                    .collect();
                let text = format!("isinstance({label}, {})", names.join(" | "));
                let holds = self.atom(AtomKey::Test(text.clone()), || text);
                // Of a loop's element (or what was read from it), a test that differs between
                // iterations.
                self.note_iteration_test(&holds, &[value]);
                holds
            }
        }
    }
}

/// A part whose scale is no longer known exactly.
impl Interp<'_, '_> {
    /// The scaled tensors (or tensors with application sites) the arguments hold inside
    /// tuples and objects, as one tensor with all their parts; `None` when there are none.
    fn held_scaled_data(&mut self, args: &Args, pc: &Cond) -> Option<G> {
        // One slot per place a tensor is held (argument, field, item): the alternatives of one
        // slot exclude each other (the expert output of one runner or another), those of
        // different slots are held together. Merging every alternative into one tensor made
        // an output hold the parts of several runners no configuration runs together.
        let mut slots: Vec<(String, G)> = Vec::new();
        let values: Vec<G> = args.all_values().chain(args.splats.iter()).cloned().collect();
        let mut seen = Vec::new();
        for (i, g) in values.iter().enumerate() {
            for (c, v) in g.iter() {
                if !matches!(v, Value::Num(_)) {
                    self.held_slots(v, i.to_string(), *c, 0, &mut seen, &mut slots);
                }
            }
        }
        // Data scaled somewhere, or of a scale not known (which must stay so).
        let scaled = |g: &G| g.iter().any(|(_, v)| matches!(v, Value::Num(n) if n.touched()));
        if !slots.iter().any(|(_, g)| scaled(g)) {
            return None;
        }
        // The held tensors together. Where a slot holds no tensor it adds nothing, not a plain
        // tensor: that would be a part of its own (exponent 0) beside the others', as if
        // unscaled data were held too (a record holding the scaled expert output read MIXED).
        let mut out = G::empty();
        for (_, slot) in slots {
            let slot = slot.restrict(&self.conds, pc);
            let merged = self.union_where_given(&out, &slot, pc);
            out = self.bounded(merged, None, || "data held in a record took more alternatives than kept".to_string());
        }
        let nothing = pc.and(&out.coverage(&self.conds).not());
        out.push(&self.conds, nothing, Value::Num(Rc::new(Num::plain_tensor())));
        Some(out)
    }

    /// Whether the arguments hold data, directly or in records and objects.
    fn holds_data(&self, args: &Args) -> bool {
        let mut slots: Vec<(String, G)> = Vec::new();
        let mut seen = Vec::new();
        for (i, g) in args.all_values().chain(args.splats.iter()).enumerate() {
            for (c, v) in g.iter() {
                self.held_slots(v, i.to_string(), *c, 0, &mut seen, &mut slots);
            }
        }
        !slots.is_empty()
    }

    /// `result`'s tensors times the data `held` in records handed over (other values stay).
    fn times_held(&mut self, result: &G, held: &G) -> G {
        let mut out = G::empty();
        for (c, v) in result.iter() {
            let Value::Num(a) = v else {
                out.push(&self.conds, *c, v.clone());
                continue;
            };
            for (d, h) in held.iter() {
                let both = c.and(d);
                if !self.conds.feasible(&both) {
                    continue;
                }
                let value = match h {
                    Value::Num(b) => Value::Num(Rc::new(self.product(a, b, 1))),
                    _ => v.clone(),
                };
                out.push(&self.conds, both, value);
            }
        }
        out
    }

    /// The tensors `value` holds (itself, the items of a tuple, the fields and items of an
    /// object, a few levels down), each at its place, under the condition it is held there.
    fn held_slots(
        &self,
        value: &Value,
        place: String,
        cond: Cond,
        depth: usize,
        seen: &mut Vec<HeapId>,
        slots: &mut Vec<(String, G)>,
    ) {
        if depth > 4 {
            return;
        }
        match value {
            Value::Num(n) if n.tensor => match slots.iter_mut().find(|(p, _)| *p == place) {
                Some((_, g)) => g.push(&self.conds, cond, value.clone()),
                None => slots.push((place, G::under(cond, value.clone()))),
            },
            Value::Tuple(items) => {
                for (j, g) in items.iter().enumerate() {
                    for (c, v) in g.iter() {
                        self.held_slots(v, format!("{place}[{j}]"), cond.and(c), depth + 1, seen, slots);
                    }
                }
            }
            Value::Obj(id) if !seen.contains(id) => {
                seen.push(*id);
                // Fields of an object older than the call are seen from the entry.
                let older = self.older_than_call(*id);
                for (key, g) in self.object_contents(*id) {
                    let g = if older { self.seen_from_call(*id, &g) } else { g };
                    for (c, v) in g.iter() {
                        self.held_slots(v, format!("{place}{key}"), cond.and(c), depth + 1, seen, slots);
                    }
                }
            }
            _ => {}
        }
    }

    /// What an object holds, by place (`[0]`, `[key]`, `.field`), in the order of the places.
    fn object_contents(&self, id: HeapId) -> Vec<(String, G)> {
        let object = self.read_object(id);
        let mut held: Vec<(String, G)> = match &object.kind {
            ObjKind::List(items) => items.iter().enumerate().map(|(j, g)| (format!("[{j}]"), g.clone())).collect(),
            ObjKind::Dict(entries) => entries.iter().map(|(k, g)| (format!("[{k}]"), g.clone())).collect(),
            _ => Vec::new(),
        };
        held.extend(object.fields.iter().map(|(k, g)| (format!(".{k}"), g.clone())));
        held.sort_by(|a, b| a.0.cmp(&b.0));
        held
    }

    /// The tensors a value holds: itself, or the items of a tuple and the fields and items of
    /// an object, a few levels down (what `held_slots` finds, without places or conditions:
    /// the cheap question relevance asks of every call).
    pub(super) fn held_tensors(&self, value: &Value, depth: usize, seen: &mut Vec<HeapId>, out: &mut Vec<Rc<Num>>) {
        if depth > 4 {
            return;
        }
        match value {
            Value::Num(n) if n.tensor => out.push(n.clone()),
            Value::Tuple(items) => {
                for g in items.iter() {
                    for (_, v) in g.iter() {
                        self.held_tensors(v, depth + 1, seen, out);
                    }
                }
            }
            Value::Obj(id) if !seen.contains(id) => {
                seen.push(*id);
                for (_, g) in self.object_contents(*id) {
                    for (_, v) in g.iter() {
                        self.held_tensors(v, depth + 1, seen, out);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The default a dataclass field declares: the expression itself, or for
/// `field(default=x, ...)` the `x`; `None` for a `field(...)` without `default` (a factory, or
/// no default at all).
fn dataclass_default(expr: &Expr) -> Option<&Expr> {
    if !is_field_call(expr) {
        return Some(expr);
    }
    field_keyword(expr, "default")
}

fn is_field_call(expr: &Expr) -> bool {
    matches!(expr, Expr::Call(call) if crate::syntax::dotted_name(&call.func)
        .is_some_and(|n| n == "field" || n.ends_with(".field")))
}

/// The value of keyword `name` in a `field(...)` call.
fn field_keyword<'a>(expr: &'a Expr, name: &str) -> Option<&'a Expr> {
    match expr {
        Expr::Call(call) if is_field_call(expr) => call
            .arguments
            .keywords
            .iter()
            .find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == name))
            .map(|k| &k.value),
        _ => None,
    }
}

/// The data a collective communication combines, when `label` names one (the method names of
/// `torch.distributed` and of process-group wrappers): the input of `*_into_tensor`,
/// `reduce_scatter_tensor` and `all_to_all_single` (output first), else the first argument.
fn collective_input<'a>(label: &str, args: &'a Args) -> Option<&'a G> {
    let method = label.rsplit('.').next().unwrap_or(label);
    let output_first = matches!(
        method,
        "all_gather_into_tensor"
            | "reduce_scatter_tensor"
            | "all_to_all_single"
            | "_all_gather_base"
            | "_reduce_scatter_base"
    );
    // (A helper named after its collective, `tensor_model_parallel_all_reduce(x)`, is one.)
    let collective =
        |name: &str| method == name || method.strip_suffix(name).is_some_and(|helper| helper.ends_with('_'));
    let input_first =
        ["all_reduce", "all_gather", "reduce_scatter", "all_gatherv", "reduce_scatterv", "broadcast", "all_to_all"]
            .into_iter()
            .any(collective);
    if output_first {
        let by_name = args.keywords.iter().find(|(k, _)| matches!(k.as_str(), "input" | "input_" | "input_tensor"));
        by_name.map(|(_, a)| &a.value).or_else(|| args.positional.get(1).map(|a| &a.value))
    } else if input_first {
        let by_name = args.keywords.iter().find(|(k, _)| matches!(k.as_str(), "input" | "input_" | "tensor"));
        by_name.map(|(_, a)| &a.value).or_else(|| args.positional.first().map(|a| &a.value))
    } else {
        None
    }
}

/// What a blocker says when data goes through a callee that is not resolved.
fn data_through_unresolved(label: &str) -> String {
    format!("data passes through `{label}`, which is not resolved: what it does to the scale is not known")
}

/// `n` as it comes out of a callee whose effect on the scale is not known (`blocker`).
pub fn taint(n: &Num, blocker: u32) -> Num {
    let parts =
        n.parts.iter().map(|p| Part { unknown: Part::first_unknown(p.unknown, Some(blocker)), ..p.clone() }).collect();
    Num { tensor: n.tensor, parts, shape: n.shape }
}

/// Whether a module (or method) called under this name gives a shared expert's output: the
/// names the frameworks give the shared expert, its gate and the method running it. (Not every
/// name that mentions it: `_gather_shared_expert_inputs` gives the expert's input.)
fn is_shared_expert(name: &str) -> bool {
    matches!(
        name.trim_start_matches('_'),
        "shared_experts"
            | "shared_expert"
            | "share_expert"
            | "shared_expert_gate"
            | "shared_mlp"
            | "forward_shared_experts"
            | "forward_shared_expert"
    )
}

/// What a shared expert gives: its data is the shared expert's (see `Part::shared`), also where
/// its input came in scaled (the routed experts wrote their scaled output into the hidden
/// states in place, and the shared expert read them: vLLM PR 28939's shape).
fn shared_output(value: Value) -> Value {
    match value {
        Value::Num(n) if n.tensor && n.parts.iter().any(|p| !p.zero && !p.unwritten && !p.shared) => {
            let parts =
                n.parts.iter().map(|p| Part { shared: p.shared || !(p.zero || p.unwritten), ..p.clone() }).collect();
            Value::Num(Rc::new(Num { parts, ..(*n).clone() }.normalize()))
        }
        other => other,
    }
}

/// A tensor method that changes its receiver and returns it (`mul_`, `add_`), not a private
/// name.
pub(super) fn is_in_place_method(name: &str) -> bool {
    name.ends_with('_') && !name.starts_with('_')
}

/// Whether an in-place method's receiver is a place a write can reach: a name, an attribute, a
/// subscript, a view of one (`out.view(-1, h).mul_(v)` scales `out`), or an in-place call on
/// one, which returns its receiver (`out.mul_(v).mul_(v)` scales `out` twice).
fn is_assignable(expr: &Expr) -> bool {
    match expr {
        Expr::Name(_) | Expr::Attribute(_) | Expr::Subscript(_) => true,
        Expr::Call(call) => match call.func.as_ref() {
            Expr::Attribute(attr) => {
                let name = attr.attr.as_str();
                (super::exprs::VIEWS.contains(&name) || is_in_place_method(name)) && is_assignable(&attr.value)
            }
            _ => false,
        },
        _ => false,
    }
}

/// The receiver an in-place call chain writes into, its in-place calls taken off
/// (`out.mul_(v)` in `out.mul_(v).add_(y)` is `out`).
fn written_base(mut expr: &Expr) -> &Expr {
    while let Expr::Call(call) = expr {
        match call.func.as_ref() {
            Expr::Attribute(attr) if is_in_place_method(attr.attr.as_str()) => expr = &attr.value,
            _ => break,
        }
    }
    expr
}

/// Functions compiled for a device (`@triton.jit`, `@triton.autotune`, `@triton.heuristics`).
pub(super) fn is_device_kernel(func: &crate::index::FunctionFacts) -> bool {
    func.decorators.iter().any(|d| {
        crate::syntax::decorator_name(d).is_some_and(|n| {
            let last = n.rsplit('.').next().unwrap_or_default();
            n.starts_with("triton") || n.starts_with("tl.") || matches!(last, "jit" | "autotune" | "heuristics")
        })
    })
}

/// Whether calling `func` on an instance with `args` certainly fails with `TypeError`: a
/// keyword it has no parameter for (and no `**kwargs`), more positional arguments than it takes
/// (and no `*args`), or a required parameter no argument fills. An implementation an unknown
/// receiver cannot be called with this way is not one of the receiver's classes: a MoE layer's
/// `quant_method.apply(layer=self, dispatch_output=...)` is not a linear method's `apply(self,
/// layer, x, bias=None)`. Arguments whose number or names are not known (`*xs`, `**kw`) never
/// make a call fail here.
fn cannot_take(func: &crate::index::FunctionFacts, args: &Args) -> bool {
    use crate::index::{FunctionKind, ParamKind};
    // A decorator may return a function of another signature: only those known to keep it
    // leave the parameters as written.
    if !func.decorators.iter().all(keeps_signature) {
        return false;
    }
    let mut params: &[crate::index::Param] = &func.params;
    if matches!(func.kind, FunctionKind::Method | FunctionKind::ClassMethod | FunctionKind::Property) {
        match params.split_first() {
            Some((first, rest)) if first.takes_positional() => params = rest,
            // No parameter for the instance: only `*args` takes it.
            _ if params.iter().any(|p| p.kind == ParamKind::VarPositional) => {}
            _ => return true,
        }
    }
    let takes_any_keyword = params.iter().any(|p| p.kind == ParamKind::VarKeyword);
    let takes_any_positional = params.iter().any(|p| p.kind == ParamKind::VarPositional);
    let positional = crate::index::positional_slots(params);
    let mut filled = vec![false; params.len()];
    if !args.unknown_star {
        if args.positional.len() > positional.len() && !takes_any_positional {
            return true;
        }
        for &slot in positional.iter().take(args.positional.len()) {
            filled[slot] = true;
        }
    }
    for (name, _) in &args.keywords {
        match crate::index::keyword_slot(params, name.as_str()) {
            Some(slot) => filled[slot] = true,
            None if takes_any_keyword => {}
            None => return true,
        }
    }
    if args.unknown_star || !args.splats.is_empty() {
        return false;
    }
    params.iter().zip(&filled).any(|(p, filled)| {
        !filled
            && p.default.is_none()
            && matches!(p.kind, ParamKind::PositionalOnly | ParamKind::PositionalOrKeyword | ParamKind::KeywordOnly)
    })
}

/// Decorators that return a function taking the arguments the decorated one takes (or that
/// only make it a class's or static method, which `cannot_take` reads from its kind).
fn keeps_signature(decorator: &Expr) -> bool {
    let target = match decorator {
        Expr::Call(call) => &*call.func,
        other => other,
    };
    let Some(name) = crate::syntax::dotted_name(target) else { return false };
    let last = name.rsplit('.').next().unwrap_or(&name);
    matches!(
        last,
        "abstractmethod"
            | "classmethod"
            | "staticmethod"
            | "override"
            | "final"
            | "no_grad"
            | "inference_mode"
            | "enable_grad"
            | "compile"
            | "disable"
            | "cache"
            | "lru_cache"
            | "ignore"
            | "unused"
    )
}

/// How many leading components two dotted module names share.
fn common_prefix(a: &str, b: &str) -> usize {
    a.split('.').zip(b.split('.')).take_while(|(x, y)| x == y).count()
}

/// Abstract methods (`@abstractmethod`) are not implementations. (A method whose body only
/// raises is one: its configurations are listed among the raises.)
fn is_abstract(func: &crate::index::FunctionFacts) -> bool {
    func.decorators.iter().any(|d| crate::syntax::dotted_name(d).is_some_and(|n| n.ends_with("abstractmethod")))
}

pub(super) fn contains_yield(body: &[Stmt]) -> bool {
    use ruff_python_ast::visitor::{Visitor, walk_expr, walk_stmt};
    struct Finder {
        found: bool,
    }
    impl<'a> Visitor<'a> for Finder {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            if !matches!(stmt, Stmt::FunctionDef(_) | Stmt::ClassDef(_)) && !self.found {
                walk_stmt(self, stmt);
            }
        }
        fn visit_expr(&mut self, expr: &'a Expr) {
            if matches!(expr, Expr::Yield(_) | Expr::YieldFrom(_)) {
                self.found = true;
            } else if !matches!(expr, Expr::Lambda(_)) && !self.found {
                walk_expr(self, expr);
            }
        }
    }
    let mut finder = Finder { found: false };
    for stmt in body {
        finder.visit_stmt(stmt);
    }
    finder.found
}

/// What a finished body wrote into the tensors its caller passed: per argument, the value the
/// parameter holds at the end (relative to the call).
fn written_arguments(frame: &Frame) -> Vec<(super::interp::ArgSlot, G)> {
    let mut out: Vec<(super::interp::ArgSlot, G)> = frame
        .written
        .iter()
        .filter_map(|name| Some((frame.aliases.get(name)?.clone(), frame.locals.get(name)?.clone())))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Whether some alternative of `value` is a number (not a tensor) carrying the traced value.
fn carries_traced_scalar(value: &G) -> bool {
    value.iter().any(|(_, v)| matches!(v, Value::Num(n) if !n.tensor && n.carries_traced()))
}

/// What a normalization layer makes of one alternative of its input (see
/// `Interp::normalization_call`).
fn normalized(value: Value) -> Value {
    match value {
        Value::Num(n) if n.parts.windows(2).any(|w| w[0].exp != w[1].exp) => Value::Num(n),
        _ => Value::Num(Rc::new(Num::plain_tensor())),
    }
}

/// Whether a class (or an outside class's path) is a normalization layer: RMS or layer norm, by
/// the names every framework gives them (`RMSNorm`, `GemmaRMSNorm`, `DeepseekV3RMSNorm`,
/// `torch.nn.LayerNorm`).
fn is_normalization(name: &str) -> bool {
    let ends_with = |suffix: &str| {
        name.len()
            .checked_sub(suffix.len())
            .and_then(|at| name.get(at..))
            .is_some_and(|end| end.eq_ignore_ascii_case(suffix))
    };
    ends_with("rmsnorm") || ends_with("layernorm")
}

/// Whether a return annotation is a tensor (`torch.Tensor`, `Tensor`).
fn declares_tensor(returns: Option<&Expr>) -> bool {
    match returns {
        Some(Expr::Attribute(a)) => a.attr.as_str() == "Tensor",
        Some(Expr::Name(n)) => n.id.as_str() == "Tensor",
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::{Arg, Args, collective_input};
    use crate::eval::cond::Cond;
    use crate::eval::value::{G, Value};

    #[test]
    fn collectives_are_known_by_name_and_so_are_helpers_named_after_them() {
        let tensor = Arg { value: G::under(Cond::TRUE, Value::none()), loc: None };
        let args = Args { positional: vec![tensor], ..Args::default() };
        for label in ["group.all_reduce", "tensor_model_parallel_all_reduce", "dist.all_gather", "tp.reduce_scatterv"] {
            assert!(collective_input(label, &args).is_some(), "{label}");
        }
        // (A name that only ends in the letters of one is not: `overall_reduce`.)
        for label in ["all_reduce_size", "overall_reduce", "reduce", "gather"] {
            assert!(collective_input(label, &args).is_none(), "{label}");
        }
    }
}
