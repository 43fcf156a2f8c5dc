//! The model loader's phase, between construction and the forward pass. vLLM's and SGLang's
//! loaders, once the weights are in, call `module.quant_method.process_weights_after_loading(module)`
//! for every module that has a quantization method; state the forward path relies on is set
//! there, not in `__init__`: the expert kernel a runner calls (vLLM's `moe_kernel`, asserted not
//! `None` when the layer runs), whether a linear layer takes the CPU AMX path (SGLang's
//! `use_intel_amx_backend`, read with `getattr(layer, ..., False)`). vLLM's then call each
//! module's own `process_weights_after_loading` (an MLA attention builds `W_UK_T` there). The
//! evaluator makes the same calls, for the modules the entry's construction built (the
//! quantization methods' in the order the modules were built, the modules' own children
//! first), before the entry method. Within them, every call handed a module or a method object
//! is evaluated: what matters is what they write into the modules, not whether they mention
//! the value.

use super::calls::{Arg, Args};
use super::cond::Cond;
use super::interp::{Interp, ObjKind};
use super::value::*;

/// The quantization method's hook the loaders call.
const HOOK: &str = "process_weights_after_loading";

/// A module whose quantization method has more alternatives than this (an unknown
/// quantization config: one per method of the tree) is loaded only for those under the fewest
/// conditions, at most this many: its hook runs once per method, and what the forward path
/// reads from the others stays unknown.
const MAX_LOADED_METHODS: usize = 8;

impl Interp<'_, '_> {
    /// Runs the loader's hooks for the objects `built` (heap ids): the quantization method's of
    /// every module holding one of the tree that defines it, then each module's own. Modules
    /// whose constructor was skipped are not built for this (building every layer is what
    /// bounds the evaluation): what the forward path reads from them stays unknown.
    pub fn after_loading(&mut self, built: std::ops::Range<HeapId>, loc: Loc) {
        for module in built.clone() {
            if !self.unbuilt.contains_key(&module) {
                self.load_module(module, loc);
            }
        }
        // Then each module's own hook, children first (built after their parent): vLLM's
        // `finalize_model_weights`, or its older loaders' pass over the attention layers. An
        // MLA attention builds the weights its forward reads (`W_UK_T`) there.
        for module in built.rev() {
            if !self.unbuilt.contains_key(&module) {
                self.finish_module(module, loc);
            }
        }
    }

    /// A module's own `process_weights_after_loading()`, when its class defines one: handed
    /// what the loader hands (the dtype, in older vLLM) as unknown values.
    fn finish_module(&mut self, module: HeapId, loc: Loc) {
        let ObjKind::Instance(class) = self.heap[module as usize].kind else { return };
        if !self.is_module_class(class) {
            return;
        }
        let Some((_, hook)) = self.class_attr(class, HOOK, loc) else { return };
        let Some(&Value::Func(func)) = hook.single() else { return };
        let required: Vec<crate::index::Param> = self
            .index
            .function(func)
            .call_params()
            .iter()
            .filter(|p| {
                p.default.is_none()
                    && !matches!(p.kind, crate::index::ParamKind::VarPositional | crate::index::ParamKind::VarKeyword)
            })
            .cloned()
            .collect();
        // The loaders call it with nothing or the dtype; a hook that takes the layer is a
        // quantization method's (one that is a module too, as `CustomOp` methods are), run for
        // the layer holding it or not at all.
        let takes_dtype = |p: &crate::index::Param| p.name.as_str().ends_with("dtype");
        if !(required.is_empty() || matches!(required.as_slice(), [p] if takes_dtype(p))) {
            return;
        }
        let mut args = Args::default();
        for param in required {
            let value = self.param_symbol(func, &param, param.name.to_string());
            args.keywords.push((param.name.clone(), Arg { value: G::under(Cond::TRUE, value), loc: None }));
        }
        // Only where the module exists: where its constructor set its attributes (a layer
        // built in some configurations only has nothing to finish in the others).
        let fields: Vec<G> = self.heap[module as usize].fields.values().cloned().collect();
        let exists = if fields.is_empty() {
            Cond::TRUE
        } else {
            fields.iter().fold(Cond::FALSE, |all, g| all.or(&g.coverage(&self.conds)))
        };
        let bound = G::under(Cond::TRUE, Value::Bound(func, Box::new(Value::Obj(module))));
        self.loading += 1;
        self.call(&bound, args, &exists, loc);
        self.loading -= 1;
    }

    /// Whether instances of `class` are known not to be modules: every base is the tree's or
    /// plain Python's. The loaders walk `model.named_modules()`, so a plain object holding the
    /// layer's quantization method (vLLM's `MoERunner`) is not handed to its hook, which would
    /// read weights only the layer has. (A class with an unresolved outside base may be one.)
    fn known_not_a_module(&self, class: crate::index::ClassId) -> bool {
        let mro = self.resolver.mro(class);
        mro.problems.is_empty() && mro.external.iter().all(|e| super::modules::is_plain_python_base(e))
    }

    /// The loader's hook for one module, when its quantization method is known well enough.
    fn load_module(&mut self, module: HeapId, loc: Loc) {
        let ObjKind::Instance(class) = self.heap[module as usize].kind else { return };
        if self.loaded.contains(&module) || self.known_not_a_module(class) {
            return;
        }
        let Some(mut methods) = self.heap[module as usize].fields.get("quant_method").cloned() else {
            self.loaded.insert(module);
            return;
        };
        if methods.0.len() > MAX_LOADED_METHODS {
            // Said, not silent: what the hook sets for the others (a kernel the forward path
            // asserts) stays as `__init__` left it, and the raises that follow end those
            // configurations. Those kept are the methods under the fewest conditions: the
            // unquantized method of `Plain() if quant_config is None else
            // quant_config.get_quant_method(...)`, not the config classes' own (each of
            // their hooks is large: running eight of them stopped vLLM's unassumed blocks).
            self.bound(
                Some(loc),
                format!(
                    "a module's quantization method has {} alternatives (more than {MAX_LOADED_METHODS}): the loader's `{HOOK}` is run only for those under the fewest conditions",
                    methods.0.len()
                ),
            );
            let conds = &self.conds;
            let sizes: Vec<usize> = methods.0.iter().map(|(c, _)| conds.support(c).len()).collect();
            let fewest = sizes.iter().copied().min().unwrap_or(0);
            let mut kept = G::empty();
            for ((cond, method), size) in methods.0.into_iter().zip(sizes) {
                if size == fewest && kept.0.len() < MAX_LOADED_METHODS {
                    kept.0.push((cond, method));
                } else {
                    self.unloaded = self.unloaded.or(&cond.and(&self.base));
                }
            }
            methods = kept;
        }
        self.loaded.insert(module);
        for (cond, method) in methods.0 {
            let Value::Obj(method_id) = method else { continue };
            let ObjKind::Instance(class) = self.heap[method_id as usize].kind else { continue };
            let Some((_, hook)) = self.class_attr(class, HOOK, loc) else { continue };
            let bound = self.map(&hook, |this, v| this.bind_class_attr(v, Value::Obj(method_id), false));
            let args = Args {
                positional: vec![Arg { value: G::under(Cond::TRUE, Value::Obj(module)), loc: None }],
                ..Args::default()
            };
            self.loading += 1;
            self.call(&bound, args, &cond, loc);
            self.loading -= 1;
        }
    }
}
