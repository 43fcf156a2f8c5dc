//! Where a value comes from, one hop back: the assignment, attribute write, property, parameter
//! or call that provides it. Used by `bindings` to explain non-constant arguments.

use ruff_python_ast::{self as ast, Expr};
use ruff_text_size::Ranged;
use serde::Serialize;

use super::common::{Condition, Location, code, conditions};
use crate::index::{BindingKind, ClassId, FunctionKind, Index};
use crate::resolve::{Cond, Ctx, Def, LocalKind, Resolver, assigned_value};
use crate::syntax::{Constant, Span, constant, stmt_with_range};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OriginKind {
    /// `self.attr = value` in a method.
    AttributeWrite,
    /// A class-level assignment.
    ClassAttribute,
    /// A `@property` (its body computes the value).
    Property,
    /// An assignment to a local variable.
    Local,
    /// A parameter of the enclosing function: its value comes from the callers.
    Parameter,
    /// A module-level binding (assignment or import).
    Global,
    /// The value returned by a call.
    Call,
    /// A branch of a conditional expression.
    Branch,
    /// Not traced further.
    Unknown,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Origin {
    pub kind: OriginKind,
    pub description: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
    pub code: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<Constant>,
    /// Conditions around the origin (e.g. the `if` around an attribute write).
    pub conditions: Vec<Condition>,
    /// True when the receiver's class is unknown and definitions were matched by name only.
    pub by_name_only: bool,
    /// For branches: where that branch's own value comes from.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub inner: Vec<Origin>,
}

impl Origin {
    fn new(kind: OriginKind, description: String, location: Option<Location>, code: String) -> Self {
        Origin {
            kind,
            description,
            location,
            code,
            value: None,
            conditions: Vec::new(),
            by_name_only: false,
            inner: Vec::new(),
        }
    }
}

/// The origins of `expr` (evaluated in `ctx`), one hop back. Constants have none.
pub fn origins(resolver: &Resolver, ctx: &Ctx, expr: &Expr) -> Vec<Origin> {
    origins_at(resolver, ctx, expr, 0)
}

fn origins_at(resolver: &Resolver, ctx: &Ctx, expr: &Expr, depth: usize) -> Vec<Origin> {
    let index = resolver.index;
    if constant(expr).is_some() || depth > 4 {
        return Vec::new();
    }
    let mut out = match expr {
        Expr::Name(name) => name_origins(resolver, ctx, name.id.as_str()),
        Expr::Attribute(attr) => attribute_origins(resolver, ctx, attr),
        Expr::Call(call) => {
            let mut out = Vec::new();
            for found in resolver.resolve(ctx, &call.func) {
                let origin = match &found.def {
                    Def::Function(f) | Def::BoundMethod { func: f, .. } => {
                        let facts = index.function(*f);
                        Origin::new(
                            OriginKind::Call,
                            format!("returned by {}", index.function_path(*f)),
                            Some(Location::new(index, f.file, facts.name_range)),
                            code(index, ctx.file, call.range()),
                        )
                    }
                    Def::Class(c) => Origin::new(
                        OriginKind::Call,
                        format!("a new {}", index.class_path(*c)),
                        Some(Location::new(index, c.file, index.class(*c).name_range)),
                        code(index, ctx.file, call.range()),
                    ),
                    other => Origin::new(
                        OriginKind::Call,
                        format!("returned by {}", resolver.describe(other)),
                        None,
                        code(index, ctx.file, call.range()),
                    ),
                };
                if !out.contains(&origin) {
                    out.push(origin);
                }
            }
            out
        }
        Expr::If(ifexp) => {
            let test = Span::of(&*ifexp.test);
            let mut out = Vec::new();
            for (branch, kind) in
                [(&ifexp.body, crate::index::GuardKind::IfTrue), (&ifexp.orelse, crate::index::GuardKind::IfFalse)]
            {
                let mut origin = Origin::new(
                    OriginKind::Branch,
                    "branch of a conditional expression".into(),
                    Some(Location::new(index, ctx.file, branch.range())),
                    code(index, ctx.file, branch.range()),
                );
                origin.value = constant(branch);
                origin.conditions =
                    conditions(index, &[Cond { file: ctx.file, guard: crate::index::Guard { range: test, kind } }]);
                origin.inner = origins_at(resolver, ctx, branch, depth + 1);
                out.push(origin);
            }
            out
        }
        Expr::BoolOp(boolop) => boolop.values.iter().flat_map(|v| origins_at(resolver, ctx, v, depth + 1)).collect(),
        _ => vec![Origin::new(
            OriginKind::Unknown,
            "computed here".into(),
            Some(Location::new(index, ctx.file, expr.range())),
            code(index, ctx.file, expr.range()),
        )],
    };
    out.sort();
    out.dedup();
    out
}

fn name_origins(resolver: &Resolver, ctx: &Ctx, name: &str) -> Vec<Origin> {
    let index = resolver.index;
    if let Some(func) = ctx.function {
        let scope = resolver.local_scope(func);
        if scope.is_local(name) {
            return scope.bindings[name]
                .iter()
                .map(|binding| {
                    let conds: Vec<Cond> =
                        binding.guards.iter().map(|&guard| Cond { file: func.file, guard }).collect();
                    let mut origin = match &binding.kind {
                        LocalKind::Param => Origin::new(
                            OriginKind::Parameter,
                            format!("parameter `{name}` of {}: set by its callers", index.function_path(func)),
                            Some(Location::new(index, func.file, binding.stmt)),
                            code(index, func.file, binding.stmt),
                        ),
                        LocalKind::Value(value) => {
                            let mut o = Origin::new(
                                OriginKind::Local,
                                format!("local `{name}`"),
                                Some(Location::new(index, func.file, binding.stmt)),
                                code(index, func.file, binding.stmt),
                            );
                            o.value = constant(value);
                            o
                        }
                        _ => Origin::new(
                            OriginKind::Local,
                            format!("local `{name}`"),
                            Some(Location::new(index, func.file, binding.stmt)),
                            code(index, func.file, binding.stmt),
                        ),
                    };
                    origin.conditions = conditions(index, &conds);
                    origin
                })
                .collect();
        }
    }
    let file = ctx.file;
    let bindings: Vec<_> = index.file(file).facts.bindings.iter().filter(|b| b.name.as_str() == name).collect();
    if bindings.is_empty() {
        return vec![Origin::new(
            OriginKind::Unknown,
            format!("`{name}` is not bound in this module"),
            None,
            name.to_string(),
        )];
    }
    bindings
        .into_iter()
        .map(|b| {
            let mut o = Origin::new(
                OriginKind::Global,
                format!("module-level `{name}`"),
                Some(Location::new(index, file, b.range)),
                code(index, file, b.range),
            );
            if let BindingKind::Value { value: Some(v) } = &b.kind {
                o.value = constant(v);
            }
            o.conditions = conditions(index, &b.guards.iter().map(|&guard| Cond { file, guard }).collect::<Vec<_>>());
            o
        })
        .collect()
}

fn attribute_origins(resolver: &Resolver, ctx: &Ctx, attr: &ast::ExprAttribute) -> Vec<Origin> {
    let name = attr.attr.as_str();
    let receivers = resolver.resolve(ctx, &attr.value);
    let mut classes: Vec<ClassId> = Vec::new();
    let mut out = Vec::new();
    let mut unknown = false;
    for receiver in &receivers {
        match &receiver.def {
            Def::Instance(c) | Def::Class(c) => classes.push(*c),
            Def::Module(file) => {
                for b in resolver.index.file(*file).facts.bindings.iter().filter(|b| b.name.as_str() == name) {
                    let mut o = Origin::new(
                        OriginKind::Global,
                        format!("`{name}` of module {}", resolver.index.file(*file).module),
                        Some(Location::new(resolver.index, *file, b.range)),
                        code(resolver.index, *file, b.range),
                    );
                    if let BindingKind::Value { value: Some(v) } = &b.kind {
                        o.value = constant(v);
                    }
                    out.push(o);
                }
            }
            _ => unknown = true,
        }
    }
    classes.sort();
    classes.dedup();
    for class in &classes {
        out.extend(class_attribute_origins(resolver, *class, name, false));
    }
    if classes.is_empty() && (unknown || out.is_empty()) {
        // The receiver's class is not known: every definition of an attribute of that name.
        let all: Vec<ClassId> = resolver.index.all_classes().collect();
        for class in all {
            out.extend(own_attribute_origins(resolver, class, name, true));
        }
    }
    out
}

/// Definitions of `name` for instances of `class`: its MRO's attribute writes, properties and
/// class attributes.
fn class_attribute_origins(resolver: &Resolver, class: ClassId, name: &str, by_name: bool) -> Vec<Origin> {
    let mro = resolver.mro(class);
    let mut out = Vec::new();
    for base in &mro.classes {
        out.extend(own_attribute_origins(resolver, *base, name, by_name));
    }
    out
}

/// Definitions of `name` in the body and methods of `class` itself.
fn own_attribute_origins(resolver: &Resolver, class: ClassId, name: &str, by_name: bool) -> Vec<Origin> {
    let index: &Index = resolver.index;
    let facts = index.class(class);
    let class_path = index.class_path(class);
    let mut out = Vec::new();
    for write in facts.attr_writes.iter().filter(|w| w.name.as_str() == name) {
        let method = index.function(write.method);
        let mut o = Origin::new(
            OriginKind::AttributeWrite,
            format!("set in {class_path}.{}", method.name),
            Some(Location::new(index, class.file, write.stmt)),
            code(index, class.file, write.stmt),
        );
        let module = index.file(class.file).ast();
        o.value =
            stmt_with_range(&module.body, write.stmt).and_then(|s| assigned_value(s, write.target)).and_then(constant);
        let guards = resolver.guards_at(write.method, write.stmt);
        o.conditions =
            conditions(index, &guards.iter().map(|&guard| Cond { file: class.file, guard }).collect::<Vec<_>>());
        o.by_name_only = by_name;
        out.push(o);
    }
    for binding in facts.body.iter().filter(|b| b.name.as_str() == name) {
        let mut o = match &binding.kind {
            BindingKind::Function(func) if index.function(*func).kind == FunctionKind::Property => {
                let returns = resolver.local_scope(*func).returns.clone();
                let mut o = Origin::new(
                    OriginKind::Property,
                    format!("property {class_path}.{name}"),
                    Some(Location::new(index, class.file, index.function(*func).name_range)),
                    format!("@property def {name}(...)"),
                );
                // A property that returns one constant is that constant.
                if let [only] = returns.as_slice() {
                    o.value = only.value.as_deref().and_then(constant);
                    if let Some(v) = &only.value {
                        o.code = format!("return {}", code(index, class.file, v.range()));
                    }
                }
                o
            }
            BindingKind::Function(_) => continue,
            BindingKind::Value { value } => {
                let mut o = Origin::new(
                    OriginKind::ClassAttribute,
                    format!("class attribute {class_path}.{name}"),
                    Some(Location::new(index, class.file, binding.range)),
                    code(index, class.file, binding.range),
                );
                o.value = value.as_deref().and_then(constant);
                o
            }
            _ => Origin::new(
                OriginKind::ClassAttribute,
                format!("class attribute {class_path}.{name}"),
                Some(Location::new(index, class.file, binding.range)),
                code(index, class.file, binding.range),
            ),
        };
        o.by_name_only = by_name;
        out.push(o);
    }
    out
}
