//! Python builtins with a meaning for the evaluator: `isinstance`, `getattr`, `hasattr`,
//! `setattr`, `len`, `range`, `enumerate`, `zip`, conversions, `min`/`max`, containers.

use std::rc::Rc;

use super::calls::Args;
use super::cond::{AtomKey, Cond};
use super::interp::{Interp, ObjKind};
use super::value::*;
use crate::syntax::Constant;

/// The bounds of a `range(...)` of unknown length, with their text: `start` is 0 when absent.
#[derive(Clone, Debug)]
pub struct RangeBounds {
    start: Option<(G, String)>,
    stop: (G, String),
    loc: Loc,
}

impl Interp<'_, '_> {
    /// `value.attr` as `getattr(value, attr, default)` and `hasattr` see it: where reading it
    /// raises (an attribute set only in other configurations), it is absent — an unknown
    /// "no attribute" alternative — rather than a configuration that stops.
    fn absent_or_attr(&mut self, value: &G, attr: &str, pc: &Cond, loc: Loc) -> G {
        self.raises_muted += 1;
        let mut got = self.getattr_g(value, attr, pc, loc);
        self.raises_muted -= 1;
        let missing = pc.and(&got.coverage(&self.conds).not());
        if self.conds.feasible(&missing) {
            got.push(&self.conds, missing, Value::unknown(format!("no attribute `{attr}`")));
        }
        got
    }

