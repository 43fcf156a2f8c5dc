//! Evaluating expressions to guarded abstract values.

use std::rc::Rc;

use ruff_python_ast::name::Name;
use ruff_python_ast::{self as ast, CmpOp, Expr};

use super::cond::{AtomKey, Cond};
use super::interp::{Frame, Interp, ObjKind};
use super::trace::HopKind;
use super::value::*;
use crate::index::ClassId;
use crate::syntax::{Constant, constant};

/// Past this many lists (one per outcome of a comprehension's filters), a filtered
/// comprehension over a known sequence is taken as over an unknown one.
const MAX_FILTERED_LISTS: usize = 32;

impl Interp<'_, '_> {
    /// Every value `expr` may have under `pc`, each alternative under a condition within `pc`.
    pub fn eval(&mut self, frame: &mut Frame, expr: &Expr, pc: &Cond) -> G {
        let loc = self.loc(frame.file, expr);
        if !self.step(loc) {
            return G::under(pc.clone(), Value::unknown("evaluation budget spent"));
        }
        if let Some(c) = constant(expr) {
            return G::under(pc.clone(), Value::Const(c));
        }
        match expr {
            Expr::Name(name) => self.lookup(frame, name.id.as_str(), pc, loc),
            Expr::Attribute(attr) => {
                let base = self.eval(frame, &attr.value, pc);
                self.getattr_g(&base, attr.attr.as_str(), pc, loc)
            }
            Expr::Call(call) => self.eval_call(frame, call, pc),
            Expr::BinOp(binop) => {
                let left = self.eval(frame, &binop.left, pc);
                let right = self.eval(frame, &binop.right, pc);
                if let Some(pointer) = super::device::pointer_offset(frame, binop, &left, &right) {
                    return pointer;
                }
                self.binop(&left, binop.op, &right, pc, loc, false)
            }
            Expr::UnaryOp(unary) => {
                let operand = self.eval(frame, &unary.operand, pc);
                match unary.op {
                    ast::UnaryOp::Not => {
                        // The test is of the operand: an atom made here is named after it, not
                        // after `not x` (which would print the negation the other way round).
                        let t = self.truthy(&operand, self.loc(frame.file, unary.operand.as_ref()));
                        self.bool_value(&t.not(), pc)
                    }
                    ast::UnaryOp::USub => self.map(&operand, |_, v| match v {
                        Value::Const(Constant::Int(i)) => Value::Const(Constant::Int(-i)),
                        Value::Const(Constant::Float(x)) => Value::Const(Constant::Float(-x)),
                        Value::Num(n) => Value::Num(n),
                        other => other,
                    }),
                    _ => operand,
                }
            }
            Expr::BoolOp(boolop) => self.eval_boolop(frame, boolop, pc),
            Expr::Compare(compare) => self.eval_compare(frame, compare, pc, loc),
            Expr::If(ifexp) => self.eval_conditional(frame, ifexp, pc, &mut Vec::new()),
            Expr::Tuple(tuple) => self.eval_sequence(frame, &tuple.elts, pc),
            Expr::List(list) => {
                let (items, known) = self.eval_items_known(frame, &list.elts, pc);
                let id = self.alloc(ObjKind::List(items), loc);
                if known {
                    self.mark_exact(id);
                }
                G::under(pc.clone(), Value::Obj(id))
            }
            Expr::Set(set) => self.eval_sequence(frame, &set.elts, pc),
            Expr::Dict(dict) => {
                let mut entries: Vec<(Rc<str>, G)> = Vec::new();
                // Known entry by entry when every key is a constant.
                let mut exact = true;
                for item in &dict.items {
                    let value = self.eval(frame, &item.value, pc);
                    match &item.key {
                        Some(key) => match key.as_string_literal_expr() {
                            Some(s) => set_entry(&mut entries, s.value.to_str(), value, self, pc),
                            None => {
                                // A key that evaluates to a constant (an enum member such as
                                // `Backend.TORCH`, a tuple of them) is that constant; others
                                // are kept by their text (a registry looked up at run time).
                                let evaluated = self.eval(frame, key, pc);
                                let name = match evaluated.single().and_then(entry_key) {
                                    Some(constant) => constant,
                                    None => {
                                        exact = false;
                                        format!("<{}>", self.text(self.loc(frame.file, key)))
                                    }
                                };
                                set_entry(&mut entries, &name, value, self, pc);
                            }
                        },
                        None => {
                            // `{**other}`: merge the other dict's entries.
                            exact = false;
                            if let Some(Value::Obj(other)) = value.single() {
                                if let ObjKind::Dict(more) = self.read_object(*other).kind.clone() {
                                    for (k, g) in more {
                                        set_entry(&mut entries, &k, g, self, pc);
                                    }
                                }
                            }
                        }
                    }
                }
                let id = self.alloc(ObjKind::Dict(entries), loc);
                if exact {
                    self.exact_dicts.insert(id, self.abstract_depth);
                }
                G::under(pc.clone(), Value::Obj(id))
            }
            Expr::Subscript(sub) => {
                let base = self.eval(frame, &sub.value, pc);
                if let Expr::Slice(slice) = sub.slice.as_ref() {
                    if let Some(bounds) = self.slice_bounds(frame, slice, pc) {
                        return self.sliced(&base, bounds, pc, loc);
                    }
                    // Bounds known only at run time (`self.layers[: config.num_hidden_layers]`):
                    // a list or tuple of some of its items, which are what its items are (the
                    // layers of a stack built in one abstract iteration are one item).
                    if slice.step.is_none() {
                        let sequences = base.iter().all(|(_, v)| match v {
                            Value::Tuple(_) => true,
                            Value::Obj(id) => matches!(self.heap[*id as usize].kind, ObjKind::List(_)),
                            _ => false,
                        });
                        if sequences && !base.is_empty() {
                            return self.sliced(&base, (None, None), pc, loc);
                        }
                    }
                }
                let index = self.eval(frame, &sub.slice, pc);
                self.subscript(&base, &index, pc, loc)
            }
            Expr::Starred(star) => self.eval(frame, &star.value, pc),
            Expr::Named(named) => {
                let value = self.eval(frame, &named.value, pc);
                if let Expr::Name(target) = named.target.as_ref() {
                    self.assign_local(frame, &target.id, value.clone(), pc);
                }
                value
            }
            Expr::Await(inner) => self.eval(frame, &inner.value, pc),
            Expr::ListComp(comp) => self.eval_comprehension(frame, &comp.generators, &comp.elt, pc, loc),
            Expr::SetComp(comp) => self.eval_comprehension(frame, &comp.generators, &comp.elt, pc, loc),
            Expr::Generator(comp) => self.eval_comprehension(frame, &comp.generators, &comp.elt, pc, loc),
            Expr::DictComp(comp) => {
                // In a function, over a known sequence: entry by entry. (At module level the
                // table stands for settings filled at run time: see below.)
                if frame.func.is_some() {
                    if let Some(dict) = self.eval_dict_comprehension(frame, comp, pc, loc) {
                        return dict;
                    }
                }
                // Its entries are known only at run time. An empty dict would make every read
                // a missing key; at module level (`ARGS = {k: getattr(a, k) for k in KEYS}`)
                // the unknown makes the global one named symbol, so `ARGS["flag"]` is one atom
                // wherever it is read.
                if frame.func.is_some() {
                    self.blocker(loc, "dict comprehension: entries not tracked", pc);
                }
                G::under(pc.clone(), Value::unknown("dict comprehension: entries not tracked"))
            }
            Expr::FString(fstring) => {
                // A string made of a loop element (`f"{prefix}.{idx}"`, a layer's name from its
                // index) is about that element: tests of what is read from it (the layer index
                // parsed back, `int(prefix.split(".")[-1]) >= first_k_dense_replace`) differ
                // between iterations, as tests of the index do.
                let text = self.text(loc);
                let element = self.fstring_element(frame, fstring, pc);
                let key = match element {
                    Some(element) => SymKey::Path(element, format!("{text} @{}", loc.span.start)),
                    None => SymKey::At(loc, text.clone()),
                };
                // A string, never `None` (a helper returning a reason or `None`).
                let v = self.sym(key, text, None);
                G::under(pc.clone(), self.never_none_value(v))
            }
            Expr::TString(_) | Expr::BytesLiteral(_) => {
                let text = self.text(loc);
                let v = self.sym(SymKey::At(loc, text.clone()), text, None);
                G::under(pc.clone(), self.never_none_value(v))
            }
            Expr::Lambda(_) => {
                // Free names in the body see the enclosing function's locals, as a closure would.
                let mut captured = frame.captured.as_deref().cloned().unwrap_or_default();
                captured.extend(frame.locals.iter().map(|(k, v)| (k.clone(), v.clone())));
                let lambda = Lambda { loc, func: frame.func, captured: Rc::new(captured) };
                G::under(pc.clone(), Value::Lambda(Rc::new(lambda)))
            }

            Expr::Slice(_) | Expr::EllipsisLiteral(_) => G::under(pc.clone(), Value::unknown("slice")),
            _ => G::under(pc.clone(), Value::unknown(format!("expression `{}`", self.text(loc)))),
        }
    }

    /// Applies `f` to every alternative.
    pub fn map(&mut self, g: &G, mut f: impl FnMut(&mut Self, Value) -> Value) -> G {
        let mut out = G::empty();
        for (c, v) in g.0.clone() {
            let mapped = f(self, v);
            out.push(&self.conds, c, mapped);
        }
        out
    }

    fn eval_items(&mut self, frame: &mut Frame, elts: &[Expr], pc: &Cond) -> Vec<G> {
        self.eval_items_known(frame, elts, pc).0
    }

    /// The items of a literal, and whether they are its elements: `*xs` of a tuple or an
    /// exact list adds their items; of anything else, one item standing for them.
    fn eval_items_known(&mut self, frame: &mut Frame, elts: &[Expr], pc: &Cond) -> (Vec<G>, bool) {
        let mut items = Vec::new();
        let mut known = true;
        for elt in elts {
            if let Expr::Starred(star) = elt {
                let inner = self.eval(frame, &star.value, pc);
                match inner.single() {
                    Some(Value::Tuple(more)) => items.extend(more.iter().cloned()),
                    Some(Value::Obj(id)) if self.exact_lists.contains_key(id) => {
                        let ObjKind::List(more) = self.read_object(*id).kind.clone() else { unreachable!() };
                        items.extend(more);
                    }
                    _ => {
                        items.push(inner);
                        known = false;
                    }
                }
            } else {
                items.push(self.eval(frame, elt, pc));
            }
        }
        (items, known)
    }

    fn eval_sequence(&mut self, frame: &mut Frame, elts: &[Expr], pc: &Cond) -> G {
        let items = self.eval_items(frame, elts, pc);
        G::under(pc.clone(), Value::Tuple(Rc::new(items)))
    }

    /// A comprehension: the element expression evaluated once, for one abstract element of each
    /// iterable.
    /// The symbol standing for which element of a list of several items an iteration over
    /// the sequence at `iter_loc` sees (see `iter_element`), once one was made.
    pub(super) fn element_choice(&self, iter_loc: Loc) -> Option<SymId> {
        let s = *self.sym_by_key.get(&SymKey::LoopIndex(iter_loc))?;
        self.loop_elements.contains(&s).then_some(s)
    }

    /// The loop element a name interpolated in `fstring` holds (or was read from), if any.
    /// Only names: reading them has no effect to evaluate.
    fn fstring_element(&mut self, frame: &mut Frame, fstring: &ast::ExprFString, pc: &Cond) -> Option<SymId> {
        for part in fstring.value.iter() {
            let ast::FStringPart::FString(f) = part else { continue };
            for interpolation in f.elements.interpolations() {
                let Expr::Name(name) = interpolation.expression.as_ref() else { continue };
                let local = frame.locals.contains_key(&name.id)
                    || frame.captured.as_ref().is_some_and(|c| c.contains_key(&name.id));
                if !local {
                    continue;
                }
                let value = self.eval(frame, &interpolation.expression, pc);
                if let Some(Value::Sym(s)) = value.single() {
                    if let Some(element) = self.loop_element_of(*s) {
                        return Some(element);
                    }
                }
            }
        }
        None
    }

    fn eval_comprehension(
        &mut self,
        frame: &mut Frame,
        generators: &[ast::Comprehension],
        elt: &Expr,
        pc: &Cond,
        loc: Loc,
    ) -> G {
        // `[f(x) for x in (a, b)]` over short sequences known item by item (every generator's:
        // `[(a, i) for a in appends for i in range(len(a.bindings))]`): one item each, so the
        // result keeps its length and order (`first, second = tuple(...)`). With filters
        // (`[n for n in FACTS if not hasattr(obj, n)]`), one list per feasible outcome of
        // them, as long as those stay few.
        let first = generators.first().map(|g| self.eval(frame, &g.iter, pc));
        if first.as_ref().is_some_and(|g| self.small_sequences(g).is_some()) {
            let mut lists: Vec<(Cond, Vec<G>)> = vec![(*pc, Vec::new())];
            if self.known_comprehension(frame, generators, elt, *pc, first.clone(), &mut lists).is_some() {
                let mut out = G::empty();
                for (at, items) in lists {
                    let id = self.alloc(ObjKind::List(items), loc);
                    self.mark_exact(id);
                    out.push(&self.conds, at, Value::Obj(id));
                }
                return out;
            }
        }
        let mut first_iterable = first;
        // The list is there wherever the comprehension runs; its one item (standing for every
        // item) where the filters pass, in some iteration.
        let mut here = *pc;
        let mut elements = rustc_hash::FxHashSet::default();
        let data_loops = self.data_loops.len();
        let mut ranges = Vec::new();
        for generator in generators {
            // (The one generator's iterable was evaluated above.)
            let iterable = match first_iterable.take() {
                Some(iterable) => iterable.restrict(&self.conds, &here),
                None => self.eval(frame, &generator.iter, &here),
            };
            let iter_loc = self.loc(frame.file, &generator.iter);
            ranges.extend(self.unknown_range(&iterable));
            let element = self.iter_element(&iterable, &here, iter_loc, &generator.target);
            self.loop_elements_in(&element, &mut elements);
            elements.extend(self.element_choice(iter_loc));
            if let Some(over_data) = self.data_loop(&element, iter_loc) {
                elements.insert(over_data);
                self.data_loops.push(over_data);
            }
            self.assign_target(frame, &generator.target, element, &here);
            for cond in &generator.ifs {
                let t = self.test_condition(frame, cond, &here);
                here = here.and(&t);
            }
        }
        let first_made = self.heap.len() as HeapId;
        let value = self.eval(frame, elt, &here);
        self.data_loops.truncate(data_loops);
        // The item stands for every element, and is evaluated as there; an object made for a
        // range that may be empty (padding for the pipeline stages before a rank, `[
        // PPMissingLayer() for _ in range(start_layer)]`) is remembered with where it is not.
        // An object made for every element keeps what tells the elements apart (a layer's kind,
        // tested on its index): a later loop over the objects tells them apart by the same
        // tests, which are per-iteration there too (see `Interp::kinds_in`).
        // (Only objects the item made: an object from before, `[shared for _ in range(n)]`,
        // is there whatever the range.)
        for (_, v) in value.iter() {
            if let Value::Obj(id) = v
                && *id >= first_made
            {
                if !ranges.is_empty() {
                    self.maybe_absent.insert(*id, Rc::from(ranges.as_slice()));
                }
                if !elements.is_empty() {
                    self.made_for.insert(*id, Rc::new(elements.clone()));
                }
            }
        }
        let item = self.over_iterations(&value, &elements);
        let id = self.alloc(ObjKind::List(vec![item]), loc);
        G::under(*pc, Value::Obj(id))
    }

    /// The lists a comprehension makes where every iterable is known item by item: the items
    /// of `generators` from the first, each under the conditions of its filters, appended to
    /// `lists` (a list per outcome, split where an item is kept in some configurations only).
    /// `None` when an iterable is not known item by item, or the lists become too many.
    fn known_comprehension(
        &mut self,
        frame: &mut Frame,
        generators: &[ast::Comprehension],
        elt: &Expr,
        kept: Cond,
        iterable: Option<G>,
        lists: &mut Vec<(Cond, Vec<G>)>,
    ) -> Option<()> {
        let Some((generator, rest)) = generators.split_first() else {
            let value = self.eval(frame, elt, &kept);
            let mut next = Vec::with_capacity(lists.len());
            for (at, items) in lists.drain(..) {
                let without = at.and(&kept.not());
                if self.conds.feasible(&without) {
                    next.push((without, items.clone()));
                }
                let with = at.and(&kept);
                if self.conds.feasible(&with) {
                    let mut items = items;
                    items.push(value.restrict(&self.conds, &with));
                    next.push((with, items));
                }
            }
            *lists = next;
            return (lists.len() <= MAX_FILTERED_LISTS).then_some(());
        };
        let iterable = match iterable {
            Some(iterable) => iterable,
            None => self.eval(frame, &generator.iter, &kept),
        };
        for (c, known) in self.small_sequences(&iterable)? {
            let here = kept.and(&c);
            if !self.conds.feasible(&here) {
                continue;
            }
            for item in known {
                self.assign_target(frame, &generator.target, item.restrict(&self.conds, &here), &here);
                let mut passed = here;
                for filter in &generator.ifs {
                    passed = passed.and(&self.test_condition(frame, filter, &passed));
                }
                if self.conds.feasible(&passed) {
                    self.known_comprehension(frame, rest, elt, passed, None, lists)?;
                }
            }
        }
        Some(())
    }

