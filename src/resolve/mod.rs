//! Stage 4: resolution — what a name, an attribute or an expression denotes, over the facts.
//!
//! Everything here is a pure function of the [`Index`]; results are memoised behind locks so
//! queries may resolve from several threads. Resolution is bounded (depth, alternatives) and
//! every alternative that could not be followed comes back as [`Def::Unresolved`] with a reason,
//! never silently dropped.

mod exprs;
mod locals;
pub mod mro;
mod names;

use std::sync::{Arc, RwLock};

use crate::syntax::Span;
use ruff_python_ast::name::Name;
use rustc_hash::FxHashMap;

use crate::index::{ClassId, FileId, FuncId, Guard, GuardKind, Index};
use crate::syntax::Constant;
pub use exprs::{Ctx, Walk, assigned_value};
pub use locals::{DictEntry, LocalBinding, LocalKind, LocalScope, Return};
pub use mro::{BaseRef, Mro};

/// How deep expression resolution follows aliases, factories and attributes.
pub const MAX_DEPTH: usize = 24;
/// How many expressions one resolution may evaluate before it stops (cycles through code that
/// is not memoised can otherwise take exponential time).
pub const MAX_STEPS: usize = 20_000;
/// How many alternatives one expression may denote before the rest is reported as a bound.
pub const MAX_ALTERNATIVES: usize = 64;

/// What an expression or name denotes.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Def {
    /// A module of the tree.
    Module(FileId),
    /// A directory package without `__init__.py` (PEP 420).
    Namespace(String),
    Class(ClassId),
    Function(FuncId),
    /// A method looked up through an instance: calls bind `self` implicitly.
    BoundMethod {
        func: FuncId,
        receiver: ClassId,
    },
    /// An object whose class is known.
    Instance(ClassId),
    /// `super()` inside a method of `class`: attribute lookups start after `class` in the MRO
    /// of `receiver` (the class whose instance `self` is).
    Super {
        class: ClassId,
        receiver: ClassId,
    },
    /// A parameter of a function, value unknown from here.
    Param {
        func: FuncId,
        name: Name,
    },
    Constant(Constant),
    /// Something outside the tree, by dotted path (`torch.nn.Module`).
    External(String),
    Builtin(Name),
    /// A variable that exists but whose value is not known (loop target, unpacking...).
    Opaque {
        file: FileId,
        range: Span,
        name: Name,
    },
    /// Resolution stopped here; the text says why.
    Unresolved(String),
}

impl Def {
    pub fn class(&self) -> Option<ClassId> {
        match self {
            Def::Class(c) => Some(*c),
            _ => None,
        }
    }
}

/// A condition from the analyzed code, located in its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cond {
    pub file: FileId,
    pub guard: Guard,
}

impl Cond {
    /// `test`, `not (test)`, `except T` or `case P`, as the source spells it.
    pub fn render(&self, index: &Index) -> String {
        let text = crate::syntax::snippet(&index.file(self.file).text, self.guard.range);
        match self.guard.kind {
            GuardKind::IfTrue => text,
            GuardKind::IfFalse | GuardKind::NoRaise => negate(&text),
            GuardKind::Except => format!("except {text}"),
            GuardKind::Case => format!("case {text}"),
        }
    }
}

/// `not x` for a simple `x`, `not (x and y)` otherwise; `not not x` becomes `x`.
pub fn negate(text: &str) -> String {
    if let Some(inner) = text.strip_prefix("not ") {
        if !inner.contains(' ') {
            return inner.to_string();
        }
    }
    let simple =
        text.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '(' | ')' | '[' | ']' | '"' | '\'' | ','));
    if simple { format!("not {text}") } else { format!("not ({text})") }
}

/// One step of how a name led to its definition.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Hop {
    pub file: FileId,
    pub range: Span,
    pub kind: HopKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HopKind {
    /// An `import` / `from ... import` statement.
    Import,
    /// `from m import *`.
    StarImport,
    /// An assignment that names the value again (`X = HashTopK`).
    Alias,
    /// A branch of `a if c else b` or of `a or b`.
    Branch,
    /// A `return` of a function called to produce the value (a factory).
    FactoryReturn,
    /// A `self.x = ...` assignment read back through an attribute.
    AttributeWrite,
    /// A class-level attribute.
    ClassAttribute,
    /// A property's return.
    PropertyReturn,
    /// `cls` in a classmethod, `type(self)`, `self.__class__`.
    OwnClass,
    /// A parameter's annotation, used because the argument is not known.
    Annotation,
    /// `functools.partial(f, ...)` stands for `f`.
    Partial,
}

/// One alternative an expression may denote, with how it was reached and when it holds.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Found {
    pub def: Def,
    pub hops: Vec<Hop>,
    pub conds: Vec<Cond>,
}

impl Found {
    pub fn new(def: Def) -> Self {
        Found { def, hops: Vec::new(), conds: Vec::new() }
    }

    fn unresolved(reason: impl Into<String>) -> Self {
        Found::new(Def::Unresolved(reason.into()))
    }

