//! Small, shared helpers over ruff's syntax tree: child suites with the guards that enter them,
//! bounded depth checks, dotted names, literal constants, and finding a statement by range.

use ruff_python_ast::visitor::{Visitor, walk_expr};
use ruff_python_ast::{self as ast, Expr, Number, Stmt};
use ruff_text_size::{Ranged, TextRange};

use crate::index::facts::{Guard, GuardKind};

/// How deep the analysis follows nested expressions and statements. Python's own compiler
/// refuses far less; this bound only matters for generated or hostile input.
pub const MAX_NESTING: usize = 200;

/// A statement list together with the guards under which it runs, relative to its parent.
pub struct ChildSuite<'a> {
    pub body: &'a [Stmt],
    pub guards: Vec<Guard>,
}

fn guard(range: TextRange, kind: GuardKind) -> Guard {
    Guard { range: range.into(), kind }
}

/// The statement lists nested directly in `stmt` (not function or class bodies, which open new
/// scopes), with the guards that hold inside each.
pub fn child_suites(stmt: &Stmt) -> Vec<ChildSuite<'_>> {
    match stmt {
        Stmt::If(node) => {
            let mut out =
                vec![ChildSuite { body: &node.body, guards: vec![guard(node.test.range(), GuardKind::IfTrue)] }];
            let mut not_taken = vec![guard(node.test.range(), GuardKind::IfFalse)];
            for clause in &node.elif_else_clauses {
                let mut guards = not_taken.clone();
                if let Some(test) = &clause.test {
                    guards.push(guard(test.range(), GuardKind::IfTrue));
                    not_taken.push(guard(test.range(), GuardKind::IfFalse));
                }
                out.push(ChildSuite { body: &clause.body, guards });
            }
            out
        }
        Stmt::While(node) => vec![
            ChildSuite { body: &node.body, guards: vec![guard(node.test.range(), GuardKind::IfTrue)] },
            ChildSuite { body: &node.orelse, guards: vec![] },
        ],
        Stmt::For(node) => {
            vec![ChildSuite { body: &node.body, guards: vec![] }, ChildSuite { body: &node.orelse, guards: vec![] }]
        }
        Stmt::With(node) => vec![ChildSuite { body: &node.body, guards: vec![] }],
        Stmt::Try(node) => {
            let mut out = vec![ChildSuite { body: &node.body, guards: vec![] }];
            for handler in &node.handlers {
                let ast::ExceptHandler::ExceptHandler(handler) = handler;
                let header = handler.type_.as_ref().map_or(handler.range, |t| t.range());
                out.push(ChildSuite { body: &handler.body, guards: vec![guard(header, GuardKind::Except)] });
            }
            out.push(ChildSuite { body: &node.orelse, guards: vec![] });
            out.push(ChildSuite { body: &node.finalbody, guards: vec![] });
            out
        }
        Stmt::Match(node) => node
            .cases
            .iter()
            .map(|case| ChildSuite { body: &case.body, guards: vec![guard(case.pattern.range(), GuardKind::Case)] })
            .collect(),
        _ => Vec::new(),
    }
}

/// True when control never falls off the end of `suite` (it ends in `return`, `raise`,
/// `continue`, `break`, or an `if` whose every branch does).
pub fn terminates(suite: &[Stmt]) -> bool {
    match suite.last() {
        Some(Stmt::Return(_) | Stmt::Raise(_) | Stmt::Continue(_) | Stmt::Break(_)) => true,
        Some(Stmt::If(node)) => {
            let has_else = node.elif_else_clauses.last().is_some_and(|c| c.test.is_none());
            has_else && terminates(&node.body) && node.elif_else_clauses.iter().all(|c| terminates(&c.body))
        }
        _ => false,
    }
}