    pub fn call_builtin(&mut self, name: &str, args: Args, pc: &Cond, loc: Loc) -> G {
        let arg = |i: usize| args.positional.get(i).map(|a| a.value.clone());
        match name {
            "isinstance" | "issubclass" => {
                let (Some(value), Some(classes)) = (arg(0), arg(1)) else { return self.anon(pc, loc) };
                let mut holds = self.conds.falsity();
                for (vc, v) in value.0.clone() {
                    for (cc, cv) in classes.0.clone() {
                        let list: Vec<Value> = match &cv {
                            Value::Tuple(items) => items
                                .iter()
                                .flat_map(|g| g.0.iter().map(|(_, v)| v.clone()).collect::<Vec<_>>())
                                .collect(),
                            other => vec![other.clone()],
                        };
                        let v = if name == "issubclass" {
                            match &v {
                                Value::Class(c) => {
                                    let id = self.alloc(ObjKind::Instance(*c), loc);
                                    Value::Obj(id)
                                }
                                other => other.clone(),
                            }
                        } else {
                            v.clone()
                        };
                        let t = self.isinstance(&v, &list, loc);
                        holds = holds.or(&vc.and(&cc).and(&t));
                    }
                }
                self.bool_value(&holds, pc)
            }
            "getattr" => {
                let (Some(value), Some(attr)) = (arg(0), arg(1)) else { return self.anon(pc, loc) };
                let default = arg(2);
                let mut out = G::empty();
                for (ac, av) in attr.0.clone() {
                    let c = ac.and(pc);
                    match &av {
                        Value::Const(Constant::Str(attr)) => {
                            let got = self.absent_or_attr(&value, attr, &c, loc);
                            for (gc, gv) in got.0 {
                                let missing = matches!(&gv, Value::Unknown(r) if r.contains("no attribute") || r.contains("never set"));
                                match (&default, missing) {
                                    (Some(d), true) => out.extend(&self.conds, d.restrict(&self.conds, &gc)),
                                    _ => out.push(&self.conds, gc, gv),
                                }
                            }
                        }
                        _ => {
                            self.blocker(loc, "getattr with a name computed at run time", pc);
                            out.push(&self.conds, c, Value::unknown("dynamic getattr"));
                        }
                    }
                }
                out
            }
            "hasattr" => {
                let (Some(value), Some(attr)) = (arg(0), arg(1)) else { return self.anon(pc, loc) };
                let Some(Value::Const(Constant::Str(attr))) = attr.single().cloned() else { return self.anon(pc, loc) };
                let mut holds = self.conds.falsity();
                for (base_cond, base) in value.0 {
                    // A tensor's attributes are not modelled (it "has" every method name), and
                    // those code checks for are set on it at run time (`weight.weight_loader`):
                    // whether it has this one is not known — `assert not hasattr(weight, key)`
                    // must not fail everywhere.
                    if matches!(base, Value::Num(_)) {
                        // One question per attribute: `hasattr(weight, key)` in a helper asked
                        // for two keys is two facts, named by the key.
                        let text = self.text(loc);
                        let label = match text.strip_prefix("hasattr(").and_then(|rest| rest.split_once(',')) {
                            Some((object, _)) if !text.contains(&format!("{attr:?}")) => {
                                format!("hasattr({}, {attr:?})", object.trim())
                            }
                            _ => text,
                        };
                        let t = self.atom(AtomKey::Test(label.clone()), || label);
                        holds = holds.or(&base_cond.and(&t));
                        continue;
                    }
                    let got = self.absent_or_attr(&G::under(base_cond, base), &attr, &base_cond, loc);
                    for (c, v) in got.0 {
                        let t = match &v {
                            Value::Unknown(r) if r.contains("no attribute") || r.contains("never set") => {
                                self.conds.falsity()
                            }
                            Value::Sym(s) => {
                                let label = format!("hasattr({}, {attr:?})", self.syms[*s as usize].label());
                                self.atom(AtomKey::Test(label.clone()), || label)
                            }
                            _ => self.conds.truth(),
                        };
                        holds = holds.or(&c.and(&base_cond).and(&t));
                    }
                }
                self.bool_value(&holds, pc)
            }
            "setattr" => {
                if let (Some(obj), Some(attr), Some(value)) = (arg(0), arg(1), arg(2)) {
                    if let Some(Value::Const(Constant::Str(attr))) = attr.single().cloned() {
                        let name = ruff_python_ast::name::Name::new(&attr);
                        for (c, v) in obj.0.clone() {
                            if let Value::Obj(id) = v {
                                let restricted = value.restrict(&self.conds, &c);
                                self.set_attribute(id, &name, restricted, &c, loc);
                            }
                        }
                    }
                }
                G::under(pc.clone(), Value::none())
            }
            "len" => match arg(0).as_ref().and_then(|g| g.single().cloned()) {
                Some(Value::Tuple(items)) => G::under(pc.clone(), Value::Const(Constant::Int(items.len() as i64))),
                Some(Value::Obj(id)) => match self.list_length(id, pc) {
                    Some(length) => length,
                    None => self.data_length(pc, loc),
                },
                Some(Value::Num(_)) => self.data_length(pc, loc),
                // Of anything else (a string read from the environment): a number, not the size
                // of data.
                _ => self.anon(pc, loc),
            },
            "range" => {
                // `range(len(append.bindings))` of known small bounds: its numbers, per
                // alternative of the bounds.
                let stays_abstract = std::mem::take(&mut self.range_stays_abstract);
                // `range(end_layer, num_layers)` where both are the same value: empty, whatever
                // the value (the last pipeline rank has no layer after it).
                if let [start, stop, ..] = args.positional.as_slice() {
                    if let (Some(a), Some(b)) = (start.value.single(), stop.value.single()) {
                        if matches!(a, Value::Sym(_)) && a.same(b) {
                            return G::under(*pc, Value::Tuple(Rc::new(Vec::new())));
                        }
                    }
                }
                if !stays_abstract {
                    if let Some(ranges) = self.small_ranges(&args, pc) {
                        return ranges;
                    }
                }
                let text = self.text(loc);
                let v = self.sym(SymKey::At(loc, text.clone()), text, None);
                if let (Value::Sym(s), Some(bounds)) = (&v, self.range_bounds_of(&args, loc)) {
                    self.range_bounds.insert(*s, bounds);
                }
                G::under(pc.clone(), v)
            }
            "enumerate" | "zip" | "reversed" | "sorted" | "list" | "tuple" | "set" | "frozenset" | "iter" => {
                let Some(first) = arg(0) else {
                    let id = self.alloc(ObjKind::List(Vec::new()), loc);
                    return G::under(pc.clone(), Value::Obj(id));
                };
                match name {
                    "enumerate" => {
                        // Over a short sequence known item by item: its items, numbered.
                        if let Some(sequences) = self.small_sequences(&first) {
                            let mut out = G::empty();
                            for (c, items) in sequences {
                                let pairs = items
                                    .into_iter()
                                    .enumerate()
                                    .map(|(i, item)| {
                                        let index = G::under(c, Value::Const(Constant::Int(i as i64)));
                                        G::under(c, Value::Tuple(Rc::new(vec![index, item])))
                                    })
                                    .collect();
                                let id = self.alloc(ObjKind::List(pairs), loc);
                                out.push(&self.conds, c.and(pc), Value::Obj(id));
                            }
                            return out;
                        }
                        let text = format!("index of {}", self.text(loc));
                        let index = self.sym(SymKey::At(loc, text.clone()), text, None);
                        self.note_loop_element(&index);
                        // Named after the sequence it walks (`an element of range(...)`).
                        let sequence = args.positional.first().and_then(|a| a.loc).unwrap_or(loc);
                        let element = self.iter_element(
                            &first,
                            pc,
                            sequence,
                            &ruff_python_ast::Expr::NoneLiteral(Default::default()),
                        );
                        let pair = Value::Tuple(Rc::new(vec![G::under(pc.clone(), index), element]));
                        let id = self.alloc(ObjKind::List(vec![G::under(pc.clone(), pair)]), loc);
                        self.abstract_lists.insert(id);
                        G::under(pc.clone(), Value::Obj(id))
                    }
                    "zip" => self.zip(&args, pc, loc),
                    // `list(xs)` and `tuple(xs)` of a list are a new list with its items: changing
                    // one does not change the other (`backends = list(DEFAULTS); backends.append(b)`).
                    "list" | "tuple" => self.map(&first, |this, v| match v {
                        Value::Obj(id) if matches!(this.heap[id as usize].kind, ObjKind::List(_)) => {
                            let ObjKind::List(items) = this.read_object(id).kind.clone() else { unreachable!() };
                            let copy = this.alloc(ObjKind::List(items), loc);
                            if let Some(&depth) = this.exact_lists.get(&id) {
                                this.exact_lists.insert(copy, depth);
                            }
                            if this.abstract_lists.contains(&id) {
                                this.abstract_lists.insert(copy);
                            }
                            Value::Obj(copy)
                        }
                        other => other,
                    }),
                    _ => first,
                }
            }
            "object" if args.positional.is_empty() && args.keywords.is_empty() => {
                let id = self.alloc(ObjKind::Sentinel, loc);
                G::under(*pc, Value::Obj(id))
            }
            "dict" => {
                let mut entries: Vec<(Rc<str>, G)> = Vec::new();
                if let Some(first) = arg(0) {
                    match first.single() {
                        Some(Value::Obj(id)) if matches!(self.heap[*id as usize].kind, ObjKind::Dict(_)) => {
                            let ObjKind::Dict(more) = self.read_object(*id).kind.clone() else { unreachable!() };
                            entries = more;
                        }
                        // `dict(mapping)` of a mapping not known entry by entry (or of pairs) is
                        // not known either: not an empty dict.
                        _ => return self.anon(pc, loc),
                    }
                }
                // `dict(**base, k=v)`: the entries of the dicts splatted in, each where the splat
                // is that dict; one that may be something else makes the dict not known.
                if args.unknown_star {
                    return self.anon(pc, loc);
                }
                for splat in &args.splats {
                    let (splatted, unknown) = self.splatted_entries(splat);
                    if unknown {
                        return self.anon(pc, loc);
                    }
                    for (key, value, c) in splatted {
                        super::exprs::set_entry(&mut entries, &key, value, self, &c);
                    }
                }
                for (key, a) in &args.keywords {
                    super::exprs::set_entry(&mut entries, key.as_str(), a.value.clone(), self, pc);
                }
                let id = self.alloc(ObjKind::Dict(entries), loc);
                G::under(pc.clone(), Value::Obj(id))
            }
            // `bool(x)` of a setting is `True` where `x` is truthy and `False` elsewhere (so a
            // lazy setting `bool(int(os.getenv("X", "0")))` is a named flag); of data, a test
            // of the data, kept as it is.
            "bool" if arg(0).is_some_and(|g| g.iter().all(|(_, v)| matches!(v, Value::Sym(_)))) => {
                let mut out = G::empty();
                for (c, v) in arg(0).expect("checked").iter() {
                    let t = self.truthy_value(v, loc);
                    for (holds, value) in [(t, true), (t.not(), false)] {
                        let at = c.and(&holds);
                        if self.conds.feasible(&at) {
                            out.push(&self.conds, at, Value::Const(Constant::Bool(value)));
                        }
                    }
                }
                out
            }
            "int" | "float" | "bool" | "abs" | "round" | "sum" | "str" => match arg(0) {
                Some(value) => self.map(&value, |this, v| match (name, v) {
                    ("bool", v) => {
                        let t = this.truthy_value(&v, loc);
                        if t.is_true() {
                            Value::Const(Constant::Bool(true))
                        } else if t.is_false() {
                            Value::Const(Constant::Bool(false))
                        } else {
                            v
                        }
                    }
                    ("float", Value::Const(Constant::Int(i))) => Value::Const(Constant::Float(i as f64)),
                    ("int", Value::Const(Constant::Float(x))) => Value::Const(Constant::Int(x as i64)),
                    // `int(t)` of a tensor is a Python integer (a count, a size), `str(x)` a
                    // string: not data.
                    (_, Value::Num(n)) if name == "str" || (name == "int" && n.tensor) => {
                        let text = this.text(loc);
                        this.sym(SymKey::At(loc, text.clone()), text, None)
                    }
                    (_, v @ (Value::Num(_) | Value::Const(_) | Value::Sym(_))) => v,
                    _ => Value::unknown(format!("{name}(...)")),
                }),
                None => G::under(pc.clone(), Value::Const(Constant::Int(0))),
            },
            "min" | "max" => {
                let mut out: Option<G> = None;
                for a in &args.positional {
                    out = Some(match out {
                        None => a.value.clone(),
                        Some(prev) => {
                            if a.value.iter().chain(prev.iter()).any(|(_, v)| matches!(v, Value::Num(_))) {
                                self.union_nums(&prev, &a.value, pc)
                            } else {
                                let v = self.anon(pc, loc);
                                v
                            }
                        }
                    });
                }
                out.unwrap_or_else(|| self.anon(pc, loc))
            }
            "type" => match arg(0) {
                Some(value) => self.map(&value, |this, v| match v {
                    Value::Obj(id) => match this.heap[id as usize].kind {
                        ObjKind::Instance(c) | ObjKind::Abstract(c, _) => Value::Class(c),
                        _ => Value::unknown("type of a container"),
                    },
                    _ => Value::unknown("type of an unknown value"),
                }),
                None => self.anon(pc, loc),
            },
            // An object's identity: a number of its own (dicts keyed by `id(append)`).
            "id" => match arg(0) {
                Some(value) if value.iter().all(|(_, v)| matches!(v, Value::Obj(_))) => {
                    self.map(&value, |_, v| match v {
                        Value::Obj(id) => Value::Const(Constant::Int(object_identity(id))),
                        other => other,
                    })
                }
                _ => self.anon(pc, loc),
            },
            "callable" => match arg(0) {
                Some(value) => {
                    let mut out = G::empty();
                    for (c, v) in value.restrict(&self.conds, pc).0 {
                        match self.is_callable(&v) {
                            Some(answer) => out.push(&self.conds, c, Value::Const(Constant::Bool(answer))),
                            None => {
                                let unknown = self.anon(&c, loc);
                                out.extend(&self.conds, unknown);
                            }
                        }
                    }
                    out
                }
                None => self.anon(pc, loc),
            },
            "print" | "hash" | "repr" | "vars" | "dir" | "next" | "any" | "all" | "format" | "divmod" | "ord"
            | "chr" | "open" => self.anon(pc, loc),
            _ => {
                let text = self.text(loc);
                let v = self.sym(SymKey::At(loc, text.clone()), text, None);
                G::under(pc.clone(), v)
            }
        }
    }

