//! The command line, as clap derive types. `main.rs` turns these into queries.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Debug, Parser)]
#[command(
    name = "scaletrace",
    version,
    about = "Answers how values flow through a Python codebase, without running it.",
    long_about = "Answers how values flow through a Python codebase, without running it: who constructs a class, \
what a parameter is bound to at every call site, which class provides a method, and how many times a \
scale factor is applied on a forward path in each configuration.",
    after_help = "Exit codes: 0 answered (trace: ONCE); 1 trace found a double, missing or inverse application; \
2 usage error or unknown name; 3 trace could not decide (UNKNOWN); 101 internal error."
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// A directory (or file) to analyze, as a `sys.path` entry; repeat for several. A directory
    /// that is itself a package is analyzed from its nearest non-package ancestor.
    #[arg(short = 'r', long = "root", global = true, default_value = ".", value_name = "DIR")]
    pub roots: Vec<PathBuf>,
    /// Output format.
    #[arg(long, global = true, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Files larger than this many bytes are skipped with a warning.
    #[arg(long, global = true, default_value_t = crate_max_file_size(), value_name = "BYTES")]
    pub max_file_size: u64,
    /// Worker threads (default: one per core). The output does not depend on it.
    #[arg(short = 'j', long, global = true, value_name = "N")]
    pub threads: Option<usize>,
    /// Do not print warnings about the input (unreadable files, syntax errors) on stderr.
    #[arg(short, long, global = true)]
    pub quiet: bool,
}

fn crate_max_file_size() -> u64 {
    scaletrace::parse::DEFAULT_MAX_FILE_SIZE
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Every site that constructs CLASS: direct calls, aliases, module attributes, conditional
    /// class expressions, factories, cls(...) and type(self)(...), with the arguments bound to
    /// __init__ and the conditions around each site.
    Instances {
        /// Dotted path (pkg.mod.Class) or bare class name.
        class: String,
        /// Also list constructions of CLASS's subclasses.
        #[arg(long)]
        subclasses: bool,
    },
    /// Every value bound to PARAM at every call site of CALLABLE, with its constant value or
    /// where the value comes from (one hop).
    #[command(
        override_usage = "scaletrace bindings [OPTIONS] <CALLABLE> <PARAM>\n       scaletrace bindings [OPTIONS] --any <PARAM>"
    )]
    Bindings {
        /// A class (its constructor), function or Class.method.
        #[arg(required_unless_present = "any")]
        callable: Option<String>,
        /// The parameter name.
        #[arg(required_unless_present = "any")]
        param: Option<String>,
        /// Every callable of the tree that has a parameter named PARAM.
        #[arg(long, value_name = "PARAM", conflicts_with_all = ["callable", "param"])]
        any: Option<String>,
    },
    /// Definition, bases, MRO, subclasses, which class provides each method, and where each
    /// instance attribute is set.
    Hierarchy {
        class: String,
        /// Only this method or attribute name.
        #[arg(long, value_name = "NAME")]
        member: Option<String>,
    },
    /// What a function (a factory) can return: each `return`, the conditions that lead to it,
    /// and what the returned expression denotes.
    Returns { function: String },
    /// Semantic references to a class, function, method or module: imports, reads, writes and

    /// calls that resolve to it (text matches that resolve elsewhere are not listed).
    Refs { name: String },
    /// How many times VALUE is applied on the output of ENTRY's forward path, in every
    /// configuration: the application sites with their evidence, the conditions, a table, a
    /// verdict (ONCE, TWICE, NEVER, INVERSE, MIXED, UNKNOWN).
    Trace(TraceArgs),
    /// Index the tree and print counts and diagnostics.
    Stats,
}

#[derive(Debug, Args)]
pub struct TraceArgs {
    /// The traced value: reads of `<obj>.VALUE`, `getattr(<obj>, "VALUE", ...)` and parameters
    /// named VALUE are its origins (e.g. `routed_scaling_factor`).
    pub value: String,
    /// The entry: `CLASS` (its `forward`) or `CLASS.METHOD`, dotted path or bare name.
    #[arg(long, value_name = "CLASS[.METHOD]")]
    pub entry: String,
    /// Fix an atom as the output names it (`_use_aiter=false`, `SGLANG_CUTLASS_MOE=1`,
    /// `config.model_type=deepseek_v4`, `quant_config=None`) or bind an unknown object to a
    /// class (`quant_config=Fp8Config`: an instance of it). VALUE is `true`/`false`, `None`, a
    /// number (which also matches the string of its digits), a class of the tree (a unique bare
    /// name or a dotted path), or else a string (in quotes, `NAME="triton"`, always a string).
    /// NAME may also be a test as printed (`'config.n_group > 1=true'`); the atoms list gives
    /// the spelling for each. Repeatable.
    #[arg(long = "assume", value_name = "NAME=VALUE")]
    pub assumes: Vec<String>,
    /// The platform the deployment runs on (cuda, rocm, npu, cpu, xpu, musa, mps, tpu, hpu): every
    /// platform predicate the evaluation meets, by the usual names (`is_cuda()`, `_is_hip`,
    /// `current_platform.is_rocm()`, `is_out_of_tree()`, PyTorch's `torch.cuda.is_available()`),
    /// is true for this platform and false for the others; PyTorch's `torch.version.cuda` and
    /// `torch.version.hip` are a version on the platform their build is for and `None`
    /// elsewhere. An `--assume` of the same name wins.
    #[arg(long, value_name = "NAME")]
    pub platform: Option<String>,
    /// Evaluate these methods in order on the entry object, sharing a dict-like `state`
    /// (two-batch-overlap op lists), instead of `forward`.
    #[arg(long, value_delimiter = ',', value_name = "A,B,C")]
    pub methods: Vec<String>,
    /// Only reads at this place are origins of the value (`path/to/file.py:LINE`, the path as
    /// the output prints it).
    #[arg(long, value_name = "FILE:LINE")]
    pub origin: Option<String>,
    /// Extra kernel models (TOML, see docs/kernel-models.md). Repeatable.
    #[arg(long = "kernels", value_name = "FILE")]
    pub kernels: Vec<PathBuf>,
    /// The evaluation budget: steps (statements and expressions evaluated) before the trace
    /// stops, reported as a bound. A smaller budget answers sooner, and less.
    #[arg(long, value_name = "N", default_value_t = scaletrace::eval::MAX_STEPS)]
    pub max_steps: usize,
    /// When a bound stops the evaluation, or cuts values holding scaled data where rows hold,
    /// it is answered again case by case: the value it branched on most takes each value the
    /// code compares it with, and none of them, each case evaluated on its own (first the case
    /// branched on most, with a quarter of the step budget: if a bound stops or widens it, or
    /// cuts it again where a cut alone made the answer not final, no split). The most cases
    /// made (0: never split).
    #[arg(long, value_name = "N", default_value_t = scaletrace::eval::split::MAX_CASES)]
    pub max_cases: usize,
    /// Alternatives one value keeps (a local, an attribute, a call's result, one per
    /// configuration that gives it a different value) before the rest are cut into an unknown,
    /// reported as a bound. Values of one scale are merged first. A larger bound answers more,
    /// slower. At least 2.
    #[arg(long, value_name = "N", default_value_t = scaletrace::eval::MAX_ALTERNATIVES)]
    pub max_alternatives: usize,
}