/// Guards that hold for the statements after `stmt` in the same suite, when `stmt` is an `if`
/// whose branches all leave except one: `if c: return` makes what follows run under `not c`.
pub fn fallthrough_guards(stmt: &Stmt) -> Vec<Guard> {
    let Stmt::If(node) = stmt else {
        return Vec::new();
    };
    let suites = child_suites(stmt);
    let has_else = node.elif_else_clauses.last().is_some_and(|c| c.test.is_none());
    let mut open: Vec<Vec<Guard>> = suites.iter().filter(|s| !terminates(s.body)).map(|s| s.guards.clone()).collect();
    if !has_else {
        let mut implicit_else = vec![guard(node.test.range(), GuardKind::IfFalse)];
        for clause in &node.elif_else_clauses {
            if let Some(test) = &clause.test {
                implicit_else.push(guard(test.range(), GuardKind::IfFalse));
            }
        }
        open.push(implicit_else);
    }
    let Some(only) = open.pop().filter(|_| open.is_empty()) else {
        return Vec::new();
    };
    // When every branch that leaves does so by raising, what follows is a precondition.
    let leaving_raise = suites.iter().filter(|s| terminates(s.body)).all(|s| ends_in_raise(s.body));
    if leaving_raise {
        only.into_iter()
            .map(|g| if g.kind == GuardKind::IfFalse { Guard { kind: GuardKind::NoRaise, ..g } } else { g })
            .collect()
    } else {
        only
    }
}

fn ends_in_raise(suite: &[Stmt]) -> bool {
    match suite.last() {
        Some(Stmt::Raise(_)) => true,
        Some(Stmt::If(node)) => {
            ends_in_raise(&node.body) && node.elif_else_clauses.iter().all(|c| ends_in_raise(&c.body))
        }
        _ => false,
    }
}

/// Whether `expr` nests at most `limit` levels deep; stops looking at the limit.
pub fn depth_within(expr: &Expr, limit: usize) -> bool {
    struct Depth {
        depth: usize,
        limit: usize,
        exceeded: bool,
    }
    impl<'a> Visitor<'a> for Depth {
        fn visit_expr(&mut self, expr: &'a Expr) {
            if self.exceeded {
                return;
            }
            self.depth += 1;
            if self.depth > self.limit {
                self.exceeded = true;
            } else {
                walk_expr(self, expr);
            }
            self.depth -= 1;
        }
    }
    let mut visitor = Depth { depth: 0, limit, exceeded: false };
    visitor.visit_expr(expr);
    !visitor.exceeded
}

/// `a.b.c` for a chain of names and attributes.
pub fn dotted_name(expr: &Expr) -> Option<String> {
    let mut parts = Vec::new();
    let mut current = expr;
    loop {
        match current {
            Expr::Name(name) => {
                parts.push(name.id.as_str());
                break;
            }
            Expr::Attribute(attr) => {
                parts.push(attr.attr.as_str());
                current = &attr.value;
            }
            _ => return None,
        }
        if parts.len() > MAX_NESTING {
            return None;
        }
    }
    parts.reverse();
    Some(parts.join("."))
}

