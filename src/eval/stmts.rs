//! Executing statements: assignments gated by the path condition, `if` as two gated arms,
//! `return`/`raise`/`assert` narrowing what stays alive; loops over a short known sequence run
//! once per element, other loops as one abstract iteration.

use ruff_python_ast::name::Name;
use ruff_python_ast::{self as ast, Expr, Stmt};

use super::cond::Cond;
use super::interp::{Frame, Interp, ObjKind};
use super::value::*;
use crate::syntax::Constant;

impl Interp<'_, '_> {
    pub fn exec_block(&mut self, frame: &mut Frame, body: &[Stmt], pc: &Cond) {
        for stmt in body {
            let mut live = pc.and(&frame.alive).and(&frame.loop_alive);
            // Where a raise was caught by a `try` being evaluated, the exception unwinds to its
            // handler: the statements after the raise do not run there.
            let caught = self.caught_so_far();
            if !caught.is_false() {
                live = live.and(&caught.not());
            }
            if !self.conds.feasible(&live) {
                return;
            }
            // A raise does not narrow what follows (see `Stmt::Raise`), but where every
            // configuration left has stopped at one, nothing after it runs: read there, a local
            // bound only on the paths that did not raise would be an unknown.
            if !frame.stopped.is_false() && !self.conds.feasible(&live.and(&frame.stopped.not())) {
                return;
            }
            self.exec(frame, stmt, &live);
        }
    }

