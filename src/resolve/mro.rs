//! Class hierarchies: bases resolved across modules, C3 linearization, known subclasses.
//! Inheritance cycles and inconsistent hierarchies end with a reported problem, never a loop.

use std::sync::Arc;

use rayon::prelude::*;
use ruff_python_ast::Expr;
use rustc_hash::FxHashMap;

use super::{Ctx, Def, Found, Resolver};
use crate::index::{ClassId, Parent};

/// One base of a class as written, and what it resolved to.
#[derive(Clone, Debug)]
pub struct BaseRef {
    pub text: String,
    pub found: Vec<Found>,
}

/// An entry of a linearization: a class of the tree, or something outside it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum MroEntry {
    Class(ClassId),
    External(String),
    Unresolved(String),
}

#[derive(Clone, Debug, Default)]
pub struct Mro {
    /// The full linearization, the class itself first (`object` left out).
    pub entries: Vec<MroEntry>,
    /// Only the classes of the tree, in MRO order.
    pub classes: Vec<ClassId>,
    /// Dotted paths of bases outside the tree, in MRO order.
    pub external: Vec<String>,
    /// Why the linearization is partial, when it is.
    pub problems: Vec<String>,
}

impl Mro {
    /// Whether the class is a `typing.NamedTuple` (a record with a tuple's fixed length).
    pub fn is_named_tuple(&self) -> bool {
        self.external.iter().any(|e| e.ends_with("NamedTuple"))
    }
}

