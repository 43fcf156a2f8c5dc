//! What `torch.nn.Module`, the outside base of nearly every class on a forward path, provides.
//!
//! - `register_parameter(name, p)`, `register_buffer(name, t)`, `add_module(name, m)`,
//!   `register_module(name, m)` set the attribute `name`, as `setattr` would (weights created by
//!   a quantization method: `layer.register_parameter("w13_weight", w13_weight)`).
//! - An attribute that the tree never set on a module the loader's phase went through (not in
//!   `__init__`, not in the loader's hook, not on the forward path so far) and that `nn.Module`
//!   does not have is not set:
//!   `getattr(layer, "use_intel_amx_backend", False)` is `False` on a layer no loader hook marked,
//!   rather than a configuration of its own. This holds only for classes whose outside bases are
//!   `nn.Module` alone; an attribute of any other outside base stays unknown.
//! - Before that phase too, an attribute no class of the MRO binds or assigns to `self`, on a
//!   class whose outside bases are `nn.Module` and `abc.ABC` alone, is not set (`never_set_on`):
//!   a flag some quantization methods declare in their bodies, read with a default on one that
//!   does not (`getattr(method, "fuse_routed_scaling_factor_in_topk", False)`).

use super::calls::Args;
use super::cond::Cond;
use super::interp::Interp;
use super::value::*;
use crate::index::ClassId;

/// The methods that set an attribute by name.
pub const REGISTRATION_METHODS: [&str; 4] = ["register_parameter", "register_buffer", "add_module", "register_module"];

/// The methods of `torch.nn.Module` that return the module itself (torch 2.x).
pub const SELF_RETURNING_METHODS: [&str; 13] = [
    "to",
    "cuda",
    "cpu",
    "xpu",
    "float",
    "half",
    "bfloat16",
    "double",
    "type",
    "train",
    "eval",
    "requires_grad_",
    "to_empty",
];

/// Attributes and methods of `torch.nn.Module` itself (torch 2.x).
const MODULE_ATTRIBUTES: &[&str] = &[
    "training",
    "dump_patches",
    "call_super_init",
    "T_destination",
    "forward",
    "register_buffer",
    "register_parameter",
    "add_module",
    "register_module",
    "get_submodule",
    "set_submodule",
    "get_parameter",
    "get_buffer",
    "get_extra_state",
    "set_extra_state",
    "apply",
    "cuda",
    "ipu",
    "xpu",
    "mtia",
    "cpu",
    "type",
    "float",
    "double",
    "half",
    "bfloat16",
    "to_empty",
    "to",
    "register_full_backward_pre_hook",
    "register_backward_hook",
    "register_full_backward_hook",
    "register_forward_pre_hook",
    "register_forward_hook",
    "state_dict",
    "load_state_dict",
    "register_state_dict_pre_hook",
    "register_state_dict_post_hook",
    "register_load_state_dict_pre_hook",
    "register_load_state_dict_post_hook",
    "parameters",
    "named_parameters",
    "buffers",
    "named_buffers",
    "children",
    "named_children",
    "modules",
    "named_modules",
    "train",
    "eval",
    "requires_grad_",
    "zero_grad",
    "share_memory",
    "extra_repr",
    "compile",
];

/// Whether a dotted path names `torch.nn.Module`.
fn is_module_base(path: &str) -> bool {
    matches!(path, "torch.nn.Module" | "torch.nn.modules.module.Module" | "nn.Module")
}

/// Whether an outside base is a plain Python one (`abc.ABC`, `typing.Generic`, `enum.Enum`):
/// a class deriving only from such is as cheap to build as one with no outside base.
pub fn is_plain_python_base(path: &str) -> bool {
    let module = path.split('.').next().unwrap_or(path);
    matches!(module, "abc" | "typing" | "typing_extensions" | "enum" | "collections" | "builtins")
        || matches!(path, "object" | "ABC" | "Generic" | "Protocol")
}

impl Interp<'_, '_> {
    /// Whether `attr` is known not to be set on the instance `id` of `class` that the tree never
    /// set it on: the loader's phase went through it, and the class's only outside base is
    /// `nn.Module`, which does not have it either.
    pub fn unset_module_attribute(&self, id: HeapId, class: ClassId, attr: &str) -> bool {
        if !self.loaded.contains(&id) || attr.starts_with('_') || MODULE_ATTRIBUTES.contains(&attr) {
            return false;
        }
        let mro = self.resolver.mro(class);
        !mro.external.is_empty() && mro.problems.is_empty() && mro.external.iter().all(|e| is_module_base(e))
    }

    /// Whether no code can have set `attr` on an instance of `class` before it is read: no
    /// class of its MRO in the tree binds it or assigns `self.attr` in a method, and its outside
    /// bases are `nn.Module` and `abc.ABC` alone, which do not have it. A feature flag read with
    /// a default (`getattr(quant_method, "fuse_routed_scaling_factor_in_topk", False)` on a
    /// method class that does not declare it) is then the default, not a configuration of its
    /// own. (Writes from outside the class, `method.flag = ...`, are the exception this misses;
    /// the tree's classes declare such flags in their bodies.)
    pub fn never_set_on(&self, class: ClassId, attr: &str) -> bool {
        if attr.starts_with('_') || MODULE_ATTRIBUTES.contains(&attr) {
            return false;
        }
        let mro = self.resolver.mro(class);
        !mro.external.is_empty()
            && mro.problems.is_empty()
            && mro.external.iter().all(|e| is_module_base(e) || e == "abc.ABC")
            && mro.classes.iter().all(|c| {
                let class = self.index.class(*c);
                !class.attr_writes.iter().any(|w| w.name.as_str() == attr)
                    && !class.body.iter().any(|b| b.name.as_str() == attr)
            })
    }