    /// `zip(a, b)`: pairs by position where some argument is a short sequence known item by
    /// item (`zip(states, trunc_sizes)` over a `(shared, routed)` pair), one alternative per
    /// combination of the known ones' alternatives; an argument not known item by item gives
    /// its one element standing for all to every pair. Otherwise one pair of such elements.
    fn zip(&mut self, args: &Args, pc: &Cond, loc: Loc) -> G {
        let known: Vec<Option<Vec<(Cond, Vec<G>)>>> =
            args.positional.iter().map(|a| self.small_sequences(&a.value)).collect();
        let any_known = known.iter().any(Option::is_some);
        let mut elements = Vec::with_capacity(known.len());
        for (arg, sequences) in args.positional.iter().zip(&known) {
            elements.push(match sequences {
                Some(_) if any_known => G::empty(),
                // Each argument's element is its own (named after it), not the others'.
                _ => self.iter_element(
                    &arg.value,
                    pc,
                    arg.loc.unwrap_or(loc),
                    &ruff_python_ast::Expr::NoneLiteral(Default::default()),
                ),
            });
        }
        // Combinations of the known arguments' alternatives, each with its condition.
        let mut combinations: Vec<(Cond, Vec<Option<Vec<G>>>)> = vec![(*pc, Vec::new())];
        for sequences in &known {
            let mut next = Vec::new();
            for (c, chosen) in &combinations {
                match sequences {
                    Some(alternatives) => {
                        for (ac, items) in alternatives {
                            let both = c.and(ac);
                            if self.conds.feasible(&both) {
                                let mut chosen = chosen.clone();
                                chosen.push(Some(items.clone()));
                                next.push((both, chosen));
                            }
                        }
                    }
                    None => {
                        let mut chosen = chosen.clone();
                        chosen.push(None);
                        next.push((*c, chosen));
                    }
                }
            }
            combinations = next;
            if combinations.len() > MAX_ZIPPED {
                break;
            }
        }
        if !any_known || combinations.len() > MAX_ZIPPED {
            let mut elements = elements;
            for (i, arg) in args.positional.iter().enumerate() {
                if known[i].is_some() {
                    let none = ruff_python_ast::Expr::NoneLiteral(Default::default());
                    elements[i] = self.iter_element(&arg.value, pc, arg.loc.unwrap_or(loc), &none);
                }
            }
            let pair = Value::Tuple(Rc::new(elements));
            let id = self.alloc(ObjKind::List(vec![G::under(*pc, pair)]), loc);
            self.abstract_lists.insert(id);
            return G::under(*pc, Value::Obj(id));
        }
        let mut out = G::empty();
        for (c, chosen) in combinations {
            let length = chosen.iter().flatten().map(Vec::len).min().unwrap_or(0);
            let pairs = (0..length)
                .map(|i| {
                    let items = chosen
                        .iter()
                        .zip(&elements)
                        .map(|(items, element)| match items {
                            Some(items) => items[i].restrict(&self.conds, &c),
                            None => element.restrict(&self.conds, &c),
                        })
                        .collect();
                    G::under(c, Value::Tuple(Rc::new(items)))
                })
                .collect();
            let id = self.alloc(ObjKind::List(pairs), loc);
            out.push(&self.conds, c, Value::Obj(id));
        }
        out
    }