    /// `{key: value for x in xs}` over a short sequence known item by item, every key a
    /// constant (`{id(append): [...] for append in appends}`): the dict, entry by entry. `None`
    /// otherwise (the iterable, and the items up to a key that is not a constant, were
    /// evaluated).
    fn eval_dict_comprehension(
        &mut self,
        frame: &mut Frame,
        comp: &ast::ExprDictComp,
        pc: &Cond,
        loc: Loc,
    ) -> Option<G> {
        let [generator] = comp.generators.as_slice() else { return None };
        let key_expr = comp.key.as_deref()?;
        let iterable = self.eval(frame, &generator.iter, pc);
        let sequences = self.small_sequences(&iterable)?;
        // Over several lists of constants (the batch variants active in each configuration):
        // one dict, an entry per constant, present where a list holds it. Evaluated list by
        // list, each entry's value was evaluated once per list.
        if sequences.len() > 1 {
            if let Some(constants) = self.constants_across(&sequences) {
                let mut entries = Vec::with_capacity(constants.len());
                for (constant, present) in constants {
                    let here = pc.and(&present);
                    let item = G::under(here, Value::Const(constant));
                    self.dict_comprehension_entry(frame, generator, key_expr, &comp.value, item, here, &mut entries)?;
                }
                let id = self.alloc(ObjKind::Dict(entries), loc);
                return Some(G::under(*pc, Value::Obj(id)));
            }
        }
        let mut out = G::empty();
        for (c, known) in sequences {
            let here = pc.and(&c);
            let mut entries = Vec::with_capacity(known.len());
            for item in known {
                let item = item.restrict(&self.conds, &here);
                self.dict_comprehension_entry(frame, generator, key_expr, &comp.value, item, here, &mut entries)?;
            }
            let id = self.alloc(ObjKind::Dict(entries), loc);
            out.push(&self.conds, here, Value::Obj(id));
        }
        Some(out)
    }

    /// One item of a dict comprehension, where `here` holds: its entry, present where the
    /// filters pass (`{v: p for v, p in paths.items() if p.entry is not None}`). `None` when
    /// the key is not a constant.
    #[allow(clippy::too_many_arguments)]
    fn dict_comprehension_entry(
        &mut self,
        frame: &mut Frame,
        generator: &ast::Comprehension,
        key_expr: &Expr,
        value_expr: &Expr,
        item: G,
        here: Cond,
        entries: &mut Vec<(Rc<str>, G)>,
    ) -> Option<()> {
        self.assign_target(frame, &generator.target, item, &here);
        let mut kept = here;
        for filter in &generator.ifs {
            kept = kept.and(&self.test_condition(frame, filter, &kept));
        }
        if !self.conds.feasible(&kept) {
            return Some(());
        }
        let key = self.eval(frame, key_expr, &kept);
        let key = key.single().and_then(entry_key)?;
        let value = self.eval(frame, value_expr, &kept);
        set_entry(entries, &key, value, self, &kept);
        Some(())
    }

    /// The constants the lists of `sequences` hold, in order of first appearance, each with
    /// where some list holds it. `None` when an item is not a constant.
    fn constants_across(&self, sequences: &[(Cond, Vec<G>)]) -> Option<Vec<(Constant, Cond)>> {
        let mut out: Vec<(Constant, Cond)> = Vec::new();
        for (c, items) in sequences {
            for item in items {
                for (ic, v) in item.iter() {
                    let Value::Const(k) = v else { return None };
                    let present = c.and(ic);
                    match out.iter_mut().find(|(known, _)| consts_equal(known, k)) {
                        Some((_, cond)) => *cond = cond.or(&present),
                        None => out.push((k.clone(), present)),
                    }
                }
            }
        }
        Some(out)
    }

    /// One abstract element of an iterable: the union of a tuple's items (each under a fresh
    /// "which element" atom), a loop index symbol for `range(...)`, an element symbol otherwise.
    pub fn iter_element(&mut self, iterable: &G, pc: &Cond, loc: Loc, target: &Expr) -> G {
        let mut out = G::empty();
        let mut target_text = self.text(Loc { file: loc.file, span: crate::syntax::Span::of(target) }).to_string();
        if target_text.is_empty() {
            // No target of its own (an element taken apart by the caller, `enumerate(...)`'s).
            target_text = format!("an element of {}", self.text(loc));
        }
        for (c, v) in iterable.0.clone() {
            let items: Option<Vec<G>> = match &v {
                Value::Tuple(items) => Some(items.as_ref().clone()),
                Value::Obj(id) => match &self.read_object(*id).kind {
                    ObjKind::List(items) => Some(items.clone()),
                    ObjKind::Dict(entries) => Some(
                        entries
                            .iter()
                            .map(|(k, g)| G(g.0.iter().map(|(c, _)| (c.clone(), key_value(k))).collect()))
                            .collect(),
                    ),
                    _ => None,
                },
                _ => None,
            };
            match items {
                Some(items) if items.len() == 1 => out.extend(&self.conds, items[0].restrict(&self.conds, &c)),
                Some(items) if !items.is_empty() => {
                    // Which element this iteration sees is a choice: one atom per element.
                    let index = self.sym_id(
                        SymKey::LoopIndex(loc),
                        format!("{target_text} (element of {})", self.text(loc)),
                        None,
                    );
                    let snippet = crate::syntax::snippet(&self.index.file(loc.file).text, loc.span);
                    let mut atoms = Vec::with_capacity(items.len());
                    for i in 0..items.len() {
                        let key = AtomKey::Equals(index, Constant::Int(i as i64));
                        atoms.push(self.atom(key, || format!("{target_text} is element {i} of {snippet}")));
                    }
                    // Made together, they read as "this element and no other": what each
                    // element leads to, `or`-ed over the elements, then stays small.
                    self.conds.one_hot(&atoms);
                    // Which element it is differs between iterations: not a configuration.
                    // What the loop binds is there where some iteration binds it (the MoE
                    // layer a loop over a model's layers keeps).
                    self.loop_elements.insert(index);
                    for atom in &atoms {
                        if let Some((atom, _)) = self.conds.as_literal(atom) {
                            self.iteration_atoms.entry(atom).or_insert(index);
                        }
                    }
                    for (i, item) in items.iter().enumerate() {
                        let atom = self.atom(AtomKey::Equals(index, Constant::Int(i as i64)), String::new);
                        out.extend(&self.conds, item.restrict(&self.conds, &c.and(&atom)));
                    }
                }
                Some(_) => {}
                None => {
                    let element = match &v {
                        Value::Num(n) => Value::Num(n.clone()),
                        _ => {
                            let display = target_text.clone();
                            let element = self.sym(SymKey::LoopIndex(loc), display, None);
                            self.note_loop_element(&element);
                            element
                        }
                    };
                    out.push(&self.conds, c.clone(), element);
                }
            }
        }
        let _ = pc;
        out
    }

    /// The condition under which the test `expr` holds, taken apart where Python's truthiness
    /// is: `a and b` holds where both do, `a or b` where either does, `not a` where `a` does
    /// not (operands evaluated as far as they are reached). An operand whose value is not
    /// known is then an atom named after that operand (`has_tokens(mode, x)`), the same atom
    /// wherever the operand is tested, not one named after the whole test.
    pub fn test_condition(&mut self, frame: &mut Frame, expr: &Expr, pc: &Cond) -> Cond {
        match expr {
            Expr::BoolOp(boolop) => {
                let and = matches!(boolop.op, ast::BoolOp::And);
                let mut out = self.conds.constant(and);
                let mut rest = pc.clone();
                for value in &boolop.values {
                    if !self.conds.feasible(&rest) {
                        break;
                    }
                    let t = self.test_condition(frame, value, &rest);
                    if and {
                        out = out.and(&t);
                        rest = rest.and(&t);
                    } else {
                        out = out.or(&t);
                        rest = rest.and(&t.not());
                    }
                }
                out
            }
            Expr::UnaryOp(unary) if matches!(unary.op, ast::UnaryOp::Not) => {
                self.test_condition(frame, &unary.operand, pc).not()
            }
            _ => {
                let value = self.eval(frame, expr, pc);
                self.truthy(&value, self.loc(frame.file, expr))
            }
        }
    }

    fn eval_boolop(&mut self, frame: &mut Frame, boolop: &ast::ExprBoolOp, pc: &Cond) -> G {
        // `a and b`: `a` where `a` is falsy, else `b`; `a or b`: `a` where truthy, else `b`.
        let mut out = G::empty();
        let mut rest = pc.clone();
        let last = boolop.values.len().saturating_sub(1);
        for (i, value) in boolop.values.iter().enumerate() {
            if !self.conds.feasible(&rest) {
                break;
            }
            let g = self.eval(frame, value, &rest);
            if i == last {
                out.extend(&self.conds, g);
                break;
            }
            let t = self.truthy(&g, self.loc(frame.file, value));
            let (stop, go_on) = match boolop.op {
                ast::BoolOp::And => (t.not(), t),
                ast::BoolOp::Or => (t.clone(), t.not()),
            };
            out.extend(&self.conds, g.restrict(&self.conds, &stop));
            rest = rest.and(&go_on);
        }
        out
    }

    fn eval_compare(&mut self, frame: &mut Frame, compare: &ast::ExprCompare, pc: &Cond, loc: Loc) -> G {
        let mut result = self.conds.truth();
        let mut left = self.eval(frame, &compare.left, pc);
        let mut left_text = self.text(self.loc(frame.file, &*compare.left));
        for (op, right_expr) in compare.ops.iter().zip(compare.comparators.iter()) {
            let right = self.eval(frame, right_expr, pc);
            let right_text = self.text(self.loc(frame.file, right_expr));
            // Ordering `None` raises `TypeError` (`None > 0`): those configurations leave the
            // table. (The test itself is left as it is there: a value above a number is not
            // `None`, so they take the branch for "not above"; narrowing the condition instead
            // made every later value carry the exclusion, and diagrams grow.)
            if matches!(op, CmpOp::Lt | CmpOp::LtE | CmpOp::Gt | CmpOp::GtE) {
                let none = self.none_within(&left).or(&self.none_within(&right));
                if !none.is_false() && self.conds.feasible(&pc.and(&none)) {
                    self.raise_of(Some("TypeError"), &pc.and(&none), loc);
                }
            }
            let defaulted = self.tests_defaulted_parameter(frame, *op, &compare.left, right_expr);
            self.testing_defaulted_parameter = defaulted;
            let holds = self.compare(&left, *op, &right, &left_text, &right_text, loc);
            self.testing_defaulted_parameter = false;
            result = result.and(&holds);
            left = right;
            left_text = right_text;
        }
        self.bool_value(&result, pc)
    }

    /// Whether `left op right` tests a parameter of the running function that defaults to
    /// `None` for `None` (`tp_size is None`, either way round).
    fn tests_defaulted_parameter(&self, frame: &Frame, op: CmpOp, left: &Expr, right: &Expr) -> bool {
        if !matches!(op, CmpOp::Is | CmpOp::IsNot | CmpOp::Eq | CmpOp::NotEq) {
            return false;
        }
        let Some(func) = frame.func else { return false };
        let name = match (left, right) {
            (Expr::Name(n), Expr::NoneLiteral(_)) | (Expr::NoneLiteral(_), Expr::Name(n)) => &n.id,
            _ => return false,
        };
        self.index
            .function(func)
            .params
            .iter()
            .any(|p| p.name == *name && matches!(p.default.as_deref(), Some(Expr::NoneLiteral(_))))
    }

    /// Where `value` is `None`: an alternative that is, or an unknown the code has tested for
    /// `None` (an atom made only for this ordering would split every comparison of a number;
    /// the `None` a count is allowed, `close_small_count`, is no test of the code's).
    fn none_within(&self, value: &G) -> Cond {
        let mut none = self.conds.falsity();
        for (c, v) in &value.0 {
            match v {
                Value::Const(Constant::None) => none = none.or(c),
                Value::Sym(s) if self.tested_for_none.contains(s) => {
                    if let Some(is_none) = self.conds.existing(&AtomKey::Equals(*s, Constant::None)) {
                        none = none.or(&c.and(&is_none));
                    }
                }
                _ => {}
            }
        }
        none
    }

    /// The condition under which `left op right` holds.
    pub fn compare(&mut self, left: &G, op: CmpOp, right: &G, left_text: &str, right_text: &str, loc: Loc) -> Cond {
        let mut out = self.conds.falsity();
        for (lc, lv) in left.0.clone() {
            for (rc, rv) in right.0.clone() {
                let both = lc.and(&rc);
                if !self.conds.feasible(&both) {
                    continue;
                }
                let l = self.tested_outside_value(&lv).unwrap_or_else(|| lv.clone());
                let r = self.tested_outside_value(&rv).unwrap_or_else(|| rv.clone());
                let holds = self.compare_values(&l, op, &r, left_text, right_text, loc);
                out = out.or(&both.and(&holds));
            }
        }
        out
    }

    /// `a == b` for two unknown values: an atom of its own (`text`), related to each value's
    /// equalities with constants (`Conds::relate_equal`), so that `a == 1`, `b == 1` and
    /// `a != b` is no configuration. SGLang 0.4.6 tests `get_attention_tp_size() == 1`,
    /// `get_tensor_model_parallel_world_size() == 1` and the two equal; unrelated atoms made
    /// rows of impossible examples.
    fn unknowns_equal(&mut self, a: SymId, b: SymId, text: &str) -> Cond {
        let equal = self.atom(AtomKey::Test(text.to_string()), || text.to_string());
        self.conds.relate_equal(a, b, &equal);
        equal
    }

    /// `value op c` for the unknown value `s` and a number `c`: `x > c` and `x >= c` are atoms,
    /// `x <= c` and `x < c` their negations.
    fn above_atom(&mut self, s: SymId, op: CmpOp, c: &Constant, value: &Value, text: &str) -> Cond {
        let (strict, negated) = match op {
            CmpOp::Gt => (true, false),
            CmpOp::GtE => (false, false),
            CmpOp::Lt => (false, true),
            _ => (true, true),
        };
        let bound = super::cond::numeric(c).unwrap_or_default();
        // (-0.0 and 0.0 are one bound.)
        let bits = if bound == 0.0 { 0.0f64.to_bits() } else { bound.to_bits() };
        let label = self.value_label(value, text);
        let display = format!("{label} {} {c}", if strict { ">" } else { ">=" });
        let holds = self.atom(AtomKey::Above { sym: s, bits, strict }, || display);
        if strict && bound == 1.0 {
            let mut factors = Vec::new();
            if self.size_factors(s, &mut factors, 0) && factors.len() > 1 {
                self.conds.note_size_product(s, factors);
            }
        }
        if negated { holds.not() } else { holds }
    }

    /// Whether `s` is a product of sizes (`dp_size_ * pcp_size_ * tp_size_`, each a value
    /// named as the size of something, `*_size`, or a positive integer), its factors pushed
    /// to `factors`.
    fn size_factors(&self, s: SymId, factors: &mut Vec<SymId>, depth: usize) -> bool {
        const MAX_DEPTH: usize = 8;
        if depth > MAX_DEPTH {
            return false;
        }
        match &self.syms[s as usize].key {
            SymKey::Arith(super::value::ArithOp::Mul, a, b) => [a, b].into_iter().all(|term| match term {
                super::value::ArithTerm::Int(i) => *i >= 1,
                super::value::ArithTerm::Sym(t) => self.size_factors(*t, factors, depth + 1),
            }),
            _ if depth > 0 && names_a_positive_size(&self.syms[s as usize].display) => {
                factors.push(s);
                true
            }
            _ => false,
        }
    }