    fn exec(&mut self, frame: &mut Frame, stmt: &Stmt, pc: &Cond) {
        let loc = self.loc(frame.file, stmt);
        if !self.step(loc) {
            return;
        }

        match stmt {
            Stmt::Expr(expr) => {
                if let (Expr::Yield(y), Some(_)) = (expr.value.as_ref(), &frame.yielded) {
                    self.yield_value(frame, y.value.as_deref(), pc);
                    return;
                }
                let result = self.eval(frame, &expr.value, pc);
                if let Expr::Call(call) = expr.value.as_ref() {
                    self.write_out_buffers(frame, call, result, pc);
                    self.write_through_addresses(frame, call, pc);
                }
            }
            Stmt::Assign(assign) => match assign.targets.as_slice() {
                // `_ = kernel(..., output=out)`: a result thrown away, a call made for its effect.
                [Expr::Name(name)] if name.id.as_str() == "_" && matches!(assign.value.as_ref(), Expr::Call(_)) => {
                    let result = self.eval(frame, &assign.value, pc);
                    self.assign_local(frame, &name.id, result.clone(), pc);
                    if let Expr::Call(call) = assign.value.as_ref() {
                        self.write_out_buffers(frame, call, result, pc);
                        self.write_through_addresses(frame, call, pc);
                    }
                }
                [Expr::Name(name)] => self.assign_name(frame, &name.id, &assign.value, pc),
                [target @ (Expr::Tuple(_) | Expr::List(_))]
                    if let Some((names, values)) = pairwise_names(target, &assign.value) =>
                {
                    self.assign_names_pairwise(frame, &names, values, pc);
                }
                targets => {
                    let value = self.eval(frame, &assign.value, pc);
                    let value = self.named_attribute_origin(frame, targets, &assign.value, value);
                    for target in targets {
                        self.assign_target(frame, target, value.clone(), pc);
                    }
                    if let [Expr::Attribute(field)] = targets {
                        self.note_buffer_field(frame, field, &assign.value, pc);
                    }
                }
            },
            Stmt::AnnAssign(assign) => {
                if let Some(value) = &assign.value {
                    match assign.target.as_ref() {
                        Expr::Name(name) => self.assign_name(frame, &name.id, value, pc),
                        target => {
                            let evaluated = self.eval(frame, value, pc);
                            let targets = std::slice::from_ref(assign.target.as_ref());
                            let evaluated = self.named_attribute_origin(frame, targets, value, evaluated);
                            self.assign_target(frame, target, evaluated, pc);
                        }
                    }
                }
            }
            Stmt::AugAssign(assign) => {
                if self.advances_pointer(frame, assign) {
                    return;
                }
                let current = self.eval(frame, &assign.target, pc);
                let operand = self.eval(frame, &assign.value, pc);
                let value = self.binop(&current, assign.op, &operand, pc, loc, true);
                self.name_as_operation(&value, loc, assign);
                self.assign_in_place(frame, &assign.target, value, pc);
            }
            Stmt::Return(ret) => {
                let value = match &ret.value {
                    Some(v) => self.eval(frame, v, pc),
                    None => G::under(pc.clone(), Value::none()),
                };
                frame.returns.extend(&self.conds, value);
                frame.alive = frame.alive.and(&pc.not());
            }
            Stmt::Raise(raise) => {
                // The program stops here: a constraint on configurations, applied to the rows at
                // the end (narrowing every later condition with it is what makes them large).
                let pc = &self.guarded_raise(pc);
                match (&raise.exc, self.handling.last().cloned()) {
                    // `except Exception: note(error); raise` raises what was caught, where it
                    // was raised: that is the place the report names.
                    (None, Some(origins)) if !origins.is_empty() => {
                        let mut reraised = self.conds.falsity();
                        for (at, origin) in origins {
                            let here = pc.and(&at);
                            if self.conds.feasible(&here) {
                                if self.raise_under(&here, origin) {
                                    frame.stopped = frame.stopped.or(&here);
                                }
                                reraised = reraised.or(&here);
                            }
                        }
                        // What the handler was entered for beyond those (none, as evaluated)
                        // raises here.
                        let rest = pc.and(&reraised.not());
                        if self.conds.feasible(&rest) && self.raise_of(None, &rest, loc) {
                            frame.stopped = frame.stopped.or(&rest);
                        }
                        // The conditions are absolute: not a summary to replay elsewhere.
                        self.not_replayable();
                    }
                    _ => {
                        let kind = raise.exc.as_deref().and_then(exception_name);
                        if self.raise_of(kind, pc, loc) {
                            frame.stopped = frame.stopped.or(pc);
                        }
                    }
                }
                frame.raised = frame.raised.or(pc);
            }
            Stmt::Assert(assert) => {
                let holds = self.test_condition(frame, &assert.test, pc);
                let fails = self.guarded_raise(&pc.and(&holds.not()));
                if self.raise_of(Some("AssertionError"), &fails, loc) {
                    frame.stopped = frame.stopped.or(&fails);
                }
                frame.raised = frame.raised.or(&fails);
                self.narrow_asserted_locals(frame, &assert.test, &holds, pc);
            }
            Stmt::If(node) => {
                let mut rest = pc.clone();
                let t = self.branch_condition(frame, &node.test, pc);
                self.narrow_by_isinstance(frame, &node.test, &t, pc);
                let (yes, no) = (rest.and(&t), rest.and(&t.not()));
                self.note_split(&t, &yes, &no);
                if self.conds.feasible(&yes) {
                    self.exec_block(frame, &node.body, &yes);
                }
                rest = no;
                for clause in &node.elif_else_clauses {
                    if !self.conds.feasible(&rest) {
                        break;
                    }
                    match &clause.test {
                        Some(test_expr) => {
                            let t = self.branch_condition(frame, test_expr, &rest);
                            let (yes, no) = (rest.and(&t), rest.and(&t.not()));
                            self.note_split(&t, &yes, &no);
                            if self.conds.feasible(&yes) {
                                self.exec_block(frame, &clause.body, &yes);
                            }
                            rest = no;
                        }
                        None => self.exec_block(frame, &clause.body, &rest),
                    }
                }
            }
            Stmt::For(node) => {
                // `for chunk in range(n)` stays one abstract iteration: chunk loops write
                // slices of one tensor, which the evaluation does not tell apart (unrolled, each
                // chunk's write would scale the whole tensor again). A loop over the positions
                // of a list (`for position in range(len(chained))`) walks the list: unrolled
                // when its length is known, so `chained[position]` and `connections[position]`
                // are items of one position.
                self.range_stays_abstract = matches!(node.iter.as_ref(),
                    Expr::Call(call) if is_name(&call.func, "range")
                        && !matches!(call.arguments.args.as_ref(), [Expr::Call(len)] if is_name(&len.func, "len")));
                let iterable = self.eval(frame, &node.iter, pc);
                self.range_stays_abstract = false;
                let iter_loc = self.loc(frame.file, &*node.iter);
                // Iterating `None` raises `TypeError` (a lookup that found nothing).
                let none = iterable
                    .iter()
                    .filter(|(_, v)| matches!(v, Value::Const(crate::syntax::Constant::None)))
                    .fold(self.conds.falsity(), |acc, (c, _)| acc.or(c));
                let pc = &if self.conds.feasible(&none) {
                    self.raise_of(Some("TypeError"), &pc.and(&none), iter_loc);
                    pc.and(&none.not())
                } else {
                    *pc
                };
                if !self.conds.feasible(pc) {
                    return;
                }
                let iterable = iterable.restrict(&self.conds, pc);
                if let Some(sequences) = self.small_sequences(&iterable) {
                    // `enumerate(xs)` is one item standing for every element of `xs`.
                    let mut elements = rustc_hash::FxHashSet::default();
                    let mut kinds = rustc_hash::FxHashSet::default();
                    for item in sequences.iter().flat_map(|(_, items)| items) {
                        self.loop_elements_in(item, &mut elements);
                        self.kinds_in(item, &mut kinds);
                    }
                    // `zip(xs, ys)` of data: tests of data in the body differ between iterations.
                    let abstract_item = match iterable.single() {
                        Some(Value::Obj(id)) if self.abstract_lists.contains(id) => {
                            sequences.first().and_then(|(_, items)| items.first()).cloned()
                        }
                        _ => None,
                    };
                    let abstract_loop = u32::from(abstract_item.is_some());
                    let over_data = abstract_item.and_then(|item| self.data_loop(&item, iter_loc));
                    elements.extend(over_data);
                    let before = self.locals_before_iterations(frame, &elements, &kinds);
                    self.data_loops.extend(over_data);
                    // One sequence per alternative, each run under its condition (writes are
                    // gated, as in the arms of an `if`).
                    // A loop over an abstract list is one abstract iteration too.
                    self.abstract_depth += abstract_loop;
                    for (c, items) in sequences {
                        self.unrolled_loop(frame, node, items, &pc.and(&c), &before, (&elements, &kinds));
                    }
                    self.abstract_depth -= abstract_loop;
                    if over_data.is_some() {
                        self.data_loops.pop();
                    }
                    return;
                }
                let element = self.iter_element(&iterable, pc, iter_loc, &node.target);
                let mut elements = rustc_hash::FxHashSet::default();
                self.loop_elements_in(&element, &mut elements);
                elements.extend(self.element_choice(iter_loc));
                let mut kinds = rustc_hash::FxHashSet::default();
                self.kinds_in(&element, &mut kinds);
                // A loop over data (the experts a batch hit): tests of data in its body differ
                // between iterations, under one element standing for the loop.
                let over_data = self.data_loop(&element, iter_loc);
                elements.extend(over_data);
                let before = self.locals_before_iterations(frame, &elements, &kinds);
                let outer_guard = self.guard_iteration(&element);
                self.assign_target(frame, &node.target, element, pc);
                self.data_loops.extend(over_data);
                self.loop_body(frame, &node.body, pc);
                self.raise_guard = outer_guard;
                if over_data.is_some() {
                    self.data_loops.pop();
                }
                if let Some(before) = &before {
                    self.end_iterations(frame, before, &elements, &kinds);
                }
                self.exec_block(frame, &node.orelse, pc);
            }
            Stmt::While(node) => {
                let t = self.test_condition(frame, &node.test, pc);
                let yes = pc.and(&t);
                if self.conds.feasible(&yes) {
                    self.loop_body(frame, &node.body, &yes);
                }
                self.exec_block(frame, &node.orelse, &pc.and(&t.not()));
            }
            Stmt::Break(_) => {
                frame.loop_alive = frame.loop_alive.and(&pc.not());
                frame.loop_broken = frame.loop_broken.or(pc);
            }
            Stmt::Continue(_) => frame.loop_alive = frame.loop_alive.and(&pc.not()),
            Stmt::With(node) => {
                // `with generator(...) as x:` of the tree: the generator runs around the block.
                if let [item] = node.items.as_slice() {
                    if self.with_generator(frame, item, &node.body, pc, loc) {
                        return;
                    }
                }
                let mut contexts = Vec::new();
                for item in &node.items {
                    let context = self.eval(frame, &item.context_expr, pc);
                    let value = self.entered(context.clone(), pc, loc);
                    if let Some(vars) = &item.optional_vars {
                        self.assign_target(frame, vars, value, pc);
                    }
                    contexts.push(context);
                }
                self.exec_block(frame, &node.body, pc);
                // Left in reverse order, as Python leaves nested contexts.
                for context in contexts.iter().rev() {
                    self.exited(context, pc, loc);
                }
            }
            Stmt::Try(node) => self.try_statement(frame, node, pc, loc),
            Stmt::FunctionDef(def) => {
                // A nested function: remember the enclosing locals for when it is called.
                let facts = &self.index.file(frame.file).facts;
                let id = facts.functions.iter().position(|f| f.range == crate::syntax::Span::of(def));
                if let Some(local) = id {
                    let func = crate::index::FuncId { file: frame.file, local: local as u32 };
                    // Bound first, so that the function sees its own name (a recursive helper).
                    self.assign_local(frame, &def.name.id, G::under(pc.clone(), Value::Func(func)), pc);
                    self.closures.insert(func, std::rc::Rc::new(Self::enclosing_names(frame)));
                    frame.nested.push(func);
                }
            }
            Stmt::ClassDef(def) => {
                let facts = &self.index.file(frame.file).facts;
                if let Some(local) = facts.classes.iter().position(|c| c.range == crate::syntax::Span::of(def)) {
                    let class = crate::index::ClassId { file: frame.file, local: local as u32 };
                    self.assign_local(frame, &def.name.id, G::under(pc.clone(), Value::Class(class)), pc);
                }
            }
            Stmt::Import(import) => {
                for alias in &import.names {
                    let (name, module) = match &alias.asname {
                        Some(asname) => (asname.id.clone(), alias.name.to_string()),
                        None => {
                            let first = alias.name.split('.').next().unwrap_or_default().to_string();
                            (ruff_python_ast::name::Name::new(&first), first)
                        }
                    };
                    let value = self.module_value(&module);
                    self.assign_local(frame, &name, G::under(pc.clone(), value), pc);
                }
            }
            Stmt::ImportFrom(import) => {
                let file = self.index.file(frame.file);
                let Some(module) = crate::syntax::absolute_import(&file.module, file.is_package, import) else {
                    return;
                };
                for alias in &import.names {
                    if alias.name.as_str() == "*" {
                        continue;
                    }
                    let bound = alias.asname.as_ref().unwrap_or(&alias.name).id.clone();
                    let value = self.import_from(&module, alias.name.as_str(), loc);
                    self.assign_local(frame, &bound, value.restrict(&self.conds, pc), pc);
                }
            }
            Stmt::Delete(_)
            | Stmt::Pass(_)
            | Stmt::Global(_)
            | Stmt::Nonlocal(_)
            | Stmt::TypeAlias(_)
            | Stmt::IpyEscapeCommand(_) => {}
            // The first case whose pattern matches (and whose guard holds) runs: a value
            // pattern is the subject's equality with it, the same atom as `if subject == v`.
            Stmt::Match(node) => {
                let subject = self.eval(frame, &node.subject, pc);
                let subject_text = self.text(self.loc(frame.file, node.subject.as_ref()));
                let mut rest = *pc;
                for case in &node.cases {
                    if !self.conds.feasible(&rest) {
                        break;
                    }
                    let matches = self.pattern_test(frame, &case.pattern, &subject, &subject_text, &rest);
                    let mut here = rest.and(&matches);
                    if let Some(guard) = &case.guard {
                        if self.conds.feasible(&here) {
                            let holds = self.branch_condition(frame, guard, &here);
                            here = here.and(&holds);
                        }
                    }
                    if self.conds.feasible(&here) {
                        self.exec_block(frame, &case.body, &here);
                    }
                    rest = rest.and(&here.not());
                }
            }
        }
    }