/// The `T` of an annotation that says "`T` or `None`": `Optional[T]`, `Union[T, None]`,
/// `T | None` or `None | T`. (A string annotation is left to the caller's resolution.)
pub fn optional_inner(annotation: &Expr) -> Option<&Expr> {
    let is_none = |e: &Expr| matches!(e, Expr::NoneLiteral(_));
    match annotation {
        Expr::Subscript(sub) => {
            let head = dotted_name(&sub.value)?;
            match head.rsplit('.').next()? {
                "Optional" => Some(sub.slice.as_ref()),
                "Union" => match sub.slice.as_ref() {
                    Expr::Tuple(t) => match t.elts.as_slice() {
                        [a, b] if is_none(b) && !is_none(a) => Some(a),
                        [a, b] if is_none(a) && !is_none(b) => Some(b),
                        _ => None,
                    },
                    _ => None,
                },
                _ => None,
            }
        }
        Expr::BinOp(op) if matches!(op.op, ruff_python_ast::Operator::BitOr) => {
            match (is_none(&op.left), is_none(&op.right)) {
                (false, true) => Some(op.left.as_ref()),
                (true, false) => Some(op.right.as_ref()),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The dotted name of a decorator, called (`@triton.jit(...)`) or not (`@triton.jit`).
pub fn decorator_name(decorator: &Expr) -> Option<String> {
    match decorator {
        Expr::Call(call) => dotted_name(&call.func),
        other => dotted_name(other),
    }
}

/// A literal the analysis can print and compare.
#[derive(Clone, Debug, serde::Serialize)]
#[serde(untagged)]
pub enum Constant {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
}

impl std::fmt::Display for Constant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Constant::None => write!(f, "None"),
            Constant::Bool(true) => write!(f, "True"),
            Constant::Bool(false) => write!(f, "False"),
            Constant::Int(i) => write!(f, "{i}"),
            Constant::Float(x) => write!(f, "{x:?}"),
            Constant::Str(s) => write!(f, "{s:?}"),
        }
    }
}

/// The value of a literal expression (`True`, `None`, `1.5`, `-2`, `"x"`).
pub fn constant(expr: &Expr) -> Option<Constant> {
    match expr {
        Expr::NoneLiteral(_) => Some(Constant::None),
        Expr::BooleanLiteral(b) => Some(Constant::Bool(b.value)),
        Expr::NumberLiteral(n) => match &n.value {
            Number::Int(i) => i.as_i64().map(Constant::Int),
            Number::Float(x) => Some(Constant::Float(*x)),
            Number::Complex { .. } => None,
        },
        Expr::StringLiteral(s) => Some(Constant::Str(s.value.to_str().to_string())),
        Expr::UnaryOp(u) if matches!(u.op, ast::UnaryOp::USub) => match constant(&u.operand)? {
            Constant::Int(i) => Some(Constant::Int(-i)),
            Constant::Float(x) => Some(Constant::Float(-x)),
            _ => None,
        },
        _ => None,
    }
}

/// The innermost statement of `suite` (descending into nested suites and function and class
/// bodies) whose range equals `range`.
pub fn stmt_with_range(suite: &[Stmt], range: impl Ranged) -> Option<&Stmt> {
    let range = range.range();
    let mut current = suite;
    for _ in 0..MAX_NESTING {
        // Statements are in source order and do not overlap: binary search the one that covers.
        let idx = current.partition_point(|s| s.range().end() < range.end());
        let stmt = current.get(idx)?;
        if !stmt.range().contains_range(range) {
            return None;
        }
        if stmt.range() == range {
            return Some(stmt);
        }
        let nested: Vec<&[Stmt]> = match stmt {
            Stmt::FunctionDef(f) => vec![&f.body],
            Stmt::ClassDef(c) => vec![&c.body],
            other => child_suites(other).into_iter().map(|s| s.body).collect(),
        };
        current = nested.into_iter().find(|body| {
            body.first().is_some_and(|first| first.range().start() <= range.start())
                && body.last().is_some_and(|last| last.range().end() >= range.end())
        })?;
    }
    None
}

/// Text of `range` in `source`, whitespace runs collapsed to one space (for one-line display).
pub fn snippet(source: &str, range: impl Ranged) -> String {
    let range = range.range();
    let text = source.get(range.start().to_usize()..range.end().to_usize()).unwrap_or("");
    let mut out = String::with_capacity(text.len());
    let mut last_space = false;
    // Comments inside multi-line expressions are dropped; quotes are tracked so a `#` in a
    // string stays.
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut in_comment = false;
    for ch in text.chars() {
        if in_comment {
            if ch != '\n' {
                continue;
            }
            in_comment = false;
        }
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if ch == '\\' {
                    escaped = true;
                } else if ch == q {
                    quote = None;
                }
            }
            None if ch == '"' || ch == '\'' => quote = Some(ch),
            None if ch == '#' => {
                in_comment = true;
                continue;
            }
            None => {}
        }
        if ch.is_whitespace() {
            if !last_space {
                out.push(' ');
            }
            last_space = true;
        } else {
            out.push(ch);
            last_space = false;
        }
    }
    // Collapsing inside brackets leaves `( a` / `a, )`; tidy the common cases.
    for (from, to) in [
        (", )", ")"),
        (", ]", "]"),
        (", }", "}"),
        ("( ", "("),
        (" )", ")"),
        ("[ ", "["),
        (" ]", "]"),
        ("{ ", "{"),
        (" }", "}"),
    ] {
        if out.contains(from) {
            out = out.replace(from, to);
        }
    }
    out.trim().to_string()
}