    pub(super) fn compare_values(
        &mut self,
        left: &Value,
        op: CmpOp,
        right: &Value,
        left_text: &str,
        right_text: &str,
        loc: Loc,
    ) -> Cond {
        use CmpOp::*;
        let mut negated = matches!(op, NotEq | IsNot | NotIn);
        let mut base = match op {
            NotEq => Eq,
            IsNot => Is,
            NotIn => In,
            other => other,
        };
        // A size is never negative: `n > 0` is `not (n == 0)` and `n <= 0` is `n == 0`, the same
        // atom as the emptiness test (`if hidden_states.shape[0] == 0: return ...` elsewhere).
        if matches!(base, Gt | LtE) && matches!(right, Value::Const(Constant::Int(0))) && self.is_size(left, left_text)
        {
            negated ^= base == Gt;
            base = Eq;
        }
        // An object known only as "the unknown value `s`, seen as class C" compares as `s`.
        let as_sym = |this: &Self, v: &Value| match v {
            Value::Obj(id) => match this.heap[*id as usize].kind {
                ObjKind::Abstract(_, s) => Some(Value::Sym(s)),
                _ => None,
            },
            _ => None,
        };
        // An instance of a class is never `None`, however little else is known of it.
        let none = |v: &Value| matches!(v, Value::Const(Constant::None));
        if (as_sym(self, left).is_some() && none(right)) || (as_sym(self, right).is_some() && none(left)) {
            if matches!(base, Eq | Is) {
                return self.conds.constant(negated);
            }
        }
        // `x in [A, B]`: a list the evaluator built is tested like a tuple of its items.
        if base == In {
            if let Value::Obj(id) = right {
                if let ObjKind::List(items) = &self.read_object(*id).kind {
                    let items = Value::Tuple(Rc::new(items.clone()));
                    return self.compare_values(left, op, &items, left_text, right_text, loc);
                }
            }
        }
        if let Some(sym) = as_sym(self, left) {
            // (`self in (Backend.A, Backend.B)` in a method of an enum is about its value too.)
            if matches!(right, Value::Const(_) | Value::Sym(_)) || (base == In && matches!(right, Value::Tuple(_))) {
                return self.compare_values(&sym, op, right, left_text, right_text, loc);
            }
        }
        if let Some(sym) = as_sym(self, right) {
            if matches!(left, Value::Const(_) | Value::Sym(_)) {
                return self.compare_values(left, op, &sym, left_text, right_text, loc);
            }
        }
        // Two records are equal when their fields are (`@dataclass` compares them as tuples):
        // a stage's declaration and its `replace(...)` copy are equal. So are two exact lists
        // with equal items, and two dicts with equal entries.
        if let (Value::Obj(a), Eq, Value::Obj(b)) = (left, base, right) {
            if let Some(equal) = self
                .records_equal(*a, *b, loc)
                .or_else(|| self.lists_equal(*a, *b, loc))
                .or_else(|| self.dicts_equal(*a, *b, loc))
            {
                return if negated { equal.not() } else { equal };
            }
        }
        // Two tuples are equal when their items are, in order (`weight.shape == (e, n, k)`).
        if let (Value::Tuple(a), Eq, Value::Tuple(b)) = (left, base, right) {
            let equal = if a.len() != b.len() {
                self.conds.falsity()
            } else {
                let mut all = self.conds.truth();
                // (Each item named by its position: a test of items the evaluator names by
                // their text is an atom of its own, not the whole tuples' test.)
                for (i, (x, y)) in a.iter().zip(b.iter()).enumerate() {
                    let (x_text, y_text) = (format!("{left_text}[{i}]"), format!("{right_text}[{i}]"));
                    let item = self.compare(x, Eq, y, &x_text, &y_text, loc);
                    all = all.and(&item);
                }
                all
            };
            return if negated { equal.not() } else { equal };
        }
        let holds = match (left, base, right) {
            (Value::Const(a), Eq | Is, Value::Const(b)) => self.conds.constant(consts_equal(a, b)),
            (Value::Sym(s), Eq | Is, Value::Const(c)) | (Value::Const(c), Eq | Is, Value::Sym(s)) => {
                if matches!(c, Constant::None) && !self.testing_defaulted_parameter {
                    self.tested_for_none.insert(*s);
                }
                self.equals_atom(*s, c)
            }
            (Value::Sym(s), In, Value::Tuple(items)) => {
                let mut any = self.conds.falsity();
                for item in items.iter() {
                    for (c, v) in item.0.clone() {
                        let eq = match &v {
                            Value::Const(k) => self.equals_atom(*s, k),
                            Value::External(_) => self.membership_atom(left, left_text, right_text),
                            other => self.compare_values(left, Eq, other, left_text, right_text, loc),
                        };
                        any = any.or(&c.and(&eq));
                    }
                }
                any
            }
            (Value::Const(a), In, Value::Tuple(items)) => {
                let mut any = self.conds.falsity();
                for item in items.iter() {
                    for (c, v) in item.0.clone() {
                        let eq = match &v {
                            Value::Const(b) => self.conds.constant(consts_equal(a, b)),
                            Value::External(_) => self.membership_atom(left, left_text, right_text),
                            other => self.compare_values(left, Eq, other, left_text, right_text, loc),
                        };
                        any = any.or(&c.and(&eq));
                    }
                }
                any
            }
            (Value::Const(Constant::None), Is, other) | (other, Is, Value::Const(Constant::None))
                if is_surely_object(other) =>
            {
                self.conds.falsity()
            }
            // Objects compare by identity, unless a class of theirs compares values: its own
            // `__eq__` (not evaluated) or a record's fields that could not be compared above;
            // the test is then an atom.
            (Value::Obj(a), Is, Value::Obj(b)) => self.conds.constant(a == b),
            (Value::Obj(a), Eq, Value::Obj(b))
                if a == b || !(self.compares_by_value(*a) || self.compares_by_value(*b)) =>
            {
                self.conds.constant(a == b)
            }
            // A class of the tree is not a class outside it.
            (Value::Class(_), Is | Eq, Value::External(_)) | (Value::External(_), Is | Eq, Value::Class(_)) => {
                self.conds.falsity()
            }
            // `key in d` for a dict the evaluator built: where the key is present.
            (Value::Const(_) | Value::Tuple(_), In, Value::Obj(id))
                if matches!(self.heap[*id as usize].kind, ObjKind::Dict(_)) =>
            {
                let ObjKind::Dict(entries) = self.read_object(*id).kind.clone() else { unreachable!() };
                match (entry_key(left), left) {
                    (Some(key), _) => match entries.iter().find(|(k, _)| k.as_ref() == key.as_str()) {
                        Some((_, g)) => g.coverage(&self.conds),
                        None => self.conds.falsity(),
                    },
                    (None, Value::Tuple(items)) => {
                        let mut present = self.conds.falsity();
                        for (key, g) in &entries {
                            let holds = self.tuple_key_matches(items, key);
                            present = present.or(&holds.and(&g.coverage(&self.conds)));
                        }
                        present
                    }
                    _ => self.conds.falsity(),
                }
            }
            // A value is itself; a sentinel (`object()`) equals nothing else.
            (Value::Sym(a), Is | Eq, Value::Sym(b)) if a == b => self.conds.truth(),
            (Value::Sym(a), Eq, Value::Sym(b)) => {
                let l = self.value_label(left, left_text);
                let r = self.value_label(right, right_text);
                let holds = self.unknowns_equal(*a, *b, &format!("{l} == {r}"));
                self.note_iteration_test(&holds, &[left, right]);
                holds
            }
            (Value::Obj(id), Is | Eq, Value::Const(_)) | (Value::Const(_), Is | Eq, Value::Obj(id))
                if matches!(self.heap[*id as usize].kind, ObjKind::Sentinel) =>
            {
                self.conds.falsity()
            }
            (Value::Class(a), Is | Eq, Value::Class(b)) => self.conds.constant(a == b),
            // A function of the tree is itself, and no other function.
            (Value::Func(a), Is | Eq, Value::Func(b)) => self.conds.constant(a == b),
            // `x > 2`, `x <= 0`, `2 < x`: whether the value is above a number, one atom linked
            // to its other atoms (`x > 2` implies `x > 1`, and that `x` is truthy).
            (Value::Sym(s), Lt | LtE | Gt | GtE, Value::Const(c)) if super::cond::numeric(c).is_some() => {
                self.above_atom(*s, base, c, left, left_text)
            }
            (Value::Const(c), Lt | LtE | Gt | GtE, Value::Sym(s)) if super::cond::numeric(c).is_some() => {
                let mirrored = match base {
                    Lt => Gt,
                    LtE => GtE,
                    Gt => Lt,
                    _ => LtE,
                };
                self.above_atom(*s, mirrored, c, right, right_text)
            }
            (Value::Const(Constant::Int(a)), Lt | LtE | Gt | GtE, Value::Const(Constant::Int(b))) => {
                let r = match base {
                    Lt => a < b,
                    LtE => a <= b,
                    Gt => a > b,
                    _ => a >= b,
                };
                self.conds.constant(r)
            }
            _ => {
                // Any other comparison is one atom, named by its operands as evaluated, so the same
                // test met twice (through different variables) is the same atom.
                let l = self.value_label(left, left_text);
                let r = self.value_label(right, right_text);
                let text = format!("{l} {} {r}", cmp_text(base));
                let holds = self.atom(AtomKey::Test(text.clone()), || text);
                self.note_iteration_test(&holds, &[left, right]);
                holds
            }
        };
        // `factor in (None, 1.0)`: where it is one of values that change nothing, as `==`.
        if let (In, Value::Tuple(items)) = (base, right) {
            if let Some(why) = vacuous_membership(left, items) {
                self.leave_out(&holds, why);
            }
        }
        if base == Eq {
            let size = self.is_size(left, left_text);
            if let Some(why) = vacuous_test(left, right, size) {
                // Those configurations are left out of the answer: their branches are not
                // evaluated either (an empty batch's early return, `if v != 1:`).
                self.leave_out(&holds, why);
            }
        }
        if let (Value::Sym(s), Eq | In | Lt | LtE | Gt | GtE) = (left, base) {
            if self.is_size(left, left_text) {
                self.close_small_count(*s, true);
            } else if self.conds.is_count(*s) {
                self.close_small_count(*s, false);
            }
        }
        if negated { holds.not() } else { holds }
    }

    /// Leaves the configurations where the atom `holds` stands for holds out of the answer
    /// (`why`: shown with it), and fixes it false so their branches are not evaluated.
    pub(super) fn leave_out(&mut self, holds: &Cond, why: &'static str) {
        if let Some((atom, true)) = self.conds.as_literal(holds) {
            self.conds.mark_vacuous(atom, why);
            self.conds.fix(atom, false);
        }
    }

    /// A count is a whole number, never negative: at most `k` and none of 1 to `k`, it is 0
    /// (or, for a count that is not a size of data, `None`). For a size of data, 0 is the
    /// emptiness left out of the answer (`if n == 1: ... elif n == 2: ... elif n > 2: ...` on
    /// `topk_ids.shape[1]` otherwise left a row where no branch runs); for another count,
    /// `n > 0` and `n == 0` are all there is besides `None` (vLLM's `zero_expert_num != 0`
    /// beside `zero_expert_num > 0` otherwise left a negative count). Added once the atoms
    /// `n > k` and `n == 1` to `n == k` were all made, for a size and small `k`; for another
    /// count once `n > 0` and `n == 0` were.
    fn close_small_count(&mut self, s: SymId, size: bool) {
        const MAX_BOUND: i64 = 8;
        // (A count that is not a size of data is closed at 0 only: `n > 0`, `n == 0` or `None`.
        // Closed at every bound, its `None` atoms and constraints cost more than they gave.)
        let bounds = if size { 1..=MAX_BOUND } else { 0..=0 };
        for k in bounds {
            if self.closed_counts.contains(&(s, k)) {
                continue;
            }
            let strict = AtomKey::Above { sym: s, bits: (k as f64).to_bits(), strict: true };
            let at_least = AtomKey::Above { sym: s, bits: ((k + 1) as f64).to_bits(), strict: false };
            let Some(above) = self.conds.existing(&strict).or_else(|| self.conds.existing(&at_least)) else {
                continue;
            };
            let equal: Option<Vec<Cond>> =
                (1..=k).map(|i| self.conds.existing(&AtomKey::Equals(s, Constant::Int(i)))).collect();
            let Some(equal) = equal else { continue };
            let zero = if size {
                let empty = self.equals_atom(s, &Constant::Int(0));
                self.leave_out(&empty, EMPTY_DATA);
                empty
            } else {
                // The code tested `n == 0` itself, or there is nothing to close.
                let Some(zero) = self.conds.existing(&AtomKey::Equals(s, Constant::Int(0))) else { continue };
                zero.or(&self.equals_atom(s, &Constant::None))
            };
            self.closed_counts.insert((s, k));
            let mut some = above.or(&zero);
            for e in &equal {
                some = some.or(e);
            }
            self.conds.constrain_about(s, &some);
        }
    }

    /// `value in items` for the items that are names from outside the tree (`dtype in
    /// [torch.bfloat16, torch.float32]`): one atom, named by the whole test. (Named by each
    /// item's equality with the items' text, it read `dtype == [torch.bfloat16, torch.float32]`.)
    fn membership_atom(&mut self, value: &Value, value_text: &str, items_text: &str) -> Cond {
        let text = format!("{} in {items_text}", self.value_label(value, value_text));
        let holds = self.atom(AtomKey::Test(text.clone()), || text);
        self.note_iteration_test(&holds, &[value]);
        holds
    }

    /// `sym == constant`, or the assumed truth of it.
    pub fn equals_atom(&mut self, s: SymId, c: &Constant) -> Cond {
        let sym = &self.syms[s as usize];
        let display = sym.label();
        let names: Vec<String> = std::iter::once(sym.display.clone()).chain(sym.aliases.iter().cloned()).collect();
        if let Some(assume) = self.assumption_of_test(&names, Some(c)) {
            assume.used.set(true);
            match &assume.value {
                super::interp::AssumedValue::Const(v) => {
                    let equal = super::interp::assumed_equals(v, c);
                    return self.conds.constant(equal);
                }
                super::interp::AssumedValue::NoneOf(listed) => {
                    if listed.iter().any(|v| super::interp::assumed_equals(v, c)) {
                        return self.conds.constant(false);
                    }
                }
                super::interp::AssumedValue::Class(_) => {}
            }
        }
        // Compare with a constant's own truthiness when it is a boolean: `x == True` is `x`.
        if let Constant::Bool(b) = c {
            let t = self.truthy_value(
                &Value::Sym(s),
                Loc { file: crate::index::FileId::from_u32(0), span: Default::default() },
            );
            return if *b { t } else { t.not() };
        }
        if matches!(c, Constant::None) && self.never_none.contains(&s) {
            return self.conds.falsity();
        }
        // The members' equalities first: for a member, the atom then reads as "this member
        // and no other" (`Conds::exactly_one`).
        self.member_equality(s);
        self.atom(AtomKey::Equals(s, c.clone()), || format!("{display} == {c}"))
    }

    /// A value declared as an enum is one of its members: once it is compared with one, its
    /// equalities with all of them are atoms and exactly one holds (`is_a()`, `is_b()`, ... of
    /// a backend cannot all be false). Declared optional, `None` is one more choice.
    fn member_equality(&mut self, s: SymId) {
        let Some(&class) = self.enum_typed.get(&s) else { return };
        if !self.enum_constrained.insert(s) {
            return;
        }
        let mut members = self.enum_member_values(class);
        if self.enum_or_none.contains(&s) {
            members.insert(0, Constant::None);
        }
        let mut equalities = Vec::with_capacity(members.len());
        for member in &members {
            let display = self.syms[s as usize].label();
            equalities.push(self.atom(AtomKey::Equals(s, member.clone()), || format!("{display} == {member}")));
        }
        self.conds.exactly_one(s, &equalities, false);
    }

    /// What tells an item of an unknown value apart from its other items, and how it is
    /// shown: a constant index, an unknown one (by its name), or a tuple of those; any other
    /// index is an item of its own, by where it is read (two such reads are not assumed to
    /// read one item).
    pub(super) fn index_key(&self, index: &Value, loc: Loc) -> (String, String) {
        if let Value::Tuple(items) = index {
            let parts: Option<Vec<String>> = items
                .iter()
                .map(|g| match g.single() {
                    Some(v @ (Value::Const(_) | Value::Sym(_))) => Some(self.value_label(v, "")),
                    _ => None,
                })
                .collect();
            if let Some(parts) = parts {
                let text = format!("({})", parts.join(", "));
                return (text.clone(), text);
            }
        }
        match index {
            Value::Const(_) | Value::Sym(_) => {
                let label = self.value_label(index, "");
                (label.clone(), label)
            }
            _ => (format!("…@{}:{}", loc.file.as_u32(), loc.span.start), "…".to_string()),
        }
    }

    /// How a value is named in an atom: a symbol by its label, a constant by its value,
    /// anything else by the source text.
    pub fn value_label(&self, value: &Value, text: &str) -> String {
        match value {
            Value::Sym(s) => self.syms[*s as usize].label(),
            Value::Const(c) => c.to_string(),
            _ => text.to_string(),
        }
    }