    /// The condition under which `pattern` matches `subject` (within `pc`), binding the names
    /// it captures. Value, singleton, wildcard, capture and `|` patterns are exact; a class,
    /// sequence or mapping pattern is an atom of its own, said to be unresolved.
    fn pattern_test(
        &mut self,
        frame: &mut Frame,
        pattern: &ast::Pattern,
        subject: &G,
        subject_text: &str,
        pc: &Cond,
    ) -> Cond {
        let loc = self.loc(frame.file, pattern);
        match pattern {
            ast::Pattern::MatchValue(p) => {
                let value = self.eval(frame, &p.value, pc);
                let text = self.text(self.loc(frame.file, p.value.as_ref()));
                self.compare(subject, ast::CmpOp::Eq, &value, subject_text, &text, loc)
            }
            ast::Pattern::MatchSingleton(p) => {
                let constant = match p.value {
                    ast::Singleton::None => Constant::None,
                    ast::Singleton::True => Constant::Bool(true),
                    ast::Singleton::False => Constant::Bool(false),
                };
                let text = constant.to_string();
                let value = G::under(*pc, Value::Const(constant));
                self.compare(subject, ast::CmpOp::Is, &value, subject_text, &text, loc)
            }
            ast::Pattern::MatchAs(p) => {
                let matches = match &p.pattern {
                    Some(inner) => self.pattern_test(frame, inner, subject, subject_text, pc),
                    None => self.conds.truth(),
                };
                if let Some(name) = &p.name {
                    let bound = pc.and(&matches);
                    if self.conds.feasible(&bound) {
                        self.assign_local(
                            frame,
                            &Name::new(name.as_str()),
                            subject.restrict(&self.conds, &bound),
                            &bound,
                        );
                    }
                }
                matches
            }
            ast::Pattern::MatchOr(p) => {
                let mut any = self.conds.falsity();
                for alternative in &p.patterns {
                    let holds = self.pattern_test(frame, alternative, subject, subject_text, pc);
                    any = any.or(&holds);
                }
                any
            }
            _ => {
                self.blocker(loc, "a class, sequence or mapping pattern in `match`: taken as an unknown test", pc);
                let text = self.text(loc);
                self.atom(super::cond::AtomKey::Test(format!("case {text} @{}", loc.span.start)), || {
                    format!("case {text}")
                })
            }
        }
    }

    /// One abstract iteration of a loop body; `break`/`continue` end the iteration.
    fn loop_body(&mut self, frame: &mut Frame, body: &[Stmt], pc: &Cond) {
        let outer = (frame.loop_alive, frame.loop_broken);
        frame.loop_alive = self.conds.truth();
        frame.loop_broken = self.conds.falsity();
        self.abstract_depth += 1;
        self.exec_block(frame, body, pc);
        self.abstract_depth -= 1;
        (frame.loop_alive, frame.loop_broken) = outer;
    }

    /// Every alternative of `iterable` as a short sequence known item by item, with its
    /// condition (`[shared, routed]` where there are shared experts, `[routed]` elsewhere).
    pub fn small_sequences(&self, iterable: &G) -> Option<Vec<(Cond, Vec<G>)>> {
        let mut out = Vec::new();
        for (c, v) in iterable.iter() {
            let items = match v {
                Value::Tuple(items) => items.as_ref().clone(),
                Value::Obj(id) => match &self.read_object(*id).kind {
                    ObjKind::List(items) => items.clone(),
                    _ => return None,
                },
                // An enum class iterates over its members (a member is its value).
                Value::Class(class) => {
                    self.enum_iteration(*class)?.into_iter().map(|m| G::under(*c, Value::Const(m))).collect()
                }
                _ => return None,
            };
            if items.len() > MAX_UNROLLED {
                // Items there only in some configurations (appended under conditions: the
                // operations of a sparse layer or of a dense one) stand for a few shorter
                // sequences, each short enough on its own.
                for (world, values) in self.worlds(&items)? {
                    let here = c.and(&world);
                    if values.len() > MAX_UNROLLED {
                        return None;
                    }
                    if self.conds.feasible(&here) {
                        out.push((here, values.into_iter().map(|v| G::under(here, v)).collect()));
                    }
                }
                continue;
            }
            out.push((*c, items));
        }
        (!out.is_empty()).then_some(out)
    }

    /// `for x in (a, b, c)`: the body once per element, in order, each iteration under the
    /// condition that no earlier one broke out or returned — so a search loop
    /// (`for klass in type(self).__mro__: if name in klass.__dict__: return ...`) finds the
    /// first match, as Python does. `else` runs where the loop did not break.
    fn unrolled_loop(
        &mut self,
        frame: &mut Frame,
        node: &ast::StmtFor,
        items: Vec<G>,
        pc: &Cond,
        before: &Option<rustc_hash::FxHashMap<ruff_python_ast::name::Name, G>>,
        (elements, kinds): (&rustc_hash::FxHashSet<SymId>, &rustc_hash::FxHashSet<SymId>),
    ) {
        let mut going = *pc;
        for item in items {
            if !self.conds.feasible(&going.and(&frame.alive)) {
                break;
            }
            // Where a list's item is absent (appended on some paths only), the list is shorter
            // there: this iteration does not happen.
            let here = going.and(&item.coverage(&self.conds));
            if !self.conds.feasible(&here) {
                continue;
            }
            let element = item.restrict(&self.conds, &here);
            let outer_guard = self.guard_iteration(&element);
            self.assign_target(frame, &node.target, element, &here);
            let outer = (frame.loop_alive, frame.loop_broken);
            frame.loop_alive = self.conds.truth();
            frame.loop_broken = self.conds.falsity();
            self.exec_block(frame, &node.body, &here);
            going = going.and(&frame.loop_broken.not());
            (frame.loop_alive, frame.loop_broken) = outer;
            self.raise_guard = outer_guard;
        }
        if let Some(before) = before {
            self.end_iterations(frame, before, elements, kinds);
        }
        self.exec_block(frame, &node.orelse, &going);
    }