    /// Whether `value` can be called, when that is known: functions, classes and methods can;
    /// constants, tensors and containers cannot; an object can when its class (or an outside
    /// base, a module's `nn.Module`) defines `__call__`.
    fn is_callable(&mut self, value: &Value) -> Option<bool> {
        match value {
            Value::Func(_)
            | Value::Bound(..)
            | Value::Lambda(_)
            | Value::Partial(_)
            | Value::Class(_)
            | Value::Method(..) => Some(true),
            Value::Const(_) | Value::Num(_) | Value::Tuple(_) => Some(false),
            Value::Obj(id) => match self.heap[*id as usize].kind.clone() {
                ObjKind::List(_) | ObjKind::Dict(_) | ObjKind::Sentinel => Some(false),
                ObjKind::Instance(class) | ObjKind::Abstract(class, _) => {
                    if self.method_through_mro(class, "__call__").is_some() || self.is_module_class(class) {
                        Some(true)
                    } else if self.resolver.mro(class).external.is_empty() {
                        Some(false)
                    } else {
                        None
                    }
                }
                ObjKind::Opaque(_) => None,
            },
            _ => None,
        }
    }

    /// The length of data (a tensor, a list the evaluation built): tested against 0, whether
    /// the data is empty (see `exprs::is_size`).
    fn data_length(&mut self, pc: &Cond, loc: Loc) -> G {
        let g = self.anon(pc, loc);
        if let Some(Value::Sym(s)) = g.single() {
            self.data_lengths.insert(*s);
        }
        g
    }