impl Resolver<'_> {
    /// The bases of `class`, each resolved where the class statement is.
    pub fn bases(&self, class: ClassId) -> Vec<BaseRef> {
        let facts = self.index.class(class);
        let ctx = match facts.parent {
            Parent::Module => Ctx::module(class.file),
            Parent::Function(func) => Ctx::function(func),
            Parent::Class(outer) => Ctx { file: class.file, function: None, class: Some(outer) },
        };
        let text = &self.index.file(class.file).text;
        facts
            .bases
            .iter()
            .map(|base| {
                // `Generic[T]`, `Base[int]`: the subscripted class is the base.
                let head = match base {
                    Expr::Subscript(sub) => sub.value.as_ref(),
                    other => other,
                };
                BaseRef {
                    text: crate::syntax::snippet(text, ruff_text_size::Ranged::range(base)),
                    found: self.resolve(&ctx, head),
                }
            })
            .collect()
    }

    /// Direct bases as MRO entries: the first class alternative of each base.
    fn base_entries(&self, class: ClassId) -> Vec<MroEntry> {
        self.bases(class)
            .into_iter()
            .map(|base| {
                base.found
                    .iter()
                    .find_map(|f| match &f.def {
                        Def::Class(c) => Some(MroEntry::Class(*c)),
                        Def::External(path) => Some(MroEntry::External(path.clone())),
                        _ => None,
                    })
                    .unwrap_or_else(|| MroEntry::Unresolved(base.text.clone()))
            })
            .filter(|e| !matches!(e, MroEntry::External(p) if p == "builtins.object"))
            .filter(|e| !matches!(e, MroEntry::Unresolved(t) if t == "object"))
            .collect()
    }

    /// The C3 linearization of `class`.
    pub fn mro(&self, class: ClassId) -> Arc<Mro> {
        self.mro_in(class, &mut Vec::new())
    }

    fn mro_in(&self, class: ClassId, visiting: &mut Vec<ClassId>) -> Arc<Mro> {
        if let Some(mro) = self.mros.read().unwrap_or_else(|e| e.into_inner()).get(&class) {
            return mro.clone();
        }
        if visiting.contains(&class) || visiting.len() > 256 {
            let mut mro = Mro { entries: vec![MroEntry::Class(class)], classes: vec![class], ..Mro::default() };
            mro.problems.push(format!("inheritance cycle through {}", self.index.class_path(class)));
            return Arc::new(mro);
        }
        visiting.push(class);
        let bases = self.base_entries(class);
        let mut sequences: Vec<Vec<MroEntry>> = Vec::new();
        let mut problems = Vec::new();
        for base in &bases {
            match base {
                MroEntry::Class(c) => {
                    let base_mro = self.mro_in(*c, visiting);
                    problems.extend(base_mro.problems.iter().cloned());
                    // In a cycle the base's order leads back here; the class is already first.
                    sequences
                        .push(base_mro.entries.iter().filter(|e| **e != MroEntry::Class(class)).cloned().collect());
                }
                other => sequences.push(vec![other.clone()]),
            }
        }
        sequences.push(bases.iter().filter(|e| **e != MroEntry::Class(class)).cloned().collect());

        let mut entries = vec![MroEntry::Class(class)];
        match c3_merge(sequences) {
            Ok(merged) => entries.extend(merged),
            Err(partial) => {
                problems.push(format!(
                    "the bases of {} admit no consistent method resolution order (C3); using depth-first order",
                    self.index.class_path(class)
                ));
                for entry in partial {
                    if !entries.contains(&entry) {
                        entries.push(entry);
                    }
                }
            }
        }
        visiting.pop();
        problems.sort();
        problems.dedup();
        let mro = Arc::new(Mro {
            classes: entries.iter().filter_map(|e| if let MroEntry::Class(c) = e { Some(*c) } else { None }).collect(),
            external: entries
                .iter()
                .filter_map(|e| if let MroEntry::External(p) = e { Some(p.clone()) } else { None })
                .collect(),
            entries,
            problems,
        });
        // Only complete answers are remembered: inside a cycle the answer depends on where the
        // walk entered it.
        if !visiting.iter().any(|v| mro.classes.contains(v)) {
            self.mros.write().unwrap_or_else(|e| e.into_inner()).insert(class, mro.clone());
        }
        mro
    }

    /// Direct subclasses of every class of the tree (computed once, for all classes).
    pub fn direct_subclasses(&self, class: ClassId) -> &[ClassId] {
        let map = self.subclasses.get_or_init(|| {
            let classes: Vec<ClassId> = self.index.all_classes().collect();
            let pairs: Vec<(ClassId, ClassId)> = classes
                .par_iter()
                .flat_map_iter(|&sub| {
                    let bases: Vec<ClassId> = self
                        .bases(sub)
                        .into_iter()
                        .flat_map(|b| b.found.into_iter().filter_map(|f| f.def.class()))
                        .collect();
                    bases.into_iter().map(move |base| (base, sub))
                })
                .collect();
            let mut map: FxHashMap<ClassId, Vec<ClassId>> = FxHashMap::default();
            for (base, sub) in pairs {
                map.entry(base).or_default().push(sub);
            }
            for subs in map.values_mut() {
                subs.sort();
                subs.dedup();
            }
            map
        });
        map.get(&class).map_or(&[], Vec::as_slice)
    }

    /// All subclasses, transitively, in a stable order (breadth first, then by id).
    pub fn all_subclasses(&self, class: ClassId) -> Vec<ClassId> {
        let mut out: Vec<ClassId> = Vec::new();
        let mut queue = vec![class];
        while let Some(next) = queue.pop() {
            for &sub in self.direct_subclasses(next) {
                if sub != class && !out.contains(&sub) {
                    out.push(sub);
                    queue.push(sub);
                }
            }
        }
        out.sort();
        out
    }
}

/// C3 merge; on failure returns the entries in depth-first order.
fn c3_merge(mut sequences: Vec<Vec<MroEntry>>) -> Result<Vec<MroEntry>, Vec<MroEntry>> {
    let fallback: Vec<MroEntry> = sequences.iter().flatten().cloned().collect();
    let mut out = Vec::new();
    loop {
        sequences.retain(|s| !s.is_empty());
        if sequences.is_empty() {
            return Ok(out);
        }
        let candidate =
            sequences.iter().map(|s| &s[0]).find(|head| !sequences.iter().any(|s| s[1..].contains(head))).cloned();
        let Some(head) = candidate else {
            let mut partial = out;
            partial.extend(fallback);
            return Err(partial);
        };
        for s in &mut sequences {
            if s[0] == head {
                s.remove(0);
            }
        }
        out.push(head);
    }
}