    /// Prepends a hop and conditions: they happened before what this alternative already holds.
    fn behind(mut self, hop: Option<Hop>, conds: &[Cond]) -> Self {
        if let Some(hop) = hop {
            self.hops.insert(0, hop);
        }
        if !conds.is_empty() {
            let mut all = conds.to_vec();
            all.extend(self.conds);
            self.conds = all;
        }
        self
    }
}

pub struct Resolver<'a> {
    pub index: &'a Index,
    globals: RwLock<FxHashMap<(FileId, Name), Arc<Vec<Found>>>>,
    locals: RwLock<FxHashMap<FuncId, Arc<LocalScope>>>,
    returns_memo: RwLock<FxHashMap<FuncId, Arc<Vec<Found>>>>,
    local_names_memo: RwLock<FxHashMap<(FuncId, Name), Arc<Vec<Found>>>>,
    attributes_memo: RwLock<FxHashMap<(ClassId, Name), Arc<Vec<Found>>>>,
    mros: RwLock<FxHashMap<ClassId, Arc<Mro>>>,
    subclasses: std::sync::OnceLock<FxHashMap<ClassId, Vec<ClassId>>>,
}

impl<'a> Resolver<'a> {
    pub fn new(index: &'a Index) -> Self {
        Resolver {
            index,
            globals: RwLock::default(),
            locals: RwLock::default(),
            returns_memo: RwLock::default(),
            local_names_memo: RwLock::default(),
            attributes_memo: RwLock::default(),
            mros: RwLock::default(),
            subclasses: std::sync::OnceLock::new(),
        }
    }

    /// `Def` of a dotted module path: a module, a namespace package, or something outside.
    pub fn module_def(&self, dotted: &str) -> Def {
        match self.index.module(dotted) {
            Some(file) => Def::Module(file),
            None if self.index.is_package(dotted) => Def::Namespace(dotted.to_string()),
            None => Def::External(dotted.to_string()),
        }
    }

    /// A human name for a definition, as the output shows it.
    pub fn describe(&self, def: &Def) -> String {
        let index = self.index;
        match def {
            Def::Module(f) => format!("module {}", index.file(*f).module),
            Def::Namespace(name) => format!("namespace package {name}"),
            Def::Class(c) => format!("class {}", index.class_path(*c)),
            Def::Function(f) => format!("function {}", index.function_path(*f)),
            Def::BoundMethod { func, .. } => format!("method {}", index.function_path(*func)),
            Def::Instance(c) => format!("instance of {}", index.class_path(*c)),
            Def::Super { class, .. } => format!("super() in {}", index.class_path(*class)),
            Def::Param { func, name } => {
                format!("parameter `{name}` of {}", index.function_path(*func))
            }
            Def::Constant(c) => format!("constant {c}"),
            Def::External(path) => format!("{path} (outside the tree)"),
            Def::Builtin(name) => format!("builtin {name}"),
            Def::Opaque { name, .. } => format!("variable `{name}` (value not tracked)"),
            Def::Unresolved(why) => format!("unresolved: {why}"),
        }
    }
}

/// Python's builtins that matter for resolution (a name not found anywhere else and not in
/// this list is reported as undefined).
pub const BUILTINS: &[&str] = &[
    "abs",
    "all",
    "any",
    "ascii",
    "bin",
    "bool",
    "breakpoint",
    "bytearray",
    "bytes",
    "callable",
    "chr",
    "classmethod",
    "compile",
    "complex",
    "delattr",
    "dict",
    "dir",
    "divmod",
    "enumerate",
    "eval",
    "exec",
    "filter",
    "float",
    "format",
    "frozenset",
    "getattr",
    "globals",
    "hasattr",
    "hash",
    "help",
    "hex",
    "id",
    "input",
    "int",
    "isinstance",
    "issubclass",
    "iter",
    "len",
    "list",
    "locals",
    "map",
    "max",
    "memoryview",
    "min",
    "next",
    "object",
    "oct",
    "open",
    "ord",
    "pow",
    "print",
    "property",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "setattr",
    "slice",
    "sorted",
    "staticmethod",
    "str",
    "sum",
    "super",
    "tuple",
    "type",
    "vars",
    "zip",
    "__import__",
    "__name__",
    "__file__",
    "__doc__",
    "__spec__",
    "__package__",
    "__builtins__",
    "__debug__",
    "NotImplemented",
    "Ellipsis",
    "Exception",
    "BaseException",
    "ValueError",
    "TypeError",
    "KeyError",
    "IndexError",
    "AttributeError",
    "RuntimeError",
    "NotImplementedError",
    "ImportError",
    "ModuleNotFoundError",
    "AssertionError",
    "StopIteration",
    "OSError",
    "FileNotFoundError",
    "ZeroDivisionError",
    "OverflowError",
    "ArithmeticError",
    "LookupError",
    "UserWarning",
    "DeprecationWarning",
    "Warning",
    "RecursionError",
    "MemoryError",
    "SystemExit",
    "KeyboardInterrupt",
    "TimeoutError",
    "PermissionError",
    "UnicodeDecodeError",
    "EOFError",
    "BufferError",
    "FutureWarning",
    "RuntimeWarning",
    "ConnectionError",
    "GeneratorExit",
    "StopAsyncIteration",
    "aiter",
    "anext",
];
