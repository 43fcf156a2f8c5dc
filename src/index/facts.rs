//! The facts the index keeps per file: bindings, classes, functions, imports, guards.
//!
//! Facts are plain data built once per file. Expressions the resolver needs often and that are
//! small (base classes, decorators, defaults, module- and class-level values) are kept as cloned
//! syntax; everything else is a range into the file, looked up in the AST cache on demand.

pub use crate::syntax::Span;
use ruff_python_ast::Expr;
use ruff_python_ast::name::Name;

use super::ids::{ClassId, FileId, FuncId};

/// A condition that encloses a statement: the test of an `if`/`elif`/`while`, taken true or
/// false, or the `except` clause that handles a failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Guard {
    /// The test expression (for `except`, the handler's header).
    pub range: Span,
    pub kind: GuardKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GuardKind {
    /// Inside the body of `if test` / `elif test` / `while test`.
    IfTrue,
    /// After an `if test` whose branch was not taken (its `else`, a later `elif`, or the code
    /// after an `if test: return`).
    IfFalse,
    /// After `if test: raise ...`: the code runs only when `test` is false, or the program
    /// stops. A precondition rather than a configuration choice; queries do not display it.
    NoRaise,
    /// Inside an `except` handler.
    Except,
    /// Inside a `match` case.
    Case,
}

/// Where a class or function is defined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Parent {
    Module,
    Class(ClassId),
    Function(FuncId),
}

/// One way a name gets bound in a scope.
#[derive(Clone, Debug)]
pub struct Binding {
    pub name: Name,
    pub kind: BindingKind,
    /// The binding statement (or the `def`/`class` statement).
    pub range: Span,
    /// Conditions in the same scope around the statement.
    pub guards: Vec<Guard>,
}

#[derive(Clone, Debug)]
pub enum BindingKind {
    Class(ClassId),
    Function(FuncId),
    /// `import a.b.c` binds `a` to module `a`; `import a.b as c` binds `c` to module `a.b`.
    Import {
        module: String,
    },
    /// `from m import x [as y]`, with relative imports made absolute.
    ImportFrom {
        module: String,
        name: String,
    },
    /// `name = value` or `name: T = value`. `value` is `None` when it nests too deeply to keep.
    Value {
        value: Option<Box<Expr>>,
    },
    /// `name: T` with no value.
    Annotated {
        annotation: Box<Expr>,
    },
    /// Loop targets, unpacking, `with ... as`, `except ... as`, `global`, walrus: the value is
    /// not kept.
    Other,
}

/// `from m import *`.
#[derive(Clone, Debug)]
pub struct StarImport {
    pub module: String,
    pub range: Span,
}

#[derive(Clone, Debug)]
pub struct ClassFacts {
    pub name: Name,
    /// Dotted path inside the module (`Outer.Inner`, `f.<locals>.C`).
    pub qualname: String,
    pub file: FileId,
    pub range: Span,
    pub name_range: Span,
    pub parent: Parent,
    pub bases: Vec<Expr>,
    /// `metaclass=...` and other class keywords.
    pub keywords: Vec<(Name, Expr)>,
    pub decorators: Vec<Expr>,
    /// Class-body bindings: methods, class attributes, nested classes.
    pub body: Vec<Binding>,
    /// `self.name = ...` (and `self.name += ...`) in the class's own methods.
    pub attr_writes: Vec<AttrWrite>,
    pub guards: Vec<Guard>,
}

