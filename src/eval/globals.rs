//! Module globals that functions rebind through `global NAME` (SGLang's `layer_stack` sets
//! the module's `_stack` while a model builds its layers, and `append_stages` reads it there).
//! A module's own value of a name is evaluated once (see `Interp::global`); what functions bind
//! to it since is kept in one object per module, a field per rebound name, under conditions as
//! seen from the entry. Reads go through that object, so a call summary that read the name
//! is not replayed after it changes, and a call that rebinds it is not summarized. A dict of
//! settings that functions change in place (`NAME.update(...)`) holds run-time values: see
//! `Interp::settings_filled_at_run_time`.

use ruff_python_ast::name::Name;
use rustc_hash::FxHashMap;

use super::cond::{AtomKey, Cond};
use super::interp::{Interp, ObjKind};
use super::value::{G, HeapId, Loc, SymKey, Value};
use crate::index::{FileId, FuncId};

/// The objects holding rebound module globals, per module (`None`: no function of the module
/// declares a name `global`).
#[derive(Default)]
pub struct Namespaces {
    objects: FxHashMap<FileId, Option<HeapId>>,
    /// The functions of the tree that change a container of each name in place (see
    /// `FileFacts::container_writes`), gathered on first use.
    container_writers: Option<FxHashMap<Name, Vec<FuncId>>>,
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

    /// A module-level dict of settings (a literal of constants) that a function of the tree
    /// changes in place holds what the process was started with, not the literal's values:
    /// SGLang's `global_server_args_dict = {"enable_deepep_moe": ServerArgs.enable_deepep_moe,
    /// ...}`, updated from the server arguments when the model runner starts. Read as the
    /// literal, every flag was its default and one configuration was all a trace saw. Each
    /// entry is then a setting named after the dict and its key
    /// (`global_server_args_dict["enable_deepep_moe"]`), as in a table built by a
    /// comprehension at run time (see the `DictComp` case in `exprs.rs`); what the code
    /// evaluated writes into it is read back as in any dict.
    pub fn settings_filled_at_run_time(&mut self, file: FileId, name: &str, value: &G, loc: Loc) {
        let Some(Value::Obj(id)) = value.single().cloned() else { return };
        let ObjKind::Dict(entries) = &self.heap[id as usize].kind else { return };
        let settings = !entries.is_empty() && entries.iter().all(|(_, g)| matches!(g.single(), Some(Value::Const(_))));
        let keys: Vec<std::rc::Rc<str>> = entries.iter().map(|(key, _)| key.clone()).collect();
        if !settings || !self.changed_at_run_time(file, name) {
            return;
        }
        let Value::Sym(table) = self.sym(SymKey::Global(file, Name::new(name)), name.to_string(), None) else {
            return;
        };
        let mut filled = Vec::with_capacity(keys.len());
        for key in keys {
            let (step, shown) = self.index_key(&super::exprs::key_value(&key), loc);
            let setting = self.sym(SymKey::Path(table, format!("[{step}]")), format!("{name}[{shown}]"), None);
            filled.push((key, G::one(&self.conds, setting)));
        }
        self.heap[id as usize].kind = ObjKind::Dict(filled);
        // Keys the process adds are not known either: a missing one is no `KeyError`.
        self.exact_dicts.remove(&id);
    }

    /// Whether a function of the tree changes the module-level container `name` of `file` in
    /// place: one of its own module, or of a module that imports it from there, where the name
    /// is not a local of the function.
    fn changed_at_run_time(&mut self, file: FileId, name: &str) -> bool {
        let index = self.index;
        let writers = self.namespaces.container_writers.get_or_insert_with(|| {
            let mut writers: FxHashMap<Name, Vec<FuncId>> = FxHashMap::default();
            for (id, facts) in index.files.iter_enumerated().map(|(id, f)| (id, &f.facts)) {
                for (container, local) in &facts.container_writes {
                    writers.entry(container.clone()).or_default().push(FuncId { file: id, local: *local });
                }
            }
            writers
        });
        let Some(funcs) = writers.get(name).cloned() else { return false };
        funcs.into_iter().any(|func| {
            !self.resolver.local_scope(func).is_local(name)
                && (func.file == file
                    || self
                        .resolver
                        .global(func.file, name)
                        .iter()
                        .any(|found| found.hops.iter().any(|hop| hop.file == file)))
        })
    }
}

