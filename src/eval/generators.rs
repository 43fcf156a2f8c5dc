//! Generator functions called for their items (`tuple(_active_variants())`, `for v in
//! variants()`): a generator whose `yield`s are statements (`yield ORDINARY`, `if
//! cp_enabled(): yield CONTEXT_PARALLEL`) runs to its end and gives the list of what it
//! yielded, one list per feasible outcome of the conditions its `yield`s ran under (at most
//! [`MAX_YIELDED_LISTS`]). A `yield` in a loop is followed where the loop is unrolled (over a
//! list known item by item: `for item in items: if is_separator(item): yield pending`), one
//! item per iteration. Other generators (a `yield` in a loop whose iterations are not told
//! apart, in a `with`, or inside an expression) are not followed, and the evaluation says so.
//! (A `@contextmanager` generator used in a `with` runs around its block instead: see
//! `contexts.rs`.)

use ruff_python_ast::{Expr, Stmt};

use super::calls::Args;
use super::cond::Cond;
use super::interp::{Frame, Interp, ObjKind};
use super::value::{G, Loc, Value};
use crate::index::FuncId;

/// Past this many lists (outcomes of the conditions the `yield`s ran under), a generator is
/// not followed.
const MAX_YIELDED_LISTS: usize = 16;

/// What a generator being run has yielded so far: one list per outcome, with its condition
/// (relative to the call). `None` once there were too many.
pub type Yielded = Option<Vec<(Cond, Vec<G>)>>;

impl Interp<'_, '_> {
    /// Runs generator `func` to its end and gives the lists of what it yielded; `None` when its
    /// `yield`s are not all statements, one ran in an abstract iteration, or they yield too
    /// many lists.
    pub fn call_generator(
        &mut self,
        func: FuncId,
        receiver: Option<Value>,
        args: Args,
        body: &[Stmt],
        pc: &Cond,
        loc: Loc,
    ) -> Option<G> {
        // A `@contextmanager` generator runs around a `with` block (`contexts.rs`); called
        // otherwise, running it to its end would run its exit code too early.
        if self.is_context_manager(func) || yield_statements(body).is_none() {
            return None;
        }
        let facts = self.index.function(func).clone();
        let args = self.args_relative_to(args, pc);
        let mut frame = self.frame(Some(func), func.file);
        self.bind_params(&mut frame, func, &facts.params, receiver, args, &Cond::TRUE, &Cond::TRUE, loc);
        frame.yielded = Some(Some(vec![(Cond::TRUE, Vec::new())]));
        frame.generator_depth = self.abstract_depth;
        self.in_generator(func, pc, |this| this.exec_block(&mut frame, body, &Cond::TRUE));
        let lists = frame.yielded.take().flatten()?;
        let mut out = G::empty();
        for (at, items) in lists {
            let here = pc.and(&at);
            let items = items.iter().map(|g| g.restrict(&self.conds, &here)).collect();
            let id = self.alloc(ObjKind::List(items), loc);
            out.push(&self.conds, here, Value::Obj(id));
        }
        Some(out)
    }

    /// `yield value` run where `pc` holds in a generator being run: appended to the lists of
    /// the outcomes where it runs.
    pub fn yield_value(&mut self, frame: &mut Frame, value: Option<&Expr>, pc: &Cond) {
        let item = match value {
            Some(expr) => self.eval(frame, expr, pc),
            None => G::under(*pc, Value::none()),
        };
        // In an iteration standing for several (a `while`, a loop over data), the items it
        // yields are not known one by one.
        let Some(Some(lists)) = frame.yielded.take().filter(|_| self.abstract_depth <= frame.generator_depth) else {
            frame.yielded = Some(None);
            return;
        };
        let mut next = Vec::with_capacity(lists.len() + 1);
        for (at, items) in lists {
            let without = at.and(&pc.not());
            if self.conds.feasible(&without) {
                next.push((without, items.clone()));
            }
            let with = at.and(pc);
            if self.conds.feasible(&with) {
                let mut items = items;
                items.push(item.restrict(&self.conds, &with));
                next.push((with, items));
            }
        }
        frame.yielded = Some((next.len() <= MAX_YIELDED_LISTS).then_some(next));
    }
}

/// Where a generator's `yield`s are, when every one is a statement (`yield x`) outside any
/// `with` or nested definition: `Some(true)` when one is in a loop (whether it is followed is
/// then decided as it runs), `Some(false)` when none is; `None` otherwise.
pub(super) fn yield_statements(body: &[Stmt]) -> Option<bool> {
    use ruff_python_ast::visitor::{Visitor, walk_expr, walk_stmt};
    struct Check {
        loops: usize,
        withs: usize,
        in_loop: bool,
        ok: bool,
    }
    impl<'a> Visitor<'a> for Check {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            match stmt {
                Stmt::FunctionDef(_) | Stmt::ClassDef(_) => {}
                Stmt::Expr(e) if matches!(e.value.as_ref(), Expr::Yield(_)) => {
                    self.ok &= self.withs == 0;
                    self.in_loop |= self.loops > 0;
                    if let Expr::Yield(y) = e.value.as_ref()
                        && let Some(value) = &y.value
                    {
                        self.visit_expr(value);
                    }
                }
                Stmt::For(_) | Stmt::While(_) => {
                    self.loops += 1;
                    walk_stmt(self, stmt);
                    self.loops -= 1;
                }
                Stmt::With(_) => {
                    self.withs += 1;
                    walk_stmt(self, stmt);
                    self.withs -= 1;
                }
                _ => walk_stmt(self, stmt),
            }
        }
        fn visit_expr(&mut self, expr: &'a Expr) {
            match expr {
                Expr::Yield(_) | Expr::YieldFrom(_) | Expr::Await(_) => self.ok = false,
                Expr::Lambda(_) => {}
                _ => walk_expr(self, expr),
            }
        }
    }
    let mut check = Check { loops: 0, withs: 0, in_loop: false, ok: true };
    for stmt in body {
        check.visit_stmt(stmt);
    }
    check.ok.then_some(check.in_loop)
}