    /// An unknown number an augmented assignment computes (`topk -= n`) is named by the
    /// operation (`topk - n`): named by the statement, a test on it read
    /// `topk -= n > 8`.
    fn name_as_operation(&mut self, value: &G, loc: Loc, assign: &ast::StmtAugAssign) {
        if !value.iter().any(|(_, v)| matches!(v, Value::Sym(_))) {
            return;
        }
        let statement = self.text(loc);
        let mut operation: Option<String> = None;
        for (_, v) in value.iter() {
            let Value::Sym(s) = v else { continue };
            if self.syms[*s as usize].display != statement {
                continue;
            }
            let name = operation
                .get_or_insert_with(|| {
                    let target = self.text(self.loc(loc.file, &*assign.target));
                    let operand = self.text(self.loc(loc.file, &*assign.value));
                    let grouped = matches!(
                        &*assign.value,
                        Expr::BinOp(_)
                            | Expr::BoolOp(_)
                            | Expr::Compare(_)
                            | Expr::If(_)
                            | Expr::Lambda(_)
                            | Expr::Named(_)
                    );
                    let operand = if grouped { format!("({operand})") } else { operand };
                    format!("{target} {} {operand}", assign.op.as_str())
                })
                .clone();
            self.syms[*s as usize].display = name;
        }
    }
}

/// Loops over a known sequence at most this long run once per element.
const MAX_UNROLLED: usize = 16;

/// A handler whose body is calls (logging, noting where the error came from) and ends by
/// raising the exception it caught again (`raise`, `raise e` with `e` the caught exception).
fn only_reraises(handler: &ast::ExceptHandlerExceptHandler) -> bool {
    let Some((Stmt::Raise(last), before)) = handler.body.split_last() else { return false };
    let same_exception = match last.exc.as_deref() {
        None => true,
        Some(Expr::Name(n)) => handler.name.as_ref().is_some_and(|name| name.id == n.id),
        Some(_) => false,
    };
    same_exception
        && last.cause.is_none()
        && before.iter().all(|s| {
            matches!(s, Stmt::Pass(_))
                || matches!(s, Stmt::Expr(e) if matches!(e.value.as_ref(), Expr::Call(_) | Expr::StringLiteral(_)))
        })
}

/// A handler that does more than `pass`/`raise`/log is worth mentioning when it does not run.
fn handler_matters(handler: &ast::ExceptHandlerExceptHandler) -> bool {
    handler.body.iter().any(|s| {
        !matches!(s, Stmt::Pass(_) | Stmt::Raise(_))
            && !matches!(s, Stmt::Expr(e) if matches!(e.value.as_ref(), Expr::Call(_) | Expr::StringLiteral(_)))
    })
}

/// The exception class a `raise` names (`raise ValueError(...)`, `raise errors.KeyError`), if it
/// names one directly.
fn exception_name(exc: &Expr) -> Option<&str> {
    match exc {
        Expr::Call(call) => class_name(&call.func),
        other => class_name(other),
    }
}

/// The last name of a class expression (`ValueError`, `errors.KeyError`).
fn class_name(expr: &Expr) -> Option<&str> {
    match expr {
        Expr::Name(n) => Some(n.id.as_str()),
        Expr::Attribute(a) => Some(a.attr.as_str()),
        _ => None,
    }
}

/// The exceptions an `except` clause catches: `None` for all of them (a bare `except:`, or a
/// type that is not a plain name).
fn caught_types(handler: &ast::ExceptHandlerExceptHandler) -> Option<Vec<String>> {
    let name = |e: &Expr| class_name(e).map(str::to_string);
    match handler.type_.as_deref()? {
        Expr::Tuple(t) => t.elts.iter().map(name).collect(),
        other => name(other).map(|n| vec![n]),
    }
}

impl Interp<'_, '_> {
    /// `try`: the body runs; where it (or a call it makes) raises an exception a handler
    /// catches, what the body returned there did not happen and that handler runs instead
    /// (`for b in backends: try: return pick(b) except ValueError as e: last = e`). A raise
    /// no handler catches ends the configuration, as outside a `try`.
    fn try_statement(&mut self, frame: &mut Frame, node: &ast::StmtTry, pc: &Cond, loc: Loc) {
        let handlers: Vec<&ast::ExceptHandlerExceptHandler> = node
            .handlers
            .iter()
            .map(|h| {
                let ast::ExceptHandler::ExceptHandler(h) = h;
                h
            })
            .collect();
        // Handlers that only note the exception and raise it again (`except Exception as e:
        // note(e); raise`) leave it going where it was going: as for a body without them, its
        // raises are the program stopping where they are, and nothing after the `try` is
        // narrowed by them (catching them, to raise them again, made every later condition
        // carry all the raises of the body).
        if !handlers.is_empty() && handlers.iter().all(|h| only_reraises(h)) {
            self.exec_block(frame, &node.body, pc);
            self.exec_block(frame, &node.orelse, pc);
            self.exec_block(frame, &node.finalbody, pc);
            return;
        }
        let before = (frame.alive, frame.loop_alive, frame.loop_broken);
        if !handlers.is_empty() {
            let types = handlers.iter().map(|h| caught_types(h)).collect();
            self.catching.push(super::interp::Catch {
                handlers: types,
                caught: vec![self.conds.falsity(); handlers.len()],
                base: self.base,
                origins: vec![Vec::new(); handlers.len()],
            });
        }
        self.exec_block(frame, &node.body, pc);
        // (A `try` without handlers pushed nothing: the enclosing `try`'s stays.)
        let (caught, mut origins) = match handlers.is_empty() {
            true => Default::default(),
            false => self.catching.pop().map(|c| (c.caught, c.origins)).unwrap_or_default(),
        };
        let caught: Vec<Cond> = caught.iter().map(|c| c.and(pc)).collect();
        let any = caught.iter().fold(self.conds.falsity(), |acc, c| acc.or(c));
        if self.conds.feasible(&any) {
            // Where the body raised, it stopped: what it returned or broke out of after that
            // point is undone (what it wrote before the raise stays, as in Python). Returns made
            // before the `try` hold where it does not run, outside `any`: they stay.
            frame.returns = frame.returns.restrict(&self.conds, &any.not());
            frame.alive = frame.alive.or(&before.0.and(&any));
            frame.raised = frame.raised.and(&any.not());
            frame.stopped = frame.stopped.and(&any.not());
            frame.loop_alive = frame.loop_alive.or(&before.1.and(&any));
            frame.loop_broken = frame.loop_broken.and(&any.not()).or(&before.2.and(&any));
            for (i, (handler, c)) in handlers.iter().zip(&caught).enumerate() {
                if !self.conds.feasible(c) {
                    continue;
                }
                if let Some(name) = &handler.name {
                    let error = G::under(
                        *c,
                        Value::unknown(format!(
                            "the exception caught at {}",
                            self.text(loc).lines().next().unwrap_or_default()
                        )),
                    );
                    self.assign_local(frame, &name.id, error, c);
                }
                self.handling.push(std::mem::take(&mut origins[i]));
                self.exec_block(frame, &handler.body, c);
                self.handling.pop();
            }
        }
        let untaken = handlers.iter().zip(&caught).any(|(h, c)| !self.conds.feasible(c) && handler_matters(h));
        if untaken {
            self.blocker(
                loc,
                "`except` handlers run only where the evaluation sees a raise they catch (the body is otherwise assumed not to raise)",
                pc,
            );
        }
        self.exec_block(frame, &node.orelse, &pc.and(&any.not()));
        self.exec_block(frame, &node.finalbody, pc);
    }

    /// `self.routed_scaling_factor = config.other_key`: see `Interp::named_origin`.
    fn named_attribute_origin(&mut self, frame: &Frame, targets: &[Expr], value_expr: &Expr, value: G) -> G {
        let named = targets.iter().any(|t| matches!(t, Expr::Attribute(a) if a.attr.as_str() == self.traced.name));
        if !named {
            return value;
        }
        let loc = self.loc(frame.file, value_expr);
        self.named_origin(value, loc)
    }

