//! Answer vocabulary shared by every query: locations, conditions, hops, unresolved items.
//! These are the types the JSON output serializes (see docs/json.md).

use ruff_text_size::Ranged;
use serde::Serialize;

use crate::index::{ClassId, FileId, FuncId, Index};
use crate::resolve::{Cond, Def, Found, Hop, HopKind, Resolver};
use crate::syntax::{Span, snippet};

/// A place in the analyzed tree.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Location {
    pub path: String,
    pub line: u32,
    pub column: u32,
}

impl Location {
    pub fn new(index: &Index, file: FileId, span: impl Ranged) -> Self {
        let f = index.file(file);
        let pos = f.position(span.range().start());
        Location { path: f.display.clone(), line: pos.line, column: pos.column }
    }
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.path, self.line, self.column)
    }
}

/// A condition under which something happens, as the source spells it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Condition {
    /// `test`, `not (test)`, `except T` or `case P`.
    pub text: String,
    pub location: Location,
}

/// The conditions to show; preconditions (`if x: raise`) are left out, they choose no
/// configuration.
pub fn conditions(index: &Index, conds: &[Cond]) -> Vec<Condition> {
    let mut out: Vec<Condition> = Vec::new();
    for cond in conds.iter().filter(|c| c.guard.kind != crate::index::GuardKind::NoRaise) {
        let c = Condition { text: cond.render(index), location: Location::new(index, cond.file, cond.guard.range) };
        if !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

/// One step of how a name led to what it denotes.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Step {
    pub kind: HopKind,
    pub location: Location,
    /// The statement or expression of the step, on one line.
    pub code: String,
}

pub fn steps(index: &Index, hops: &[Hop]) -> Vec<Step> {
    hops.iter()
        .map(|hop| Step {
            kind: hop.kind,
            location: Location::new(index, hop.file, hop.range),
            code: snippet(&index.file(hop.file).text, hop.range),
        })
        .collect()
}

/// Something that could not be resolved on the way to an answer.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Unresolved {
    pub location: Location,
    pub code: String,
    pub reason: String,
}

impl Unresolved {
    pub fn new(index: &Index, file: FileId, span: impl Ranged, reason: impl Into<String>) -> Self {
        Unresolved {
            location: Location::new(index, file, span.range()),
            code: snippet(&index.file(file).text, span.range()),
            reason: reason.into(),
        }
    }
}

/// A class as the output names it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct ClassRef {
    pub path: String,
    pub location: Location,
}

impl ClassRef {
    pub fn new(index: &Index, class: ClassId) -> Self {
        ClassRef {
            path: index.class_path(class),
            location: Location::new(index, class.file, index.class(class).name_range),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct FunctionRef {
    pub path: String,
    pub location: Location,
}

impl FunctionRef {
    pub fn new(index: &Index, func: FuncId) -> Self {
        FunctionRef {
            path: index.function_path(func),
            location: Location::new(index, func.file, index.function(func).name_range),
        }
    }
}

/// What a resolved alternative denotes, for display.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Denotes {
    pub description: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
    pub via: Vec<Step>,
    pub conditions: Vec<Condition>,
}

pub fn denotes(resolver: &Resolver, found: &Found) -> Denotes {
    let index = resolver.index;
    let location = match &found.def {
        Def::Class(c) | Def::Instance(c) => Some(Location::new(index, c.file, index.class(*c).name_range)),
        Def::Function(f) | Def::BoundMethod { func: f, .. } => {
            Some(Location::new(index, f.file, index.function(*f).name_range))
        }
        Def::Module(file) => Some(Location { path: index.file(*file).display.clone(), line: 1, column: 1 }),
        Def::Opaque { file, range, .. } => Some(Location::new(index, *file, *range)),
        _ => None,
    };
    Denotes {
        description: resolver.describe(&found.def),
        location,
        via: steps(index, &found.hops),
        conditions: conditions(index, &found.conds),
    }
}

/// Long code is cut at 160 characters for one-line text display (the location says where the
/// rest is; JSON always carries the whole text).
pub fn short(code: &str) -> String {
    const MAX: usize = 160;
    if code.chars().count() <= MAX {
        code.to_string()
    } else {
        let cut: String = code.chars().take(MAX).collect();
        format!("{cut}…")
    }
}

/// The source text of `span` in `file`, on one line.
pub fn code(index: &Index, file: FileId, span: impl Into<Span>) -> String {
    snippet(&index.file(file).text, span.into())
}

/// One way a callee expression leads to what it calls: the steps, and the conditions that
/// choose this way (those already around the call site are left out).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Way {
    pub via: Vec<Step>,
    pub conditions: Vec<Condition>,
}

pub fn ways_of<'f>(index: &Index, found: impl Iterator<Item = &'f Found>, site_conds: &[Cond]) -> Vec<Way> {
    let mut ways: Vec<Way> = found
        .map(|f| {
            let own: Vec<Cond> = f.conds.iter().filter(|c| !site_conds.contains(c)).copied().collect();
            Way { via: steps(index, &f.hops), conditions: conditions(index, &own) }
        })
        .collect();
    ways.sort();
    ways.dedup();
    ways
}