/// An assignment to an attribute of `self` inside a method.
#[derive(Clone, Debug)]
pub struct AttrWrite {
    pub name: Name,
    pub method: FuncId,
    /// The whole assignment statement.
    pub stmt: Span,
    /// The target `self.name`.
    pub target: Span,
    /// The assigned expression, when the statement assigns one directly to this target.
    pub value: Option<Span>,
    pub augmented: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FunctionKind {
    Function,
    Method,
    StaticMethod,
    ClassMethod,
    /// `@property` / `@functools.cached_property` getter.
    Property,
    /// `@x.setter` / `@x.deleter`.
    PropertyAccessor,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ParamKind {
    PositionalOnly,
    PositionalOrKeyword,
    VarPositional,
    KeywordOnly,
    VarKeyword,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub name: Name,
    pub kind: ParamKind,
    pub default: Option<Box<Expr>>,
    pub annotation: Option<Box<Expr>>,
    pub range: Span,
}

impl Param {
    /// Filled by a positional argument.
    pub fn takes_positional(&self) -> bool {
        matches!(self.kind, ParamKind::PositionalOnly | ParamKind::PositionalOrKeyword)
    }
}

/// The indices of the parameters positional arguments fill, in order.
pub fn positional_slots(params: &[Param]) -> Vec<usize> {
    params.iter().enumerate().filter(|(_, p)| p.takes_positional()).map(|(i, _)| i).collect()
}

/// The parameter a keyword argument `name=` binds to (not `**kwargs`).
pub fn keyword_slot(params: &[Param], name: &str) -> Option<usize> {
    params.iter().position(|p| {
        p.name.as_str() == name && matches!(p.kind, ParamKind::PositionalOrKeyword | ParamKind::KeywordOnly)
    })
}

#[derive(Clone, Debug)]
pub struct FunctionFacts {
    pub name: Name,
    pub qualname: String,
    pub file: FileId,
    /// The whole `def` statement; the key to find its syntax in the AST cache.
    pub range: Span,
    pub name_range: Span,
    pub parent: Parent,
    pub kind: FunctionKind,
    pub params: Vec<Param>,
    pub decorators: Vec<Expr>,
    pub returns: Option<Box<Expr>>,
    pub guards: Vec<Guard>,
}

impl FunctionFacts {
    /// The class this function is a method of.
    pub fn class(&self) -> Option<ClassId> {
        match self.parent {
            Parent::Class(class) => Some(class),
            _ => None,
        }
    }

    pub fn param(&self, name: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.name.as_str() == name)
    }

    /// Parameters a call's arguments bind to: without `self`/`cls` for methods called through
    /// an instance or class.
    pub fn call_params(&self) -> &[Param] {
        match self.kind {
            FunctionKind::Method
            | FunctionKind::ClassMethod
            | FunctionKind::Property
            | FunctionKind::PropertyAccessor => match self.params.first() {
                Some(first) if matches!(first.kind, ParamKind::PositionalOnly | ParamKind::PositionalOrKeyword) => {
                    &self.params[1..]
                }
                _ => &self.params,
            },
            _ => &self.params,
        }
    }
}

/// Everything the index knows about one file.
#[derive(Clone, Debug, Default)]
pub struct FileFacts {
    /// Module-scope bindings in source order.
    pub bindings: Vec<Binding>,
    pub star_imports: Vec<StarImport>,
    /// `__all__`, when it is a literal list or tuple of strings.
    pub dunder_all: Option<Vec<Name>>,
    pub classes: Vec<ClassFacts>,
    pub functions: Vec<FunctionFacts>,
    /// Module-level names a function of the module declares `global` (and so may rebind at
    /// run time: `_TP = ...` in `initialize_model_parallel`).
    pub rebound_globals: Vec<ruff_python_ast::name::Name>,
    /// Names whose container a function of the module changes in place (`NAME[key] = value`,
    /// `NAME.update(...)`), with the function (its local index): a module-level dict of
    /// settings so changed holds what the process was started with (SGLang's
    /// `global_server_args_dict`, filled from the server arguments), not its literal's values.
    pub container_writes: Vec<(ruff_python_ast::name::Name, u32)>,
    /// Attribute names the module's code sets on something other than a method's own `self`
    /// (`layer.flag = True`, `setattr(obj, "flag", True)`): such an attribute can be set on an
    /// instance of any class. `setattr` with a name computed at run time is not recorded.
    pub foreign_attr_writes: Vec<ruff_python_ast::name::Name>,
    /// `Name.attr = value` at module level (`Config.MethodCls = Method` after the class
    /// statement): an attribute set on a class, or a module, once the file has run.
    pub module_attr_assigns: Vec<ModuleAttrAssign>,
    /// Calls made as statements in module code (also in its `if`/`try`/`with`/loop blocks),
    /// by the name they call: `register("key")(func)` and `Pool.register("key", func)` fill
    /// registries when the file is imported.
    pub module_calls: Vec<ModuleCall>,
}

/// A call made as a statement in a module's own code.
#[derive(Clone, Debug)]
pub struct ModuleCall {
    /// The last segment of the name called, or of the name whose result is called
    /// (`register` in `register("key")(func)` and in `Pool.register("key", func)`).
    pub callee: ruff_python_ast::name::Name,
    /// The statement.
    pub range: Span,
}

/// `object.attr = value` in a module's own code, `object` a name.
#[derive(Clone, Debug)]
pub struct ModuleAttrAssign {
    pub object: ruff_python_ast::name::Name,
    pub attr: ruff_python_ast::name::Name,
    /// `None` when it nests too deeply to keep.
    pub value: Option<Box<Expr>>,
    /// The whole assignment statement.
    pub range: Span,
}