    /// After `assert test`, the locals the test reads no longer hold, where `pc` holds, the
    /// alternatives under which it fails: `assert proxy is not None` drops the `None` a
    /// parameter may be. The raise already takes those configurations out of the rows, but
    /// only where its condition could be computed exactly; without this the dropped value
    /// flows on (`proxy["hidden_states"]`, an unknown subscript) wherever it could not.
    /// Later conditions are not narrowed (that is what makes them large): only alternatives
    /// that the assertion contradicts change. It stands for the raise, so it is not done where
    /// the raise is no stop (`raises_muted`: an attribute read as absent) nor where the
    /// assertion fails in every configuration of the call: nothing after it is kept then, and
    /// where that raise is not recorded (SGLang's Triton-kernels runner asserting a gated MoE,
    /// met for Nemotron-H) whole configurations were lost.
    /// `if isinstance(x, C):` of a local holding an unknown value: where the test holds, the
    /// value is an object of `C` (never `None`, its methods `C`'s), the same one wherever that
    /// value is seen so; elsewhere it stays unknown.
    fn narrow_by_isinstance(&mut self, frame: &mut Frame, test: &Expr, holds: &Cond, pc: &Cond) {
        let Expr::Call(call) = test else { return };
        let ([Expr::Name(name), class_expr], true) =
            (call.arguments.args.as_ref(), call.arguments.keywords.is_empty() && is_name(&call.func, "isinstance"))
        else {
            return;
        };
        let Some(value) = frame.locals.get(&name.id) else { return };
        if !value.iter().any(|(_, v)| matches!(v, Value::Sym(_))) {
            return;
        }
        let value = value.clone();
        let Some(Value::Class(class)) = self.eval(frame, class_expr, pc).single().cloned() else { return };
        let mut narrowed = G::empty();
        for (c, v) in value.iter() {
            match v {
                Value::Sym(s) => {
                    let object = self.abstract_object(class, *s);
                    narrowed.push(&self.conds, c.and(holds), object);
                    narrowed.push(&self.conds, c.and(&holds.not()), v.clone());
                }
                _ => narrowed.push(&self.conds, *c, v.clone()),
            }
        }
        frame.locals.insert(name.id.clone(), narrowed);
    }

    fn narrow_asserted_locals(&mut self, frame: &mut Frame, test: &Expr, holds: &Cond, pc: &Cond) {
        if holds.is_false() || self.raises_muted > 0 {
            return;
        }
        let mut names = Vec::new();
        names_read(test, &mut names);
        let outside = pc.not();
        for name in names {
            let Some(value) = frame.locals.get(&name) else { continue };
            if value.iter().all(|(c, _)| c.meets(holds)) {
                continue;
            }
            let mut narrowed = G::empty();
            for (c, v) in value.iter() {
                if c.meets(holds) {
                    narrowed.push(&self.conds, *c, v.clone());
                } else if c.meets(&outside) {
                    // Still the value where this assertion is not reached.
                    narrowed.push(&self.conds, c.and(&outside), v.clone());
                }
            }
            frame.locals.insert(name, narrowed);
        }
    }

    /// `name = value`: a fresh floating-point allocation, or another name for a buffer, makes
    /// `name` an output buffer; another local's tensor (`out = hidden_states`, or one arm of a
    /// conditional) makes the two share it (and keeps `name` a buffer where it was one: the
    /// tensor is written either way). A local of the traced name may be where it comes from
    /// (`Interp::named_origin`).
    fn assign_name(&mut self, frame: &mut Frame, name: &Name, value: &Expr, pc: &Cond) {
        let prepared = self.prepare_name_value(frame, name, value, pc);
        self.bind_prepared(frame, name, prepared, pc);
    }

    /// `a, b = x, y`: each name as if assigned alone (a buffer stays one, tensors of other
    /// locals are shared), every value evaluated before any name is bound (`a, b = b, a`
    /// swaps). SGLang's DP attention takes its gathered buffer so (`hidden_states,
    /// local_hidden_states = (gathered_buffer, hidden_states)`) before a kernel fills it.
    fn assign_names_pairwise(&mut self, frame: &mut Frame, names: &[&Name], values: &[Expr], pc: &Cond) {
        let prepared: Vec<PreparedValue> =
            names.iter().zip(values).map(|(name, value)| self.prepare_name_value(frame, name, value, pc)).collect();
        for (name, prepared) in names.iter().zip(prepared) {
            self.bind_prepared(frame, name, prepared, pc);
        }
    }

    /// The value `name = value` binds, with what it says of buffers and sharing.
    fn prepare_name_value(&mut self, frame: &mut Frame, name: &Name, value: &Expr, pc: &Cond) -> PreparedValue {
        let mut sources = Vec::new();
        let mut result = self.eval_with_sources(frame, value, pc, &mut sources);
        if *name == self.traced.name {
            result = self.named_origin(result, self.loc(frame.file, value));
        }
        // Another name for a buffer (`gathered = buffer`), or a view or chunk of one
        // (`cache3 = cache[:n].view(m, k, h)`, the intermediate caches of fused experts), is
        // a buffer: a kernel or helper that fills it fills it. (Filling a view does not write
        // into the buffer it was taken from: the caches are views of one scratch buffer, each
        // filled by its own kernel.)
        let buffer = self.makes_or_names_buffer(frame, value)
            || self.field_buffer(frame, value, pc)
            || self.handed_in_storage(frame, value);
        let record = super::pointers::record_of_addresses(frame, value);
        PreparedValue { result, sources, buffer, record }
    }

    /// `obj.field = value`: the field holds a buffer when the value is a fresh allocation (or
    /// a buffer of this frame). SGLang's logits metadata allocates its gathered buffer so, in
    /// one method, and the logits processor has a kernel fill it in another.
    fn note_buffer_field(&mut self, frame: &mut Frame, field: &ast::ExprAttribute, value: &Expr, pc: &Cond) {
        if !plain_reference(&field.value) {
            return;
        }
        if !self.makes_or_names_buffer(frame, value) {
            return;
        }
        let name = Name::new(field.attr.as_str());
        for (_, v) in self.eval(frame, &field.value, pc).iter() {
            if let Value::Obj(id) = v {
                self.buffer_fields.insert((*id, name.clone()));
            }
        }
    }

    /// Whether `value` is a fresh floating-point allocation (directly or by a helper that
    /// returns one), or a buffer of this frame, another name or view of one.
    fn makes_or_names_buffer(&mut self, frame: &Frame, value: &Expr) -> bool {
        writable_buffer(frame, value) || is_float_allocation(value) || self.allocates_buffer(frame, value)
    }

    /// Whether `expr` is a field holding a buffer (see `note_buffer_field`), or a view or
    /// chunk of one.
    fn field_buffer(&mut self, frame: &mut Frame, expr: &Expr, pc: &Cond) -> bool {
        match viewed_tensor(expr) {
            // (The base is evaluated again only for a field name some buffer field has: most
            // assignments from attributes are not.)
            Expr::Attribute(attr)
                if plain_reference(&attr.value) && self.buffer_fields.iter().any(|(_, n)| *n == attr.attr.id) =>
            {
                let name = Name::new(attr.attr.as_str());
                let base = self.eval(frame, &attr.value, pc);
                base.iter()
                    .any(|(_, v)| matches!(v, Value::Obj(id) if self.buffer_fields.contains(&(*id, name.clone()))))
            }
            _ => false,
        }
    }