    /// The bounds of `[lower:upper]` when both are integer constants or absent (step 1).
    fn slice_bounds(
        &mut self,
        frame: &mut Frame,
        slice: &ruff_python_ast::ExprSlice,
        pc: &Cond,
    ) -> Option<(Option<i64>, Option<i64>)> {
        if slice.step.is_some() {
            return None;
        }
        let mut bound = |expr: &Option<Box<Expr>>| -> Option<Option<i64>> {
            let Some(expr) = expr else { return Some(None) };
            match self.eval(frame, expr, pc).0.as_slice() {
                [(_, Value::Const(Constant::Int(i)))] => Some(Some(*i)),
                _ => None,
            }
        };
        Some((bound(&slice.lower)?, bound(&slice.upper)?))
    }

    /// `base[lower:upper]`: tuples and lists give the items in range (as Python clamps them);
    /// anything else is subscripted with an unknown index.
    pub(super) fn sliced(&mut self, base: &G, (lower, upper): (Option<i64>, Option<i64>), pc: &Cond, loc: Loc) -> G {
        let range = |len: usize| {
            let len = len as i64;
            let clamp = |i: i64| (if i < 0 { len + i } else { i }).clamp(0, len) as usize;
            let start = lower.map_or(0, clamp);
            let end = upper.map_or(len as usize, clamp);
            start..end.max(start)
        };
        let mut out = G::empty();
        for (c, value) in base.0.clone() {
            let items = match &value {
                Value::Tuple(items) => Some((items.to_vec(), false)),
                Value::Obj(id) => match &self.read_object(*id).kind {
                    ObjKind::List(items) => Some((items.clone(), true)),
                    _ => None,
                },
                _ => None,
            };
            let result = match items {
                Some((items, list)) => {
                    let kept: Vec<G> = items[range(items.len())].to_vec();
                    if list { Value::Obj(self.alloc(ObjKind::List(kept), loc)) } else { Value::Tuple(Rc::new(kept)) }
                }
                None => {
                    let index = G::under(c, Value::unknown("slice"));
                    let got = self.subscript(&G::under(c, value), &index, pc, loc);
                    out.extend(&self.conds, got);
                    continue;
                }
            };
            out.push(&self.conds, c, result);
        }
        out
    }

    /// `base[index]`.
    pub fn subscript(&mut self, base: &G, index: &G, pc: &Cond, loc: Loc) -> G {
        let mut out = G::empty();
        for (bc, bv) in base.0.clone() {
            for (ic, iv) in index.0.clone() {
                let c = bc.and(&ic);
                if !self.conds.feasible(&c) {
                    continue;
                }
                let result = match (&bv, &iv) {
                    (Value::Tuple(items), Value::Const(Constant::Int(i))) => {
                        let i = if *i < 0 { items.len() as i64 + i } else { *i };
                        match items.get(i as usize) {
                            Some(g) => {
                                out.extend(&self.conds, g.restrict(&self.conds, &c));
                                continue;
                            }
                            None => Value::unknown("tuple index out of range"),
                        }
                    }
                    (Value::Obj(id), _) => match self.read_object(*id).kind.clone() {
                        ObjKind::List(items) => {
                            let i = match &iv {
                                Value::Const(Constant::Int(i)) => {
                                    Some(if *i < 0 { items.len() as i64 + i } else { *i })
                                }
                                _ => None,
                            };
                            match i.and_then(|i| items.get(i as usize)) {
                                Some(g) => {
                                    out.extend(&self.conds, g.restrict(&self.conds, &c));
                                    continue;
                                }
                                None => {
                                    // An unknown index into a list: any of its items.
                                    for g in items {
                                        out.extend(&self.conds, g.restrict(&self.conds, &c));
                                    }
                                    continue;
                                }
                            }
                        }
                        ObjKind::Dict(entries) => {
                            let exact = self.exact_dicts.contains_key(id);
                            let g = self.dict_lookup(&entries, &iv, true, exact, &c, loc);
                            out.extend(&self.conds, g);
                            continue;
                        }
                        // `obj[key]` on an instance of a class of the tree runs its
                        // `__getitem__` (`ACT2FN[config.hidden_act]`).
                        ObjKind::Instance(class) => match self.class_attr(class, "__getitem__", loc) {
                            Some((_, getter)) => {
                                let bound = self.map(&getter, |this, v| this.bind_class_attr(v, bv.clone(), false));
                                let args = super::calls::Args {
                                    positional: vec![super::calls::Arg { value: G::under(c, iv.clone()), loc: None }],
                                    ..Default::default()
                                };
                                let got = self.call(&bound, args, &c, loc);
                                out.extend(&self.conds, got);
                                continue;
                            }
                            None => Value::unknown("subscript of an object"),
                        },
                        _ => Value::unknown("subscript of an object"),
                    },
                    (Value::Num(n), _) => Value::Num(n.clone()),
                    // `kernel[grid](...)` launches the kernel; the grid does not matter here.
                    (Value::Func(_) | Value::External(_), _) => bv.clone(),
                    (Value::Sym(s), _) => {
                        let (key, shown) = self.index_key(&iv, loc);
                        let display = format!("{}[{shown}]", self.syms[*s as usize].display);
                        let own = SymKey::Path(*s, format!("[{key}]"));
                        // What code stored under that key, where it did (see `keyed_caches.rs`).
                        if let Value::Const(Constant::Str(name)) = &iv {
                            let unknown = |this: &mut Self| G::under(c, this.sym(own.clone(), display.clone(), None));
                            if let Some(g) = self.read_keyed(*s, name, None, unknown, &c, loc) {
                                out.extend(&self.conds, g);
                                continue;
                            }
                        }
                        self.sym(own, display, None)
                    }
                    (Value::ExternalObj(_) | Value::Unknown(_), _) => Value::Num(Rc::new(Num::plain_tensor())),
                    _ => Value::unknown(format!("subscript `{}`", self.text(loc))),
                };
                out.push(&self.conds, c, result);
            }
        }
        let _ = pc;
        out
    }

    /// `dict[key]`: the entry for a constant key; for a key not known, every entry, each
    /// under an atom naming the key (a registry looked up at run time).
    /// With `raising` (`d[key]`), a key known only at run time that is none of the entries
    /// raises `KeyError`; without (`d.get(key)`), it gives an unknown "missing" alternative the
    /// caller replaces by the default.
    /// With `exact` (the dict is known entry by entry), a constant key that is none of the
    /// entries raises `KeyError` too.
    pub fn dict_lookup(
        &mut self,
        entries: &[(Rc<str>, G)],
        key: &Value,
        raising: bool,
        exact: bool,
        pc: &Cond,
        loc: Loc,
    ) -> G {
        let mut out = G::empty();
        if let (Value::Tuple(_) | Value::Const(Constant::Int(_) | Constant::Bool(_) | Constant::None), Some(k)) =
            (key, entry_key(key))
        {
            // A tuple of constants, or a constant that is not a string: one entry, under the key
            // text `entry_key` stored it with.
            return self.dict_lookup(entries, &Value::Const(Constant::Str(k)), raising, exact, pc, loc);
        }
        match key {
            Value::Tuple(_) | Value::Sym(_) => {
                // A key (or parts of a tuple key) known only at run time: every entry whose key
                // it can be.
                let mut any = self.conds.falsity();
                let mut unknown_keyed: Vec<(SymId, &G)> = Vec::new();
                for (name, g) in entries {
                    if let Some(sym) = unknown_key_sym(name) {
                        unknown_keyed.push((sym, g));
                        continue;
                    }
                    let holds = match key {
                        Value::Tuple(items) => self.tuple_key_matches(items, name),
                        Value::Sym(s) => match key_value(name) {
                            Value::Const(constant) => self.equals_atom(*s, &constant),
                            _ => self.equals_atom(*s, &Constant::Str(key_display(name))),
                        },
                        _ => unreachable!("matched above"),
                    };
                    any = any.or(&holds);
                    out.extend(&self.conds, g.restrict(&self.conds, &pc.and(&holds)));
                }
                // Any other key: `KeyError` (those configurations never get further), or the
                // default of `get`.
                let missing = pc.and(&any.not());
                if !unknown_keyed.is_empty() && self.conds.feasible(&missing) {
                    let found = self.unknown_keyed_entry(&unknown_keyed, key, &missing, loc);
                    out.extend(&self.conds, found);
                    return out;
                }
                if raising {
                    self.raise_of(Some("KeyError"), &missing, loc);
                } else if self.conds.feasible(&missing) {
                    out.push(&self.conds, missing, Value::unknown(format!("key `{}` missing", self.text(loc))));
                }
            }
            Value::Const(Constant::Str(k)) => {
                if let Some((_, g)) = entries.iter().find(|(name, _)| name.as_ref() == k.as_str()) {
                    out.extend(&self.conds, g.restrict(&self.conds, pc));
                }
                let covered = out.coverage(&self.conds);
                let missing = pc.and(&covered.not());
                if raising && exact {
                    self.raise_of(Some("KeyError"), &missing, loc);
                } else if self.conds.feasible(&missing) {
                    out.push(&self.conds, missing, Value::unknown(format!("key `{}` missing", key_display(k))));
                }
            }
            _ => {
                let text = self.text(loc);
                for (name, g) in entries {
                    let key_text = format!("{text} picks {}", key_display(name));
                    let atom = self.atom(AtomKey::Test(key_text.clone()), || key_text);
                    out.extend(&self.conds, g.restrict(&self.conds, &pc.and(&atom)));
                }
            }
        }
        out
    }

    /// `dict[key]` for a key not known, where no entry of a known key holds (`missing`), in a
    /// dict with entries written under keys not known (`entries`): the entry the same symbol
    /// wrote; else one of those entries, assumed found (a `KeyError` there is not what the code
    /// means: every layer type has its mask) and listed, an atom per entry but the last when
    /// several may be it.
    fn unknown_keyed_entry(&mut self, entries: &[(SymId, &G)], key: &Value, missing: &Cond, loc: Loc) -> G {
        if let Value::Sym(sym) = key {
            if let Some((_, g)) = entries.iter().find(|(written, _)| written == sym) {
                return g.restrict(&self.conds, missing);
            }
        }
        let text = self.text(loc).to_string();
        if let [(_, g)] = entries {
            self.blocker(loc, format!("assumed: `{text}` finds the entry written under a key not known"), missing);
            return g.restrict(&self.conds, missing);
        }
        self.blocker(loc, format!("assumed: `{text}` finds one of the entries written under keys not known"), missing);
        // As an `if`/`elif`/`else` over the entries: the last is where no earlier one is.
        let mut out = G::empty();
        let mut rest = *missing;
        for (i, (written, g)) in entries.iter().enumerate() {
            let here = if i + 1 == entries.len() {
                rest
            } else {
                let name = format!("{text} is the key `{}`", self.syms[*written as usize].label());
                let atom = self.atom(AtomKey::Test(name.clone()), || name);
                let here = rest.and(&atom);
                rest = rest.and(&atom.not());
                here
            };
            out.extend(&self.conds, g.restrict(&self.conds, &here));
        }
        out
    }

    /// The condition under which the tuple `items` equals the tuple key `key` of an entry.
    fn tuple_key_matches(&mut self, items: &[G], key: &str) -> Cond {
        let Some(parts) = tuple_key_parts(key) else { return self.conds.falsity() };
        if parts.len() != items.len() {
            return self.conds.falsity();
        }
        let mut all = self.conds.truth();
        for (item, part) in items.iter().zip(&parts) {
            let mut equal = self.conds.falsity();
            for (c, v) in item.0.clone() {
                let eq = match &v {
                    Value::Const(k) => self.conds.constant(consts_equal(k, part)),
                    Value::Sym(s) => self.equals_atom(*s, part),
                    _ => self.conds.falsity(),
                };
                equal = equal.or(&c.and(&eq));
            }
            all = all.and(&equal);
        }
        all
    }

    /// Whether a tuple is surely a plain one, not a size standing for `torch.Size` (whose
    /// `numel()` exists): some item is a tensor or `None` in some alternative.
    fn is_plain_tuple(&self, items: &[G]) -> bool {
        items.iter().any(|g| {
            g.iter().any(|(_, v)| matches!(v, Value::Num(n) if n.tensor) || matches!(v, Value::Const(Constant::None)))
        })
    }

    /// `value.attr` for every alternative.
    pub fn getattr_g(&mut self, base: &G, attr: &str, pc: &Cond, loc: Loc) -> G {
        let mut out = G::empty();
        // An optional object (`SharedExperts(config) if config.n_shared_experts else None`):
        // where it is `None`, reading an attribute of it raises `AttributeError` (which `hasattr`
        // and `getattr(..., default)` catch). A value that is only ever `None` here is left as
        // before: it may be an object attached by code the evaluation does not run (`layer.runner
        // = runner` from a model runner), and raising would drop every configuration.
        let optional = base.iter().any(|(_, v)| matches!(v, Value::Const(Constant::None)))
            && base.iter().any(|(_, v)| matches!(v, Value::Obj(_) | Value::ExternalObj(_)))
            && !(attr.starts_with("__") && attr.ends_with("__"));
        for (c, v) in base.0.clone() {
            if optional && matches!(v, Value::Const(Constant::None)) {
                self.raise_of(Some("AttributeError"), &c.and(pc), loc);
                continue;
            }
            let got = self.getattr(&v, attr, &c, loc);
            out.extend(&self.conds, got.restrict(&self.conds, pc));
        }
        out
    }