    /// Whether reading `attr` from an instance of `class` that holds no such field raises
    /// `AttributeError`, because nothing can have set it: no class of its MRO binds it or
    /// assigns `self.attr`, none sets attributes by name (`setattr`, `__dict__`,
    /// `__setattr__`, `__getattr__`), its outside bases are `nn.Module` and `abc.ABC` alone (or
    /// none), and no code of the tree sets an attribute of that name on another object
    /// (`layer.flag = ...`, `setattr(layer, "flag", ...)`). `setattr` with a name computed at
    /// run time on another object is the case this cannot see.
    pub fn cannot_have_attribute(&self, class: ClassId, attr: &str) -> bool {
        if attr.starts_with('_') || MODULE_ATTRIBUTES.contains(&attr) || self.index.set_from_outside(attr) {
            return false;
        }
        let mro = self.resolver.mro(class);
        mro.problems.is_empty()
            && mro.external.iter().all(|e| is_module_base(e) || e == "abc.ABC")
            && mro.classes.iter().all(|c| {
                let facts = self.index.class(*c);
                let text = crate::syntax::snippet(&self.index.file(facts.file).text, facts.range);
                !facts.attr_writes.iter().any(|w| w.name.as_str() == attr)
                    && !facts.body.iter().any(|b| b.name.as_str() == attr)
                    && !["setattr(", "__dict__", "__setattr__", "__getattr__", "__getattribute__"]
                        .iter()
                        .any(|dynamic| text.contains(dynamic))
            })
    }

    /// Whether every write of `self.attr` in `class` and its bases of the tree gives a value
    /// that is never `None`: an instance (`nn.Parameter(...)`, a call of a capitalized name),
    /// a tensor (`torch.zeros(...)`), a literal or a container. Read from a module whose
    /// constructor is not evaluated, such a field is a symbol; this keeps `field is None` from
    /// being a configuration of its own (vLLM's LongCat router always sets its
    /// `e_score_correction_bias`).
    pub fn written_never_none(&self, class: ClassId, attr: &str) -> bool {
        let mro = self.resolver.mro(class);
        let mut any = false;
        for c in mro.classes.iter() {
            let facts = self.index.class(*c);
            for write in facts.attr_writes.iter().filter(|w| w.name.as_str() == attr) {
                let Some(span) = write.value.filter(|_| !write.augmented) else { return false };
                let text = crate::syntax::snippet(&self.index.file(facts.file).text, span);
                let Ok(parsed) = ruff_python_parser::parse_expression(&format!("({text})")) else { return false };
                if !never_none(parsed.expr()) {
                    return false;
                }
                any = true;
            }
        }
        any
    }

    /// Whether `class` is a `torch.nn.Module` (an outside base of its MRO is).
    pub fn is_module_class(&self, class: ClassId) -> bool {
        self.resolver.mro(class).external.iter().any(|e| is_module_base(e))
    }

    /// Whether `attr` of an instance of `class` is one of `nn.Module`'s registration methods
    /// (and the tree does not define its own).
    pub fn is_registration_method(&self, class: ClassId, attr: &str) -> bool {
        REGISTRATION_METHODS.contains(&attr) && self.is_module_class(class)
    }

    /// `module.register_parameter(name, value)` and the like: the attribute `name` is set.
    pub fn register_on_module(&mut self, id: HeapId, args: &Args, pc: &Cond) -> G {
        let by_position = |i: usize| args.positional.get(i).map(|a| a.value.clone());
        let by_keyword = |names: &[&str]| {
            args.keywords.iter().find(|(k, _)| names.contains(&k.as_str())).map(|(_, a)| a.value.clone())
        };
        let name = by_position(0).or_else(|| by_keyword(&["name"]));
        let value = by_position(1).or_else(|| by_keyword(&["param", "tensor", "module"]));
        if let (Some(name), Some(value)) = (name, value)
            && let Some(Value::Const(crate::syntax::Constant::Str(name))) = name.single()
        {
            let name = ruff_python_ast::name::Name::new(name.as_str());
            self.set_field(id, &name, value.restrict(&self.conds, pc), pc);
        }
        G::under(*pc, Value::none())
    }
}

/// An expression whose value is never `None` (see `Interp::written_never_none`).
fn never_none(expr: &ruff_python_ast::Expr) -> bool {
    use ruff_python_ast::Expr;
    match expr {
        Expr::NumberLiteral(_)
        | Expr::StringLiteral(_)
        | Expr::BytesLiteral(_)
        | Expr::FString(_)
        | Expr::BooleanLiteral(_)
        | Expr::List(_)
        | Expr::Tuple(_)
        | Expr::Dict(_)
        | Expr::Set(_)
        | Expr::ListComp(_)
        | Expr::SetComp(_)
        | Expr::DictComp(_)
        | Expr::Lambda(_) => true,
        Expr::If(e) => never_none(&e.body) && never_none(&e.orelse),
        Expr::Call(call) => crate::syntax::dotted_name(&call.func).is_some_and(|name| {
            let last = name.rsplit('.').next().unwrap_or(&name);
            name.starts_with("torch.") || last.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        }),
        _ => false,
    }
}