impl Interp<'_, '_> {
    /// A module global that starts as `None` and that functions of its module set, through
    /// `global NAME`, to a function or class (a kernel imported lazily by a set-up function:
    /// SGLang's `_hopper_bf16_gemv = hopper_bf16_gemv` when the GEMM backend is chosen). Its
    /// value is `None`, or one of those, each where the set-up reached the block that sets it: one atom per
    /// block, so globals set together (`_hopper_bf16_gemv` and `_use_hopper_bf16_gemv`) are
    /// set together here too. `None` when some setting is not such a value (a flag set to
    /// `True`): the caller keeps its one symbol for the global then.
    pub fn lazily_set_global(&mut self, file: FileId, name: &str) -> Option<G> {
        let settings = self.late_settings(file, name)?;
        let mut out = G::empty();
        let mut rest = self.conds.truth();
        for (func, block, value) in settings {
            let setter = self.index.function(func).qualname.clone();
            let line = self.index.file(file).position(ruff_text_size::TextSize::new(block)).line;
            let path = self.index.file(file).display.clone();
            let ran = self.atom(AtomKey::Test(format!("set by {setter} @{}:{block}", file.as_u32())), || {
                format!("`{setter}` reached {path}:{line}")
            });
            out.push(&self.conds, rest.and(&ran), value);
            rest = rest.and(&ran.not());
        }
        out.push(&self.conds, rest, Value::none());
        Some(out)
    }

    /// Every `NAME = value` of a function of `file` that declares `NAME` global, with the
    /// start of the block it is in, each value resolved statically to one function or class.
    /// `None` when there is none, or when one is something else.
    fn late_settings(&mut self, file: FileId, name: &str) -> Option<Vec<(FuncId, u32, Value)>> {
        use ruff_python_ast::{Expr, Stmt};
        // Each assignment with the start of the statement list it is in (nested lists through
        // `crate::syntax::child_suites`: `if`, `with`, `try`, loops, `match`).
        fn walk<'a>(body: &'a [Stmt], name: &str, out: &mut Vec<(u32, &'a Expr)>) {
            let block = body.first().map_or(0, |s| ruff_text_size::Ranged::range(s).start().to_u32());
            for stmt in body {
                if let Stmt::Assign(assign) = stmt {
                    if matches!(assign.targets.as_slice(), [Expr::Name(target)] if target.id.as_str() == name) {
                        out.push((block, &assign.value));
                    }
                }
                for suite in crate::syntax::child_suites(stmt) {
                    walk(suite.body, name, out);
                }
            }
        }
        let index = self.index;
        let module = index.file(file).ast();
        let mut settings = Vec::new();
        for local in 0..index.file(file).facts.functions.len() {
            let func = FuncId { file, local: local as u32 };
            if !self.declares_global(func, name) {
                continue;
            }
            let facts = index.function(func);
            let Some(Stmt::FunctionDef(def)) = crate::syntax::stmt_with_range(&module.body, facts.range) else {
                return None;
            };
            let mut assignments = Vec::new();
            walk(&def.body, name, &mut assignments);
            let ctx = crate::resolve::Ctx::function(func);
            for (block, value) in assignments {
                let value = match self.resolver.resolve(&ctx, value).as_slice() {
                    [found] => match &found.def {
                        crate::resolve::Def::Function(f) => Value::Func(*f),
                        crate::resolve::Def::Class(c) => Value::Class(*c),
                        crate::resolve::Def::External(path) => Value::External(std::rc::Rc::from(path.as_str())),
                        _ => return None,
                    },
                    _ => return None,
                };
                settings.push((func, block, value));
            }
        }
        (!settings.is_empty()).then_some(settings)
    }
}