    /// `value.attr` under `pc`.
    pub fn getattr(&mut self, value: &Value, attr: &str, pc: &Cond, loc: Loc) -> G {
        if let Some(object) = self.looked_up_object(value) {
            return self.getattr(&object, attr, pc, loc);
        }
        // Reads of the traced value itself.
        if attr == self.traced.name && self.is_origin(loc) {
            // (A copy of an unknown value reads as it where nothing was written into it: a
            // layer's `copy.deepcopy(config)` has the config's factor.)
            let readable = matches!(value, Value::Sym(_) | Value::Unknown(_) | Value::ExternalObj(_))
                || matches!(value, Value::Obj(id) if match &self.heap[*id as usize] {
                    object if matches!(object.kind, ObjKind::Abstract(..)) => true,
                    object => matches!(object.kind, ObjKind::Opaque(_)) && !object.fields.contains_key(attr),
                });
            if readable {
                return G::under(pc.clone(), self.traced_origin(loc));
            }
        }
        match value {
            // `obj.__class__` is `type(obj)` (`copy.copy(self.__class__._keep_in_fp32_modules)`).
            Value::Obj(id) if attr == "__class__" => match self.heap[*id as usize].kind {
                ObjKind::Instance(c) | ObjKind::Abstract(c, _) => G::under(*pc, Value::Class(c)),
                _ => self.object_attr(*id, attr, pc, loc),
            },
            Value::Obj(id) => self.object_attr(*id, attr, pc, loc),
            Value::Module(file) => {
                if let Some(g) = self.rebound_global(*file, attr, pc, loc) {
                    return g;
                }
                let g = self.global(*file, attr, loc);
                if g.iter().all(|(_, v)| matches!(v, Value::Unknown(_))) {
                    let module = self.index.file(*file).module.clone();
                    let sub = format!("{module}.{attr}");
                    if self.index.module(&sub).is_some() || self.index.is_package(&sub) {
                        return G::under(pc.clone(), self.module_value(&sub));
                    }
                }
                g.restrict(&self.conds, pc)
            }
            Value::Namespace(package) => G::under(pc.clone(), self.module_value(&format!("{package}.{attr}"))),
            Value::Class(class) if matches!(attr, "__mro__" | "__dict__" | "__name__") => {
                G::under(*pc, self.class_introspection(*class, attr, loc))
            }
            Value::Class(class) => match self.class_attr(*class, attr, loc) {
                Some((_, g)) => {
                    let class = *class;
                    let g = self.map(&g, |this, v| this.bind_class_attr(v, Value::Class(class), true));
                    g.restrict(&self.conds, pc)
                }
                None => {
                    let mro = self.resolver.mro(*class);
                    match mro.external.first() {
                        Some(ext) => G::under(pc.clone(), Value::External(Rc::from(format!("{ext}.{attr}")))),
                        None => G::under(
                            pc.clone(),
                            Value::unknown(format!("no attribute `{attr}` on class {}", self.index.class(*class).name)),
                        ),
                    }
                }
            },
            // Enum members are represented by their values: `member.value` is the member.
            // (No other constant has a `value` attribute.)
            Value::Const(c) if attr == "value" && !matches!(c, Constant::None) => G::under(pc.clone(), value.clone()),
            Value::Sym(s)
                if attr == "value"
                    && (self.syms[*s as usize].class_hint.is_some_and(|c| self.is_enum(c))
                        || self.enum_valued.contains(s)) =>
            {
                G::under(pc.clone(), value.clone())
            }
            Value::Sym(s) => {
                if let Some(root) = self.handed_in_root(*s) {
                    self.run_writers(super::interp::Reached::Param(root), attr, loc);
                }
                // What code wrote into it, where it did; its own attribute elsewhere.
                let written = self.opaque_object(*s, None).and_then(|id| {
                    let g = self.read_object(id).fields.get(attr).cloned()?;
                    Some(self.seen_from_call(id, &g))
                });
                self.written_or_own(*s, written, attr, pc, loc)
            }
            Value::External(path) => {
                let value = self.outside_attribute(format!("{path}.{attr}"));
                G::under(pc.clone(), value)
            }
            Value::Super(class, receiver) => {
                let receiver_class = match receiver.as_ref() {
                    Value::Obj(id) => match &self.heap[*id as usize].kind {
                        ObjKind::Instance(c) | ObjKind::Abstract(c, _) => Some(*c),
                        _ => None,
                    },
                    Value::Class(c) => Some(*c),
                    _ => None,
                };
                let Some(receiver_class) = receiver_class else {
                    return G::under(pc.clone(), Value::unknown("super() of an unknown receiver"));
                };
                let mro = self.resolver.mro(receiver_class);
                let after = mro.classes.iter().position(|c| c == class).map_or(mro.classes.len(), |i| i + 1);
                for base in mro.classes[after..].to_vec() {
                    if self.index.class(base).body.iter().any(|b| b.name.as_str() == attr) {
                        if let Some((_, g)) = self.class_attr(base, attr, loc) {
                            let receiver = receiver.as_ref().clone();
                            let g = self.map(&g, |this, v| this.bind_class_attr(v, receiver.clone(), false));
                            // `super().prop` runs the base's property getter, as a read of it on
                            // the object does.
                            return self.run_properties(g, pc, loc);
                        }
                    }
                }
                // Past the tree: `nn.Module.__call__` runs the receiver's own `forward` (a layer
                // base that overrides `__call__` for checkpointing ends in
                // `super().__call__(*args, **kwargs)`).
                if attr == "__call__" && self.is_module_class(receiver_class) {
                    if let Some((_, g)) = self.class_attr(receiver_class, "forward", loc) {
                        let receiver = receiver.as_ref().clone();
                        return self.map(&g, |this, v| this.bind_class_attr(v, receiver.clone(), false));
                    }
                }
                // Past the tree: a `dict` subclass's own entries (`super().__getitem__(key)`).
                if let Value::Obj(id) = receiver.as_ref() {
                    let dict_like = mro.external.iter().any(|e| super::calls::is_dict_base(e));
                    let contents = self.heap[*id as usize].fields.get(super::calls::DICT_CONTENTS).cloned();
                    if let (true, Some(contents)) = (dict_like, contents) {
                        let attr: Rc<str> = Rc::from(attr);
                        return self
                            .map(&contents.restrict(&self.conds, pc), |_, v| Value::Method(Box::new(v), attr.clone()));
                    }
                }
                // Past the tree: `object.__setattr__` (and `nn.Module`'s) sets the attribute
                // (from a `__setattr__` of the tree ending in `super().__setattr__(name, value)`).
                if attr == "__setattr__" && matches!(receiver.as_ref(), Value::Obj(_)) {
                    return G::under(*pc, Value::Method(receiver.clone(), Rc::from(attr)));
                }
                // Past the tree: `nn.Module.__init__` and the like do nothing we track.
                G::under(
                    pc.clone(),
                    Value::External(Rc::from(format!(
                        "{}.{attr}",
                        mro.external.first().map(String::as_str).unwrap_or("object")
                    ))),
                )
            }
            // A tensor made with known sizes: their count, and the sizes themselves.
            Value::Num(n) if n.tensor && attr == "ndim" && n.shape.is_some() => {
                let rank = n.shape.map_or(0, |i| self.shapes[i as usize].len());
                G::under(*pc, Value::Const(Constant::Int(rank as i64)))
            }
            Value::Num(n) if n.tensor && attr == "shape" && n.shape.is_some() => {
                let dims = n.shape.map(|i| self.shapes[i as usize].clone()).unwrap_or_else(|| Rc::from([]));
                let items = dims.iter().map(|g| g.restrict(&self.conds, pc)).collect();
                G::under(*pc, Value::Tuple(Rc::new(items)))
            }
            // A shape not known (of data made without sizes, an outside module's weight, the
            // result of an outside call): one symbol named by the expression, so that `tokens,
            // _ = x.shape` makes `tokens` a size (`x.shape[0]`); its sizes are numbers, not
            // data. Taken for data, they
            // made every buffer allocated with them a tensor dimension, and every size computed
            // from those (`total_tokens = num_tokens * topk + padded`) data too.
            v if attr == "shape"
                && (matches!(v, Value::Num(n) if n.tensor)
                    || matches!(v, Value::ExternalObj(_) | Value::Method(..))) =>
            {
                let text = self.text(loc);
                let key = match self.unchanged_parameter(&text) {
                    Some((func, name)) => SymKey::ParamShape(func, name),
                    None => SymKey::At(loc, text.clone()),
                };
                G::under(*pc, self.sym(key, text, None))
            }
            // A tuple of tensors (`(shared, routed)` where the code expects one tensor) has no
            // tensor methods: `out.view(n, d)` raises `AttributeError` there.
            Value::Tuple(items) if !tuple_attribute(attr) && self.is_plain_tuple(items) => {
                self.raise_of(Some("AttributeError"), pc, loc);
                G::empty()
            }
            // An enum member, held as its value, reading a property of its class
            // (`self.activation.is_gated`): the property runs with the member as `self`.
            // (Its methods are found when called: see `Interp::call_method`.)
            Value::Const(c)
                if !matches!(c, Constant::None)
                    && self.enum_member_method(c, attr).is_some_and(|f| {
                        matches!(self.index.function(f).kind, crate::index::FunctionKind::Property)
                    }) =>
            {
                let getter = self.enum_member_method(c, attr).expect("just found");
                self.call_function(getter, Some(value.clone()), super::calls::Args::default(), pc, loc)
            }
            // `w.data`, `w.T`: the tensor itself (its storage, or a view of it).
            Value::Num(n) if n.tensor && TENSOR_VIEW_ATTRS.contains(&attr) => G::under(*pc, value.clone()),
            Value::Num(_) | Value::ExternalObj(_) | Value::Const(_) | Value::Tuple(_) => {
                G::under(pc.clone(), Value::Method(Box::new(value.clone()), Rc::from(attr)))
            }
            Value::Unknown(reason) => G::under(pc.clone(), Value::Unknown(reason.clone())),
            other => G::under(pc.clone(), Value::unknown(format!("attribute `{attr}` of {}", short_kind(other)))),
        }
    }

    /// For `name.shape` read in the function being evaluated: the function and `name` when
    /// `name` is one of its parameters, never rebound in its body (then every read of the
    /// shape is of the one tensor it was handed).
    fn unchanged_parameter(&self, text: &str) -> Option<(crate::index::FuncId, Name)> {
        let base = text.strip_suffix(".shape")?;
        if base.is_empty() || !base.chars().all(|c| c.is_alphanumeric() || c == '_') {
            return None;
        }
        let func = *self.stack.last()?;
        let scope = self.resolver.local_scope(func);
        match scope.bindings.get(base).map(Vec::as_slice) {
            Some([binding]) if matches!(binding.kind, crate::resolve::LocalKind::Param) => {
                Some((func, Name::new(base)))
            }
            _ => None,
        }
    }

    /// A class-body value read through `receiver`: functions become bound methods (unless
    /// static; properties run), nested values stay.
    pub fn bind_class_attr(&mut self, value: Value, receiver: Value, through_class: bool) -> Value {
        let Value::Func(func) = value else { return value };
        match self.index.function(func).kind {
            crate::index::FunctionKind::StaticMethod => Value::Func(func),
            crate::index::FunctionKind::ClassMethod => {
                let class = match &receiver {
                    Value::Obj(id) => match &self.heap[*id as usize].kind {
                        ObjKind::Instance(c) | ObjKind::Abstract(c, _) => Value::Class(*c),
                        _ => receiver.clone(),
                    },
                    _ => receiver.clone(),
                };
                Value::Bound(func, Box::new(class))
            }
            crate::index::FunctionKind::Property if !through_class => Value::Property(func, Box::new(receiver)),
            _ if through_class => Value::Func(func),
            _ => Value::Bound(func, Box::new(receiver)),
        }
    }

    /// `value.attr` for the unknown value `s` (`value`), apart from what code wrote into it.
    fn symbol_attr(&mut self, s: SymId, value: &Value, attr: &str, pc: &Cond, loc: Loc) -> G {
        if let Some(hint) = self.syms[s as usize].class_hint {
            if let Some((_, g)) = self.class_attr(hint, attr, loc) {
                let receiver = value.clone();
                let g = self.map(&g, |this, v| this.bind_class_attr(v, receiver.clone(), false));
                if g.iter().any(|(_, v)| matches!(v, Value::Bound(..))) {
                    return g.restrict(&self.conds, pc);
                }
            }
        }
        if let Some(g) = self.operator_caller_method(s, attr, pc, loc) {
            return g;
        }
        // Declared as an enum (`X: Optional[SomeEnum]`): that enum's methods, though another
        // enum has one of the same name.
        if let Some(&class) = self.enum_typed.get(&s) {
            if let Some(method) = self.method_through_mro(class, attr) {
                self.enum_valued.insert(s);
                return G::under(*pc, Value::Bound(method, Box::new(value.clone())));
            }
        }
        if self.syms[s as usize].class_hint.is_none() {
            // Assumed to be an enum member's value: that member's methods.
            if let Some(member) = self.assumed_constant(s) {
                if let Some(method) = self.enum_member_method(&member, attr) {
                    self.enum_valued.insert(s);
                    return G::under(*pc, Value::Bound(method, Box::new(value.clone())));
                }
            }
            if let Some(predicate) = self.unique_enum_predicate(attr) {
                // Asked an enum's predicate, the value is taken for a member of it:
                // its `.value` (what predicates compare) is itself.
                self.enum_valued.insert(s);
                return G::under(*pc, Value::Bound(predicate, Box::new(value.clone())));
            }
        }
        // Only tensors have `mul_`, `div`...: the unknown receiver is a tensor there.
        if SCALING_METHODS.contains(&attr) {
            return G::under(pc.clone(), Value::Method(Box::new(value.clone()), Rc::from(attr)));
        }
        let display = format!("{}.{attr}", self.syms[s as usize].label());
        let v = self.sym(SymKey::Path(s, attr.to_string()), display, None);
        G::under(pc.clone(), v)
    }

    /// A class attribute as read through an object, within `pc`: properties run now, with the
    /// object they were bound to as `self`.
    fn run_properties(&mut self, g: G, pc: &Cond, loc: Loc) -> G {
        let mut out = G::empty();
        for (c, v) in g.0 {
            let c = c.and(pc);
            if !self.conds.feasible(&c) {
                continue;
            }
            match v {
                Value::Property(func, receiver) => {
                    let result = self.call_function(func, Some(*receiver), super::calls::Args::default(), &c, loc);
                    out.extend(&self.conds, result);
                }
                other => out.push(&self.conds, c, other),
            }
        }
        out
    }

    /// Attribute `attr` of the unknown value `s` where code wrote it (`written`, as seen from
    /// the current call), the value's own attribute elsewhere.
    fn written_or_own(&mut self, s: SymId, written: Option<G>, attr: &str, pc: &Cond, loc: Loc) -> G {
        let Some(written) = written else { return self.symbol_attr(s, &Value::Sym(s), attr, pc, loc) };
        let mut out = written.restrict(&self.conds, pc);
        let rest = pc.and(&out.coverage(&self.conds).not());
        if self.conds.feasible(&rest) {
            let own = self.symbol_attr(s, &Value::Sym(s), attr, &rest, loc);
            out.extend(&self.conds, own);
        }
        out
    }

    /// Class attribute `attr` of the object `id` that stands for the unknown value `base`
    /// inside a method of `class`, when the classes of `base`'s universe below `class` do not
    /// all take it from the same class: one alternative per defining class, each under the
    /// atoms of the classes that take it from there. `None` when they all agree.
    fn class_attr_by_member(
        &mut self,
        id: HeapId,
        class: ClassId,
        base: SymId,
        attr: &str,
        pc: &Cond,
        loc: Loc,
    ) -> Option<G> {
        let members: Vec<ClassId> = self
            .universe(base)
            .into_iter()
            .filter(|m| *m == class || self.resolver.mro(*m).classes.contains(&class))
            .collect();
        if members.len() < 2 {
            return None;
        }
        let mut groups: Vec<(Option<ClassId>, Vec<ClassId>)> = Vec::new();
        for member in members {
            let owner = self.class_attr(member, attr, loc).map(|(owner, _)| owner);
            match groups.iter_mut().find(|(o, _)| *o == owner) {
                Some((_, classes)) => classes.push(member),
                None => groups.push((owner, vec![member])),
            }
        }
        if groups.len() < 2 {
            return None;
        }
        let mut out = G::empty();
        for (owner, classes) in groups {
            let c = pc.and(&self.of_classes(base, &classes));
            if !self.conds.feasible(&c) {
                continue;
            }
            let read = match owner {
                Some(owner) => {
                    let (_, g) = self.class_attr(owner, attr, loc)?;
                    let g = self.map(&g, |this, v| this.bind_class_attr(v, Value::Obj(id), false));
                    self.run_properties(g, &c, loc)
                }
                // Not a class attribute of these classes: the object's own, unknown.
                None => {
                    let display = format!("{}.{attr}", self.syms[base as usize].label());
                    G::under(c, self.sym(SymKey::Path(base, attr.to_string()), display, None))
                }
            };
            out.extend(&self.conds, read);
        }
        Some(out)
    }