    fn anon(&mut self, pc: &Cond, loc: Loc) -> G {
        let text = self.text(loc);
        let v = self.sym(SymKey::At(loc, text.clone()), text, None);
        G::under(pc.clone(), v)
    }
}

/// The number `id(obj)` gives for heap object `id`: distinct per object, and far from the
/// numbers code writes (as CPython's addresses are).
fn object_identity(id: HeapId) -> i64 {
    0x7f00_0000_0000 + 16 * i64::from(id)
}

/// Combinations of `zip`'s arguments' alternatives taken pair by pair; past this, one pair of
/// elements standing for all.
const MAX_ZIPPED: usize = 16;

impl Interp<'_, '_> {
    /// `range(...)` where every bound is a known integer in each of (at most eight)
    /// alternatives, and each range has at most eight numbers: a tuple of them per alternative.
    /// The bounds of `range(stop)` or `range(start, stop)` (a step leaves them unknown).
    fn range_bounds_of(&self, args: &Args, loc: Loc) -> Option<RangeBounds> {
        let text = |arg: &super::calls::Arg| self.text(arg.loc.unwrap_or(loc)).to_string();
        match args.positional.as_slice() {
            [stop] => Some(RangeBounds { start: None, stop: (stop.value.clone(), text(stop)), loc }),
            [start, stop] => Some(RangeBounds {
                start: Some((start.value.clone(), text(start))),
                stop: (stop.value.clone(), text(stop)),
                loc,
            }),
            _ => None,
        }
    }

