//! Turning what the user typed (`pkg.mod.Class`, `Class`, `Class.method`) into a definition,
//! with the candidates listed when a bare name is ambiguous.

use crate::index::{ClassId, FileId, FuncId, Index};
use crate::resolve::{Def, Resolver};

/// A definition a query is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    Class(ClassId),
    Function(FuncId),
    Module(FileId),
}

#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error("no definition named `{spec}` in the tree{}", suggest(.suggestions))]
    NotFound { spec: String, suggestions: Vec<String> },
    #[error("`{spec}` is ambiguous; give one of these dotted paths:\n{}", list(.candidates))]
    Ambiguous { spec: String, candidates: Vec<String> },
    #[error("no class named `{spec}` in the tree")]
    NoClass { spec: String },
    #[error("`{spec}` is {what}, not {wanted}")]
    WrongKind { spec: String, what: String, wanted: &'static str },
}

fn suggest(suggestions: &[String]) -> String {
    if suggestions.is_empty() { String::new() } else { format!("; similar names:\n{}", list(suggestions)) }
}

fn list(items: &[String]) -> String {
    items.iter().map(|c| format!("  {c}")).collect::<Vec<_>>().join("\n")
}

impl Target {
    pub fn path(&self, index: &Index) -> String {
        match self {
            Target::Class(c) => index.class_path(*c),
            Target::Function(f) => index.function_path(*f),
            Target::Module(m) => index.file(*m).module.clone(),
        }
    }
}

/// Finds the definition `spec` names: a dotted path from a module of the tree, or a class or
/// function qualname (`HashTopK`, `DeepseekV2MoE.forward`) matched anywhere.
pub fn find(resolver: &Resolver, spec: &str) -> Result<Target, TargetError> {
    let index = resolver.index;
    if let Some(file) = index.module(spec) {
        return Ok(Target::Module(file));
    }
    if spec.contains('.') {
        let mut targets: Vec<Target> = resolver
            .resolve_path(spec)
            .into_iter()
            .filter_map(|f| match f.def {
                Def::Class(c) => Some(Target::Class(c)),
                Def::Function(f) | Def::BoundMethod { func: f, .. } => Some(Target::Function(f)),
                Def::Module(m) => Some(Target::Module(m)),
                _ => None,
            })
            .collect();
        targets.sort();
        targets.dedup();
        match targets.len() {
            1 => return Ok(targets[0]),
            0 => {}
            _ => {
                return Err(TargetError::Ambiguous {
                    spec: spec.into(),
                    candidates: targets.iter().map(|t| t.path(index)).collect(),
                });
            }
        }
    }
    let mut candidates: Vec<Target> = Vec::new();
    for class in index.all_classes() {
        if index.class(class).qualname == spec || index.class_path(class).ends_with(&format!(".{spec}")) {
            candidates.push(Target::Class(class));
        }
    }
    for func in index.all_functions() {
        let qualname = &index.function(func).qualname;
        if !qualname.contains("<locals>")
            && (qualname == spec || index.function_path(func).ends_with(&format!(".{spec}")))
        {
            candidates.push(Target::Function(func));
        }
    }
    candidates.sort_by_key(|t| t.path(index));
    match candidates.len() {
        1 => Ok(candidates[0]),
        0 => Err(TargetError::NotFound { spec: spec.into(), suggestions: similar(index, spec) }),
        _ => Err(TargetError::Ambiguous {
            spec: spec.into(),
            candidates: candidates.iter().map(|t| t.path(index)).collect(),
        }),
    }
}

pub fn find_class(resolver: &Resolver, spec: &str) -> Result<ClassId, TargetError> {
    // A bare name asked for as a class is a class: functions of that name (`Kernel.triton`
    // beside a class `Triton`, or none) do not make it ambiguous.
    if !spec.contains('.') {
        let index = resolver.index;
        let suffix = format!(".{spec}");
        let mut classes: Vec<ClassId> = index
            .all_classes()
            .filter(|c| index.class(*c).qualname == spec || index.class_path(*c).ends_with(&suffix))
            .collect();
        classes.sort_by_key(|c| index.class_path(*c));
        match classes.len() {
            0 if index.module(spec).is_none() => {
                return match find(resolver, spec) {
                    Err(not_found @ TargetError::NotFound { .. }) => Err(not_found),
                    _ => Err(TargetError::NoClass { spec: spec.into() }),
                };
            }
            0 => {}
            1 => return Ok(classes[0]),
            _ => {
                return Err(TargetError::Ambiguous {
                    spec: spec.into(),
                    candidates: classes.iter().map(|c| index.class_path(*c)).collect(),
                });
            }
        }
    }
    match find(resolver, spec)? {
        Target::Class(c) => Ok(c),
        Target::Function(_) => {
            Err(TargetError::WrongKind { spec: spec.into(), what: "a function".into(), wanted: "a class" })
        }
        Target::Module(_) => {
            Err(TargetError::WrongKind { spec: spec.into(), what: "a module".into(), wanted: "a class" })
        }
    }
}

/// Up to five class or function names that resemble `spec`: a few edits away (typos), or
/// containing it.
fn similar(index: &Index, spec: &str) -> Vec<String> {
    let last = spec.rsplit('.').next().unwrap_or(spec).to_lowercase();
    let budget = (last.len() / 4).max(2);
    let distance = |name: &str| {
        let name = name.to_lowercase();
        if name.contains(&last) { 0 } else { strsim::damerau_levenshtein(&name, &last) }
    };
    let classes = index.all_classes().map(|c| (distance(&index.class(c).name), index.class_path(c)));
    let functions = index
        .all_functions()
        .filter(|f| !index.function(*f).qualname.contains("<locals>"))
        .map(|f| (distance(&index.function(f).name), index.function_path(f)));
    let mut out: Vec<(usize, String)> = classes.chain(functions).filter(|(d, _)| *d <= budget).collect();
    out.sort();
    out.dedup();
    out.truncate(5);
    out.into_iter().map(|(_, path)| path).collect()
}