    /// An attribute of a heap object: its fields where set, class attributes elsewhere.
    fn object_attr(&mut self, id: HeapId, attr: &str, pc: &Cond, loc: Loc) -> G {
        self.run_writers(super::interp::Reached::Object(id), attr, loc);
        if let Some(root) = self.handed_in_value_root(&Value::Obj(id)) {
            self.run_writers(super::interp::Reached::Param(root), attr, loc);
        }
        // Only what this read needs (objects can hold many fields): the class of an instance,
        // the symbol an unknown object stands for, the field.
        let (class, unknown_base, created, field) = {
            let object = self.read_object(id);
            let (class, unknown_base) = match &object.kind {
                ObjKind::Instance(c) => (Some(*c), None),
                ObjKind::Abstract(c, base) => (Some(*c), Some(*base)),
                ObjKind::List(_) | ObjKind::Dict(_) | ObjKind::Sentinel | ObjKind::Opaque(_) => (None, None),
            };
            (class, unknown_base, object.created, object.fields.get(attr).cloned())
        };
        // An object older than the current call holds conditions as seen from the entry; the
        // call runs only where `base` holds, so they are read as seen from the call.
        let field = match field {
            Some(g) if self.older_than_call(id) => Some(self.seen_from_call(id, &g)),
            other => other,
        };
        let Some(class) = class else {
            if self.pipeline_state == Some(id) && !DICT_METHODS.contains(&attr) {
                return self.state_entry(id, attr, pc, loc);
            }
            // A copy of an unknown value (see `copy_of`) reads as the value where nothing
            // was written into it.
            if let ObjKind::Opaque(s) = self.heap[id as usize].kind {
                return self.written_or_own(s, field, attr, pc, loc);
            }
            return match field.as_ref() {
                Some(g) => g.restrict(&self.conds, pc),
                None => G::under(pc.clone(), Value::Method(Box::new(Value::Obj(id)), Rc::from(attr))),
            };
        };
        let mut out = G::empty();
        if let Some(g) = &field {
            out.extend(&self.conds, g.restrict(&self.conds, pc));
        }
        let covered = out.coverage(&self.conds);
        let rest = pc.and(&covered.not());
        if !self.conds.feasible(&rest) {
            return out;
        }
        // `self` in a method several classes share stands for an object of any of them: where
        // they define the attribute differently (a helper a subclass overrides, a class
        // attribute its module sets), one alternative per definition, under "the object is of
        // these classes".
        if let Some(base) = unknown_base {
            // A field of a record known only by its class (`forward_batch.gathered_buffer`, the
            // batch narrowed by `isinstance(batch, ForwardBatch)`): the instance's own value,
            // not the default the class declares for it.
            // So is a constant default a class declares that its methods assign on `self`
            // (`weight_block_size: Optional[List[int]] = None` on `QuantizationConfig`, set by
            // `BlockInt8Config.__init__`): the object was built by a constructor not seen.
            if field.is_none() && (self.is_record_field(class, attr) || self.instances_override(class, attr, loc)) {
                let display = format!("{}.{attr}", self.syms[base as usize].label());
                let value = self.sym(SymKey::Path(base, attr.to_string()), display, None);
                out.push(&self.conds, rest, value);
                return out;
            }
            if let Some(read) = self.class_attr_by_member(id, class, base, attr, &rest, loc) {
                out.extend(&self.conds, read);
                return out;
            }
        }
        match self.class_attr(class, attr, loc) {
            Some((_, g)) => {
                let g = self.map(&g, |this, v| this.bind_class_attr(v, Value::Obj(id), false));
                let read = self.run_properties(g, &rest, loc);
                out.extend(&self.conds, read);
            }
            None if field.is_none() && self.unbuilt_bases.contains_key(&id) => {
                // A base class's constructor was skipped: it may set this field.
                let pending = self.unbuilt_bases.remove(&id).unwrap_or_default();
                for skipped in pending {
                    self.run_skipped_constructor(id, &skipped, loc);
                }
                return self.object_attr(id, attr, pc, loc);
            }
            None if field.is_none()
                && self.unbuilt.contains_key(&id)
                && (self.resolver.mro(class).external.iter().all(|e| super::modules::is_plain_python_base(e))
                    || self.loaded_phase_done
                    || self.loading > 0) =>
            {
                // Its constructor was skipped and the field is read after all: build it now. (A
                // field of a class with outside bases other than plain Python ones (`abc.ABC`),
                // an `nn.Module`, read while the entry is being built reads as a symbol instead:
                // building every layer is what bounds the evaluation. On the forward path the
                // module is built, and loaded, as the loader would have; in the loader's phase, a
                // quantization method's hook reads what its constructor set, as the backend it
                // chose.)
                self.build_skipped(id, loc);
                return self.object_attr(id, attr, pc, loc);
            }
            None => {
                // `nn.Module.register_parameter(name, p)` and the like set an attribute;
                // `module.to(dtype)` and the like return the module.
                if unknown_base.is_none()
                    && (self.is_registration_method(class, attr)
                        || (super::modules::SELF_RETURNING_METHODS.contains(&attr) && self.is_module_class(class)))
                {
                    out.push(&self.conds, rest, Value::Method(Box::new(Value::Obj(id)), Rc::from(attr)));
                    return out;
                }
                // A wrapper that delegates what it does not define (`__getattr__`).
                if unknown_base.is_none() && !attr.starts_with("__") {
                    if let Some(getter) = self.dunder_getattr(class, loc) {
                        let args = super::calls::Args {
                            positional: vec![super::calls::Arg {
                                value: G::under(Cond::TRUE, Value::Const(Constant::Str(attr.to_string()))),
                                loc: None,
                            }],
                            ..Default::default()
                        };
                        self.raises_muted += 1;
                        let got = self.call_function(getter, Some(Value::Obj(id)), args, &rest, loc);
                        self.raises_muted -= 1;
                        out.extend(&self.conds, got);
                        return out;
                    }
                }
                let label = format!("{}.{attr}", self.object_label(id));
                let v = match unknown_base {
                    // An unknown member of an enum is its value (members are represented so).
                    // (`self` in a method of a mixin of the enum is of the mixin's class.)
                    Some(base)
                        if attr == "value"
                            && (self.is_enum(class)
                                || self.syms[base as usize].class_hint.is_some_and(|c| self.is_enum(c))) =>
                    {
                        Value::Sym(base)
                    }
                    Some(base) => {
                        let display = format!("{}.{attr}", self.syms[base as usize].label());
                        self.sym(SymKey::Path(base, attr.to_string()), display, None)
                    }
                    None => {
                        let mro = self.resolver.mro(class);
                        let named_tuple = mro.is_named_tuple();
                        if named_tuple && attr == "_replace" {
                            // Built in (see `container_method`): a copy with some fields replaced.
                            Value::Method(Box::new(Value::Obj(id)), Rc::from(attr))
                        } else if named_tuple && !is_tuple_attribute(attr) && mro.external.len() == 1 {
                            // A NamedTuple has its fields, its methods and a tuple's, and no
                            // instance dictionary: nothing can have set another attribute
                            // (`topk_output.topk_weights` on a top-k output of another format).
                            self.raise_of(Some("AttributeError"), &rest, loc);
                            return out;
                        } else if field.is_some()
                            && (mro.external.iter().all(|e| super::modules::is_plain_python_base(e))
                                || self.unset_module_attribute(id, class, attr))
                        {
                            // Set in other configurations, not in these (`if cond: self.x = ...`
                            // in the constructor), and no base class has it (outside bases of
                            // plain Python, `abc.ABC`, set no attributes): Python raises
                            // `AttributeError` here, which `hasattr` and `getattr(..., default)`
                            // catch.
                            self.raise_of(Some("AttributeError"), &rest, loc);
                            return out;
                        } else if self.cannot_have_attribute(class, attr) {
                            // Nothing can have set it (`moe.topk.topk_config` on a top-k class
                            // that has no such field): Python raises `AttributeError`. Read as
                            // an unknown, its fields were free flags of their own.
                            self.raise_of(Some("AttributeError"), &rest, loc);
                            return out;
                        } else if mro.external.is_empty()
                            || self.unset_module_attribute(id, class, attr)
                            || self.never_set_on(class, attr)
                        {
                            Value::unknown(format!("`{label}` is never set"))
                        } else {
                            // An attribute of an outside base class (`self.training`), or
                            // of a module whose constructor is not evaluated.
                            // (Asked once, when the symbol is made: reads of such fields are
                            // frequent.)
                            let known = self.syms.len();
                            let v = self.sym(SymKey::At(created, label.clone()), label, None);
                            if let Value::Sym(s) = v {
                                if self.syms.len() > known && self.written_never_none(class, attr) {
                                    self.never_none.insert(s);
                                }
                            }
                            v
                        }
                    }
                };
                out.push(&self.conds, rest, v);
            }
        }
        out
    }

    /// Writes entry `key` of the pipeline's state (gated like any write into an older object).
    fn set_state_entry(&mut self, id: HeapId, key: &str, value: G, pc: &Cond) {
        let pc = self.gate(id, pc);
        let value = value.restrict(&self.conds, &pc);
        self.touch(id);
        if let ObjKind::Dict(mut entries) = self.heap[id as usize].kind.clone() {
            set_entry(&mut entries, key, value, self, &pc);
            self.heap[id as usize].kind = ObjKind::Dict(entries);
        }
    }

    /// Entry `key` of the pipeline's state read as an attribute (as `state.pop(key)` reads it):
    /// a key no stage writes is data from stages not evaluated; one a stage writes raises
    /// where it is missing.
    fn state_entry(&mut self, id: HeapId, key: &str, pc: &Cond, loc: Loc) -> G {
        let ObjKind::Dict(entries) = self.read_object(id).kind.clone() else { return G::empty() };
        let written = entries.iter().any(|(k, _)| k.as_ref() == key);
        let key = Value::Const(Constant::Str(key.to_string()));
        let mut found = self.dict_lookup(&entries, &key, false, false, pc, loc);
        let missing: Vec<Cond> = found
            .0
            .iter()
            .filter(|(_, v)| matches!(v, Value::Unknown(r) if r.contains("missing")))
            .map(|(c, _)| *c)
            .collect();
        found.0.retain(|(_, v)| !matches!(v, Value::Unknown(r) if r.contains("missing")));
        for c in missing {
            if written {
                // A key a stage writes, read where no stage wrote it (or after a `pop`): the
                // caller hands the pipeline its inputs, not what its own stages compute, so
                // Python raises there (a dispatch record read where dispatching was skipped).
                self.raise_of(Some("AttributeError"), &c, loc);
            } else {
                // An input of the pipeline: data from stages not evaluated.
                found.push(&self.conds, c, Value::Num(Rc::new(Num::plain_tensor())));
            }
        }
        found
    }

    /// The `__setattr__` the class of instance `id` defines in the tree (not `object`'s or
    /// `nn.Module`'s), unless it is running already: an assignment inside it (which Python
    /// would send back to it, and real code avoids) sets the attribute.
    fn dunder_setattr(&mut self, id: HeapId, loc: Loc) -> Option<crate::index::FuncId> {
        let ObjKind::Instance(class) = self.heap[id as usize].kind else { return None };
        let (_, g) = self.class_attr(class, "__setattr__", loc)?;
        let setter = match g.single()? {
            Value::Func(f) => *f,
            _ => return None,
        };
        (!self.stack.contains(&setter)).then_some(setter)
    }

    /// The `__getattr__` a class of the tree defines for itself (not `object`'s).
    fn dunder_getattr(&mut self, class: ClassId, loc: Loc) -> Option<crate::index::FuncId> {
        let (_, g) = self.class_attr(class, "__getattr__", loc)?;
        match g.single()? {
            Value::Func(f) => Some(*f),
            _ => None,
        }
    }

    /// Whether a read at `loc` may be an origin of the traced value (`--origin` restricts it).
    pub fn is_origin(&self, loc: Loc) -> bool {
        match self.traced.origin {
            None => true,
            Some((file, line)) => {
                file == loc.file
                    && self.index.file(file).position(ruff_text_size::TextSize::from(loc.span.start)).line == line
            }
        }
    }

    /// The traced value as read at `loc`: a scalar with exponent 1.
    pub fn traced_origin(&mut self, loc: Loc) -> Value {
        let text = self.text(loc);
        let hop = self.hop(loc, HopKind::Origin, text);
        Value::Num(Rc::new(Num {
            tensor: false,
            parts: vec![Part { exp: 1, chain: Rc::from([hop]), ..Part::plain() }],
            shape: None,
        }))
    }

    /// A value stored under the traced value's name (`self.routed_scaling_factor =
    /// config.moe_router_scaling_factor`) is the traced value read under another key: the store
    /// is where it comes from. Only opaque inputs (symbols) are renamed; constants, objects and
    /// values already derived from the traced one stay what they are.
    pub fn named_origin(&mut self, value: G, loc: Loc) -> G {
        if !self.is_origin(loc) || !value.iter().any(|(_, v)| matches!(v, Value::Sym(_))) {
            return value;
        }
        let origin = self.traced_origin(loc);
        self.map(&value, |_, v| match v {
            Value::Sym(_) => origin.clone(),
            other => other,
        })
    }

    /// Writes `value` into the tensor `target` denotes (`out.mul_(v)`, `out[i] = x`, a kernel
    /// storing into a buffer it was handed), rather than binding a new one: through a view
    /// (`out.view(-1)`) or a conditional (`out if flag else scratch`) to the tensor itself, and
    /// through a parameter to the caller's argument (see `Frame::aliases`).
    pub fn assign_in_place(&mut self, frame: &mut Frame, target: &Expr, value: G, pc: &Cond) {
        match target {
            Expr::Name(name) => self.write_local_in_place(frame, &name.id, value, pc, &mut Vec::new()),
            Expr::If(node) => {
                let holds = self.test_condition(frame, &node.test, pc);
                let (yes, no) = (pc.and(&holds), pc.and(&holds.not()));
                if self.conds.feasible(&yes) {
                    self.assign_in_place(frame, &node.body, value.restrict(&self.conds, &yes), &yes);
                }
                if self.conds.feasible(&no) {
                    self.assign_in_place(frame, &node.orelse, value.restrict(&self.conds, &no), &no);
                }
            }
            Expr::Call(call) => match call.func.as_ref() {
                // A view, or an in-place method (which returns its receiver): the write goes to
                // what it was called on.
                Expr::Attribute(attr)
                    if VIEWS.contains(&attr.attr.as_str()) || super::calls::is_in_place_method(attr.attr.as_str()) =>
                {
                    self.assign_in_place(frame, &attr.value, value, pc)
                }
                _ => {}
            },
            // `param.data` of a tensor is the tensor: the write goes to the tensor's holder (an
            // object's own `data` field is set as any attribute).
            Expr::Attribute(attr) if TENSOR_VIEW_ATTRS.contains(&attr.attr.as_str()) => {
                let base = self.eval(frame, &attr.value, pc);
                if base.iter().any(|(_, v)| matches!(v, Value::Num(n) if n.tensor)) {
                    self.assign_in_place(frame, &attr.value, value, pc)
                } else {
                    self.assign_target(frame, target, value, pc)
                }
            }
            _ => self.assign_target(frame, target, value, pc),
        }
    }

    /// An in-place write into the tensor local `name` holds: the parameter it may be (then the
    /// caller's argument), and every local bound to the same tensor where it is (`seen`: the
    /// locals written already, since sharing goes both ways).
    pub(super) fn write_local_in_place(
        &mut self,
        frame: &mut Frame,
        name: &Name,
        value: G,
        pc: &Cond,
        seen: &mut Vec<Name>,
    ) {
        if seen.contains(name) {
            return;
        }
        seen.push(name.clone());
        let alias = frame.aliases.get(name).cloned();
        // Same tensor, new contents: the sharing outlives the write, and so does the shape.
        let value = match frame.locals.get(name) {
            Some(old) => keep_shape(old, value),
            None => value,
        };
        let shares = frame.shares.clone();
        self.assign_local(frame, name, value.clone(), pc);
        frame.shares = shares;
        if let Some(slot) = alias {
            frame.aliases.insert(name.clone(), slot);
            frame.written.insert(name.clone());
        }
        let partners: Vec<(Name, Cond)> = frame
            .shares
            .iter()
            .filter_map(|(a, b, c)| match () {
                _ if a == name => Some((b.clone(), *c)),
                _ if b == name => Some((a.clone(), *c)),
                _ => None,
            })
            .collect();
        for (other, shared) in partners {
            let under = pc.and(&shared);
            if self.conds.feasible(&under) {
                let value = value.restrict(&self.conds, &under);
                self.write_local_in_place(frame, &other, value, &under, seen);
            }
        }
    }

    /// Whether the index `slice` is a range (the first of several: `out[begin:end, :]`) whose
    /// start is, or is computed from, the element of the loop it is in.
    fn slices_by_loop_element(&mut self, frame: &mut Frame, slice: &Expr, pc: &Cond) -> bool {
        let first = match slice {
            Expr::Tuple(tuple) => tuple.elts.first(),
            other => Some(other),
        };
        let Some(Expr::Slice(range)) = first else { return false };
        let Some(lower) = range.lower.as_deref() else { return false };
        // (Evaluated again, so only names, attributes, numbers and arithmetic on them: no call.)
        fn plain(e: &Expr) -> bool {
            match e {
                Expr::Name(_) | Expr::NumberLiteral(_) => true,
                Expr::Attribute(a) => plain(&a.value),
                Expr::BinOp(b) => plain(&b.left) && plain(&b.right),
                _ => false,
            }
        }
        if self.loop_elements.is_empty() || !plain(lower) {
            return false;
        }
        let start = self.eval(frame, lower, pc);
        !start.is_empty() && start.iter().all(|(_, v)| matches!(v, Value::Sym(s) if self.loop_element_of(*s).is_some()))
    }

    /// `a if test else b`: each arm under its side of the test (the locals whose tensor an arm
    /// is go to `sources`, see [`Interp::eval_with_sources`]).
    fn eval_conditional(
        &mut self,
        frame: &mut Frame,
        node: &ast::ExprIf,
        pc: &Cond,
        sources: &mut Vec<(Name, Cond)>,
    ) -> G {
        // An unknown test is an atom named after the test, not the whole conditional.
        let holds = self.test_condition(frame, &node.test, pc);
        let mut out = G::empty();
        let yes = pc.and(&holds);
        if self.conds.feasible(&yes) {
            let body = self.eval_with_sources(frame, &node.body, &yes, sources);
            out.extend(&self.conds, body);
        }
        let no = pc.and(&holds.not());
        if self.conds.feasible(&no) {
            let orelse = self.eval_with_sources(frame, &node.orelse, &no, sources);
            out.extend(&self.conds, orelse);
        }
        out
    }

    /// `expr` evaluated as the right side of `name = expr`, with the locals whose tensor it is
    /// and where: a name, a view of one (`x.view(-1)`), an arm of a conditional.
    pub fn eval_with_sources(
        &mut self,
        frame: &mut Frame,
        expr: &Expr,
        pc: &Cond,
        sources: &mut Vec<(Name, Cond)>,
    ) -> G {
        match expr {
            Expr::Name(name) if frame.locals.contains_key(&name.id) => {
                sources.push((name.id.clone(), *pc));
                self.eval(frame, expr, pc)
            }
            Expr::If(node) => {
                let loc = self.loc(frame.file, expr);
                if !self.step(loc) {
                    return G::under(*pc, Value::unknown("evaluation budget spent"));
                }
                self.eval_conditional(frame, node, pc, sources)
            }
            Expr::Call(_) => {
                if let Some(name) = viewed_local(frame, expr) {
                    sources.push((name.clone(), *pc));
                }
                self.eval(frame, expr, pc)
            }
            _ => self.eval(frame, expr, pc),
        }
    }