    /// The bounds of the sequence `iterable` when it is a `range` of unknown length
    /// (`range(start_layer)`, empty on a model not split into pipeline stages).
    pub(super) fn unknown_range(&self, iterable: &G) -> Option<RangeBounds> {
        let Some(Value::Sym(s)) = iterable.single() else { return None };
        self.range_bounds.get(s).cloned()
    }

    /// The condition under which the range `bounds` has items.
    pub(super) fn nonempty(&mut self, bounds: &RangeBounds) -> Cond {
        let bounds = bounds.clone();
        let (start, start_text) =
            bounds.start.unwrap_or_else(|| (G::under(self.conds.truth(), Value::Const(Constant::Int(0))), "0".into()));
        let (stop, stop_text) = bounds.stop;
        self.compare(&stop, ruff_python_ast::CmpOp::Gt, &start, &stop_text, &start_text, bounds.loc)
    }

    fn small_ranges(&mut self, args: &Args, pc: &Cond) -> Option<G> {
        let mut combos: Vec<(Cond, Vec<i64>)> = vec![(*pc, Vec::new())];
        for arg in &args.positional {
            let mut next = Vec::new();
            for (c, bounds) in &combos {
                for (vc, v) in arg.value.iter() {
                    let Value::Const(Constant::Int(n)) = v else { return None };
                    let here = c.and(vc);
                    if self.conds.feasible(&here) {
                        next.push((here, bounds.iter().copied().chain([*n]).collect::<Vec<_>>()));
                    }
                }
            }
            if next.len() > 8 {
                return None;
            }
            combos = next;
        }
        let mut out = G::empty();
        for (c, bounds) in combos {
            let numbers = small_range(&bounds)?;
            let items = numbers.into_iter().map(|n| G::under(c, Value::Const(Constant::Int(n)))).collect();
            out.push(&self.conds, c, Value::Tuple(Rc::new(items)));
        }
        (!out.is_empty()).then_some(out)
    }
}

