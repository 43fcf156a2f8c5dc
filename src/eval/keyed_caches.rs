//! Entries an unknown container holds by string key: a process-wide cache kept in an object
//! the evaluation does not build (`get_resources().buffers`, where SGLang's EP dispatchers
//! keep their buffers' state).
//!
//! What code stores there (`buffers["ep_state"] = state`) is read back by that key. A function
//! that reads a key into a local and stores that local under the key (get-or-create: `state =
//! buffers.get("ep_state")`, `if state is None:` make it, `buffers["ep_state"] = state`) finds
//! the key empty where nothing was stored yet: whatever a hit would find is what such a miss
//! stored, since this code is what fills it. (A default filled in, `if d.get("format") is None:
//! d["format"] = self.default`, is no cache: what the dict held is read as unknown.) Read
//! as unknown, a hit was an unknown object, and the buffer it held an unknown whose methods
//! (`dispatch`, `combine`) were not resolved: every configuration through it UNKNOWN.
//!
//! Entries hold conditions as seen from the entry (as class attributes written at run time do):
//! a call that reads or writes them has an effect a summary cannot replay.

use std::rc::Rc;

use ruff_python_ast::visitor::{Visitor, walk_stmt};
use ruff_python_ast::{Expr, Stmt};
use rustc_hash::FxHashMap;

use super::cond::Cond;
use super::interp::Interp;
use super::value::{G, Loc, SymId};
use crate::index::FuncId;
use crate::syntax::stmt_with_range;

/// What unknown containers hold, by container and key, and the keys each function gets or
/// creates (gathered on first use).
#[derive(Default)]
pub struct KeyedCaches {
    entries: FxHashMap<(SymId, Rc<str>), G>,
    cached_keys: FxHashMap<FuncId, Rc<[String]>>,
}

impl Interp<'_, '_> {
    /// `container[key] = value` on an unknown container, under `pc`.
    pub(super) fn store_keyed(&mut self, container: SymId, key: &str, value: &G, pc: &Cond) {
        let pc = pc.and(&self.base);
        let value = value.restrict(&self.conds, &pc);
        let entry = (container, Rc::from(key));
        let old = self.keyed.entries.get(&entry).cloned().unwrap_or_default();
        let new = old.overwritten(&self.conds, value, &pc);
        self.keyed.entries.insert(entry, new);
        self.not_replayable();
    }

    /// `container.get(key)` (with the default a miss gives) or `container[key]` (`None`) on an
    /// unknown container, within `pc`: what was stored under `key` where it was; elsewhere the
    /// default if the function being evaluated gets or creates that key (said as an
    /// assumption), the unknown `unknown` otherwise. `None` when nothing was stored there and
    /// the function does not get or create it: the read stays what it was.
    pub(super) fn read_keyed(
        &mut self,
        container: SymId,
        key: &str,
        default: Option<G>,
        unknown: impl FnOnce(&mut Self) -> G,
        pc: &Cond,
        loc: Loc,
    ) -> Option<G> {
        let stored = self.keyed.entries.get(&(container, Rc::from(key))).cloned();
        let fills = default.is_some() && self.current_function_caches(key);
        if stored.is_none() && !fills {
            return None;
        }
        self.not_replayable();
        let mut out = match stored {
            Some(g) => g.relative_to(&self.conds, &self.base).restrict(&self.conds, pc),
            None => G::empty(),
        };
        let rest = pc.and(&out.coverage(&self.conds).not());
        if self.conds.feasible(&rest) {
            if fills {
                let what = format!(
                    "assumed: `{}` holds under \"{key}\" only what the code reading it stores there: empty until it does",
                    self.syms[container as usize].label()
                );
                self.blocker(loc, what, &rest);
                out.extend(&self.conds, default.unwrap_or_default().restrict(&self.conds, &rest));
            } else {
                let own = unknown(self);
                out.extend(&self.conds, own.restrict(&self.conds, &rest));
            }
        }
        Some(out)
    }

    /// Whether the function being evaluated gets or creates `key`: `local = X.get(key)` and
    /// `Y[key] = local`.
    fn current_function_caches(&mut self, key: &str) -> bool {
        let Some(&func) = self.stack.last() else { return false };
        let keys = match self.keyed.cached_keys.get(&func) {
            Some(keys) => keys.clone(),
            None => {
                let facts = self.index.function(func);
                let module = self.index.file(facts.file).ast();
                let mut finder = CachedKeys::default();
                if let Some(Stmt::FunctionDef(def)) = stmt_with_range(&module.body, facts.range) {
                    for stmt in &def.body {
                        finder.visit_stmt(stmt);
                    }
                }
                let keys: Rc<[String]> =
                    finder.read.into_iter().filter(|read| finder.stored.contains(read)).map(|(key, _)| key).collect();
                self.keyed.cached_keys.insert(func, keys.clone());
                keys
            }
        };
        keys.iter().any(|k| k == key)
    }
}

/// The string keys a function body reads into a local (`state = X.get("k")`) and stores a
/// local under (`X["k"] = state`), with the local; nested functions are their own.
#[derive(Default)]
struct CachedKeys {
    read: Vec<(String, String)>,
    stored: Vec<(String, String)>,
}

impl<'a> Visitor<'a> for CachedKeys {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::FunctionDef(_) | Stmt::ClassDef(_) => {}
            Stmt::Assign(assign) => {
                for target in &assign.targets {
                    match (target, assign.value.as_ref()) {
                        (Expr::Subscript(item), Expr::Name(local)) => {
                            if let Expr::StringLiteral(key) = item.slice.as_ref() {
                                self.stored.push((key.value.to_str().to_string(), local.id.to_string()));
                            }
                        }
                        (Expr::Name(local), Expr::Call(call)) => {
                            if let (Expr::Attribute(method), Some(Expr::StringLiteral(key))) =
                                (call.func.as_ref(), call.arguments.args.first())
                                && method.attr.as_str() == "get"
                            {
                                self.read.push((key.value.to_str().to_string(), local.id.to_string()));
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => walk_stmt(self, stmt),
        }
    }
}