    /// `obj.name = value` (or `setattr(obj, "name", value)`) on an object of the heap, as
    /// Python does it: through a `__setattr__` its class defines in the tree (a state object
    /// keeping its attributes in a dict), into the pipeline's state, or into the field.
    pub(super) fn set_attribute(&mut self, id: HeapId, name: &Name, value: G, c: &Cond, loc: Loc) {
        if let Some(setter) = self.dunder_setattr(id, loc) {
            let args = super::calls::Args {
                positional: vec![
                    super::calls::Arg {
                        value: G::under(Cond::TRUE, Value::Const(Constant::Str(name.to_string()))),
                        loc: None,
                    },
                    super::calls::Arg { value, loc: Some(loc) },
                ],
                ..Default::default()
            };
            self.call_function(setter, Some(Value::Obj(id)), args, c, loc);
        } else if self.pipeline_state == Some(id) {
            // The pipeline's state is a dict read and written as attributes
            // (`state.topk_output = ...`, later `state.pop("topk_output")`).
            self.set_state_entry(id, name.as_str(), value, c);
        } else {
            self.set_field(id, name, value, c);
        }
    }

    /// Assigns `value` to a target expression (names, attributes, items, tuples).
    pub fn assign_target(&mut self, frame: &mut Frame, target: &Expr, value: G, pc: &Cond) {
        match target {
            Expr::Name(name) => self.assign_local(frame, &name.id, value, pc),
            Expr::Attribute(attr) => {
                let base = self.eval(frame, &attr.value, pc);
                let loc = self.loc(frame.file, attr);
                let name = Name::new(attr.attr.as_str());
                let value = self.record_store(&value, loc, &format!("{}", self.text(loc)));
                for (c, v) in base.0.clone() {
                    // An unknown object handed in keeps what was written into it (see
                    // `ObjKind::Opaque`).
                    let v = match v {
                        Value::Sym(s) if self.is_handed_in(s) => {
                            Value::Obj(self.opaque_object(s, Some(loc)).expect("made"))
                        }
                        other => other,
                    };
                    if let Value::Class(class) = v {
                        self.set_class_attr(class, &name, value.clone(), &c, loc);
                        continue;
                    }
                    if let Value::Obj(id) = v {
                        let restricted = value.restrict(&self.conds, &c);
                        self.set_attribute(id, &name, restricted, &c, loc);
                    }
                }
            }
            Expr::Subscript(sub) => {
                let base = self.eval(frame, &sub.value, pc);
                let index = self.eval(frame, &sub.slice, pc);
                let loc = self.loc(frame.file, sub);
                let mut updated_num = false;
                for (c, v) in base.0.clone() {
                    match v {
                        Value::Obj(id) => {
                            let constant_key = index.single().and_then(entry_key);
                            // An exact dict stays exact through an assignment to a constant key
                            // outside abstract loops (one made in such a loop stands for many).
                            self.keyed_write = constant_key.is_some()
                                && self.exact_dicts.get(&id).is_some_and(|&depth| depth == self.abstract_depth);
                            let key = constant_key.or_else(|| match index.single() {
                                Some(Value::Sym(sym)) => Some(unknown_key(*sym)),
                                _ => None,
                            });
                            let kind = self.heap[id as usize].kind.clone();
                            self.touch(id);
                            self.keyed_write = false;
                            match (kind, key) {
                                (ObjKind::Dict(mut entries), Some(key)) => {
                                    let c = self.gate(id, &c);
                                    let restricted = value.restrict(&self.conds, &c);
                                    set_entry(&mut entries, &key, restricted, self, &c);
                                    self.heap[id as usize].kind = ObjKind::Dict(entries);
                                }
                                (ObjKind::List(mut items), _) => {
                                    // A known slot is replaced (`slots[i] = x` with `i` known);
                                    // otherwise the list holds the value too.
                                    let slot = match index.single() {
                                        Some(Value::Const(Constant::Int(i))) => {
                                            let i = if *i < 0 { *i + items.len() as i64 } else { *i };
                                            usize::try_from(i).ok().filter(|&i| i < items.len())
                                        }
                                        _ => None,
                                    };
                                    let c = self.gate(id, &c);
                                    let value = value.restrict(&self.conds, &c);
                                    match slot {
                                        Some(i) => items[i] = items[i].overwritten(&self.conds, value, &c),
                                        None => items.push(value),
                                    }
                                    self.heap[id as usize].kind = ObjKind::List(items);
                                }
                                _ => {
                                    self.blocker(loc, "item assignment into an object not tracked", &c);
                                }
                            }
                        }
                        Value::Num(_) => updated_num = true,
                        // A cache kept in an object not built (see `keyed_caches.rs`).
                        Value::Sym(container) => {
                            if let Some(Value::Const(Constant::Str(key))) = index.single() {
                                self.store_keyed(container, key, &value, &c);
                            }
                        }
                        _ => {}
                    }
                }
                // `t[idx] = v` on a tensor: part of `t` now holds `v`. A number that carries the
                // traced value is applied where it enters the data (`topk_weights[:, -1] = 1.0 /
                // factor` weights the fused shared slot), as in `t.fill_(v)`.
                if updated_num {
                    let value = self.as_tensor_fill(value, loc);
                    // `out[begin:end] = y` with `begin` moving with a loop's element (`chunk *
                    // CHUNK_SIZE`): the loop, which stays one iteration, writes every chunk,
                    // so the tensor holds what the iterations store (and, where some iteration
                    // does not store, what it held: see `iterations.rs`), not also its old data.
                    let merged = if self.slices_by_loop_element(frame, &sub.slice, pc) {
                        value.restrict(&self.conds, pc)
                    } else {
                        self.union_nums(&base, &value, pc)
                    };
                    self.assign_in_place(frame, &sub.value, merged, pc);
                }
            }
            Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. }) => {
                if !elts.iter().any(|e| matches!(e, Expr::Starred(_))) {
                    let loc = self.loc(frame.file, target);
                    self.raise_on_count_mismatch(&value, elts.len(), pc, loc);
                }
                for (i, elt) in elts.iter().enumerate() {
                    let item = self.unpack_item(&value, i, elts.len(), pc);
                    let elt = if let Expr::Starred(s) = elt { s.value.as_ref() } else { elt };
                    self.assign_target(frame, elt, item, pc);
                }
            }
            Expr::Starred(star) => self.assign_target(frame, &star.value, value, pc),
            _ => {}
        }
    }

    /// Unpacking a NamedTuple into another number of names raises `ValueError` (a runner
    /// written for one dispatcher's output, handed another's). Only records: their length is
    /// their class's, where a tuple the evaluation built may stand for items it could not count
    /// (`(a, *unknown)`).
    fn raise_on_count_mismatch(&mut self, value: &G, n: usize, pc: &Cond, loc: Loc) {
        for (c, v) in value.0.clone() {
            let Value::Obj(id) = v else { continue };
            let ObjKind::Instance(class) = self.read_object(id).kind else { continue };
            if !self.resolver.mro(class).is_named_tuple() {
                continue;
            }
            let fields = self.record_fields(class).len();
            if fields > 0 && fields != n {
                self.raise_of(Some("ValueError"), &c.and(pc), loc);
            }
        }
    }

    /// Item `i` of `n` when unpacking `value`.
    pub fn unpack_item(&mut self, value: &G, i: usize, n: usize, pc: &Cond) -> G {
        let mut out = G::empty();
        for (c, v) in value.0.clone() {
            match &v {
                Value::Tuple(items) if items.len() == n => out.extend(&self.conds, items[i].restrict(&self.conds, &c)),
                Value::Obj(id) => {
                    let object = self.read_object(*id).clone();
                    match &object.kind {
                        ObjKind::List(items) if items.len() == n => {
                            out.extend(&self.conds, items[i].restrict(&self.conds, &c))
                        }
                        ObjKind::Instance(class) => {
                            // A NamedTuple unpacks into its fields, in order.
                            let fields = self.record_fields(*class);
                            match fields.get(i).and_then(|f| object.fields.get(f.as_str())) {
                                Some(g) => out.extend(&self.conds, g.restrict(&self.conds, &c)),
                                None => out.push(&self.conds, c.clone(), Value::unknown("unpacking an object")),
                            }
                        }
                        _ => out.push(&self.conds, c.clone(), Value::unknown("unpacking")),
                    }
                }
                Value::Num(n) => out.push(&self.conds, c.clone(), Value::Num(n.clone())),
                Value::Sym(s) => {
                    let display = format!("{}[{i}]", self.syms[*s as usize].display);
                    let item = self.sym(SymKey::Path(*s, format!("[{i}]")), display, None);
                    out.push(&self.conds, c.clone(), item);
                }
                Value::ExternalObj(_) | Value::Unknown(_) => {
                    out.push(&self.conds, c.clone(), Value::Num(Rc::new(Num::plain_tensor())))
                }
                _ => out.push(&self.conds, c.clone(), Value::unknown("unpacking")),
            }
        }
        let _ = pc;
        out
    }

    /// `a == b` for two distinct instances of one dataclass that compares its fields: where
    /// every field is equal. `None` for other objects (compared by identity) or, past a few
    /// nested records, when not decided.
    fn records_equal(&mut self, a: HeapId, b: HeapId, loc: Loc) -> Option<Cond> {
        const MAX_NESTED: u32 = 4;
        if a == b {
            return None;
        }
        let (ObjKind::Instance(class), ObjKind::Instance(other)) =
            (&self.heap[a as usize].kind, &self.heap[b as usize].kind)
        else {
            return None;
        };
        let (class, other) = (*class, *other);
        if !self.compares_fields(class) {
            return None;
        }
        // (`__eq__` of another class gives NotImplemented: the objects are then compared by
        // identity.)
        if class != other {
            return Some(self.conds.falsity());
        }
        if self.comparing_records >= MAX_NESTED {
            return None;
        }
        self.comparing_records += 1;
        let mut equal = self.conds.truth();
        for field in self.record_fields(class) {
            let left = self.read_object(a).fields.get(&field).cloned().unwrap_or_default();
            let right = self.read_object(b).fields.get(&field).cloned().unwrap_or_default();
            if left.is_empty() || right.is_empty() {
                self.comparing_records -= 1;
                return None;
            }
            let text = field.to_string();
            equal = equal.and(&self.compare(&left, CmpOp::Eq, &right, &text, &text, loc));
            if equal.is_false() {
                break;
            }
        }
        self.comparing_records -= 1;
        Some(equal)
    }

    /// `a == b` for two distinct dicts the evaluation built: where the same keys are present
    /// and their values are equal.
    fn dicts_equal(&mut self, a: HeapId, b: HeapId, loc: Loc) -> Option<Cond> {
        if a == b {
            return None;
        }
        let (ObjKind::Dict(left), ObjKind::Dict(right)) =
            (self.read_object(a).kind.clone(), self.read_object(b).kind.clone())
        else {
            return None;
        };
        let mut keys: Vec<Rc<str>> = left.iter().map(|(k, _)| k.clone()).collect();
        keys.extend(right.iter().map(|(k, _)| k.clone()).filter(|k| !left.iter().any(|(l, _)| l == k)));
        let mut equal = self.conds.truth();
        for key in keys {
            let value = |entries: &[(Rc<str>, G)]| entries.iter().find(|(k, _)| *k == key).map(|(_, g)| g.clone());
            let (x, y) = (value(&left).unwrap_or_default(), value(&right).unwrap_or_default());
            let (px, py) = (x.coverage(&self.conds), y.coverage(&self.conds));
            let same = self.compare(&x, CmpOp::Eq, &y, &key, &key, loc);
            let here = px.and(&py).and(&same).or(&px.not().and(&py.not()));
            equal = equal.and(&here);
            if equal.is_false() {
                break;
            }
        }
        Some(equal)
    }

    /// Whether object `id` is an instance of a class whose `==` compares values: one that
    /// defines `__eq__` in the tree, or a record that compares its fields.
    fn compares_by_value(&self, id: HeapId) -> bool {
        match self.heap[id as usize].kind {
            ObjKind::Instance(class) => self.class_defines_eq(class) || self.compares_fields(class),
            _ => false,
        }
    }

    fn class_defines_eq(&self, class: ClassId) -> bool {
        let mro = self.resolver.mro(class);
        mro.classes.iter().any(|c| self.index.class(*c).body.iter().any(|b| b.name.as_str() == "__eq__"))
    }

    /// Whether instances of `class` compare their fields: a class decorated `@dataclass`
    /// (without `eq=False`) or a `msgspec.Struct`, with no `__eq__` of its own in the MRO.
    fn compares_fields(&self, class: ClassId) -> bool {
        let mro = self.resolver.mro(class);
        let struct_record = mro.external.iter().any(|e| crate::query::instances::is_msgspec_struct(e));
        let defines_eq = self.class_defines_eq(class);
        let dataclass = mro.classes.first().is_some_and(|c| {
            self.index.class(*c).decorators.iter().any(|d| {
                let (callee, keywords) = match d {
                    Expr::Call(call) => (call.func.as_ref(), call.arguments.keywords.as_ref()),
                    other => (other, &[][..]),
                };
                crate::syntax::dotted_name(callee).is_some_and(|n| n.ends_with("dataclass"))
                    && !keywords.iter().any(|k| {
                        k.arg.as_ref().is_some_and(|a| a.as_str() == "eq")
                            && matches!(&k.value, Expr::BooleanLiteral(b) if !b.value)
                    })
            })
        });
        (dataclass || struct_record) && !defines_eq
    }

    /// Whether an instance of `class` holds its own `attr` over a constant the class declares
    /// for it: a class of its MRO assigns `self.attr` in a method, and the class's value is a
    /// constant (a default; not a method, a property or an object).
    fn instances_override(&mut self, class: ClassId, attr: &str, loc: Loc) -> bool {
        let assigned = self
            .resolver
            .mro(class)
            .classes
            .iter()
            .any(|c| self.index.class(*c).attr_writes.iter().any(|w| w.name.as_str() == attr));
        assigned
            && matches!(self.class_attr(class, attr, loc), Some((_, g)) if g.iter().all(|(_, v)| matches!(v, Value::Const(_))))
    }

    /// Whether `attr` is a field of record class `class` (a dataclass or NamedTuple).
    fn is_record_field(&mut self, class: ClassId, attr: &str) -> bool {
        if !self.record_field_names.contains_key(&class) {
            let fields: Rc<[Name]> = Rc::from(self.record_fields(class));
            self.record_field_names.insert(class, fields);
        }
        self.record_field_names[&class].iter().any(|f| f.as_str() == attr)
    }

    /// Field names of a NamedTuple or dataclass, in order.
    pub fn record_fields(&self, class: ClassId) -> Vec<Name> {
        match crate::query::instances::constructor_params(self.resolver, class) {
            Some((None, params, _)) => params.into_iter().map(|p| p.name).collect(),
            _ => Vec::new(),
        }
    }

    /// Records that the traced value (if `value` carries it) was stored at `loc`.
    pub fn record_store(&mut self, value: &G, loc: Loc, label: &str) -> G {
        self.map(value, |this, v| match v {
            Value::Num(n) if !n.tensor && n.carries_traced() => {
                let hop = this.hop(loc, HopKind::Store, label.to_string());
                Value::Num(Rc::new(extend_chain(&n, hop)))
            }
            other => other,
        })
    }
}

/// Appends a hop to every traced part's chain.
pub fn extend_chain(n: &Num, hop: HopId) -> Num {
    let parts = n
        .parts
        .iter()
        .map(|p| {
            if p.exp == 0 || p.chain.len() >= 32 {
                p.clone()
            } else {
                let mut chain = p.chain.to_vec();
                chain.push(hop);
                Part { chain: Rc::from(chain), ..p.clone() }
            }
        })
        .collect();
    Num { tensor: n.tensor, parts, shape: n.shape }
}

/// Dict keys are kept as text. A string key is itself; any other constant key (a number,
/// `True`, `None`, a tuple of constants) is its Python literal after `NON_STRING_KEY`, so that
/// `{4: a}` and `{"4": b}` stay two entries and `d.keys()` gives back the number 4.
const NON_STRING_KEY: char = '\u{1}';

/// A key whose value is not known (`d[layer_type] = ...` in a loop over `set(config.layer_types)`)
/// is kept as the symbol standing for it, after `UNKNOWN_KEY`: the entry is there, under a key
/// only a lookup by the same symbol is sure to find.
const UNKNOWN_KEY: char = '\u{2}';

/// The key of a dict entry written under the unknown `sym`.
pub fn unknown_key(sym: SymId) -> String {
    format!("{UNKNOWN_KEY}{sym}")
}

