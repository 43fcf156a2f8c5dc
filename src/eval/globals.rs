//! Module globals that functions rebind through `global NAME` (SGLang's `layer_stack` sets
//! the module's `_stack` while a model builds its layers, and `append_stages` reads it there).
//! A module's own value of a name is evaluated once (see `Interp::global`); what functions bind
//! to it since is kept in one object per module, a field per rebound name, under conditions as
//! seen from the entry. Reads go through that object, so a call summary that read the name
//! is not replayed after it changes, and a call that rebinds it is not summarized.

use ruff_python_ast::name::Name;
use rustc_hash::FxHashMap;

use super::cond::Cond;
use super::interp::{Interp, ObjKind};
use super::value::{G, HeapId, Loc};
use crate::index::{FileId, FuncId};

/// The objects holding rebound module globals, per module (`None`: no function of the module
/// declares a name `global`).
#[derive(Default)]
pub struct Namespaces {
    objects: FxHashMap<FileId, Option<HeapId>>,
}

impl Interp<'_, '_> {
    /// Whether `func` declares `name` global.
    pub fn declares_global(&self, func: FuncId, name: &str) -> bool {
        self.resolver.local_scope(func).declared_global.contains(name)
    }

    /// `global name; name = value` in a function of `file`, where `pc` holds.
    pub fn assign_global(&mut self, file: FileId, name: &Name, value: G, pc: &Cond, loc: Loc) {
        let Some(id) = self.namespace(file, loc) else { return };
        let at = self.base.and(pc);
        let old = match self.read_object(id).fields.get(name) {
            Some(g) => g.clone(),
            None => self.global(file, name.as_str(), loc),
        };
        let value = value.restrict(&self.conds, &at);
        let new = old.overwritten(&self.conds, value, &at);
        self.touch(id);
        self.heap[id as usize].fields.insert(name.clone(), new);
    }

    /// What functions bound to module global `name` of `file`, as seen from the current call,
    /// if any did.
    pub fn rebound_global(&mut self, file: FileId, name: &str, pc: &Cond, loc: Loc) -> Option<G> {
        let id = self.namespace(file, loc)?;
        let g = self.read_object(id).fields.get(name)?.clone();
        Some(self.seen_from_call(id, &g).restrict(&self.conds, pc))
    }

    /// Whether `func` reads a module global some function of its module rebinds (so far):
    /// named rather than evaluated, it would give a fresh unknown value instead of the state
    /// the global holds (`_require_stack()` returning the open layer stack).
    pub fn reads_rebound_global(&mut self, func: FuncId) -> bool {
        let file = func.file;
        let Some(Some(id)) = self.namespaces.objects.get(&file).copied() else { return false };
        let scope = self.resolver.local_scope(func);
        let facts = self.index.function(func);
        let text = &self.index.file(file).text[facts.range.start as usize..facts.range.end as usize];
        self.heap[id as usize].fields.keys().any(|name| !scope.is_local(name.as_str()) && text.contains(name.as_str()))
    }

    /// The object holding the rebound globals of `file`, made on first use when some function
    /// of the module declares a name `global`. (Made at a first read too, before any rebinding:
    /// summaries must see that read.)
    fn namespace(&mut self, file: FileId, loc: Loc) -> Option<HeapId> {
        if let Some(known) = self.namespaces.objects.get(&file) {
            return *known;
        }
        let rebinds = self.index.file(file).text.contains("global ")
            && (0..self.index.file(file).facts.functions.len()).any(|local| {
                !self.resolver.local_scope(FuncId { file, local: local as u32 }).declared_global.is_empty()
            });
        let object = rebinds.then(|| {
            let id = self.alloc(ObjKind::Sentinel, loc);
            self.shared[id as usize] = true;
            id
        });
        self.namespaces.objects.insert(file, object);
        object
    }
}
