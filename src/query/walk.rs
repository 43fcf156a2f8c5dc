//! Visiting every statement and expression of a module with its scope (which function or class
//! body holds it) and the conditions under which it runs: enclosing `if`s, early returns,
//! ternaries and short-circuit operands.

use ruff_python_ast::visitor::{Visitor, walk_expr, walk_stmt};
use ruff_python_ast::{self as ast, Expr, ModModule, Stmt};
use ruff_text_size::Ranged;
use rustc_hash::FxHashMap;

use crate::index::{ClassId, FileId, FuncId, Guard, GuardKind, Index};
use crate::resolve::{Cond, Ctx};
use crate::syntax::{MAX_NESTING, Span, child_suites, fallthrough_guards};

/// Where a visited node is.
pub struct Place<'c> {
    pub ctx: Ctx,
    /// Conditions around the node, outermost first, within its function (or module) body.
    pub conds: &'c [Cond],
}

pub trait Visit {
    fn stmt(&mut self, _place: &Place, _stmt: &Stmt) {}
    /// Every expression, parents before children.
    fn expr(&mut self, _place: &Place, _expr: &Expr) {}
}

/// Walks all of `module` (which is `file`'s syntax tree).
pub fn walk_module(index: &Index, file: FileId, module: &ModModule, visit: &mut impl Visit) {
    let facts = &index.file(file).facts;
    let functions: FxHashMap<Span, FuncId> =
        facts.functions.iter().enumerate().map(|(i, f)| (f.range, FuncId { file, local: i as u32 })).collect();
    let classes: FxHashMap<Span, ClassId> =
        facts.classes.iter().enumerate().map(|(i, c)| (c.range, ClassId { file, local: i as u32 })).collect();
    let mut walker = Walker { file, functions, classes, visit };
    walker.suite(&module.body, Ctx::module(file), &mut Vec::new(), 0);
}

struct Walker<'v, V> {
    file: FileId,
    functions: FxHashMap<Span, FuncId>,
    classes: FxHashMap<Span, ClassId>,
    visit: &'v mut V,
}

impl<V: Visit> Walker<'_, V> {
    fn suite(&mut self, suite: &[Stmt], ctx: Ctx, conds: &mut Vec<Cond>, depth: usize) {
        if depth > MAX_NESTING {
            return;
        }
        let outer = conds.len();
        for stmt in suite {
            self.stmt(stmt, ctx, conds, depth);
            conds.extend(fallthrough_guards(stmt).into_iter().map(|guard| Cond { file: self.file, guard }));
        }
        conds.truncate(outer);
    }

    fn stmt(&mut self, stmt: &Stmt, ctx: Ctx, conds: &mut Vec<Cond>, depth: usize) {
        self.visit.stmt(&Place { ctx, conds }, stmt);
        // The statement's own expressions (headers, values, decorators, defaults, bases).
        let mut exprs = ExprWalker { file: self.file, ctx, conds: conds.clone(), depth: 0, visit: &mut *self.visit };
        walk_stmt(&mut exprs, stmt);
        match stmt {
            Stmt::FunctionDef(def) => {
                if let Some(&func) = self.functions.get(&Span::of(def)) {
                    self.suite(&def.body, Ctx::function(func), &mut Vec::new(), depth + 1);
                }
            }
            Stmt::ClassDef(def) => {
                if let Some(&class) = self.classes.get(&Span::of(def)) {
                    let inner = Ctx { file: self.file, function: None, class: Some(class) };
                    self.suite(&def.body, inner, &mut Vec::new(), depth + 1);
                }
            }
            _ => {
                for child in child_suites(stmt) {
                    let outer = conds.len();
                    conds.extend(child.guards.into_iter().map(|guard| Cond { file: self.file, guard }));
                    self.suite(child.body, ctx, conds, depth + 1);
                    conds.truncate(outer);
                }
            }
        }
    }
}

/// Visits the expressions of one statement, not of the statements nested in it.
struct ExprWalker<'v, V> {
    file: FileId,
    ctx: Ctx,
    conds: Vec<Cond>,
    depth: usize,
    visit: &'v mut V,
}

impl<V: Visit> ExprWalker<'_, V> {
    fn with_cond(&mut self, range: Span, kind: GuardKind, expr: &Expr) {
        self.conds.push(Cond { file: self.file, guard: Guard { range, kind } });
        self.visit_expr(expr);
        self.conds.pop();
    }
}

impl<'a, V: Visit> Visitor<'a> for ExprWalker<'_, V> {
    fn visit_stmt(&mut self, _stmt: &'a Stmt) {
        // Nested statements are walked by `Walker`, with their own scope and guards.
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if self.depth > MAX_NESTING {
            return;
        }
        self.depth += 1;
        self.visit.expr(&Place { ctx: self.ctx, conds: &self.conds }, expr);
        match expr {
            Expr::If(ifexp) => {
                self.visit_expr(&ifexp.test);
                let test = Span::of(&*ifexp.test);
                self.with_cond(test, GuardKind::IfTrue, &ifexp.body);
                self.with_cond(test, GuardKind::IfFalse, &ifexp.orelse);
            }
            Expr::BoolOp(boolop) => {
                // `a and f()` runs `f()` only when `a` holds; `a or f()` only when it does not.
                let kind = match boolop.op {
                    ast::BoolOp::And => GuardKind::IfTrue,
                    ast::BoolOp::Or => GuardKind::IfFalse,
                };
                let outer = self.conds.len();
                for value in &boolop.values {
                    self.visit_expr(value);
                    self.conds.push(Cond { file: self.file, guard: Guard { range: Span::of(value), kind } });
                }
                self.conds.truncate(outer);
            }
            _ => walk_expr(self, expr),
        }
        self.depth -= 1;
    }
}

/// Whether `text` contains `word` as a whole identifier.
pub fn contains_word(text: &[u8], word: &[u8]) -> bool {
    let finder = memchr::memmem::Finder::new(word);
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
    finder.find_iter(text).any(|at| {
        let before = at.checked_sub(1).map(|i| text[i]);
        let after = text.get(at + word.len()).copied();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

/// The files whose text mentions any of `words` as an identifier, in file order.
pub fn files_mentioning(index: &Index, words: &[String]) -> Vec<FileId> {
    use rayon::prelude::*;
    let ids: Vec<FileId> = index.files.indices().collect();
    ids.into_par_iter()
        .filter(|&file| words.iter().any(|w| contains_word(index.file(file).text.as_bytes(), w.as_bytes())))
        .collect()
}

/// The innermost enclosing definition's dotted name inside its module (`<module>` at top level).
pub fn enclosing_name(index: &Index, ctx: &Ctx) -> String {
    match (ctx.function, ctx.class) {
        (Some(func), _) => index.function(func).qualname.clone(),
        (None, Some(class)) => index.class(class).qualname.clone(),
        (None, None) => "<module>".to_string(),
    }
}

pub fn span(node: &impl Ranged) -> Span {
    Span::of(node)
}
