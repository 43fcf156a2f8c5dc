//! `--platform NAME`: the platform a deployment runs on, as the assumptions it stands for.
//!
//! Serving stacks test their platform through predicates named by convention: `is_cuda()`,
//! `_is_hip = is_hip()` at module level, `current_platform.is_rocm()`,
//! `current_platform.is_out_of_tree()`. Choosing a platform fixes every such predicate the
//! evaluation meets: the chosen one (and the families it belongs to, `is_cuda_alike()`) true,
//! every other one false. Derived facts follow by evaluation (`_use_aiter =
//! get_bool_env_var(...) and _is_hip` is false on CUDA). Nothing here names a codebase: only
//! the predicate convention.

use super::interp::{Assume, AssumedValue};
use crate::syntax::Constant;

/// The platforms `--platform` knows, as their predicates name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Platform {
    Cuda,
    Rocm,
    Npu,
    Cpu,
    Xpu,
    Musa,
    Mps,
    Tpu,
    Hpu,
}

/// Every predicate word, with the platforms it holds on. `out_of_tree` (a platform plugin)
/// holds on none of the named ones.
const WORDS: &[(&str, &[Platform])] = &[
    ("cuda", &[Platform::Cuda]),
    ("cuda_alike", &[Platform::Cuda, Platform::Rocm]),
    ("hip", &[Platform::Rocm]),
    ("rocm", &[Platform::Rocm]),
    ("npu", &[Platform::Npu]),
    ("cpu", &[Platform::Cpu]),
    ("xpu", &[Platform::Xpu]),
    ("musa", &[Platform::Musa]),
    ("mps", &[Platform::Mps]),
    ("tpu", &[Platform::Tpu]),
    ("hpu", &[Platform::Hpu]),
    ("out_of_tree", &[]),
];

/// PyTorch's own device predicates, by the name a call of them prints as, with the platforms
/// they hold on. ROCm builds of PyTorch answer for HIP as `torch.cuda`.
const TORCH_DEVICES: &[(&str, &[Platform])] = &[
    ("torch.cuda.is_available()", &[Platform::Cuda, Platform::Rocm]),
    ("torch.xpu.is_available()", &[Platform::Xpu]),
    ("torch.npu.is_available()", &[Platform::Npu]),
    ("torch.musa.is_available()", &[Platform::Musa]),
    ("torch.hpu.is_available()", &[Platform::Hpu]),
    ("torch.backends.mps.is_available()", &[Platform::Mps]),
];

/// PyTorch's build versions, with the platform a build that has one is for.
const TORCH_VERSIONS: &[(&str, Platform)] =
    &[("torch.version.cuda", Platform::Cuda), ("torch.version.hip", Platform::Rocm)];

impl Platform {
    /// The platform a `--platform` value names (`hip` is ROCm).
    pub fn parse(name: &str) -> Option<Platform> {
        Some(match name.to_ascii_lowercase().as_str() {
            "cuda" => Platform::Cuda,
            "rocm" | "hip" => Platform::Rocm,
            "npu" => Platform::Npu,
            "cpu" => Platform::Cpu,
            "xpu" => Platform::Xpu,
            "musa" => Platform::Musa,
            "mps" => Platform::Mps,
            "tpu" => Platform::Tpu,
            "hpu" => Platform::Hpu,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Platform::Cuda => "cuda",
            Platform::Rocm => "rocm",
            Platform::Npu => "npu",
            Platform::Cpu => "cpu",
            Platform::Xpu => "xpu",
            Platform::Musa => "musa",
            Platform::Mps => "mps",
            Platform::Tpu => "tpu",
            Platform::Hpu => "hpu",
        }
    }

    /// Whether an atom, as the output names it, is one of the predicates `--platform` fixes
    /// (`_is_hip`, `current_platform.is_rocm()`).
    pub fn tests_platform(atom: &str) -> bool {
        let name = atom.strip_prefix("not ").unwrap_or(atom);
        TORCH_DEVICES.iter().any(|(predicate, _)| name == *predicate)
            || Platform::build_of(name).is_some()
            || WORDS.iter().any(|(word, _)| {
                name == format!("_is_{word}")
                    || name == format!("is_{word}()")
                    || name.ends_with(&format!(".is_{word}()"))
            })
    }

    /// The platform a PyTorch build version is set on, by the name of the version or of its
    /// test for `None` (`torch.version.hip`, `torch.version.cuda == None`): on every other
    /// platform the version is `None`, and where set it is a version string, never empty.
    pub fn build_of(atom: &str) -> Option<&'static [Platform]> {
        let name = atom.strip_suffix(" == None").unwrap_or(atom);
        let (_, built_for) = TORCH_VERSIONS.iter().find(|(version, _)| name == *version)?;
        Some(std::slice::from_ref(built_for))
    }

