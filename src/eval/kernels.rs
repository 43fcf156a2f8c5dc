//! Kernel models: what callees outside the tree do with a scale factor passed to them.
//!
//! Without a model, passing the traced value to an outside callee counts as applying it (a
//! delegated application), so a verdict never hides it. A model says which argument carries the
//! factor and when the kernel applies it. Models are data (TOML, see docs/kernel-models.md); the
//! built-in set is `kernels/models.toml`, and `--kernels FILE` adds more.

use serde::Deserialize;

use crate::syntax::Constant;

/// The models shipped with scaletrace.
pub const BUILTIN: &str = include_str!("../../kernels/models.toml");

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelFile {
    #[serde(default, rename = "kernel")]
    pub kernels: Vec<KernelModel>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KernelModel {
    /// Dotted name of the callee, matched against the end of its resolved path
    /// (`sgl_kernel.moe_fused_gate` matches `sgl_kernel.moe_fused_gate` and
    /// `sgl_kernel.ops.moe_fused_gate`).
    pub callee: String,
    /// The parameter that carries the factor: by keyword name, and by position.
    pub factor: ArgRef,
    /// `always`, `never`, or `when` (then `when` says under which argument values).
    pub applies: Applies,
    #[serde(default)]
    pub when: Vec<ArgTest>,
    /// The argument the kernel writes its result into, when it does (rather than returning it).
    pub output: Option<ArgRef>,
    /// Why the model says so (a docstring, a wrapper's code), shown with delegated sites.
    pub source: String,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArgRef {
    pub name: String,
    pub position: Option<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Applies {
    Always,
    Never,
    When,
}

/// "argument `arg` is truthy" (no `equals`) or "argument `arg` equals `equals`"; several tests
/// must all hold. `default` is the value when the argument is not passed.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArgTest {
    pub arg: String,
    pub position: Option<usize>,
    pub equals: Option<toml::Value>,
    #[serde(default)]
    pub negate: bool,
    pub default: Option<toml::Value>,
}

#[derive(Clone, Debug, Default)]
pub struct KernelModels {
    pub models: Vec<KernelModel>,
}

impl KernelModels {
    /// The built-in models plus those in `extra` files (read by the caller).
    pub fn load(extra: &[(String, String)]) -> Result<KernelModels, String> {
        let mut models = Vec::new();
        let builtin: ModelFile = toml::from_str(BUILTIN).map_err(|e| format!("built-in kernel models: {e}"))?;
        models.extend(builtin.kernels);
        for (name, text) in extra {
            let file: ModelFile = toml::from_str(text).map_err(|e| format!("{name}: {e}"))?;
            models.extend(file.kernels);
        }
        Ok(KernelModels { models })
    }

    /// The model for a callee path, if any: the longest matching `callee`.
    pub fn find(&self, path: &str) -> Option<&KernelModel> {
        self.models
            .iter()
            .filter(|m| path == m.callee || path.ends_with(&format!(".{}", m.callee)) || last(path) == m.callee)
            .max_by_key(|m| m.callee.len())
    }
}

fn last(path: &str) -> &str {
    path.rsplit('.').next().unwrap_or(path)
}

/// A TOML scalar as a Python constant.
pub fn toml_constant(value: &toml::Value) -> Option<Constant> {
    match value {
        toml::Value::Boolean(b) => Some(Constant::Bool(*b)),
        toml::Value::Integer(i) => Some(Constant::Int(*i)),
        toml::Value::Float(f) => Some(Constant::Float(*f)),
        toml::Value::String(s) if s == "None" => Some(Constant::None),
        toml::Value::String(s) => Some(Constant::Str(s.clone())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_models_parse() {
        let models = KernelModels::load(&[]).unwrap();
        assert!(!models.models.is_empty());
    }

    #[test]
    fn longest_suffix_wins() {
        let models = KernelModels::load(&[(
            "extra".into(),
            "[[kernel]]\ncallee = \"pkg.scale_kernel\"\nfactor = { name = \"scale\" }\napplies = \"never\"\nsource = \"test\"\n".into(),
        )])
        .unwrap();
        let found = models.find("vendor.pkg.scale_kernel").unwrap();
        assert_eq!(found.applies, Applies::Never);
        assert!(models.find("vendor.other_kernel").is_none());
    }
}