    /// Whether `expr` is a tensor held by a value handed in whose object the evaluation does
    /// not know (`forward_batch.gathered_buffer`, the batch a parameter), or a view or chunk
    /// of one: storage the caller owns, which a kernel may fill (SGLang 0.4.6's DP-attention
    /// gather into the batch's buffer).
    fn handed_in_storage(&self, frame: &Frame, expr: &Expr) -> bool {
        match viewed_tensor(expr) {
            // A tensor's sizes, type or device (`w1.shape[0]`) are numbers, not storage.
            Expr::Attribute(attr) if TENSOR_METADATA.contains(&attr.attr.as_str()) => false,
            Expr::Attribute(attr) => match attr.value.as_ref() {
                // (A local: what a function was handed, or got back.)
                Expr::Name(base) if base.id.as_str() != "self" => frame.locals.get(&base.id).is_some_and(|held| {
                    !held.is_empty() && held.iter().all(|(_, v)| matches!(v, Value::Sym(_) | Value::Num(_)))
                }),
                _ => false,
            },
            _ => false,
        }
    }

    fn bind_prepared(&mut self, frame: &mut Frame, name: &Name, prepared: PreparedValue, pc: &Cond) {
        let PreparedValue { result, sources, buffer, record } = prepared;
        match record {
            Some(record) => _ = frame.address_records.insert(name.clone(), record),
            None => _ = frame.address_records.remove(name),
        }
        if buffer {
            frame.buffers.insert(name.clone());
        } else if sources.is_empty() {
            frame.buffers.remove(name);
        }
        self.assign_local(frame, name, result, pc);
        for (source, shared) in sources {
            if source != *name {
                frame.shares.push((name.clone(), source, shared));
            }
        }
    }