/// The numbers of `range(*bounds)` when there are at most [`MAX_RANGE_ITEMS`] of them.
fn small_range(bounds: &[i64]) -> Option<Vec<i64>> {
    const MAX_RANGE_ITEMS: i64 = 8;
    let (start, stop, step) = match *bounds {
        [stop] => (0, stop, 1),
        [start, stop] => (start, stop, 1),
        [start, stop, step] if step != 0 => (start, stop, step),
        _ => return None,
    };
    let count =
        if step > 0 { (stop - start + step - 1).div_euclid(step) } else { (start - stop - step - 1).div_euclid(-step) };
    if count > MAX_RANGE_ITEMS {
        return None;
    }
    Some((0..count.max(0)).map(|i| start + i * step).collect())
}

/// A method of a string constant with constant arguments, folded: `self.value.endswith(
/// "_no_mul")` on an enum member's value, `name.lower() == "silu"`. `None` for a method or
/// arguments not folded here (the call is then a value named by its text, as before).
pub fn fold_str_method(text: &str, name: &str, args: &Args) -> Option<Constant> {
    if !args.keywords.is_empty() || args.unknown_star || !args.splats.is_empty() {
        return None;
    }
    let strings = |i: usize| -> Option<Vec<String>> {
        match args.positional.get(i)?.value.single()? {
            Value::Const(Constant::Str(s)) => Some(vec![s.clone()]),
            // `startswith(("a", "b"))`: any of them.
            Value::Tuple(items) => items
                .iter()
                .map(|g| match g.single() {
                    Some(Value::Const(Constant::Str(s))) => Some(s.clone()),
                    _ => None,
                })
                .collect(),
            _ => None,
        }
    };
    let count = args.positional.len();
    let folded = match (name, count) {
        ("lower", 0) => Constant::Str(text.to_lowercase()),
        ("upper", 0) => Constant::Str(text.to_uppercase()),
        ("strip", 0) => Constant::Str(text.trim().to_string()),
        ("lstrip", 0) => Constant::Str(text.trim_start().to_string()),
        ("rstrip", 0) => Constant::Str(text.trim_end().to_string()),
        ("startswith", 1) => Constant::Bool(strings(0)?.iter().any(|p| text.starts_with(p.as_str()))),
        ("endswith", 1) => Constant::Bool(strings(0)?.iter().any(|p| text.ends_with(p.as_str()))),
        ("replace", 2) => {
            let (from, to) = (strings(0)?, strings(1)?);
            match (from.as_slice(), to.as_slice()) {
                ([from], [to]) if !from.is_empty() => Constant::Str(text.replace(from.as_str(), to)),
                _ => return None,
            }
        }
        ("isdigit", 0) => Constant::Bool(!text.is_empty() && text.chars().all(|c| c.is_ascii_digit())),
        _ => return None,
    };
    Some(folded)
}
