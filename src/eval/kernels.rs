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
    /// The parameter that carries the factor: by keyword name, and by position. A model may
    /// leave it out when it only says what the callee returns (`returns`).
    pub factor: Option<ArgRef>,
    /// `always`, `never`, or `when` (then `when` says under which argument values); given
    /// with `factor`.
    pub applies: Option<Applies>,
    #[serde(default)]
    pub when: Vec<ArgTest>,
    /// The callee's parameters in positional order (`self` left out), so that `returns` can
    /// name an argument however it is passed.
    #[serde(default)]
    pub params: Vec<String>,
    /// What the callee returns, item by item, when it moves tensors rather than computing
    /// from them (a communication library's `dispatch`): each item is the argument it hands
    /// back, or the product of several, or none of the caller's data. Without it, what an
    /// outside callee returns has the scales of everything passed to it.
    pub returns: Option<Vec<Returned>>,
    /// The argument the kernel writes its result into, when it does (rather than returning it).
    pub output: Option<ArgRef>,
    /// A slot of the output the kernel weights by a power of the factor whatever `applies`
    /// says: a routing kernel's fused shared-expert slot, set to the routed weights' sum
    /// divided by the factor (`exponent = -1`) when shared experts are fused (`when`).
    pub shared_slot: Option<SharedSlot>,
    /// Why the model says so (a docstring, a wrapper's code), shown with delegated sites.
    pub source: String,
}

/// See [`KernelModel::shared_slot`]: the slot's power of the factor, and the tests on other
/// arguments under which the slot exists (all must hold; none: always).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SharedSlot {
    pub exponent: i32,
    #[serde(default)]
    pub when: Vec<ArgTest>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArgRef {
    pub name: String,
    pub position: Option<usize>,
}

/// One item a callee returns: the arguments (by parameter name) whose scales it has — one
/// argument handed back as it is, or several multiplied together — or, with `from` empty,
/// none of the caller's data (a count, a handle, an event).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Returned {
    #[serde(default)]
    pub from: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Applies {
    Always,
    Never,
    When,
}

/// "argument `arg` is truthy" (no `equals` nor `greater`), "argument `arg` equals `equals`" or
/// "argument `arg` is greater than `greater`" (a count a kernel tests `> 0`); several tests must
/// all hold. `default` is the value when the argument is not passed.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArgTest {
    pub arg: String,
    pub position: Option<usize>,
    pub equals: Option<toml::Value>,
    pub greater: Option<toml::Value>,
    #[serde(default)]
    pub negate: bool,
    pub default: Option<toml::Value>,
}

#[derive(Clone, Debug, Default)]
pub struct KernelModels {
    pub models: Vec<KernelModel>,
}

impl KernelModel {
    /// Whether an argument passed as `name` (by keyword) or at `position` is the one the
    /// model names as carrying the factor.
    pub fn names_factor(&self, name: Option<&str>, position: Option<usize>) -> bool {
        self.factor.as_ref().is_some_and(|factor| {
            name == Some(factor.name.as_str()) || (position.is_some() && position == factor.position)
        })
    }
}

impl KernelModels {
    /// The built-in models plus those in `extra` files (read by the caller).
    pub fn load(extra: &[(String, String)]) -> Result<KernelModels, String> {
        let mut models = Vec::new();
        let builtin: ModelFile = toml::from_str(BUILTIN).map_err(|e| format!("built-in kernel models: {e}"))?;
        builtin.check().map_err(|e| format!("built-in kernel models: {e}"))?;
        models.extend(builtin.kernels);
        for (name, text) in extra {
            let file: ModelFile = toml::from_str(text).map_err(|e| format!("{name}: {e}"))?;
            file.check().map_err(|e| format!("{name}: {e}"))?;
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

impl ModelFile {
    /// What the TOML grammar cannot say: `factor` and `applies` go together, a model says
    /// something (a factor or what is returned), and `returns` names parameters of `params`.
    fn check(&self) -> Result<(), String> {
        for model in &self.kernels {
            let callee = &model.callee;
            match (&model.factor, model.applies) {
                (Some(_), None) => return Err(format!("kernel `{callee}`: `factor` needs `applies`")),
                (None, Some(_)) => return Err(format!("kernel `{callee}`: `applies` needs `factor`")),
                (None, None) if model.returns.is_none() => {
                    return Err(format!("kernel `{callee}`: a model needs `factor` and `applies`, or `returns`"));
                }
                _ => {}
            }
            if model.shared_slot.is_some() && model.factor.is_none() {
                return Err(format!("kernel `{callee}`: `shared_slot` needs `factor`"));
            }
            let mut tests = model.when.iter().chain(model.shared_slot.iter().flat_map(|slot| slot.when.iter()));
            if let Some(test) = tests.find(|t| t.equals.is_some() && t.greater.is_some()) {
                return Err(format!("kernel `{callee}`: the test of `{}` has both `equals` and `greater`", test.arg));
            }
            if model.applies == Some(Applies::When) && model.when.is_empty() {
                return Err(format!("kernel `{callee}`: `applies = \"when\"` needs `when`"));
            }
            for item in model.returns.iter().flatten() {
                if let Some(unknown) = item.from.iter().find(|name| !model.params.contains(name)) {
                    return Err(format!("kernel `{callee}`: `returns` names `{unknown}`, which is not in `params`"));
                }
            }
        }
        Ok(())
    }
}

impl KernelModel {
    /// The position of parameter `name` in `params`.
    pub fn position_of(&self, name: &str) -> Option<usize> {
        self.params.iter().position(|p| p == name)
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
        assert_eq!(found.applies, Some(Applies::Never));
        assert!(models.find("vendor.other_kernel").is_none());
    }

    #[test]
    fn a_model_must_say_something_consistent() {
        let load = |text: &str| KernelModels::load(&[("extra".into(), text.into())]).map(|_| ());
        let head = "[[kernel]]\ncallee = \"k\"\nsource = \"test\"\n";
        assert!(load(head).unwrap_err().contains("needs `factor` and `applies`, or `returns`"));
        assert!(load(&format!("{head}factor = {{ name = \"f\" }}\n")).unwrap_err().contains("needs `applies`"));
        let unnamed = format!("{head}params = [\"x\"]\nreturns = [{{ from = [\"y\"] }}]\n");
        assert!(load(&unnamed).unwrap_err().contains("`y`, which is not in `params`"));
        assert!(load(&format!("{head}params = [\"x\"]\nreturns = [{{ from = [\"x\"] }}, {{}}]\n")).is_ok());
        let slot = "shared_slot = { exponent = -1 }\n";
        let returns_only = format!("{head}params = [\"x\"]\nreturns = [{{ from = [\"x\"] }}]\n{slot}");
        assert!(load(&returns_only).unwrap_err().contains("`shared_slot` needs `factor`"));
        assert!(load(&format!("{head}factor = {{ name = \"f\" }}\napplies = \"never\"\n{slot}")).is_ok());
        // A test is truthiness, an equality or a comparison: not two at once.
        let when = |test: &str| format!("{head}factor = {{ name = \"f\" }}\napplies = \"when\"\nwhen = [{test}]\n");
        assert!(load(&when("{ arg = \"n\", greater = 0 }")).is_ok());
        let both = when("{ arg = \"n\", equals = 1, greater = 0 }");
        assert!(load(&both).unwrap_err().contains("both `equals` and `greater`"));
    }
}