    /// A kernel called for its effect (`hash_topk(logits, ids, weights_out, ..., factor)`)
    /// returns nothing useful: what it computes lands in the output buffers it was handed. When
    /// the traced value went in, or the callee is one whose effect on the scale is not known,
    /// the floating-point buffers among the arguments (fresh ones, or ones handed down as
    /// buffers; or views of them) now hold the result (with its delegated application, or
    /// marked as not known: `deep_gemm.fp8_fp4_mega_moe(y, ..., symm_buffer)` fills `y` from
    /// top-k weights it reads out of a buffer object).
    fn write_out_buffers(&mut self, frame: &mut Frame, call: &ruff_python_ast::ExprCall, result: G, pc: &Cond) {
        let carries = result.iter().any(
            |(_, v)| matches!(v, Value::Num(n) if n.carries_traced() || n.parts.iter().any(|p| p.unknown.is_some())),
        );
        // Handed no scaled data, it writes all the same: into buffers nothing wrote yet, what
        // matters is that they are written (what they held was no data of the code's).
        // (A call naming its output, `torch.sum(cache, dim=1, out=out)`, wrote there already,
        // and reads the rest.)
        let fills_only = !carries;
        let names_output = call.arguments.keywords.iter().any(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == "out"));
        if fills_only && (names_output || !self.hands_unwritten_buffer(frame, call, pc)) {
            return;
        }
        // Only where the call gives data: where the callee is a function of the tree that
        // returns nothing (one of several finalizers, the others outside), it wrote into its
        // parameters itself, and the buffer holds that.
        let mut data = G::empty();
        for (c, v) in result.iter() {
            if matches!(v, Value::Num(_)) {
                data.push(&self.conds, *c, v.clone());
            }
        }
        let gives_data = data.coverage(&self.conds);
        let args = call.arguments.args.iter().chain(call.arguments.keywords.iter().map(|k| &k.value));
        let mut targets: Vec<Expr> = args.filter(|a| writable_buffer(frame, a)).cloned().collect();
        for stored in self.launch_stores(frame, call) {
            if !targets.iter().any(|t| t == stored) {
                targets.push(stored.clone());
            }
        }
        if targets.is_empty() {
            self.write_into_unknown_destination(frame, call, data, &pc.and(&gives_data));
            return;
        }
        for target in &targets {
            if fills_only {
                self.fill_unwritten(frame, target, &data, &pc.and(&gives_data));
            } else {
                self.assign_in_place(frame, target, data.clone(), &pc.and(&gives_data));
            }
        }
    }

    /// Writes `data` into the buffer `target` where it holds what nothing wrote yet (an outside
    /// kernel handed it fills it, whatever else it was handed); elsewhere it keeps what it holds.
    pub(super) fn fill_unwritten(&mut self, frame: &mut Frame, target: &Expr, data: &G, pc: &Cond) {
        let under = pc.and(&unwritten_where(&self.conds, frame, target));
        if !self.conds.feasible(&under) {
            return;
        }
        // (Made of nothing but the buffer itself, what the kernel wrote is still something.)
        let written = self.map(&data.restrict(&self.conds, &under), |_, v| match v {
            Value::Num(n) if n.is_unwritten() => {
                Value::Num(std::rc::Rc::new(Num { shape: n.shape, ..Num::plain_tensor() }))
            }
            other => other,
        });
        self.assign_in_place(frame, target, written, &under);
    }

    /// Whether a buffer among the call's arguments holds, somewhere, what nothing wrote yet.
    fn hands_unwritten_buffer(&self, frame: &Frame, call: &ast::ExprCall, pc: &Cond) -> bool {
        let args: Vec<&Expr> =
            call.arguments.args.iter().chain(call.arguments.keywords.iter().map(|k| &k.value)).collect();
        args.into_iter().filter(|a| writable_buffer(frame, a)).any(|arg| {
            let unwritten = unwritten_where(&self.conds, frame, arg);
            self.conds.feasible(&unwritten.and(pc))
        })
    }

    /// A function of the tree that returns nothing (`def moe_sum(self, input, output) -> None:
    /// ops.moe_sum(input, output)`), not evaluated, handed scaled data and no known buffer:
    /// the data lands in one of its arguments, and which one is not known (vLLM's experts
    /// fill a workspace view the evaluation does not know for a buffer). Dropped, the data
    /// was lost and the row read NEVER; the tensors handed beside it that do not carry the
    /// value now hold it, marked as not known, so the row says what blocked it.
    fn write_into_unknown_destination(&mut self, frame: &mut Frame, call: &ast::ExprCall, data: G, pc: &Cond) {
        // (So does data that went through a callee not resolved, `importlib.import_module(...)
        // .cutlass_fused_moe(..., output=output)`: what it returns is already marked.)
        // Only scaled data counts (a recorder handed the ids, not resolved, loses nothing).
        if !data.iter().any(|(_, v)| matches!(v, Value::Num(n) if n.carries_traced())) {
            return;
        }
        let unresolved =
            data.iter().any(|(_, v)| matches!(v, Value::Num(n) if n.parts.iter().any(|p| p.unknown.is_some())));
        if !unresolved && !self.calls_function_returning_nothing(frame, call) {
            return;
        }
        let args: Vec<&Expr> =
            call.arguments.args.iter().chain(call.arguments.keywords.iter().map(|k| &k.value)).collect();
        // Where the scaled data handed in stays readable after the call (a parameter, whose
        // caller keeps it; a local read again), the callee may have written it back in place
        // (`apply_routing_simulation(topk_ids, topk_weights)` rewriting both): nothing is lost.
        // (A callee not resolved may do anything with what it is handed: marked anyway.)
        let after = ruff_text_size::Ranged::range(call).end().to_u32();
        for arg in args.iter().filter(|_| !unresolved) {
            let Expr::Name(name) = viewed_tensor(arg) else { continue };
            let carries = frame.locals.get(&name.id).is_some_and(|held| {
                held.iter().any(|(_, v)| {
                    matches!(v, Value::Num(n) if n.carries_traced() || n.parts.iter().any(|p| p.unknown.is_some()))
                })
            });
            if carries && (self.is_parameter(frame, &name.id) || self.read_after(frame, &name.id, after)) {
                return;
            }
        }
        let mut destinations: Vec<Expr> = Vec::new();
        for arg in args {
            let Expr::Name(name) = viewed_tensor(arg) else { continue };
            let uncarrying_tensor = frame.locals.get(&name.id).is_some_and(|held| {
                !held.is_empty()
                    && held.iter().all(|(_, v)| matches!(v, Value::Num(n) if n.tensor && !n.carries_traced()))
            });
            if uncarrying_tensor && !destinations.iter().any(|d| matches!(d, Expr::Name(n) if n.id == name.id)) {
                destinations.push(Expr::Name(name.clone()));
            }
        }
        if destinations.is_empty() {
            return;
        }
        let loc = self.loc(frame.file, call);
        let names: Vec<String> = destinations
            .iter()
            .filter_map(|d| if let Expr::Name(n) = d { Some(format!("`{}`", n.id)) } else { None })
            .collect();
        let what = format!(
            "`{}` is called for its effect with scaled data: where it writes it ({} or elsewhere) is not followed",
            self.text(loc),
            names.join(", ")
        );
        let blocker = self.blocker(loc, what, pc);
        let written = self.map(&data, |_, v| match v {
            Value::Num(n) => Value::Num(std::rc::Rc::new(super::calls::taint(&n, blocker))),
            other => other,
        });
        for destination in &destinations {
            self.assign_in_place(frame, destination, written.clone(), pc);
        }
    }

    /// The arguments of a device kernel's launch (`kernel[grid](a, b, c, ...)`) bound to the
    /// parameters it stores into: where the launch is not evaluated, what it computes lands
    /// there, buffers or not (vLLM's experts hand their kernels views of a workspace the
    /// evaluation does not know for a buffer).
    fn launch_stores<'c>(&mut self, frame: &Frame, call: &'c ast::ExprCall) -> Vec<&'c Expr> {
        let Expr::Subscript(launch) = call.func.as_ref() else { return Vec::new() };
        let Some(context) = frame.func else { return Vec::new() };
        let Some(kernel) = self.static_callee(context, &launch.value) else { return Vec::new() };
        let facts = self.index.function(kernel);
        if !super::calls::is_device_kernel(facts) {
            return Vec::new();
        }
        let module = self.index.file(kernel.file).ast();
        let Some(Stmt::FunctionDef(def)) = crate::syntax::stmt_with_range(&module.body, facts.range) else {
            return Vec::new();
        };
        let stored = super::device::stored_params(def);
        let mut out = Vec::new();
        for (i, param) in facts.params.iter().enumerate() {
            if !stored.contains(&param.name) {
                continue;
            }
            let by_name = call
                .arguments
                .keywords
                .iter()
                .find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == param.name.as_str()));
            let arg = by_name.map(|k| &k.value).or_else(|| {
                // (Past a starred argument, positions are not known.)
                let positional = &call.arguments.args;
                if positional.iter().take(i + 1).any(|a| matches!(a, Expr::Starred(_))) {
                    None
                } else {
                    positional.get(i)
                }
            });
            if let Some(arg) = arg.filter(|a| matches!(viewed_tensor(a), Expr::Name(_))) {
                out.push(arg);
            }
        }
        out
    }

    /// The one function of the tree `callee` (what a call made in `context` calls, or a
    /// launched kernel) names, as resolved statically.
    fn static_callee(&mut self, context: crate::index::FuncId, callee: &Expr) -> Option<crate::index::FuncId> {
        // (By range: `kernel[grid]` and `kernel` start at the same offset.)
        let range = ruff_text_size::Ranged::range(callee);
        let key = (context, range.start().to_u32(), range.end().to_u32());
        if let Some(&known) = self.static_callees.get(&key) {
            return known;
        }
        let found = self.resolver.resolve(&crate::resolve::Ctx::function(context), callee);
        let callee = match found.as_slice() {
            [
                crate::resolve::Found {
                    def: crate::resolve::Def::Function(callee) | crate::resolve::Def::BoundMethod { func: callee, .. },
                    ..
                },
            ] => Some(*callee),
            _ => None,
        };
        self.static_callees.insert(key, callee);
        callee
    }

    /// Whether `name` is a parameter of the function `frame` runs.
    fn is_parameter(&self, frame: &Frame, name: &Name) -> bool {
        frame.func.is_some_and(|f| self.index.function(f).params.iter().any(|p| p.name == *name))
    }

    /// Whether the function `frame` runs reads `name` after `offset` in its text, or anywhere
    /// in a loop holding `offset` (a later iteration reads it again).
    fn read_after(&self, frame: &Frame, name: &Name, offset: u32) -> bool {
        use ruff_python_ast::visitor::{Visitor, walk_expr, walk_stmt};
        struct Reads<'n> {
            name: &'n Name,
            offset: u32,
            /// How many loops holding `offset` the walk is in.
            loops: usize,
            found: bool,
        }
        impl<'a> Visitor<'a> for Reads<'_> {
            fn visit_stmt(&mut self, stmt: &'a Stmt) {
                let range = ruff_text_size::Ranged::range(stmt);
                let (start, end) = (range.start().to_u32(), range.end().to_u32());
                let in_loop =
                    matches!(stmt, Stmt::For(_) | Stmt::While(_)) && start <= self.offset && self.offset <= end;
                self.loops += usize::from(in_loop);
                walk_stmt(self, stmt);
                self.loops -= usize::from(in_loop);
            }
            fn visit_expr(&mut self, expr: &'a Expr) {
                if let Expr::Name(n) = expr {
                    let at = ruff_text_size::Ranged::range(n).start().to_u32();
                    if n.id == *self.name
                        && matches!(n.ctx, ast::ExprContext::Load)
                        && (at >= self.offset || self.loops > 0)
                    {
                        self.found = true;
                    }
                }
                walk_expr(self, expr);
            }
        }
        // (Without the function's text, it is taken to be read.)
        let Some(func) = frame.func else { return true };
        let module = self.index.file(func.file).ast();
        let Some(Stmt::FunctionDef(def)) =
            crate::syntax::stmt_with_range(&module.body, self.index.function(func).range)
        else {
            return true;
        };
        let mut reads = Reads { name, offset, loops: 0, found: false };
        for stmt in &def.body {
            reads.visit_stmt(stmt);
        }
        reads.found
    }

    /// Whether `call` calls, as resolved statically, a function of the tree every `return` of
    /// which gives nothing (or declared `-> None`).
    fn calls_function_returning_nothing(&mut self, frame: &Frame, call: &ast::ExprCall) -> bool {
        let Some(context) = frame.func else { return false };
        let Some(callee) = self.static_callee(context, &call.func) else { return false };
        if matches!(self.index.function(callee).returns.as_deref(), Some(Expr::NoneLiteral(_))) {
            return true;
        }
        let scope = self.resolver.local_scope(callee);
        scope.returns.iter().all(|ret| matches!(ret.value.as_deref(), None | Some(Expr::NoneLiteral(_))))
    }
}

/// Attributes of a tensor that describe it rather than hold its data.
const TENSOR_METADATA: &[&str] =
    &["shape", "dtype", "device", "ndim", "layout", "is_cuda", "requires_grad", "itemsize"];

/// Whether `expr` is a name or a chain of attributes of one (`self`, `self.metadata`): evaluated
/// again without effects.
fn plain_reference(expr: &Expr) -> bool {
    match expr {
        Expr::Name(_) => true,
        Expr::Attribute(attr) => plain_reference(&attr.value),
        _ => false,
    }
}

/// The tensor `expr` is a view or chunk of (`x[:n].view(m, k)` is `x`), or `expr` itself.
fn viewed_tensor(expr: &Expr) -> &Expr {
    match expr {
        Expr::Subscript(sub) => viewed_tensor(&sub.value),
        Expr::Call(call) => match call.func.as_ref() {
            Expr::Attribute(attr) if super::exprs::VIEWS.contains(&attr.attr.as_str()) => viewed_tensor(&attr.value),
            _ => expr,
        },
        _ => expr,
    }
}