    /// The platforms a predicate holds on, by the name an atom prints as (`_is_hip`,
    /// `current_platform.is_rocm()`, `torch.cuda.is_available()`); `None` for any other atom.
    pub fn holds_on(atom: &str) -> Option<&'static [Platform]> {
        if let Some((_, holds_on)) = TORCH_DEVICES.iter().find(|(predicate, _)| atom == *predicate) {
            return Some(holds_on);
        }
        let word = atom
            .strip_prefix("_is_")
            .or_else(|| atom.strip_suffix("()").and_then(|call| call.rsplit('.').next()?.strip_prefix("is_")))?;
        WORDS.iter().find(|(w, _)| *w == word).map(|(_, holds_on)| *holds_on)
    }

    /// The assumptions the platform stands for: `is_WORD()` (a call, or a method of anything:
    /// `current_platform.is_WORD()`) and `_is_WORD` (the module variable that holds it), for
    /// every predicate word; and PyTorch's device predicates (`torch.cuda.is_available()`).
    pub fn assumptions(self) -> Vec<Assume> {
        let words = WORDS
            .iter()
            .flat_map(|(word, holds_on)| [(format!("is_{word}()"), *holds_on), (format!("_is_{word}"), *holds_on)]);
        let devices = TORCH_DEVICES.iter().map(|(predicate, holds_on)| (predicate.to_string(), *holds_on));
        let predicates = words.chain(devices).map(|(name, holds_on)| Assume {
            name,
            value: AssumedValue::Const(Constant::Bool(holds_on.contains(&self))),
            used: std::cell::Cell::new(false),
            from_platform: Some(self),
        });
        // PyTorch's build versions: a version string on the platform it was built for, `None`
        // elsewhere (`if torch.version.hip:`, `torch.version.cuda is not None`).
        let versions = TORCH_VERSIONS.iter().map(|(name, built_for)| Assume {
            name: name.to_string(),
            value: AssumedValue::Const(if *built_for == self {
                Constant::Str("version".into())
            } else {
                Constant::None
            }),
            used: std::cell::Cell::new(false),
            from_platform: Some(self),
        });
        predicates.chain(versions).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predicates_name_the_platforms_they_hold_on() {
        assert_eq!(Platform::holds_on("_is_hip"), Some(&[Platform::Rocm][..]));
        assert_eq!(Platform::holds_on("current_platform.is_rocm()"), Some(&[Platform::Rocm][..]));
        assert_eq!(Platform::holds_on("is_cuda_alike()"), Some(&[Platform::Cuda, Platform::Rocm][..]));
        assert_eq!(Platform::holds_on("torch.cuda.is_available()"), Some(&[Platform::Cuda, Platform::Rocm][..]));
        assert_eq!(Platform::holds_on("is_out_of_tree()"), Some(&[][..]));
        assert_eq!(Platform::holds_on("get_moe_a2a_backend().is_none()"), None);
        assert_eq!(Platform::build_of("torch.version.hip"), Some(&[Platform::Rocm][..]));
        assert_eq!(Platform::build_of("torch.version.cuda == None"), Some(&[Platform::Cuda][..]));
        assert_eq!(Platform::build_of("torch.version.git_version"), None);
        assert_eq!(Platform::holds_on("_is_cpu_amx_available"), None);
        assert_eq!(Platform::holds_on("_use_aiter"), None);
    }

    #[test]
    fn cuda_is_cuda_and_cuda_alike_and_nothing_else() {
        let truths: Vec<(String, bool)> = Platform::Cuda
            .assumptions()
            .into_iter()
            .map(|a| (a.name, matches!(a.value, AssumedValue::Const(Constant::Bool(true)))))
            .collect();
        let holding: Vec<&str> = truths.iter().filter(|(_, t)| *t).map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            holding,
            ["is_cuda()", "_is_cuda", "is_cuda_alike()", "_is_cuda_alike", "torch.cuda.is_available()"]
        );
        assert!(Platform::tests_platform("not torch.cuda.is_available()"));
        assert!(truths.iter().any(|(n, t)| n == "is_out_of_tree()" && !t));
        assert_eq!(Platform::parse("HIP"), Some(Platform::Rocm));
        assert_eq!(Platform::parse("cuda12"), None);
    }
}
