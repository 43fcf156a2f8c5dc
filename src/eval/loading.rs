//! The model loader's phase, between construction and the forward pass. vLLM's and SGLang's
//! loaders, once the weights are in, call `module.quant_method.process_weights_after_loading(module)`
//! for every module that has a quantization method; state the forward path relies on is set
//! there, not in `__init__`: the expert kernel a runner calls (vLLM's `moe_kernel`, asserted not
//! `None` when the layer runs), whether a linear layer takes the CPU AMX path (SGLang's
//! `use_intel_amx_backend`, read with `getattr(layer, ..., False)`). The evaluator makes the same
//! calls, for the modules the entry's construction built, in the order they were built, before
//! the entry method. Everything these calls reach is evaluated, as for registering decorators:
//! what matters is what they write into the modules, not whether they mention the value.

use super::calls::{Arg, Args};
use super::cond::Cond;
use super::interp::{Interp, ObjKind};
use super::value::*;

/// The quantization method's hook the loaders call.
const HOOK: &str = "process_weights_after_loading";

impl Interp<'_, '_> {
    /// Runs the loader's hook for every module among the objects `built` (heap ids) that holds a
    /// quantization method of the tree defining it.
    pub fn after_loading(&mut self, built: std::ops::Range<HeapId>, loc: Loc) {
        for module in built {
            if !matches!(self.heap[module as usize].kind, ObjKind::Instance(_)) {
                continue;
            }
            let Some(methods) = self.heap[module as usize].fields.get("quant_method").cloned() else { continue };
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
}