/// What `name = value` binds (see `Interp::prepare_name_value`).
struct PreparedValue {
    result: G,
    /// The locals whose tensor the value is, and where.
    sources: Vec<(Name, Cond)>,
    /// Whether the value is a buffer (fresh, or another name or view of one).
    buffer: bool,
    /// The fields of a record of addresses it builds (see `pointers.rs`).
    record: Option<std::rc::Rc<[super::pointers::Field]>>,
}

/// The names and values of `a, b = x, y` (a tuple or list of as many plain names on each
/// side, none starred), in order.
fn pairwise_names<'e>(target: &'e Expr, value: &'e Expr) -> Option<(Vec<&'e Name>, &'e [Expr])> {
    let targets = match target {
        Expr::Tuple(t) => &t.elts,
        Expr::List(l) => &l.elts,
        _ => return None,
    };
    let values = match value {
        Expr::Tuple(t) => &t.elts,
        Expr::List(l) => &l.elts,
        _ => return None,
    };
    if targets.len() != values.len() || values.iter().any(|v| matches!(v, Expr::Starred(_))) {
        return None;
    }
    let names =
        targets.iter().map(|t| if let Expr::Name(n) = t { Some(&n.id) } else { None }).collect::<Option<Vec<_>>>()?;
    Some((names, values.as_slice()))
}

/// Where the buffer `expr` denotes (a local, a view or chunk of one, either arm of a
/// conditional) holds what nothing wrote yet. (Read from the locals, not evaluated: asked
/// after every call made for its effect.)
fn unwritten_where(conds: &super::cond::Conds, frame: &Frame, expr: &Expr) -> Cond {
    match expr {
        Expr::Name(n) => {
            let mut at = conds.falsity();
            for (c, v) in frame.locals.get(&n.id).map(|g| g.iter()).into_iter().flatten() {
                if matches!(v, Value::Num(num) if num.is_unwritten()) {
                    at = at.or(c);
                }
            }
            at
        }
        Expr::If(node) => unwritten_where(conds, frame, &node.body).or(&unwritten_where(conds, frame, &node.orelse)),
        Expr::Subscript(sub) => unwritten_where(conds, frame, &sub.value),
        Expr::Call(call) => match call.func.as_ref() {
            Expr::Attribute(attr) if super::exprs::VIEWS.contains(&attr.attr.as_str()) => {
                unwritten_where(conds, frame, &attr.value)
            }
            _ => conds.falsity(),
        },
        _ => conds.falsity(),
    }
}

/// Whether `expr` denotes a buffer a kernel may write into (a fresh buffer of this frame or
/// one its caller passed), directly, through a view (`out.view(-1)`) or one arm of a
/// conditional.
pub fn writable_buffer(frame: &Frame, expr: &Expr) -> bool {
    match expr {
        Expr::Name(n) => frame.buffers.contains(&n.id),
        Expr::If(node) => writable_buffer(frame, &node.body) || writable_buffer(frame, &node.orelse),
        // `out[begin:end]`: a view of the buffer (a chunk a kernel fills).
        Expr::Subscript(sub) => writable_buffer(frame, &sub.value),
        Expr::Call(call) => match call.func.as_ref() {
            Expr::Attribute(attr) if super::exprs::VIEWS.contains(&attr.attr.as_str()) => {
                writable_buffer(frame, &attr.value)
            }
            _ => false,
        },
        _ => false,
    }
}

impl Interp<'_, '_> {
    /// Whether `value` calls a function of the tree every `return` of which is a fresh
    /// floating-point allocation, directly, through a local (`buffer = torch.empty(...);
    /// return buffer`) or through another such function (SGLang's
    /// `get_local_dp_buffer(group)`): the caller's name is a buffer then, as if it had
    /// allocated it.
    fn allocates_buffer(&mut self, frame: &Frame, value: &Expr) -> bool {
        let Some(func) = frame.func else { return false };
        self.calls_buffer_maker(func, value, 0)
    }

    fn calls_buffer_maker(&mut self, context: crate::index::FuncId, value: &Expr, depth: usize) -> bool {
        const MAX_DEPTH: usize = 3;
        let Expr::Call(call) = value else { return false };
        if depth >= MAX_DEPTH {
            return false;
        }
        let callee = self.static_callee(context, &call.func);
        let Some(callee) = callee else { return false };
        if let Some(&known) = self.buffer_makers.get(&callee) {
            return known;
        }
        // Marked first: a cycle of calls ends here.
        self.buffer_makers.insert(callee, false);
        let scope = self.resolver.local_scope(callee);
        let mut made = !scope.returns.is_empty();
        for ret in &scope.returns {
            made &= match ret.value.as_deref() {
                Some(Expr::Name(n)) => scope.bindings.get(&n.id).is_some_and(|bindings| {
                    bindings
                        .iter()
                        .all(|b| matches!(&b.kind, crate::resolve::LocalKind::Value(v) if is_float_allocation(v)))
                }),
                Some(v) => is_float_allocation(v) || self.calls_buffer_maker(callee, v, depth + 1),
                None => false,
            };
        }
        self.buffer_makers.insert(callee, made);
        made
    }
}

/// `torch.empty(...)`, `torch.zeros(...)`, `x.new_empty(...)`... without an integer or boolean
/// `dtype=` (or a conditional with one as an arm): a buffer a kernel may fill with scaled data
/// (index buffers cannot carry a scale).
fn is_float_allocation(value: &Expr) -> bool {
    // `hidden_states if inplace else torch.empty_like(hidden_states)`: an output either way.
    if let Expr::If(node) = value {
        return is_float_allocation(&node.body) || is_float_allocation(&node.orelse);
    }
    let Expr::Call(call) = value else { return false };
    let callee = match call.func.as_ref() {
        Expr::Attribute(a) => a.attr.id.as_str(),
        Expr::Name(n) => n.id.as_str(),
        _ => return false,
    };
    const ALLOCATORS: &[&str] =
        &["empty", "zeros", "empty_like", "zeros_like", "new_empty", "new_zeros", "empty_strided"];
    if !ALLOCATORS.contains(&callee) {
        return false;
    }
    let dtype = call.arguments.keywords.iter().find(|k| k.arg.as_ref().is_some_and(|a| a.id.as_str() == "dtype"));
    match dtype.map(|k| &k.value) {
        Some(Expr::Attribute(a)) => !super::ops::integer_dtype_name(a.attr.id.as_str()),
        _ => true,
    }
}

/// The plain names an expression reads (`x` in `x is not None and x.ndim == 2`).
fn names_read(expr: &Expr, out: &mut Vec<Name>) {
    use ruff_python_ast::visitor::{Visitor, walk_expr};
    struct Names<'o>(&'o mut Vec<Name>);
    impl<'a> Visitor<'a> for Names<'_> {
        fn visit_expr(&mut self, expr: &'a Expr) {
            match expr {
                Expr::Name(name) if !self.0.contains(&name.id) => self.0.push(name.id.clone()),
                // Their own scopes: a comprehension's or lambda's names are not the frame's.
                Expr::Lambda(_) | Expr::ListComp(_) | Expr::SetComp(_) | Expr::DictComp(_) | Expr::Generator(_) => {}
                _ => walk_expr(self, expr),
            }
        }
    }
    Names(out).visit_expr(expr);
}

/// Whether `expr` is the bare name `name`.
fn is_name(expr: &Expr, name: &str) -> bool {
    matches!(expr, Expr::Name(n) if n.id.as_str() == name)
}
