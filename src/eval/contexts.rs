//! `with` over a generator of the tree decorated `@contextmanager`. Python runs the generator
//! up to its `yield` when the block is entered, binds what it yields to the `as` target, runs
//! the block, and runs the rest of the generator when the block is left (the code after the
//! `yield`, the `finally` around it). Called as a plain function, the generator was not
//! followed at all: what it set up before the block (a module global the block appends to)
//! and what it did after (SGLang's `layer_stack` binds the stages appended in the block) never
//! happened.
//!
//! The generator's body is split at its `yield` (a statement of the body, or of the body of a
//! `try` there) into the part before, the yielded expression and the part after; the two parts
//! run in one frame of the generator, relative to the `with` statement's condition, around the
//! block, which runs in the caller's frame. Other shapes (a `yield` in a loop or a nested
//! `with`, several `yield`s) are not split: the block runs, the generator is not followed, and
//! the evaluation says so.

use ruff_python_ast::{self as ast, Expr, Stmt};

use super::calls::Args;
use super::cond::Cond;
use super::interp::{Frame, Interp};
use super::value::{G, Loc, Value};
use crate::index::FuncId;

/// A generator body cut at its `yield`.
struct Split<'a> {
    before: Vec<&'a [Stmt]>,
    yielded: Option<&'a Expr>,
    after: Vec<&'a [Stmt]>,
}

impl Interp<'_, '_> {
    /// `with f(args) as target: body` where `f` is a context-manager generator of the tree:
    /// runs it around `body` (see the module documentation). False when the context is not
    /// such a call, or its generator cannot be split: nothing was evaluated then.
    pub fn with_generator(
        &mut self,
        frame: &mut Frame,
        item: &ast::WithItem,
        body: &[Stmt],
        pc: &Cond,
        loc: Loc,
    ) -> bool {
        let Expr::Call(call) = &item.context_expr else { return false };
        let callee = self.eval(frame, &call.func, pc);
        let (func, receiver) = match callee.single() {
            Some(Value::Func(f)) => (*f, None),
            Some(Value::Bound(f, receiver)) => (*f, Some((**receiver).clone())),
            _ => return false,
        };
        if !self.is_context_manager(func) {
            return false;
        }
        let facts = self.index.function(func).clone();
        let module = self.index.file(func.file).ast();
        let Some(Stmt::FunctionDef(def)) = crate::syntax::stmt_with_range(&module.body, facts.range) else {
            return false;
        };
        let Some(split) = split_at_yield(&def.body) else { return false };
        let args = self.eval_args(frame, &call.arguments, pc);
        self.enter_generator(frame, func, receiver, args, &split, item, body, pc, loc);
        true
    }

    /// Whether `func` is a generator decorated `@contextmanager` (`contextlib.contextmanager`,
    /// `@contextmanager`, or a decorator of that name).
    pub(super) fn is_context_manager(&self, func: FuncId) -> bool {
        self.index.function(func).decorators.iter().any(|d| {
            let name = match d {
                Expr::Name(n) => n.id.as_str(),
                Expr::Attribute(a) => a.attr.as_str(),
                _ => return false,
            };
            name == "contextmanager"
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn enter_generator(
        &mut self,
        frame: &mut Frame,
        func: FuncId,
        receiver: Option<Value>,
        args: Args,
        split: &Split<'_>,
        item: &ast::WithItem,
        body: &[Stmt],
        pc: &Cond,
        loc: Loc,
    ) {
        let facts = self.index.function(func).clone();
        let args = self.args_relative_to(args, pc);
        let mut generator = self.frame(Some(func), func.file);
        self.bind_params(&mut generator, func, &facts.params, receiver, args, &Cond::TRUE, &Cond::TRUE, loc);
        // What the generator does is not a summary of any call around it.
        self.not_replayable();
        // Up to the `yield`, relative to the `with` (as a call's body runs).
        let yielded = self.in_generator(func, pc, |this| {
            for part in &split.before {
                this.exec_block(&mut generator, part, &Cond::TRUE);
            }
            let alive = generator.alive;
            match split.yielded {
                Some(expr) => this.eval(&mut generator, expr, &alive),
                None => G::under(alive, Value::none()),
            }
        });
        // Where the generator returned or raised before its `yield`, the block does not run.
        let entered = pc.and(&generator.alive);
        let value = yielded.restrict(&self.conds, &entered);
        if let Some(vars) = &item.optional_vars {
            self.assign_target(frame, vars, value, &entered);
        }
        if self.conds.feasible(&entered) {
            self.exec_block(frame, body, &entered);
        }
        // The rest of the generator when the block is left.
        self.in_generator(func, pc, |this| {
            for part in &split.after {
                this.exec_block(&mut generator, part, &Cond::TRUE);
            }
        });
    }

    /// Runs `f` as the body of `func` called under `pc`: conditions relative to the call.
    pub(super) fn in_generator<T>(&mut self, func: FuncId, pc: &Cond, f: impl FnOnce(&mut Self) -> T) -> T {
        let outer = (self.base, self.heap_mark);
        self.base = self.base.and(pc);
        self.heap_mark = self.heap.len() as super::value::HeapId;
        self.stack.push(func);
        let out = f(self);
        self.stack.pop();
        (self.base, self.heap_mark) = outer;
        out
    }
}

/// The body cut at its one `yield` statement (`yield x`, `y = yield x`), found among the body's
/// statements or those of a `try` among them (whose `else` and `finally` then run after it).
fn split_at_yield(body: &[Stmt]) -> Option<Split<'_>> {
    if count_yields(body) != 1 {
        return None;
    }
    for (i, stmt) in body.iter().enumerate() {
        if let Some(yielded) = yield_statement(stmt) {
            return Some(Split { before: vec![&body[..i]], yielded, after: vec![&body[i + 1..]] });
        }
        if let Stmt::Try(t) = stmt {
            for (j, inner) in t.body.iter().enumerate() {
                if let Some(yielded) = yield_statement(inner) {
                    return Some(Split {
                        before: vec![&body[..i], &t.body[..j]],
                        yielded,
                        after: vec![&t.body[j + 1..], &t.orelse, &t.finalbody, &body[i + 1..]],
                    });
                }
            }
        }
    }
    None
}

/// `Some(value)` when the statement is a `yield` (`Some(None)` for a bare `yield`).
fn yield_statement(stmt: &Stmt) -> Option<Option<&Expr>> {
    let expr = match stmt {
        Stmt::Expr(e) => e.value.as_ref(),
        Stmt::Assign(a) => a.value.as_ref(),
        _ => return None,
    };
    match expr {
        Expr::Yield(y) => Some(y.value.as_deref()),
        _ => None,
    }
}

/// How many `yield`s the body has (nested functions and classes aside).
fn count_yields(body: &[Stmt]) -> usize {
    use ruff_python_ast::visitor::{Visitor, walk_expr, walk_stmt};
    struct Count(usize);
    impl<'a> Visitor<'a> for Count {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            if !matches!(stmt, Stmt::FunctionDef(_) | Stmt::ClassDef(_)) {
                walk_stmt(self, stmt);
            }
        }
        fn visit_expr(&mut self, expr: &'a Expr) {
            match expr {
                Expr::Yield(_) | Expr::YieldFrom(_) => self.0 += 1,
                Expr::Lambda(_) => {}
                _ => walk_expr(self, expr),
            }
        }
    }
    let mut count = Count(0);
    for stmt in body {
        count.visit_stmt(stmt);
    }
    count.0
}