/// A byte range that sorts: what facts and answers store, so they can be ordered
/// deterministically (`TextRange` itself is not `Ord`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl From<TextRange> for Span {
    fn from(range: TextRange) -> Self {
        Span { start: range.start().to_u32(), end: range.end().to_u32() }
    }
}

impl Ranged for Span {
    fn range(&self) -> TextRange {
        TextRange::new(self.start.into(), self.end.into())
    }
}

impl Span {
    pub fn of(node: &impl Ranged) -> Self {
        node.range().into()
    }
}

impl PartialEq for Constant {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == std::cmp::Ordering::Equal
    }
}

impl Eq for Constant {}

impl PartialOrd for Constant {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Constant {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        fn rank(c: &Constant) -> u8 {
            match c {
                Constant::None => 0,
                Constant::Bool(_) => 1,
                Constant::Int(_) => 2,
                Constant::Float(_) => 3,
                Constant::Str(_) => 4,
            }
        }
        match (self, other) {
            (Constant::Bool(a), Constant::Bool(b)) => a.cmp(b),
            (Constant::Int(a), Constant::Int(b)) => a.cmp(b),
            (Constant::Float(a), Constant::Float(b)) => a.total_cmp(b),
            (Constant::Str(a), Constant::Str(b)) => a.cmp(b),
            _ => rank(self).cmp(&rank(other)),
        }
    }
}

impl std::hash::Hash for Constant {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        match self {
            Constant::None => 0u8.hash(state),
            Constant::Bool(b) => b.hash(state),
            Constant::Int(i) => i.hash(state),
            Constant::Float(x) => x.to_bits().hash(state),
            Constant::Str(s) => s.hash(state),
        }
    }
}

/// The absolute module a `from ... import` names, for an importing module `module` (relative
/// imports count from the package; a package's `__init__` is its own package).
pub fn absolute_import(module: &str, is_package: bool, import: &ast::StmtImportFrom) -> Option<String> {
    let relative = import.module.as_ref().map(|m| m.as_str());
    if import.level == 0 {
        return relative.map(str::to_string);
    }
    let mut parts: Vec<&str> = module.split('.').collect();
    if !is_package {
        parts.pop();
    }
    for _ in 1..import.level {
        parts.pop()?;
    }
    parts.extend(relative);
    (!parts.is_empty()).then(|| parts.join("."))
}

/// The simple targets of an assignment target (names, attributes, items), each paired with the
/// expression assigned to it when the value is a tuple of the same shape (`a, b = x, y`).
/// Starred targets count as their inner target.
pub fn unpack_targets<'a>(target: &'a Expr, value: Option<&'a Expr>, out: &mut Vec<(&'a Expr, Option<&'a Expr>)>) {
    match target {
        Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. }) => {
            let values: Option<&[Expr]> = match value {
                Some(Expr::Tuple(t)) if t.elts.len() == elts.len() => Some(&t.elts),
                _ => None,
            };
            for (i, elt) in elts.iter().enumerate() {
                let elt = if let Expr::Starred(s) = elt { s.value.as_ref() } else { elt };
                unpack_targets(elt, values.map(|v| &v[i]), out);
            }
        }
        Expr::Starred(star) => unpack_targets(&star.value, None, out),
        other => out.push((other, value)),
    }
}