/// The symbol a key written by [`unknown_key`] stands for.
pub fn unknown_key_sym(key: &str) -> Option<SymId> {
    key.strip_prefix(UNKNOWN_KEY)?.parse().ok()
}

/// The key of a dict entry for a constant key: a string as itself, other constants and tuples
/// of constants as Python writes them (`("triton", "standard")`), marked as not strings.
pub fn entry_key(value: &Value) -> Option<String> {
    match value {
        Value::Const(Constant::Str(s)) => Some(s.clone()),
        Value::Const(c) => Some(format!("{NON_STRING_KEY}{c}")),
        Value::Tuple(items) => {
            let parts: Option<Vec<String>> = items
                .iter()
                .map(|g| match g.single() {
                    Some(Value::Const(c)) => Some(c.to_string()),
                    _ => None,
                })
                .collect();
            Some(format!("{NON_STRING_KEY}({})", parts?.join(", ")))
        }
        _ => None,
    }
}

/// The Python value of a key [`entry_key`] stored: what `d.keys()`, `d.items()` and `for k in
/// d` give.
pub fn key_value(key: &str) -> Value {
    if let Some(sym) = unknown_key_sym(key) {
        return Value::Sym(sym);
    }
    let Some(literal) = key.strip_prefix(NON_STRING_KEY) else { return Value::Const(Constant::Str(key.to_string())) };
    if let Some(parts) = tuple_key_parts(key).filter(|_| literal.starts_with('(')) {
        return Value::Tuple(Rc::new(parts.into_iter().map(|c| G::under(Cond::TRUE, Value::Const(c))).collect()));
    }
    match ruff_python_parser::parse_expression(literal).ok().and_then(|parsed| crate::syntax::constant(parsed.expr())) {
        Some(constant) => Value::Const(constant),
        None => Value::Const(Constant::Str(literal.to_string())),
    }
}

/// A stored key as Python writes it (`"name"`, `4`, `("a", 1)`), for the output.
pub fn key_display(key: &str) -> String {
    if unknown_key_sym(key).is_some() {
        return "a key not known".to_string();
    }
    match key.strip_prefix(NON_STRING_KEY) {
        Some(literal) => literal.to_string(),
        None => format!("{key:?}"),
    }
}

/// The constants of a tuple key written by [`entry_key`] (Python syntax, read back with the
/// parser).
fn tuple_key_parts(key: &str) -> Option<Vec<Constant>> {
    let key = key.strip_prefix(NON_STRING_KEY)?;
    if !key.starts_with('(') {
        return None;
    }
    let parsed = ruff_python_parser::parse_expression(key).ok()?;
    match parsed.expr() {
        Expr::Tuple(tuple) => tuple.elts.iter().map(crate::syntax::constant).collect(),
        // `(x)` is not a tuple: one part.
        other => Some(vec![crate::syntax::constant(other)?]),
    }
}

/// Sets dict entry `key` to `value` under `pc` (the old entry survives where `pc` fails).
/// Methods of `dict`: on the pipeline's state these are methods, any other attribute an entry.
const DICT_METHODS: &[&str] =
    &["pop", "get", "update", "setdefault", "keys", "values", "items", "clear", "copy", "popitem", "__contains__"];

pub fn set_entry(entries: &mut Vec<(Rc<str>, G)>, key: &str, value: G, interp: &Interp, pc: &Cond) {
    match entries.iter_mut().find(|(k, _)| k.as_ref() == key) {
        Some((_, old)) => {
            let mut new = value;
            new.extend(&interp.conds, old.restrict(&interp.conds, &pc.not()));
            *old = new;
        }
        None => entries.push((Rc::from(key), value)),
    }
}

pub(super) fn consts_equal(a: &Constant, b: &Constant) -> bool {
    match (a, b) {
        (Constant::Int(x), Constant::Float(y)) | (Constant::Float(y), Constant::Int(x)) => (*x as f64) == *y,
        (Constant::Bool(x), Constant::Int(y)) | (Constant::Int(y), Constant::Bool(x)) => (*x as i64) == *y,
        _ => a == b,
    }
}

fn is_surely_object(v: &Value) -> bool {
    matches!(
        v,
        Value::Obj(_)
            | Value::Class(_)
            | Value::Func(_)
            | Value::Bound(..)
            | Value::Module(_)
            | Value::Num(_)
            | Value::Tuple(_)
    )
}

fn cmp_text(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => "==",
        CmpOp::NotEq => "!=",
        CmpOp::Lt => "<",
        CmpOp::LtE => "<=",
        CmpOp::Gt => ">",
        CmpOp::GtE => ">=",
        CmpOp::Is => "is",
        CmpOp::IsNot => "is not",
        CmpOp::In => "in",
        CmpOp::NotIn => "not in",
    }
}

/// The local whose tensor `expr` is: a local name, or a view of one (`out.view(-1)`).
pub fn viewed_local<'e>(frame: &Frame, expr: &'e Expr) -> Option<&'e Name> {
    match expr {
        Expr::Name(name) if frame.locals.contains_key(&name.id) => Some(&name.id),
        Expr::Call(call) => match call.func.as_ref() {
            Expr::Attribute(attr) if VIEWS.contains(&attr.attr.as_str()) => viewed_local(frame, &attr.value),
            _ => None,
        },
        _ => None,
    }
}

/// Tensor methods that multiply or divide by an argument (or add a multiple of one), or fill a
/// tensor with one: no other kind of Python value has them, so an unknown receiver of one is a
/// tensor.
pub const SCALING_METHODS: &[&str] = &[
    "new_full",
    "fill_",
    "mul",
    "mul_",
    "multiply",
    "multiply_",
    "div",
    "div_",
    "divide",
    "divide_",
    "true_divide",
    "true_divide_",
    "add_",
    "sub_",
    "addmm",
    "addmm_",
    "baddbmm",
    "baddbmm_",
    "addbmm",
    "addbmm_",
];

/// Attributes of a tensor that are the tensor itself, or a view of it: written in place, they
/// write into the tensor (`param.data.mul_(v)`).
pub const TENSOR_VIEW_ATTRS: &[&str] = &["data", "T", "mT", "H", "mH"];

/// Tensor methods whose result shares storage with the receiver: writing into the result
/// writes into the receiver.
pub const VIEWS: &[&str] = &[
    "view",
    "view_as",
    "reshape",
    "unsqueeze",
    "squeeze",
    "flatten",
    "unflatten",
    "narrow",
    "select",
    "transpose",
    "permute",
    "as_strided",
    "contiguous",
    "detach",
    "expand",
    "expand_as",
];

pub fn short_kind(v: &Value) -> &'static str {
    match v {
        Value::Const(_) => "a constant",
        Value::Num(_) => "a number",
        Value::Sym(_) => "an unknown value",
        Value::Obj(_) => "an object",
        Value::Class(_) => "a class",
        Value::Func(_) | Value::Bound(..) | Value::Property(..) => "a function",
        Value::Module(_) | Value::Namespace(_) => "a module",
        Value::External(_) | Value::ExternalObj(_) => "something outside the tree",
        Value::Builtin(_) => "a builtin",
        Value::Tuple(_) => "a tuple",
        Value::Super(..) => "super()",
        Value::Partial(_) => "a partial",
        Value::Lambda(_) => "a lambda",

        Value::Method(..) => "a method",
        Value::Unknown(_) => "an unknown value",
    }
}

/// Whether `text` reads a size of some data: its element count or the length of one of its
/// dimensions (`x.numel()`, `x.size(1)`, `x.shape[0]`). Any of them being 0 means it is empty.
fn names_a_size(text: &str) -> bool {
    let digits_between = |open: &str, close: char| {
        text.strip_suffix(close)
            .and_then(|t| t.rsplit_once(open))
            .is_some_and(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    text.ends_with(".numel()") || digits_between(".size(", ')') || digits_between(".shape[", ']')
}

/// Whether `display` names the size of something that has at least one member: a parallel
/// group's (`tp_size`, `dp_size_`, `get_dp_group().world_size`,
/// `get_tensor_model_parallel_world_size()`), not a dimension of some data, which may be empty.
fn names_a_positive_size(display: &str) -> bool {
    let last = display.rsplit(['.', '[']).next().unwrap_or(display);
    let name = last.trim_end_matches("()").trim_end_matches('_');
    name.ends_with("_size") && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Whether `display` names a count: a size of some data, or a name that says it counts by
/// the usual conventions (`num_experts`, `n_shared_experts`, `self.tp_size`,
/// `get_tensor_model_parallel_world_size()`, `args["n_share_experts_fusion"]`).
pub fn names_a_count(display: &str) -> bool {
    if names_a_size(display) {
        return true;
    }
    let last = display.rsplit(['.', '[']).next().unwrap_or(display);
    let name = last.trim_end_matches("()").trim_end_matches(']').trim_matches(['"', '\'']);
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return false;
    }
    name.starts_with("num_")
        || name.starts_with("n_")
        || name.ends_with("_size")
        || name.ends_with("_count")
        || name.ends_with("_num")
}

/// Why configurations where some data is empty are left out of the answer.
const EMPTY_DATA: &str = "the data is empty: there is nothing to scale";

/// Why a test that the traced value is one of `items` (all constants) leaves configurations
/// out of the answer: each item is 1, 0 or `None`, where applying the value changes nothing.
fn vacuous_membership(left: &Value, items: &[G]) -> Option<&'static str> {
    if !matches!(left, Value::Num(n) if !n.tensor && n.carries_traced()) {
        return None;
    }
    let reasons: Option<Vec<&'static str>> = items
        .iter()
        .map(|item| match item.single() {
            Some(Value::Const(Constant::None)) => Some(NOTHING_TO_APPLY),
            Some(c @ Value::Const(_)) => vacuous_test(left, c, false),
            _ => None,
        })
        .collect();
    let reasons = reasons?;
    match reasons.first() {
        Some(first) if reasons.iter().all(|r| r == first) => Some(first),
        Some(_) => Some("the value is 1, 0 or None: applying it changes nothing"),
        None => None,
    }
}

/// Why configurations where the traced value is 0 or `None` are left out.
pub(super) const NOTHING_TO_APPLY: &str = "the value is 0 or None: there is nothing to apply";

/// Whether `left == right` is a test under which the number of applications cannot matter:
/// the traced value compared with 1 or 0, or data compared with emptiness (`x.shape[0] == 0`;
/// `size`: whether `left` is the size of some data, `Interp::is_size`).
fn vacuous_test(left: &Value, right: &Value, size: bool) -> Option<&'static str> {
    let is_one = |v: &Value| {
        matches!(v, Value::Const(Constant::Int(1))) || matches!(v, Value::Const(Constant::Float(f)) if *f == 1.0)
    };
    let is_zero = |v: &Value| {
        matches!(v, Value::Const(Constant::Int(0))) || matches!(v, Value::Const(Constant::Float(f)) if *f == 0.0)
    };
    let is_traced = |v: &Value| matches!(v, Value::Num(n) if !n.tensor && n.carries_traced());
    if (is_traced(left) && is_one(right)) || (is_one(left) && is_traced(right)) {
        return Some("the value is 1: applying it any number of times gives the same result");
    }
    // (`if factor != 0: weights[:, -1] = 1.0 / factor`: as with `if not factor`.)
    if (is_traced(left) && is_zero(right)) || (is_zero(left) && is_traced(right)) {
        return Some(NOTHING_TO_APPLY);
    }
    if size && matches!(right, Value::Const(Constant::Int(0))) {
        return Some(EMPTY_DATA);
    }
    None
}

impl Interp<'_, '_> {
    /// Whether `value` (written `text`) is the size of some data: a leading dimension, a name
    /// that says so, or the `len(...)` of data.
    fn is_size(&self, value: &Value, text: &str) -> bool {
        let text = text.trim();
        matches!(value, Value::Sym(s) if self.is_size_symbol(*s)) || names_a_size(text)
    }

    /// Whether the symbol `s` is the size of some data: a leading dimension, the `len(...)` of
    /// data, or a product with one of those (`M * topk`, the (token, expert) pairs a kernel is
    /// handed: zero exactly when there is no data or nothing it is routed to).
    fn is_size_symbol(&self, s: SymId) -> bool {
        if self.is_leading_size(s) || self.data_lengths.contains(&s) {
            return true;
        }
        match &self.syms[s as usize].key {
            SymKey::Arith(ArithOp::Mul, a, b) => {
                [a, b].into_iter().any(|t| matches!(t, ArithTerm::Sym(f) if *f != s && self.is_size_symbol(*f)))
            }
            _ => false,
        }
    }

    /// Whether the symbol `s` is the leading size of some data, however it was named
    /// (`tokens, _ = x.shape`).
    fn is_leading_size(&self, s: SymId) -> bool {
        match &self.syms[s as usize].key {
            SymKey::Path(base, step) if step == "[0]" => {
                let base = self.syms[*base as usize].display.as_str();
                base.ends_with(".shape") || base.ends_with(".size()")
            }
            // `M = a1.size(0)` handed back by a helper (`moe_problem_size`), tested as `M == 0`.
            SymKey::At(_, _) | SymKey::Arith(..) => names_a_size(&self.syms[s as usize].display),
            _ => false,
        }
    }

    /// `cls.__mro__` (the classes of the tree in method resolution order, then the outside
    /// bases), `cls.__dict__` (the names its body defines), `cls.__name__`: dispatch code walks
    /// these to find which class provides a method.
    fn class_introspection(&mut self, class: crate::index::ClassId, attr: &str, loc: Loc) -> Value {
        match attr {
            "__mro__" => {
                let mro = self.resolver.mro(class);
                let mut items: Vec<G> = mro.classes.iter().map(|c| G::one(&self.conds, Value::Class(*c))).collect();
                items.extend(mro.external.iter().map(|e| G::one(&self.conds, Value::External(Rc::from(e.as_str())))));
                Value::Tuple(Rc::new(items))
            }
            "__dict__" => {
                let names: Vec<Rc<str>> = {
                    let mut names: Vec<Rc<str>> =
                        self.index.class(class).body.iter().map(|b| Rc::from(b.name.as_str())).collect();
                    names.sort();
                    names.dedup();
                    names
                };
                let entries = names
                    .into_iter()
                    .map(|name| (name, G::one(&self.conds, Value::unknown("class body entry"))))
                    .collect();
                Value::Obj(self.alloc(ObjKind::Dict(entries), loc))
            }
            _ => Value::Const(Constant::Str(self.index.class(class).name.to_string())),
        }
    }
}

/// What every tuple and every NamedTuple has besides its fields.
fn is_tuple_attribute(attr: &str) -> bool {
    attr.starts_with("__") || matches!(attr, "count" | "index" | "_asdict" | "_fields" | "_field_defaults" | "_make")
}

/// `new` written into the tensor `old` held: the contents change, the dimensions do not.
fn keep_shape(old: &G, new: G) -> G {
    let mut shapes = old.iter().filter_map(|(_, v)| match v {
        Value::Num(n) => Some(n.shape.clone()),
        _ => None,
    });
    let Some(Some(shape)) = shapes.next() else { return new };
    if shapes.any(|s| s != Some(shape)) {
        return new;
    }
    G(new
        .0
        .into_iter()
        .map(|(c, v)| match v {
            Value::Num(n) if n.tensor && n.shape.is_none() => {
                (c, Value::Num(Rc::new(Num { shape: Some(shape), ..(*n).clone() })))
            }
            other => (c, other),
        })
        .collect())
}

/// The attributes a Python tuple has: `count`, `index` and the special methods.
fn tuple_attribute(attr: &str) -> bool {
    matches!(attr, "count" | "index") || (attr.starts_with("__") && attr.ends_with("__"))
}

#[cfg(test)]
mod tests {
    use super::{names_a_count, names_a_positive_size};

    #[test]
    fn positive_sizes_are_group_sizes_not_data_dimensions() {
        for size in ["dp_size_", "get_dp_group().world_size", "get_tensor_model_parallel_world_size()", "self.tp_size"]
        {
            assert!(names_a_positive_size(size), "{size}");
        }
        for other in ["x.size(0)", "topk_ids.shape[1]", "config.num_experts", "x.size()", "size"] {
            assert!(!names_a_positive_size(other), "{other}");
        }
    }

    #[test]
    fn counts_are_named_by_convention_or_are_sizes() {
        for count in [
            "config.num_experts",
            "self.n_share_experts_fusion",
            "global_server_args_dict[\"n_share_experts_fusion\"]",
            "get_tensor_model_parallel_world_size()",
            "self.tp_size",
            "topk_ids.shape[1]",
            "x.size(0)",
        ] {
            assert!(names_a_count(count), "{count}");
        }
        for other in ["self.routed_scaling_factor", "config.hidden_act", "self.experts.quant_method", "x.shape"] {
            assert!(!names_a_count(other), "{other}");
        }
    }
}
