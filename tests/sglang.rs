//! The structural questions on the real test bed, SGLang 0.5.23 from PyPI, with the answers
//! established by reading its code (see docs/walkthrough-sglang.md). The wheel is fetched by
//! scripts/fetch-sglang.sh; without network the test says so and passes without checking.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

/// The unpacked wheel, fetched once per test run (the script also locks against other runs).
fn sglang_tree() -> Option<PathBuf> {
    static TREE: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    TREE.get_or_init(|| fetch("0.5.23")).clone()
}

/// Another release, for a bug it shipped with.
fn fetch(version: &str) -> Option<PathBuf> {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/fetch-sglang.sh");
    let out = Command::new("bash").arg(script).env("SGLANG_VERSION", version).output().ok()?;
    if !out.status.success() {
        eprintln!("SKIPPED: SGLang {version} is not available ({})", String::from_utf8_lossy(&out.stderr).trim());
        return None;
    }
    Some(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

fn query(tree: &PathBuf, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_scaletrace"))
        .arg("--root")
        .arg(tree)
        .args(args)
        .args(["--format", "json"])
        .output()
        .expect("scaletrace runs");
    assert!(out.status.success(), "{args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

fn at(site: &Value, path: &str, line: u64) -> bool {
    site["location"]["path"] == path && site["location"]["line"] == line
}

#[test]
fn sglang_structural_questions() {
    let Some(tree) = sglang_tree() else { return };

    // Where is HashTopK instantiated? Once, in DeepseekV2MoE.__init__, for hash layers.
    let hash = query(&tree, &["instances", "HashTopK"]);
    let sites = hash["sites"].as_array().unwrap();
    assert_eq!(sites.len(), 1, "{hash:#}");
    let site = &sites[0];
    assert!(at(site, "sglang/srt/models/deepseek_v2.py", 771));
    assert_eq!(site["enclosing"], "DeepseekV2MoE.__init__");
    assert_eq!(site["conditions"][0]["text"], "self.is_hash and not (is_nextn and is_deepseek_v4)");
    let flag = site["arguments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["param"] == "apply_routed_scaling_factor_on_output")
        .unwrap();
    assert_eq!(flag["values"][0]["code"], "self.experts.should_fuse_routed_scaling_factor_in_topk");

    // Every binding of apply_routed_scaling_factor_on_output, including through topk_kwargs.
    let flag = query(&tree, &["bindings", "--any", "apply_routed_scaling_factor_on_output"]);
    let sites = flag["sites"].as_array().unwrap();
    let hash_site =
        sites.iter().find(|s| at(s, "sglang/srt/models/deepseek_v2.py", 771)).expect("HashTopK(...) binding");
    let origins = &hash_site["values"][0]["origins"];
    assert!(
        origins.as_array().unwrap().iter().any(|o| o["kind"] == "attribute_write"
            && o["location"]["path"] == "sglang/srt/layers/moe/fused_moe_triton/layer.py"
            && o["location"]["line"] == 615),
        "the flag is FusedMoE.should_fuse_routed_scaling_factor_in_topk, set at layer.py:615: {origins:#}"
    );
    let topk_site =
        sites.iter().find(|s| at(s, "sglang/srt/models/deepseek_v2.py", 828)).expect("TopK(**topk_kwargs) binding");
    assert_eq!(topk_site["callee"], "sglang.srt.layers.moe.topk.TopK.__init__");
    let values = topk_site["values"].as_array().unwrap();
    assert_eq!(values.len(), 2, "dict(...) entry and the DSV4 update: {values:?}");
    assert_eq!(values[0]["source"], "dict");
    assert_eq!(values[0]["location"]["line"], 797);
    assert_eq!(values[0]["overridden"], true);
    assert_eq!(values[1]["location"]["line"], 823);
    assert!(values[1]["conditions"].as_array().unwrap().iter().any(|c| c["text"] == "is_deepseek_v4"));
    for (path, line) in [
        ("sglang/srt/models/nemotron_h.py", 291),
        ("sglang/srt/models/kimi_k3.py", 524),
        ("sglang/srt/models/glm4_moe_lite.py", 223),
    ] {
        assert!(sites.iter().any(|s| at(s, path, line)), "missing {path}:{line}");
    }

    // The origin of self.mlp in DeepSeek V4's decoder layers: deepseek_v2.DeepseekV2MoE.
    let layer = query(&tree, &["hierarchy", "DeepseekV4CudaDecoderLayer", "--member", "mlp"]);
    let mro: Vec<&str> = layer["mro"].as_array().unwrap().iter().map(|m| m["path"].as_str().unwrap()).collect();
    assert_eq!(
        mro,
        [
            "sglang.srt.models.deepseek_v4.DeepseekV4CudaDecoderLayer",
            "sglang.srt.models.deepseek_v4.DeepseekV4DecoderLayerBase",
            "torch.nn.Module"
        ]
    );
    let mlp = &layer["attributes"][0];
    assert_eq!(mlp["name"], "mlp");
    let write = &mlp["assignments"][0];
    assert_eq!(write["by"], "sglang.srt.models.deepseek_v4.DeepseekV4DecoderLayerBase.__init__");
    assert_eq!(write["location"]["line"], 3155);
    assert_eq!(write["holds"][0]["description"], "instance of sglang.srt.models.deepseek_v2.DeepseekV2MoE");
    let platform = query(&tree, &["hierarchy", "DeepseekV4PlatformDecoderLayer"]);
    assert!(
        platform["mro"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["path"] == "sglang.srt.models.deepseek_v4.DeepseekV4DecoderLayerBase")
    );

    // What get_moe_impl_class can return: FusedMoE, DeepEPMoE, FusedMoE.
    let factory = query(&tree, &["returns", "get_moe_impl_class"]);
    let returns: Vec<(u64, &str)> = factory["returns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["location"]["line"].as_u64().unwrap(), r["denotes"][0]["description"].as_str().unwrap()))
        .collect();
    assert_eq!(
        returns,
        [
            (354, "class sglang.srt.layers.moe.fused_moe_triton.layer.FusedMoE"),
            (364, "class sglang.srt.layers.moe.ep_moe.layer.DeepEPMoE"),
            (365, "class sglang.srt.layers.moe.fused_moe_triton.layer.FusedMoE"),
        ]
    );
    assert_eq!(factory["returns"][0]["conditions"][0]["text"], "get_moe_a2a_backend().is_mori_epv2()");

    // References to HashTopK: its definition, two imports, a call, an isinstance read.
    let refs = query(&tree, &["refs", "HashTopK"]);
    let kinds: Vec<&str> = refs["references"].as_array().unwrap().iter().map(|r| r["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["definition", "import", "read", "import", "call"]);
}

/// Runs `trace` (whose exit code carries the verdict) and returns its JSON.
fn trace(tree: &PathBuf, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_scaletrace"))
        .arg("--root")
        .arg(tree)
        .arg("trace")
        .args(args)
        .args(["--format", "json"])
        .output()
        .expect("scaletrace runs");
    assert!(matches!(out.status.code(), Some(0 | 1 | 3)), "{args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

/// No step or decision-diagram bound stopped the evaluation.
fn assert_evaluated_to_the_end(trace: &Value) {
    let bounds: Vec<&str> = trace["bounds"].as_array().unwrap().iter().map(|b| b["what"].as_str().unwrap()).collect();
    assert!(!bounds.iter().any(|b| b.contains("evaluation stopped") || b.contains("budget")), "{bounds:?}");
}

/// The atoms the rows' conditions (and printed examples) mention.
fn row_atoms(trace: &Value) -> Vec<&str> {
    let rows = trace["rows"].as_array().unwrap();
    rows.iter()
        .flat_map(|r| r["example"].as_array().into_iter().flatten())
        .chain(rows.iter().flat_map(|r| r["conditions"].as_array().unwrap().iter().flat_map(|p| p.as_array().unwrap())))
        .map(|l| l["atom"].as_str().unwrap())
        .collect()
}

/// The atom of KTransformers' CPU experts: FusedMoE wraps its method in `KTEPWrapperMethod`
/// exactly when `create_kt_config_from_server_args(...)` gives a config.
const KT: &str = "create_kt_config_from_server_args(server_args, layer_id) == None";

/// Whether every configuration of a row has `atom` at `value` (in each of its printed
/// products, or in its example where they are too many to print).
fn row_requires(row: &Value, atom: &str, value: bool) -> bool {
    let products = row["conditions"].as_array().unwrap();
    if products.is_empty() {
        holds(&row["example"], atom, value)
    } else {
        products.iter().all(|p| holds(p, atom, value))
    }
}

/// The sites of a row, as (path, line, exponent).
fn row_sites(row: &Value) -> Vec<(String, u64, i64)> {
    let mut out: Vec<(String, u64, i64)> = row["parts"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["sites"].as_array().unwrap().iter())
        .map(|s| {
            (
                s["location"]["path"].as_str().unwrap().to_string(),
                s["location"]["line"].as_u64().unwrap(),
                s["exponent"].as_i64().unwrap(),
            )
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

#[test]
fn sglang_trace_of_the_components() {
    let Some(tree) = sglang_tree() else { return };

    // HashTopK scales the routed weights exactly when it is asked to
    // (apply_routed_scaling_factor_on_output), and weights its fused shared-expert slot by
    // 1/factor on the torch path (hash_topk.py:183) and in the fused kernel (its call at
    // hash_topk.py:251, the JIT kernel's `is_shared ? 1.0f / routed_scaling_factor`), or fills
    // per-rank shared columns with it (topk.py:2515), which the MoE output multiply compensates.
    let hash = trace(&tree, &["routed_scaling_factor", "--entry", "sglang.srt.layers.moe.hash_topk.HashTopK"]);
    let rows = hash["rows"].as_array().unwrap();
    let path = "sglang/srt/layers/moe/hash_topk.py";
    // (Each row's configurations, product by product: with fused shared slots the constructor
    // raises when the flag is on (hash_topk.py:75), so a product may say `slots > 0`, or
    // `slots == 1`, which implies it, instead of the flag being off.)
    for row in rows {
        let sites = row_sites(row);
        let multiplies = sites.contains(&(path.to_string(), 265, 1));
        assert!(!row["conditions"].as_array().unwrap().is_empty(), "{row:#}");
        for product in row["conditions"].as_array().unwrap() {
            let flag_off = holds(product, "apply_routed_scaling_factor_on_output", false)
                || holds(product, "get_model().shared_experts.num_shared_topk_slots > 0", true)
                || holds(product, "get_model().shared_experts.num_shared_topk_slots == 1", true);
            assert_eq!(multiplies, !flag_off, "{row:#}");
        }
        if row["verdict"] == "INVERSE" {
            // The slot's 1/factor: at hash_topk.py:183, in the fused kernel called at 251, or
            // where the per-rank shared columns are filled with it (topk.py:2515, `new_full`).
            let shares = [
                (path.to_string(), 183, -1),
                (path.to_string(), 251, -1),
                ("sglang/srt/layers/moe/topk.py".to_string(), 2515, -1),
            ];
            assert!(!sites.is_empty() && sites.iter().all(|s| shares.contains(s)), "{row:#}");
        }
    }
    assert!(rows.iter().any(|r| r["verdict"] == "INVERSE" && row_sites(r) == [(path.to_string(), 183, -1)]));
    assert!(rows.iter().any(|r| r["verdict"] == "INVERSE" && row_sites(r) == [(path.to_string(), 251, -1)]));
    assert!(rows.iter().any(|r| r["verdict"] == "NEVER"));
    assert!(rows.iter().any(|r| r["verdict"] == "INVERSE"));
    assert_eq!(hash["untouched_outputs"], serde_json::json!([".router_logits", ".topk_ids"]));

    // Laguna scales the routed output itself, once, after the experts (the top-k it uses does
    // not receive the factor).
    let laguna = trace(&tree, &["moe_routed_scaling_factor", "--entry", "sglang.srt.models.laguna.LagunaMoE"]);
    assert_eq!(laguna["verdict"], "ONCE", "{laguna:#}");
    let rows = laguna["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(row_sites(&rows[0]), [("sglang/srt/models/laguna.py".to_string(), 217, 1)]);
    let vacuous: Vec<&str> =
        laguna["vacuous"].as_array().unwrap().iter().map(|v| v["condition"].as_str().unwrap()).collect();
    assert_eq!(vacuous, ["hidden_states.shape[0] == 0", "self.routed_scaling_factor == 1.0"]);
}

/// The walkthrough's question (section 3): DeepSeek V4's MoE block on CUDA, unquantized, no
/// all-to-all backend, no plugins, forced kernels or paged experts.
const ASSUMED_CUDA_V2: &[&str] = &[
    "routed_scaling_factor",
    "--entry",
    "sglang.srt.models.deepseek_v2.DeepseekV2MoE",
    "--assume",
    "is_deepseek_v4=true",
    "--assume",
    "quant_config=None",
    "--assume",
    "_use_aiter=false",
    "--assume",
    "_is_hip=false",
    "--assume",
    "get_moe_a2a_backend()=none",
    "--assume",
    "_is_cuda=true",
    "--assume",
    "_is_npu=false",
    "--assume",
    "_is_cpu=false",
    "--assume",
    "_is_xpu=false",
    "--assume",
    "_is_musa=false",
    // No out-of-tree platform plugin and no forced kernel backend (a debug switch):
    // `BaseFusedOp` then dispatches on the platform key, computed from `is_cuda()`.
    "--assume",
    "_oot_dispatch_key()=None",
    "--assume",
    "get_fused_op_backend()=None",
    // Paged experts (a server option) wrap the runner once more: followed when not
    // assumed away, they take the trace past its step bound.
    "--assume",
    "get_exec().moe.enable_paged_experts=false",
];

#[test]
fn sglang_trace_of_deepseek_v2_moe_on_cuda() {
    let Some(tree) = sglang_tree() else { return };
    // The walkthrough's question (section 3): DeepSeek V4's MoE block on CUDA, unquantized,
    // no all-to-all backend. Answered (walkthrough section 25): ONCE in every configuration,
    // with no bound hit; what each row shows is checked against the code below.
    let v2 = trace(&tree, ASSUMED_CUDA_V2);
    // It evaluates to the end: no step or decision-diagram bound stopped it.
    assert_evaluated_to_the_end(&v2);
    // ONCE wherever KTransformers' CPU experts are off. With them on (walkthrough section 39)
    // the block multiplies after the experts for the kt wrapper, and the GPU experts' runner,
    // handed the same runner config, applies the factor too: TWICE on their output (MIXED on
    // rank 0, where the CPU experts' output, scaled once, is added).
    assert_eq!(v2["verdict"], "MIXED", "{:#}", v2["rows"]);
    for row in v2["rows"].as_array().unwrap().iter().filter(|r| r["verdict"] != "ONCE") {
        assert!(row_requires(row, KT, false), "{row:#}");
    }
    assert_eq!(v2["bounds"].as_array().unwrap().len(), 0, "{:#}", v2["bounds"]);
    // `--platform cuda` stands for the eight platform assumptions among them (`_use_aiter`,
    // `get_bool_env_var(...) and _is_hip`, follows): the same rows.
    let platform_assumptions = ["_use_aiter", "_is_hip", "_is_cuda", "_is_npu", "_is_cpu", "_is_xpu", "_is_musa"];
    let mut by_platform: Vec<&str> = vec!["--platform", "cuda"];
    for pair in ASSUMED_CUDA_V2.windows(2).filter(|w| w[0] == "--assume") {
        if !platform_assumptions.iter().any(|p| pair[1].starts_with(&format!("{p}="))) {
            by_platform.extend(pair);
        }
    }
    by_platform.extend(&ASSUMED_CUDA_V2[..3]);
    let on_cuda = trace(&tree, &by_platform);
    // (Site texts may count one atom less: `_use_aiter` is then no atom at all. A condition
    // too large to print is compared by its rows' verdicts and sites only: how many atoms its
    // simplification keeps depends on the order atoms were made in.)
    let shape = |t: &Value| -> Vec<(Value, Value, Value, Vec<(String, u64, i64)>)> {
        let mut rows: Vec<_> = t["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let when = match r["when"].as_str() {
                    Some(w) if w.starts_with("(a condition over ") => Value::from("(too large to print)"),
                    _ => r["when"].clone(),
                };
                (r["verdict"].clone(), r["exponent"].clone(), when, row_sites(r))
            })
            .collect();
        rows.sort_by_key(|row| format!("{row:?}"));
        rows
    };
    assert_eq!(shape(&on_cuda), shape(&v2));
    // The all-to-all backend is the string "none": its predicates (`is_deepep()`, ...) are
    // decided by it, not left free.
    let rows = v2["rows"].as_array().unwrap();
    let literals = row_atoms(&v2);
    assert!(!literals.is_empty());
    assert!(!literals.iter().any(|a| a.starts_with("get_moe_a2a_backend()")), "{literals:?}");
    // The runner's registries are filled and the runner is built: neither is unresolved.
    let unresolved: Vec<&str> =
        v2["unresolved"].as_array().unwrap().iter().map(|u| u["what"].as_str().unwrap()).collect();
    // With the FlashInfer TRT-LLM bypass, forward_normal calls `self.topk.forward_cuda(...)`
    // (deepseek_v2.py:1176), which HashTopK (hash layers) does not have and nothing sets: those
    // configurations raise `AttributeError` and leave the table (it was an unknown method). Not
    // a bug in SGLang: the bypass is only turned on inside the dual-stream graph ops
    // (`get_forward().scoped(flashinfer_trtllm_bypass=True)`), which `_can_dual_stream_graph`
    // keeps from hash layers; the evaluator takes the flag for a free configuration.
    let hash_forward_cuda = |u: &&str| u.contains("`HashTopK.forward_cuda` is never set");
    assert!(!unresolved.iter().any(hash_forward_cuda), "{unresolved:?}");
    // Another imprecision, of merged alternatives: the DeepGEMM runner reached with another
    // runner's quant info (`quant_info.scale_recipes(...)`, deep_gemm.py:436), a pairing SGLang
    // never makes. Those classes do not have the method, so it reads as never set.
    let other_quant_info = |u: &&str| u.contains("MoeQuantInfo.scale_recipes` is never set");
    assert!(
        !unresolved
            .iter()
            .filter(|u| !hash_forward_cuda(u) && !other_quant_info(u))
            .any(|u| u.contains("PermuteMethodPool") || u.contains("never set")),
        "{unresolved:?}"
    );
    // On CUDA the multiply after the experts (deepseek_v2.py:1239) runs only for the kt
    // wrapper, which FusedMoE installs exactly when `create_kt_config_from_server_args(...)`
    // gives a config (fused_moe_triton/layer.py:489-497): every row with that site has one.
    // (A row some part of which holds values merged at the alternatives bound lists the sites
    // of all of them, each applying where it runs: not this check's evidence.)
    let merged = |row: &Value| row["parts"].as_array().unwrap().iter().any(|p| p["alternative_sites"] == true);
    let block_multiplies = |row: &Value| {
        row_sites(row)
            .iter()
            .any(|(path, line, _)| path == "sglang/srt/models/deepseek_v2.py" && [1239, 1422].contains(line))
    };
    for row in rows.iter().filter(|row| !merged(row) && block_multiplies(row)) {
        assert!(row_requires(row, KT, false), "{row:#}");
    }
    // The kt configurations themselves (fixed with `--assume`) show that multiply, with the GPU
    // experts' runner applying the factor as well (the Triton runner's `moe_sum_reduce`).
    let mut with_kt: Vec<&str> = ASSUMED_CUDA_V2.to_vec();
    with_kt.extend(["--assume", "create_kt_config_from_server_args(server_args, layer_id) == None=false"]);
    let kt_rows = trace(&tree, &with_kt);
    let kt_rows = kt_rows["rows"].as_array().unwrap();
    let twice = kt_rows.iter().find(|row| row["verdict"] == "TWICE" && block_multiplies(row)).expect("a TWICE row");
    assert!(
        row_sites(twice)
            .iter()
            .any(|(path, _, exponent)| path.ends_with("triton_utils/fused_moe.py") && *exponent == 1),
        "{twice:#}"
    );
    // The FlashInfer TRT-LLM runner with precomputed routing (`trtllm_bf16_routed_moe`,
    // flashinfer_trtllm.py:1760) is handed the factor but does not apply it (its kernel model):
    // the top-k weights it is given were scaled after routing (topk.py:3112), once.
    let fold_after_routing = |row: &&Value| {
        row_sites(row).iter().any(|(path, line, _)| path == "sglang/srt/layers/moe/topk.py" && *line == 3112)
    };
    assert!(rows.iter().any(|r| fold_after_routing(&r)), "{rows:#?}");
    for row in rows.iter().filter(fold_after_routing) {
        assert_eq!(row["verdict"], "ONCE", "{row:#}");
    }
    assert!(
        !rows.iter().flat_map(row_sites).any(|(path, line, _)| path.ends_with("flashinfer_trtllm.py") && line == 1760),
        "{rows:#?}"
    );
    // The Triton runner's own application (moe_combine_topk: the `moe_sum_reduce` kernels, the
    // torch.compile variant) reaches the output: its result travels back in place and inside
    // the combine record.
    let runner = "sglang/srt/layers/moe/moe_runner/triton_utils/fused_moe.py";
    let runner_lines = |rows: &[Value]| -> BTreeSet<u64> {
        rows.iter()
            .flat_map(row_sites)
            .filter(|(path, _, exponent)| path == runner && *exponent == 1)
            .map(|(_, line, _)| line)
            .collect()
    };
    let lines = runner_lines(rows);
    assert!(!lines.is_empty() && lines.is_subset(&BTreeSet::from([407, 995, 1008, 1020])), "{lines:?}");
    // The variants missing here (of fused_moe.py:407, 995, 1008, 1020) are among the
    // alternatives the runner's output loses at the alternatives bound, since the piecewise
    // operator is followed; the rows there say they are not final. (Each variant is checked
    // with the Triton backend fixed, below.)
    if ![407, 995, 1008, 1020].iter().all(|l| lines.contains(l)) {
        assert!(rows.iter().any(|r| r["cut_at_bound"] == true), "{rows:#?}");
    }
    // With the Triton backend fixed, every variant reaches the output.
    let mut triton_args: Vec<&str> = ASSUMED_CUDA_V2.to_vec();
    triton_args.extend(["--assume", "get_moe_runner_backend()=triton"]);
    let triton = trace(&tree, &triton_args);
    let triton_lines = runner_lines(triton["rows"].as_array().unwrap());
    assert_eq!(triton_lines, BTreeSet::from([407, 995, 1008, 1020]));
    // With the fused sum-all-reduce on, it is `out_slice.mul_` (fused_moe.py:995), and only it:
    // `out_slice` is the output buffer itself. (The runner's kernels no longer appear together in
    // one output: the alternatives a record holds are kept apart.)
    let mut fused_args: Vec<&str> = ASSUMED_CUDA_V2.to_vec();
    fused_args.extend([
        "--assume",
        "get_exec().moe.enable_fused_moe_sum_all_reduce=true",
        "--assume",
        "is_in_tc_piecewise_cuda_graph()=false",
    ]);
    let fused = trace(&tree, &fused_args);
    let fused_rows = fused["rows"].as_array().unwrap();
    // (The other sums, fused_moe.py:407, 1008 and 1020, are there too where `topk <= 2`: the
    // fused path needs `topk > 2`, fused_moe.py:638. Before values of one scale were merged at
    // the alternatives bound, 407 and 1008 were among those cut.)
    let fused_lines = runner_lines(fused_rows);
    assert!(
        fused_lines.contains(&995) && fused_lines.is_subset(&BTreeSet::from([407, 995, 1008, 1020])),
        "{fused_rows:#?}"
    );
    for row in fused_rows {
        if row_sites(row).iter().any(|(path, line, _)| path == runner && [407, 1008, 1020].contains(line)) {
            // (`topk == 1` says it too: it implies `not (topk > 2)`, which is then not printed.)
            let small_topk = |lits: &Value| {
                lits.as_array().unwrap().iter().any(|l| {
                    let atom = l["atom"].as_str().unwrap_or("");
                    (["topk_ids.shape[1] > 2", "topk > 2"].contains(&atom) && l["value"] == false)
                        || (["topk_ids.shape[1] == 1", "topk == 1"].contains(&atom) && l["value"] == true)
                })
            };
            let products = row["conditions"].as_array().unwrap();
            assert!(
                if products.is_empty() { small_topk(&row["example"]) } else { products.iter().all(small_topk) },
                "{row:#}"
            );
        }
    }
}

#[test]
fn sglang_afmoe_hands_its_factor_to_the_triton_runner_under_the_traced_name() {
    // AFMoE reads its factor as `route_scale` and passes it on as
    // `MoeRunnerConfig(routed_scaling_factor=self.route_scale)`: the runner's in-place sum
    // scales by it. It read "never read" and NEVER everywhere before that argument counted as
    // an origin (walkthrough section 16).
    let Some(tree) = sglang_tree() else { return };
    let mut args: Vec<String> = ASSUMED_CUDA_V2.iter().map(|a| a.to_string()).collect();
    args[2] = "sglang.srt.models.afmoe.AfmoeMoE".to_string();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let traced = trace(&tree, &args);
    assert!(traced.get("never_read").is_none(), "{traced:#}");
    let rows = traced["rows"].as_array().unwrap();
    let once: Vec<&Value> = rows.iter().filter(|r| r["verdict"] == "ONCE").collect();
    assert!(once.len() >= 8, "{rows:#?}");
    // Every ONCE row applies the factor in the Triton runner's sum.
    for row in &once {
        let sites = row_sites(row);
        assert!(sites.iter().any(|(path, _, exp)| path.ends_with("triton_utils/fused_moe.py") && *exp == 1), "{row:#}");
    }
}

#[test]
fn sglang_whole_deepseek_v4_is_answered_at_its_moe_blocks() {
    // The question on the whole model. `DeepseekV4ForCausalLM`'s own forward stops at
    // the decision-diagram bound in its layer plumbing (stage edges, layouts), before any MoE
    // output is complete. Its MoE blocks, `DeepseekV2MoE` as V4's decoder layers build them
    // (`is_deepseek_v4=True`, the vision bias from `config.model_type`), are then answered on
    // their own: hash-routed and top-k layers alike, ONCE wherever the evaluation decides.
    let Some(tree) = sglang_tree() else { return };
    let mut args: Vec<&str> = ASSUMED_CUDA_V2.to_vec();
    args[2] = "sglang.srt.models.deepseek_v4.DeepseekV4ForCausalLM";
    // No CPU/GPU expert split and not the TRT-LLM runner (walkthrough section 12).
    args.extend([
        "--assume",
        "create_kt_config_from_server_args(server_args, layer_id)=None",
        "--assume",
        "get_moe_runner_backend().is_flashinfer_trtllm()=false",
    ]);
    let traced = trace(&tree, &args);
    assert_eq!(traced["stopped"], true, "{:#}", traced["bounds"]);
    let blocks = traced["blocks"].as_array().unwrap();
    assert_eq!(blocks.len(), 1, "{blocks:#?}");
    let moe = &blocks[0];
    assert_eq!(
        (moe["entry"].as_str().unwrap(), &moe["alone"]),
        ("sglang.srt.models.deepseek_v2.DeepseekV2MoE", &true.into())
    );
    assert_evaluated_to_the_end(moe);
    let rows = moe["rows"].as_array().unwrap();
    // ONCE in every configuration, hash-routed and top-k layers alike (as for the block
    // traced alone), with nothing cut at the alternatives bound.
    assert_eq!(moe["verdict"], "ONCE", "{rows:#?}");
    assert!(rows.iter().all(|r| r["verdict"] == "ONCE"), "{rows:#?}");
    let once: Vec<&Value> = rows.iter().filter(|r| r["verdict"] == "ONCE").collect();
    assert!(once.len() >= 10, "{rows:#?}");
    // Hash layers and top-k layers are told apart by the layer index V4 passes.
    assert!(row_atoms(moe).contains(&"idx < config.num_hash_layers"), "{:?}", row_atoms(moe));
    let sites: Vec<(String, u64, i64)> = once.iter().flat_map(|r| row_sites(r)).collect();
    // HashTopK scaling its weights when asked to, and the regular top-k doing so.
    assert!(sites.iter().any(|(p, _, e)| p.ends_with("layers/moe/hash_topk.py") && *e == 1), "{sites:?}");
    assert!(sites.iter().any(|(p, _, e)| p.ends_with("layers/moe/topk.py") && *e == 1), "{sites:?}");
}

#[test]
fn sglang_trace_of_nemotron_h_moe_on_cuda() {
    let Some(tree) = sglang_tree() else { return };
    // The walkthrough's CUDA assumptions (section 3). `UnquantizedFusedMoEMethod` dispatches
    // on `_platform_key()`, which tests `is_cuda()`, `is_npu()`, ...: with the platform
    // assumed, only the CUDA method runs, and the key is never an atom of its own.
    let mut args = vec!["routed_scaling_factor", "--entry", "sglang.srt.models.nemotron_h.NemotronHMoE"];
    for assume in [
        "quant_config=None",
        "_use_aiter=false",
        "_is_hip=false",
        "get_moe_a2a_backend()=none",
        "_is_cuda=true",
        "_is_npu=false",
        "_is_cpu=false",
        "_is_xpu=false",
        "_is_musa=false",
        "_oot_dispatch_key()=None",
        "get_fused_op_backend()=None",
        "get_exec().moe.enable_paged_experts=false",
    ] {
        args.extend(["--assume", assume]);
    }
    let nemotron = trace(&tree, &args);
    assert_evaluated_to_the_end(&nemotron);
    assert!(!nemotron["rows"].as_array().unwrap().is_empty());
    let literals = row_atoms(&nemotron);
    assert!(!literals.iter().any(|a| a.contains("_platform_key")), "{literals:?}");
    // The Triton runner's applications reach its rows, as they do `DeepseekV2MoE`'s.
    let runner = "sglang/srt/layers/moe/moe_runner/triton_utils/fused_moe.py";
    let triton_lines: BTreeSet<u64> = nemotron["rows"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(row_sites)
        .filter(|(path, _, _)| path == runner)
        .map(|(_, line, _)| line)
        .collect();
    assert!(!triton_lines.is_empty(), "{:#?}", nemotron["rows"]);
}

#[test]
fn sglang_0_4_9_never_applies_the_factor_with_expert_parallel_moe() {
    // SGLang 0.4.9.post4, before the fix of sglang#8402 (PR 8511): on CUDA the block skips its
    // own multiply because the grouped top-k folds the factor into the weights, but the
    // expert-parallel MoE (`--enable-ep-moe`) routes on its own without it. The answer, read
    // in deepseek_v2.py, topk.py and ep_moe/layer.py of that release: applied once everywhere
    // except with EP MoE (not DeepEP, not FlashInfer), where it is never applied — or, with
    // the shared expert fused on the torch top-k path, only the shared slot's 1/factor is.
    let Some(tree) = fetch("0.4.9.post4") else { return };
    let old = old_cuda_trace(&tree, "None");
    assert_evaluated_to_the_end(&old);
    assert_eq!(old["unresolved"], serde_json::json!([]), "{old:#}");
    let flag = |configuration: &Value, name: &str| {
        let key = format!("global_server_args_dict[\"{name}\"]");
        configuration.as_array().unwrap().iter().find(|c| c["atom"] == key.as_str()).map(|c| c["value"] == true)
    };
    let mut buggy = 0;
    for row in old["rows"].as_array().unwrap() {
        let verdict = row["verdict"].as_str().unwrap();
        for configuration in row["conditions"].as_array().unwrap() {
            let ep_moe_alone = flag(configuration, "enable_ep_moe") == Some(true)
                && flag(configuration, "enable_deepep_moe") == Some(false)
                && flag(configuration, "enable_flashinfer_moe") == Some(false);
            let expected: &[&str] = if ep_moe_alone { &["NEVER", "INVERSE"] } else { &["ONCE"] };
            assert!(expected.contains(&verdict), "{verdict} in {configuration}");
            buggy += usize::from(ep_moe_alone);
        }
    }
    assert!(buggy > 0, "the bug's configurations are in the table: {old:#}");
}

/// Tokens routed to several experts (DeepSeek's 8): the top-1 fast path's own bug (SGLang
/// 0.4.7 to 0.5.21, `sglang_0_4_7_never_applies_the_factor_with_expert_parallel_moe_on_cuda`)
/// stays out of the tests of other bugs. (The top-k's width, as the releases name it.)
const SEVERAL_EXPERTS: [&str; 2] = ["topk_ids.shape[1]=8", "topk_output[1].shape[1]=8"];

/// The CUDA platform of the older releases, unquantized checks aside, and tokens routed to
/// several experts.
const OLD_CUDA: [&str; 7] = [
    "_is_cuda=true",
    "_is_hip=false",
    "_is_npu=false",
    "_is_cpu=false",
    "_use_aiter=false",
    SEVERAL_EXPERTS[0],
    SEVERAL_EXPERTS[1],
];

/// `DeepseekV2MoE` of an older release on CUDA, with the checkpoint's quantization config
/// (`None`, or a class).
fn old_cuda_trace(tree: &PathBuf, quant_config: &str) -> Value {
    let mut args = vec!["routed_scaling_factor", "--entry", "sglang.srt.models.deepseek_v2.DeepseekV2MoE"];
    let quant = format!("quant_config={quant_config}");
    for assume in OLD_CUDA.iter().chain(&[quant.as_str()]) {
        args.extend(["--assume", assume]);
    }
    trace(tree, &args)
}

/// Whether a product of literals sets `atom` to `value`.
fn holds(product: &Value, atom: &str, value: bool) -> bool {
    product.as_array().unwrap().iter().any(|l| l["atom"] == atom && l["value"] == value)
}

/// The products of the verdicts that are not ONCE (none may be too large to print).
fn problem_products(trace: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    for group in trace["verdicts"].as_array().unwrap() {
        if matches!(group["verdict"].as_str(), Some("NEVER" | "INVERSE" | "TWICE" | "MIXED")) {
            let products = group["conditions"].as_array().unwrap();
            assert!(!products.is_empty(), "{group:#}");
            out.extend(products.iter().cloned());
        }
    }
    out
}

#[test]
fn sglang_0_4_10_never_applies_the_factor_on_two_fp8_expert_paths() {
    // SGLang 0.4.10 with an FP8 checkpoint, read in fp8.py and ep_moe/layer.py of that
    // release: on CUDA the block leaves the factor to the experts, and two FP8 expert paths
    // drop it — `cutlass_fused_experts_fp8` (SGLANG_CUTLASS_MOE on SM100 with block
    // quantization; sglang PR 8688) and `EPMoE.forward_deepgemm` (expert parallelism with
    // DeepGEMM). 0.4.10.post2 multiplies the output on both, and is ONCE everywhere.
    let Some(tree) = fetch("0.4.10") else { return };
    let old = old_cuda_trace(&tree, "Fp8Config");
    assert_evaluated_to_the_end(&old);
    let cutlass = |p: &Value| {
        holds(p, "get_bool_env_var(\"SGLANG_CUTLASS_MOE\")", true)
            && holds(p, "is_sm100_supported()", true)
            && holds(p, "quant_config.weight_block_size == None", false)
    };
    // With triton-kernel MoE the other expert-parallel path raises (`FusedMoE.forward` reads
    // `topk_output.topk_ids`, a field the triton-kernel top-k output does not have), so there
    // the DeepGEMM path is the only one left and the product need not name it.
    let ep_deepgemm = |p: &Value| {
        holds(p, "global_server_args_dict[\"enable_ep_moe\"]", true)
            && (holds(p, "ENABLE_JIT_DEEPGEMM", true)
                || holds(p, "global_server_args_dict[\"enable_triton_kernel_moe\"]", true))
            && holds(p, "global_server_args_dict[\"enable_deepep_moe\"]", false)
    };
    let mut seen = (false, false);
    for product in problem_products(&old) {
        assert!(cutlass(&product) || ep_deepgemm(&product), "{product}");
        seen = (seen.0 || cutlass(&product), seen.1 || ep_deepgemm(&product));
    }
    assert_eq!(seen, (true, true), "{old:#}");

    let Some(tree) = fetch("0.4.10.post2") else { return };
    let fixed = old_cuda_trace(&tree, "Fp8Config");
    assert_evaluated_to_the_end(&fixed);
    assert_eq!(fixed["verdict"], "ONCE", "{fixed:#}");
}

#[test]
fn sglang_0_4_9_post2_never_applies_the_factor_with_modelopt_fp4() {
    // SGLang 0.4.9.post2 with a ModelOpt NVFP4 checkpoint (sglang issue 7166, PR 8333): the FP4
    // MoE method routes with the factor only for the shared-expert slot and runs FlashInfer's
    // or the CUTLASS FP4 kernel, neither of which applies it, while the block leaves it to the
    // experts on CUDA: never applied outside DeepEP. In 0.4.9.post4 the method multiplies its
    // output; what is left there is the expert-parallel bug (EP MoE alone, see above).
    let Some(tree) = fetch("0.4.9.post2") else { return };
    let old = old_cuda_trace(&tree, "ModelOptFp4Config");
    assert_evaluated_to_the_end(&old);
    let products = problem_products(&old);
    assert!(!products.is_empty(), "{old:#}");
    // (A product leaves a literal out when the configurations it adds do not run.)
    for product in &products {
        assert!(!holds(product, "global_server_args_dict[\"enable_deepep_moe\"]", true), "{product}");
    }
    let once: Vec<&Value> = old["verdicts"].as_array().unwrap().iter().filter(|g| g["verdict"] == "ONCE").collect();
    assert_eq!(once.len(), 1);
    assert_eq!(once[0]["when"], "global_server_args_dict[\"enable_deepep_moe\"]");
    // The plain case: no EP MoE, no shared-expert fusion.
    assert!(
        products.iter().any(|p| p.as_array().unwrap().len() == 2
            && holds(p, "global_server_args_dict[\"disable_shared_experts_fusion\"]", true)),
        "{products:#?}"
    );

    let Some(tree) = fetch("0.4.9.post4") else { return };
    let fixed = old_cuda_trace(&tree, "ModelOptFp4Config");
    assert_evaluated_to_the_end(&fixed);
    let once: Vec<&Value> = fixed["verdicts"].as_array().unwrap().iter().filter(|g| g["verdict"] == "ONCE").collect();
    assert_eq!(once.len(), 1);
    assert_eq!(
        once[0]["when"],
        "global_server_args_dict[\"enable_deepep_moe\"] or global_server_args_dict[\"enable_flashinfer_moe\"] or not global_server_args_dict[\"enable_ep_moe\"]"
    );
}

#[test]
fn sglang_0_4_9_the_whole_model_is_answered_at_its_moe_blocks() {
    // The whole DeepSeek model of 0.4.9.post4: its output goes through the decoder layers and
    // the logits, so the question is answered at the MoE block inside it (`blocks`), and that
    // answer is the block's own (the expert-parallel bug above).
    let Some(tree) = fetch("0.4.9.post4") else { return };
    let mut args = vec!["routed_scaling_factor", "--entry", "sglang.srt.models.deepseek_v2.DeepseekV2ForCausalLM"];
    let quant = "quant_config=None";
    for assume in OLD_CUDA.iter().chain(&[quant]) {
        args.extend(["--assume", assume]);
    }
    let model = trace(&tree, &args);
    assert_evaluated_to_the_end(&model);
    let blocks = model["blocks"].as_array().unwrap();
    assert_eq!(blocks.len(), 1, "{model:#}");
    assert_eq!(blocks[0]["entry"], "sglang.srt.models.deepseek_v2.DeepseekV2MoE");
    assert_eq!(model["verdict"], blocks[0]["verdict"]);
    let products = problem_products(&blocks[0]);
    assert!(!products.is_empty(), "{model:#}");
    for product in products {
        assert!(holds(&product, "global_server_args_dict[\"enable_ep_moe\"]", true), "{product}");
        assert!(!holds(&product, "global_server_args_dict[\"enable_deepep_moe\"]", true), "{product}");
    }
}

/// Hunyuan V3 hands its `router_scaling_factor` to `TopK` only (`apply_routed_scaling_factor_on_
/// output=True`), never to `FusedMoE`. Read in the code (walkthrough section 10): on the Triton
/// runner the top-k weights carry it, once; on the Triton-kernels runner the top-k is a plain
/// softmax `routing(...)` (topk.py:906) that ignores it, and the runner multiplies only by its
/// own `runner_config.routed_scaling_factor` (triton_kernels.py:201), which is None: NEVER.
/// (The kt wrapper's row, CPU experts beside the GPU's, is not checked.)
#[test]
fn sglang_hunyuan_v3_scales_on_triton_and_deep_gemm_and_never_on_triton_kernels() {
    let Some(tree) = sglang_tree() else { return };
    let entry = "sglang.srt.models.hunyuan_v3.HYV3MoEFused";
    let with_backend = |backend: &str| {
        let mut args: Vec<String> = ASSUMED_CUDA_V2.iter().map(|a| a.to_string()).collect();
        args[2] = entry.to_string();
        args.extend(["--assume".to_string(), format!("get_moe_runner_backend()={backend}")]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        trace(&tree, &args)
    };
    // (The DeepGEMM runner too: its post-permute sums the scaled weights into the output, once.
    // It read NEVER while `maybe_pre_permute`, which returns None off SM120, was skipped.)
    // (With KTransformers' CPU experts, the block multiplies again: see the walkthrough's
    // section 39.)
    for backend in ["triton", "deep_gemm"] {
        let traced = with_backend(backend);
        for row in traced["rows"].as_array().unwrap() {
            if !row_requires(row, KT, false) {
                assert_eq!(row["verdict"], "ONCE", "{backend}: {row:#}");
            }
        }
    }
    let triton_kernels = with_backend("triton_kernel");
    let rows = triton_kernels["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{rows:#?}");
    assert_eq!((rows[0]["verdict"].as_str(), rows[0]["when"].as_str()), (Some("NEVER"), Some("always")));
}

/// `trace VALUE --entry ENTRY --platform PLATFORM --assume A...`.
fn trace_on(tree: &PathBuf, value: &str, entry: &str, platform: &str, assumptions: &[&str]) -> Value {
    let mut args = vec![value, "--entry", entry, "--platform", platform];
    for assumption in assumptions {
        args.extend(["--assume", assumption]);
    }
    trace(tree, &args)
}

/// `DeepseekV2MoE` without quantization on CUDA with the FlashInfer CUTLASS runner.
fn flashinfer_cutlass_bf16_trace(tree: &PathBuf) -> Value {
    let assumptions = ["quant_config=None", "MOE_A2A_BACKEND=None", "MOE_RUNNER_BACKEND=flashinfer_cutlass"];
    trace_on(tree, "routed_scaling_factor", "sglang.srt.models.deepseek_v2.DeepseekV2MoE", "cuda", &assumptions)
}

#[test]
fn sglang_0_5_6_never_applies_the_factor_with_the_flashinfer_cutlass_runner_in_bf16() {
    // SGLang 0.5.6, read in deepseek_v2.py and quantization/unquant.py of that release: on CUDA
    // the block leaves the factor to the experts ("fused in biased_grouped_topk so we can skip
    // here"); the top-k scales only when the experts ask (`should_fuse_routed_scaling_factor_in_topk`,
    // false without quantization), and the unquantized FlashInfer CUTLASS path returns
    // `flashinfer_cutlass_fused_moe(...)` as it is. The routed output is never scaled; with the
    // shared expert fused into the top-k, its slot is weighted sum / factor and nothing
    // compensates it. 0.5.13 multiplies the CUTLASS output (`output.mul_(...)`, unquant.py:518).
    let Some(old_tree) = fetch("0.5.6") else { return };
    let old = flashinfer_cutlass_bf16_trace(&old_tree);
    assert_evaluated_to_the_end(&old);
    let verdicts: Vec<&str> = old["rows"].as_array().unwrap().iter().map(|r| r["verdict"].as_str().unwrap()).collect();
    assert!(verdicts.contains(&"NEVER") && verdicts.contains(&"INVERSE"), "{old:#}");
    // The shared slot's division, in `biased_grouped_topk_impl` (topk.py:751) where the gate
    // has a correction bias, in `grouped_topk` (topk.py:604) where it has none (V2's gate), and
    // in sgl-kernel's `moe_fused_gate` (topk.py:814, its built-in model's `shared_slot`: the
    // kernel sets the slot to the routed sum / factor) where the gate's sizes suit the kernel.
    let inverse: Vec<_> = old["rows"].as_array().unwrap().iter().filter(|r| r["verdict"] == "INVERSE").collect();
    let mut divisions: Vec<_> = inverse.iter().map(|r| row_sites(r)).collect();
    divisions.sort();
    divisions.dedup();
    let topk = |line| vec![("sglang/srt/layers/moe/topk.py".to_string(), line, -1)];
    assert!(divisions.iter().all(|d| [topk(604), topk(751), topk(814)].contains(d)), "{inverse:#?}");
    assert!(divisions.contains(&topk(751)), "{inverse:#?}");

    let Some(new_tree) = fetch("0.5.13") else { return };
    let new = flashinfer_cutlass_bf16_trace(&new_tree);
    let rows = new["rows"].as_array().unwrap();
    // (The other rows are UNKNOWN where the expert runners' alternatives were cut, or have
    // KTransformers' CPU experts: see the walkthrough's section 39.)
    assert!(
        rows.iter()
            .filter(|r| !row_requires(r, KT, false))
            .all(|r| matches!(r["verdict"].as_str(), Some("ONCE" | "UNKNOWN"))),
        "{rows:#?}"
    );
    let multiplied = |r: &&Value| {
        row_sites(r).iter().any(|(path, line, exponent)| {
            path == "sglang/srt/layers/quantization/unquant.py" && *line == 518 && *exponent == 1
        })
    };
    assert!(rows.iter().filter(|r| r["verdict"] == "ONCE").all(|r| multiplied(&r)), "{rows:#?}");
    assert!(rows.iter().any(|r| r["verdict"] == "ONCE"), "{rows:#?}");
}

fn compressed_tensors_trace(tree: &PathBuf) -> Value {
    let assumptions =
        ["quant_config=CompressedTensorsConfig", "MOE_A2A_BACKEND=None", SEVERAL_EXPERTS[0], SEVERAL_EXPERTS[1]];
    trace_on(tree, "routed_scaling_factor", "sglang.srt.models.deepseek_v2.DeepseekV2MoE", "cuda", &assumptions)
}

#[test]
fn sglang_0_5_4_post3_never_applies_the_factor_with_compressed_tensors_wna16() {
    // SGLang 0.5.4.post3, read in deepseek_v2.py and compressed_tensors_moe.py of that release:
    // a compressed-tensors checkpoint with grouped or channel-wise int weights and no activation
    // quantization (Kimi K2 Thinking's INT4) gets `CompressedTensorsWNA16MoEMethod`, whose
    // `fused_marlin_moe(...)` is not given the factor; on CUDA the block leaves it to the experts
    // and the top-k does not fold it for that method. The routed output is never scaled (sglang
    // PR 12738). 0.5.5 multiplies after the experts for that method (deepseek_v2.py:857, and
    // 790 on the dual-stream path).
    let Some(old_tree) = fetch("0.5.4.post3") else { return };
    let old = compressed_tensors_trace(&old_tree);
    assert_evaluated_to_the_end(&old);
    let rows = old["rows"].as_array().unwrap();
    let never: Vec<&Value> = rows.iter().filter(|r| r["verdict"] == "NEVER").collect();
    assert_eq!(never.len(), 1, "{rows:#?}");
    assert!(row_sites(never[0]).is_empty(), "{:#}", never[0]);
    // It is the WNA16 method's configuration: int weights without activation quantization.
    let wna16 = "quant_config.target_scheme_map[\"Linear\"].get(\"input_activations\") == None";
    assert!(never[0]["when"].as_str().unwrap().contains(wna16), "{:#}", never[0]);
    assert!(rows.iter().all(|r| matches!(r["verdict"].as_str(), Some("ONCE" | "NEVER" | "INVERSE"))), "{rows:#?}");

    let Some(new_tree) = fetch("0.5.5") else { return };
    let new = compressed_tensors_trace(&new_tree);
    assert_evaluated_to_the_end(&new);
    let rows = new["rows"].as_array().unwrap();
    assert!(rows.iter().all(|r| r["verdict"] == "ONCE"), "{rows:#?}");
    let block_multiplies = |r: &&Value| {
        row_sites(r)
            .iter()
            .any(|(path, line, _)| path == "sglang/srt/models/deepseek_v2.py" && [790, 857].contains(line))
    };
    assert!(rows.iter().any(|r| block_multiplies(&r) && r["when"].as_str().unwrap().contains(wna16)), "{rows:#?}");
}

#[test]
fn sglang_0_5_22_overlap_stages_apply_the_factor_twice_where_the_top_k_folds_it() {
    // SGLang 0.5.22's two-batch-overlap stages on DeepEP with ModelOpt NVFP4 and the
    // FlashInfer CuTe DSL runner (sglang PR 35152): the fused top-k gate folds the factor into
    // the weights, and `op_output` adds the routed output with `alpha=routed_scaling_factor`
    // again. Narrowed to that trigger, as walkthrough section 41 reads it: where the gate
    // folds, a part of the output has the factor twice, through both sites.
    let Some(tree) = fetch("0.5.22") else { return };
    let methods = "op_gate,op_shared_experts,op_select_experts,op_dispatch_a,op_dispatch_b,op_experts,op_combine_a,op_combine_b,op_output";
    let assumptions = [
        "get_moe_a2a_backend()=deepep",
        "get_moe_runner_backend()=flashinfer_cutedsl",
        "quant_config=sglang.srt.layers.quantization.modelopt_quant.ModelOptFp4Config",
        "self.is_layer_excluded(prefix)=false",
        "quant_config.is_checkpoint_nvfp4_serialized=true",
        "layer_id < config.num_hash_layers=false",
        "is_deepseek_v4=false",
        "get_parallel().moe_ep_size > 1=true",
        "is_shared_experts_fusion_disabled()=true",
        "get_fused_op_backend()=None",
    ];
    let mut args = vec![
        "routed_scaling_factor",
        "--entry",
        "sglang.srt.models.deepseek_v2.DeepseekV2MoE",
        "--platform",
        "cuda",
        "--methods",
        methods,
    ];
    for assume in &assumptions {
        args.extend(["--assume", assume]);
    }
    let out = trace(&tree, &args);
    assert_evaluated_to_the_end(&out);
    assert_ne!(out["verdict"], "ONCE", "{out:#}");
    let twice = |part: &Value| {
        let sites: Vec<(&str, u64)> = part["sites"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| (s["location"]["path"].as_str().unwrap(), s["location"]["line"].as_u64().unwrap()))
            .collect();
        part["exponent"] == 2
            && sites.contains(&("sglang/srt/models/deepseek_v2.py", 1967))
            && sites.iter().any(|(path, _)| *path == "sglang/srt/layers/moe/topk.py")
    };
    let rows = out["rows"].as_array().unwrap();
    assert!(rows.iter().any(|r| r["parts"].as_array().unwrap().iter().any(twice)), "{rows:#?}");
}

fn hunyuan_v3_npu_trace(tree: &PathBuf) -> Value {
    let assumptions = ["quant_config=None", "get_moe_a2a_backend()=none", "get_fused_op_backend()=None"];
    trace_on(tree, "router_scaling_factor", "sglang.srt.models.hunyuan_v3.HYV3MoEFused", "npu", &assumptions)
}

#[test]
fn sglang_0_5_13_never_applies_hunyuan_v3s_factor_on_npu_with_renormalized_weights() {
    // SGLang 0.5.13, read in hardware_backend/npu/moe/topk.py of that release: the block asks
    // the top-k to apply the factor (`apply_routed_scaling_factor_on_output=True`), and the NPU
    // gating kernel is given `1 if renormalize else routed_scaling_factor`. Hunyuan 3's
    // `route_norm` renormalizes, so the factor is dropped (sglang PR 29909: GPQA 0.175). 0.5.23
    // passes the factor whenever the block asks.
    let Some(old_tree) = fetch("0.5.13") else { return };
    let old = hunyuan_v3_npu_trace(&old_tree);
    assert_evaluated_to_the_end(&old);
    let rows = old["rows"].as_array().unwrap();
    let never: Vec<&Value> = rows.iter().filter(|r| r["verdict"] == "NEVER").collect();
    assert_eq!(never.len(), 1, "{rows:#?}");
    assert!(never[0]["when"].as_str().unwrap().contains("config.route_norm and"), "{:#}", never[0]);
    let once: Vec<&Value> = rows.iter().filter(|r| r["verdict"] == "ONCE").collect();
    assert!(!once.is_empty() && once.iter().all(|r| r["when"].as_str().unwrap().starts_with("not config.route_norm")));

    let Some(new_tree) = fetch("0.5.23") else { return };
    let new = hunyuan_v3_npu_trace(&new_tree);
    let rows = new["rows"].as_array().unwrap();
    // (The piecewise CUDA-graph path goes through an operator that looks its module up: UNKNOWN.)
    assert!(rows.iter().all(|r| matches!(r["verdict"].as_str(), Some("ONCE" | "UNKNOWN"))), "{rows:#?}");
    assert!(rows.iter().any(|r| r["verdict"] == "ONCE" && !r["when"].as_str().unwrap().contains("route_norm")));
}

/// `DeepseekV2MoE` on Ascend NPUs without quantization, all-to-all, KTransformers or
/// out-of-tree backends, on a routed (not hash) layer; the assumptions name both releases'
/// settings (those of the other release match nothing).
fn npu_deepseek_trace(tree: &PathBuf) -> Value {
    let assumptions = [
        "quant_config=None",
        "MOE_A2A_BACKEND=none",
        "MOE_RUNNER_BACKEND=auto",
        "get_moe_a2a_backend()=none",
        "get_moe_runner_backend()=auto",
        "get_fused_op_backend()=None",
        "is_nextn=false",
        "is_deepseek_v4=false",
        "is_sbo_enabled()=false",
        "envs.SGLANG_SIMULATE_UNIFORM_EXPERTS.get()=false",
        "envs.SGLANG_SIMULATE_ROUND_ROBIN_EXPERTS.get()=false",
        "layer_id<config.num_hash_layers=false",
        "create_kt_config_from_server_args(server_args,layer_id)=None",
    ];
    trace_on(tree, "routed_scaling_factor", "sglang.srt.models.deepseek_v2.DeepseekV2MoE", "npu", &assumptions)
}

#[test]
fn sglang_0_5_13_applies_the_factor_twice_on_npu_with_a_correction_bias_and_no_renormalization() {
    // SGLang 0.5.13, read in hardware_backend/npu/moe/topk.py and deepseek_v2.py of that
    // release: with a correction bias the NPU gating kernel `npu_moe_gating_top_k` is handed
    // `1 if renormalize else routed_scaling_factor`, and `forward_normal` multiplies the
    // experts' output by the factor on every platform but CUDA, MUSA, XPU and aiter. Without
    // renormalization (`norm_topk_prob` false) both apply it. sglang PR 31449 (July 2026) made
    // the kernel's factor follow `apply_routed_scaling_factor_on_output`; 0.5.22 reads ONCE.
    let Some(old_tree) = fetch("0.5.13") else { return };
    let old = npu_deepseek_trace(&old_tree);
    assert_evaluated_to_the_end(&old);
    assert_eq!(old["verdict"], "TWICE", "{:#}", old["rows"]);
    for product in problem_products(&old) {
        assert!(holds(&product, "config.norm_topk_prob", false), "{product:#}");
        assert!(holds(&product, "MoEGate.e_score_correction_bias == None", false), "{product:#}");
    }
    // Each TWICE row (the dual-stream and the plain `forward_normal`): the kernel, then the
    // block's `final_hidden_states *= self.routed_scaling_factor`.
    let rows = old["rows"].as_array().unwrap();
    for twice in rows.iter().filter(|r| r["verdict"] == "TWICE") {
        let sites = twice["parts"][0]["sites"].as_array().unwrap();
        let kinds: Vec<(&str, &str)> =
            sites.iter().map(|s| (s["location"]["path"].as_str().unwrap(), s["kind"].as_str().unwrap())).collect();
        assert_eq!(
            kinds,
            [
                ("sglang/srt/hardware_backend/npu/moe/topk.py", "delegated"),
                ("sglang/srt/models/deepseek_v2.py", "mul_in_place")
            ],
            "{twice:#}"
        );
        assert_eq!(sites[0]["callee"], "torch.ops.npu.npu_moe_gating_top_k", "{twice:#}");
    }
    assert!(rows.iter().any(|r| r["verdict"] == "ONCE"), "{rows:#?}");

    let Some(new_tree) = fetch("0.5.22") else { return };
    let new = npu_deepseek_trace(&new_tree);
    assert_eq!(new["verdict"], "ONCE", "{:#}", new["rows"]);
}

/// `DeepseekV2MoE` with ModelOpt's NVFP4 checkpoints on the Marlin runner (SGLang's fallback
/// where FP4 is not native: Ampere, Hopper), on CUDA, no all-to-all, a routed (not hash) layer
/// of a model that is not DeepSeek V4; the assumptions name both releases' settings.
fn marlin_nvfp4_trace(tree: &PathBuf) -> Value {
    let assumptions = [
        "quant_config=sglang.srt.layers.quantization.modelopt_quant.ModelOptFp4Config",
        "MOE_RUNNER_BACKEND=marlin",
        "MOE_A2A_BACKEND=none",
        "get_moe_runner_backend()=marlin",
        "get_moe_a2a_backend()=none",
        "is_nextn=false",
        "is_deepseek_v4=false",
        "layer_id < config.num_hash_layers=false",
        "self.is_layer_excluded(prefix)=false",
        "except ImportError=false",
        "envs.SGLANG_SIMULATE_UNIFORM_EXPERTS.get()=false",
        "envs.SGLANG_SIMULATE_ROUND_ROBIN_EXPERTS.get()=false",
        "create_kt_config_from_server_args(server_args, layer_id)=None",
    ];
    trace_on(tree, "routed_scaling_factor", "sglang.srt.models.deepseek_v2.DeepseekV2MoE", "cuda", &assumptions)
}

#[test]
fn sglang_0_5_13_applies_the_factor_twice_with_modelopt_nvfp4_on_marlin() {
    // SGLang 0.5.13, read in fused_moe_triton/layer.py, fused_marlin_moe.py and topk.py of that
    // release: `should_fuse_routed_scaling_factor_in_topk` holds for every
    // `ModelOptNvFp4FusedMoEMethod`, so the top-k folds the factor into the weights; on the
    // Marlin runner the experts' `moe_sum_reduce` is handed `routed_scaling_factor` as well.
    // Both apply it (sglang PR 31762, July 2026: garbage text from GLM-5.2-NVFP4 on H800;
    // 0.5.22 no longer fuses it in the top-k on Marlin).
    let Some(old_tree) = fetch("0.5.13") else { return };
    let old = marlin_nvfp4_trace(&old_tree);
    assert_evaluated_to_the_end(&old);
    let rows = old["rows"].as_array().unwrap();
    let twice: Vec<&Value> = rows.iter().filter(|r| r["verdict"] == "TWICE").collect();
    assert!(!twice.is_empty(), "{rows:#?}");
    // Each: one top-k kernel or multiply (whichever the routing picks), then the sum.
    for row in &twice {
        let sites = row_sites(row);
        assert_eq!(sites.len(), 2, "{row:#}");
        assert!(sites.iter().all(|(_, _, exponent)| *exponent == 1), "{row:#}");
        assert!(sites.iter().any(|(path, _, _)| path.ends_with("topk.py")), "{row:#}");
        assert!(sites.iter().any(|(path, _, _)| path.ends_with("fused_marlin_moe.py")), "{row:#}");
    }
    // A product with the tokens' count is a size: `M * topk == 0` is no configuration.
    let vacuous: Vec<&str> =
        old["vacuous"].as_array().unwrap().iter().map(|v| v["condition"].as_str().unwrap()).collect();
    assert!(vacuous.contains(&"M * topk == 0"), "{vacuous:?}");

    let Some(new_tree) = fetch("0.5.22") else { return };
    let new = marlin_nvfp4_trace(&new_tree);
    assert_evaluated_to_the_end(&new);
    let rows = new["rows"].as_array().unwrap();
    assert!(rows.iter().all(|r| !matches!(r["verdict"].as_str(), Some("TWICE" | "MIXED"))), "{rows:#?}");
    assert!(rows.iter().any(|r| r["verdict"] == "ONCE"), "{rows:#?}");
}

/// SGLang 0.5.13's `DeepseekV2MoE` on ROCm with aiter and the MoRI all-to-all (a DeepEP-class
/// backend), unquantized, no batch overlap, a routed (not hash) layer.
fn aiter_mori_trace(tree: &PathBuf, fusion_disabled: bool) -> Value {
    let disabled = format!("get_global_server_args().disable_shared_experts_fusion={fusion_disabled}");
    let assumptions = [
        "quant_config=None",
        "get_bool_env_var(\"SGLANG_USE_AITER\")=true",
        "MOE_A2A_BACKEND=mori",
        "MOE_RUNNER_BACKEND=auto",
        "is_nextn=false",
        "is_deepseek_v4=false",
        "is_in_piecewise_cuda_graph()=false",
        "is_sbo_enabled()=false",
        "is_tbo_enabled()=false",
        "envs.SGLANG_BLACKWELL_OVERLAP_SHARED_EXPERTS_OUTSIDE_SBO.get()=false",
        "layer_id < config.num_hash_layers=false",
        "config.n_shared_experts > 0=true",
        &disabled,
    ];
    trace_on(tree, "routed_scaling_factor", "sglang.srt.models.deepseek_v2.DeepseekV2MoE", "rocm", &assumptions)
}

#[test]
fn sglang_0_5_13_weights_the_fused_shared_expert_by_the_inverse_on_aiter_with_mori() {
    // SGLang 0.5.13, read in topk.py and deepseek_v2.py of that release: with a DeepEP-class
    // all-to-all, `_remap_topk_for_deepep` sets the fused shared expert's weight to
    // `1 / routed_scaling_factor` "to compensate the post-MoE scaling"; aiter's
    // `biased_grouped_topk` folds the factor into the routed weights and `forward_deepep`
    // skips the post-MoE multiply `_use_aiter`. The shared expert ends at 1/f, the routed ones
    // at f: MIXED (sglang PR 28237, degenerate long outputs on MoRI; later releases weight the
    // slot 1.0 on aiter). The trace reaches the remap only through the dispatcher wrapper's
    // `getattr(self._inners[i], name)(**kwargs)`, the dispatch record built by
    // `_get_impl().dispatch_b(...)`, and the aiter permute registered by a call.
    let Some(tree) = fetch("0.5.13") else { return };
    let fused = aiter_mori_trace(&tree, false);
    assert_eq!(fused["verdict"], "MIXED", "{:#}", fused["rows"]);
    let rows = fused["rows"].as_array().unwrap();
    // (Rows where a debug switch replaces the routing by a simulated one: every product of
    // their condition turns one on.)
    let simulated = |r: &Value| {
        let products = r["conditions"].as_array().unwrap();
        !products.is_empty()
            && products.iter().all(|p| {
                holds(p, "envs.SGLANG_SIMULATE_UNIFORM_EXPERTS.get()", true)
                    || holds(p, "envs.SGLANG_SIMULATE_ROUND_ROBIN_EXPERTS.get()", true)
            })
    };
    let mixed: Vec<&Value> = rows.iter().filter(|r| r["verdict"] == "MIXED").collect();
    assert_eq!(mixed.len(), 1, "{rows:#?}");
    assert_eq!(mixed[0]["exponents"], serde_json::json!([-1, 1]), "{:#}", mixed[0]);
    assert!(!simulated(mixed[0]), "{:#}", mixed[0]);
    let sites = |part: &Value| -> Vec<(String, u64)> {
        part["sites"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| (s["location"]["path"].as_str().unwrap().to_string(), s["location"]["line"].as_u64().unwrap()))
            .collect()
    };
    let parts = mixed[0]["parts"].as_array().unwrap();
    let inverse = parts.iter().find(|p| p["exponent"] == -1).expect("a part at 1/f");
    assert!(sites(inverse).contains(&("sglang/srt/layers/moe/topk.py".into(), 1464)), "{inverse:#}");
    let once = parts.iter().find(|p| p["exponent"] == 1).expect("a part at f");
    assert!(sites(once).contains(&("sglang/srt/layers/moe/topk.py".into(), 1250)), "{once:#}");
    // aiter's model names the factor where the call passes it (eighth, after `need_renorm`).
    let aiter = once["sites"].as_array().unwrap().iter().find(|s| s["callee"] == "aiter.biased_grouped_topk");
    assert!(aiter.unwrap()["note"].as_str().unwrap().starts_with("applied by the kernel"), "{once:#}");

    // The shared expert run on its own (fusion disabled): the routed weights carry the factor,
    // once, wherever the routing is not simulated.
    let separate = aiter_mori_trace(&tree, true);
    let rows = separate["rows"].as_array().unwrap();
    assert!(rows.iter().any(|r| r["verdict"] == "ONCE"), "{rows:#?}");
    // (Except where MoRI dispatches in FP8: the hidden states pass through aiter's quantizer,
    // a function `get_hip_quant(...)` returns, not followed. Before the dispatch, which returns
    // a tuple, was evaluated, it was an outside computation of all it was handed.)
    let fp8_quantizer = |r: &Value| {
        r["verdict"] == "UNKNOWN"
            && r["blocked_by"].as_array().is_some_and(|b| {
                !b.is_empty()
                    && b.iter().all(|u| u["what"].as_str().unwrap().contains("get_hip_quant(QuantType.per_1x128)"))
            })
    };
    assert!(rows.iter().filter(|r| !simulated(r)).all(|r| r["verdict"] == "ONCE" || fp8_quantizer(r)), "{rows:#?}");
}

#[test]
fn sglang_0_4_7_never_applies_the_factor_with_expert_parallel_moe_on_cuda() {
    // SGLang 0.4.7, the first release that folds the factor into the Triton experts on CUDA
    // (`forward_normal` multiplies only `if not _is_cuda`; `moe_sum_reduce_triton` applies it),
    // read in deepseek_v2.py and ep_moe/layer.py: `EPMoE` routes without it and its
    // `post_reorder` is not handed it, so expert parallelism without DeepEP drops it (sglang
    // issue 8402, fixed in 0.4.10). `FusedMoE` picks its CUDA path by `torch.cuda.is_available()`,
    // which `--platform cuda` fixes: the CPU path's configurations are no rows.
    //
    // The same release brought the top-1 fast path's bug (sglang PR 40187, fixed in 0.5.22):
    // with one expert per token the down projection writes into the output and leaves the
    // top-k buffer (a `torch.empty`) unwritten, but with a factor other than 1 the combine sums
    // that buffer into the output and scales it (`moe_sum_reduce_triton`, fused_moe.py:1710, or
    // the torch one's `out.mul_`, :1485): the output is whatever memory held.
    let Some(tree) = fetch("0.4.7") else { return };
    let entry = "sglang.srt.models.deepseek_v2.DeepseekV2MoE";
    let trace = trace_on(&tree, "routed_scaling_factor", entry, "cuda", &["quant_config=None"]);
    assert_evaluated_to_the_end(&trace);
    assert_eq!(trace["verdict"], "NEVER", "{trace:#}");
    let when = |verdict: &str| -> Vec<String> {
        let groups = trace["verdicts"].as_array().unwrap();
        groups.iter().filter(|g| g["verdict"] == verdict).map(|g| g["when"].as_str().unwrap().to_string()).collect()
    };
    let (g, top_1) = ("global_server_args_dict", "topk_ids.shape[1] == 1");
    assert_eq!(when("NEVER"), [format!("not {g}[\"enable_deepep_moe\"] and ({g}[\"enable_ep_moe\"] or {top_1})")]);
    assert_eq!(when("ONCE"), [format!("{g}[\"enable_deepep_moe\"] or (not {g}[\"enable_ep_moe\"] and not ({top_1}))")]);
    assert!(!row_atoms(&trace).contains(&"torch.cuda.is_available()"), "{trace:#}");
    let never = trace["rows"].as_array().unwrap().iter().find(|r| r["verdict"] == "NEVER").unwrap();
    let unwritten: Vec<(String, u64)> = never["unwritten_at"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["location"]["path"].as_str().unwrap().to_string(), n["location"]["line"].as_u64().unwrap()))
        .collect();
    let fused_moe = "sglang/srt/layers/moe/fused_moe_triton/fused_moe.py".to_string();
    assert_eq!(unwritten, [(fused_moe.clone(), 1485), (fused_moe, 1710)], "{never:#}");
}

#[test]
fn sglang_0_4_6_decoder_layer_runs_its_moe_through_the_operations_executor() {
    // SGLang 0.4.6.post5's `DeepseekV2MoE` has no `forward`: the decoder layer hands its
    // operations (`op_gate` ... `op_output`) to `execute_operations`, which splits them into
    // stages with a generator and runs them on a `_StateDict` (attributes kept in a dict
    // through `__setattr__`). Read in deepseek_v2.py: on CUDA the experts leave the factor to
    // `op_output`, which multiplies once. Its flags are read from `global_server_args_dict`, a
    // literal of `ServerArgs` defaults that the model runner updates from the server
    // arguments: settings, not the defaults (which left DeepEP, expert parallelism and the
    // fused shared expert out). With the shared expert fused into the top-k, its slot is
    // weighted 1/factor (topk.py:138, 202 with a correction bias, and sgl-kernel's
    // `moe_fused_gate` at topk.py:256 where the gate's sizes suit it: its built-in model's
    // `shared_slot`), and `op_output` makes it 1.
    let Some(tree) = fetch("0.4.6.post5") else { return };
    let entry = "sglang.srt.models.deepseek_v2.DeepseekV2DecoderLayer";
    let trace = trace_on(&tree, "routed_scaling_factor", entry, "cuda", &["quant_config=None"]);
    assert_evaluated_to_the_end(&trace);
    assert_eq!(trace["verdict"], "ONCE", "{trace:#}");
    let rows = trace["rows"].as_array().unwrap();
    let parts = |row: &Value| -> Vec<(i64, Vec<(String, u64)>)> {
        let site =
            |s: &Value| (s["location"]["path"].as_str().unwrap().to_string(), s["location"]["line"].as_u64().unwrap());
        let parts = row["parts"].as_array().unwrap().iter();
        parts
            .map(|p| (p["exponent"].as_i64().unwrap(), p["sites"].as_array().unwrap().iter().map(site).collect()))
            .collect()
    };
    let model = ("sglang/srt/models/deepseek_v2.py".to_string(), 438);
    let fused = |line| {
        vec![(0, vec![("sglang/srt/layers/moe/topk.py".to_string(), line), model.clone()]), (1, vec![model.clone()])]
    };
    let mut found: Vec<_> = rows.iter().map(parts).collect();
    found.sort();
    assert_eq!(found, [fused(138), fused(202), fused(256), vec![(1, vec![model.clone()])]], "{trace:#}");
    // (Expert parallelism runs the same top-k and the same multiply: no row of its own.)
    for atom in ["enable_deepep_moe", "n_share_experts_fusion"] {
        let atom = format!("global_server_args_dict[\"{atom}\"]");
        assert!(row_atoms(&trace).contains(&atom.as_str()), "{atom}: {trace:#}");
    }
    let unresolved = trace["unresolved"].to_string();
    assert!(!unresolved.contains("is a generator: not followed"), "{unresolved}");
}

/// SGLang 0.4.6.post5 without quantization, DeepEP or the DP LM head, the shared expert fused
/// into the top-k.
const SGLANG_0_4_6_FUSED: &[&str] = &[
    "quant_config=None",
    "global_server_args_dict[\"enable_deepep_moe\"]=false",
    "global_server_args_dict[\"n_share_experts_fusion\"]=1",
    "global_server_args_dict[\"enable_dp_lm_head\"]=false",
];

#[test]
fn sglang_0_4_6_whole_model_scales_once_with_the_shared_expert_fused() {
    // SGLang 0.4.6.post5, the whole model on CUDA without quantization, DeepEP or DP attention,
    // the shared expert fused into the top-k (`n_share_experts_fusion=1`). Read in
    // deepseek_v2.py, topk.py and fused_moe.py: the fused slot is the routed sum / factor
    // (topk.py:138, 202, or sgl-kernel's `moe_fused_gate`), the experts run in place
    // (`torch.ops.sglang.inplace_fused_experts(hidden_states, ...)`: a Triton kernel fills views
    // of one scratch buffer, summed into chunks of `hidden_states`), and `op_output`
    // multiplies once. The final norm sees the routed part scaled and the shared part not:
    // ONCE. (Writes into the scratch views and chunks were lost: the output held the input
    // scaled as a whole, and the norm read as taking the factor off, NEVER.)
    let Some(tree) = fetch("0.4.6.post5") else { return };
    let assumptions = [SGLANG_0_4_6_FUSED, &["get_attention_dp_size()=1"]].concat();
    let entry = "sglang.srt.models.deepseek_v2.DeepseekV2ForCausalLM";
    let trace = trace_on(&tree, "routed_scaling_factor", entry, "cuda", &assumptions);
    assert_eq!(trace["verdict"], "ONCE", "{trace:#}");
    let rows = trace["rows"].as_array().unwrap();
    let slot = |row: &Value| {
        row["parts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["exponent"] == 0 && p["sites"].as_array().unwrap().iter().any(|s| s["exponent"] == -1))
    };
    assert_eq!(rows.len(), 3, "{trace:#}");
    assert!(rows.iter().all(slot), "{trace:#}");
}

#[test]
fn sglang_0_4_6_whole_model_scales_once_with_dp_attention_free() {
    // The same model with data-parallel attention left free. Read in communicator.py,
    // dp_attention.py and logits_processor.py: the communicator gathers into
    // `forward_batch.gathered_buffer` (storage of the batch handed in); the logits processor
    // narrows its argument (`isinstance(logits_metadata, ForwardBatch)`), takes the buffer of
    // `LogitsMetadata.from_forward_batch(...)`, and `dp_gather_replicate` copies the tokens on
    // attention-TP rank 0 only, the all-reduce handing them to every rank. (Each was lost
    // once: NEVER with DP attention.)
    let Some(tree) = fetch("0.4.6.post5") else { return };
    let entry = "sglang.srt.models.deepseek_v2.DeepseekV2ForCausalLM";
    let trace = trace_on(&tree, "routed_scaling_factor", entry, "cuda", SGLANG_0_4_6_FUSED);
    assert_eq!(trace["verdict"], "ONCE", "{trace:#}");
    assert!(trace["rows"].as_array().unwrap().iter().all(|r| r["verdict"] == "ONCE"), "{trace:#}");
}

#[test]
fn sglang_0_5_6_scales_the_gpu_experts_twice_with_ktransformers() {
    // SGLang 0.5.6, read in deepseek_v2.py, kt_ep_wrapper.py and compressed_tensors_moe.py of
    // that release: with KTransformers' CPU experts (a kt config) FusedMoE wraps the
    // compressed-tensors WNA16 method in `KTEPWrapperMethod`, which hands the GPU method the
    // layer's runner config, factor included: `fused_marlin_moe` multiplies its output
    // (fused_marlin_moe.py:209), and the block multiplies again for the wrapper
    // (deepseek_v2.py:888, 809 on the dual-stream path). TWICE on the GPU experts' output; on
    // rank 0 the CPU experts' output, scaled once, is added (MIXED). Before the evaluator ran a
    // skipped constructor of a class with an abstract base when its field was read, the
    // wrapped method's weights were never registered and every kt configuration raised.
    let Some(tree) = fetch("0.5.6") else { return };
    let assumptions = [
        "quant_config=CompressedTensorsConfig",
        "quant_config.target_scheme_map[\"Linear\"].get(\"input_activations\")=None",
        "MOE_A2A_BACKEND=none",
        "create_kt_config_from_server_args(server_args, layer_id) == None=false",
        "except ImportError=false",
        "should_ignore_layer(prefix, ignore=self.ignore, fused_mapping=self.packed_modules_mapping)=false",
    ];
    let traced =
        trace_on(&tree, "routed_scaling_factor", "sglang.srt.models.deepseek_v2.DeepseekV2MoE", "cuda", &assumptions);
    assert_evaluated_to_the_end(&traced);
    let rows = traced["rows"].as_array().unwrap();
    let marlin = ("sglang/srt/layers/moe/fused_moe_triton/fused_marlin_moe.py".to_string(), 209, 1);
    let twice: Vec<&Value> = rows.iter().filter(|r| r["verdict"] == "TWICE").collect();
    assert!(!twice.is_empty(), "{rows:#?}");
    for row in twice {
        let sites = row_sites(row);
        assert!(sites.contains(&marlin), "{row:#}");
        assert!(
            sites.iter().any(|(path, line, _)| path == "sglang/srt/models/deepseek_v2.py" && [809, 888].contains(line)),
            "{row:#}"
        );
    }
}

#[test]
fn sglang_0_5_23_never_applies_llada2s_factor_on_the_npu_softmax_top_k() {
    // SGLang 0.5.23, read in llada2.py and hardware_backend/npu/moe/topk.py: on NPU the block
    // turns renormalization off and asks the top-k to apply the factor
    // (`apply_routed_scaling_factor_on_output=_is_npu`), so the experts leave it out.
    // `fused_topk_npu`'s fast path (no groups, no correction bias: softmax) calls
    // `npu_moe_gating_top_k_softmax`, which takes no factor, and nothing applies it after.
    // With groups the torch top-k multiplies, with a bias the gating kernel is handed it.
    let Some(tree) = sglang_tree() else { return };
    let assumptions = ["quant_config=None", "get_moe_a2a_backend()=none", "get_fused_op_backend()=None"];
    let entry = "sglang.srt.models.llada2.LLaDA2MoeSparseMoeBlock";
    let out = trace_on(&tree, "routed_scaling_factor", entry, "npu", &assumptions);
    assert_evaluated_to_the_end(&out);
    assert_eq!(out["verdict"], "NEVER", "{:#}", out["rows"]);
    let rows = out["rows"].as_array().unwrap();
    for row in rows {
        let grouped = row_requires(row, "config.n_group > 0", true);
        match row["verdict"].as_str() {
            Some("NEVER") => {
                assert!(row_requires(row, "config.n_group > 0", false), "{row:#}");
                assert!(row_sites(row).is_empty(), "{row:#}");
            }
            Some("ONCE") => {
                let sites = row_sites(row);
                let kernel = ("sglang/srt/hardware_backend/npu/moe/topk.py".to_string(), 77, 1);
                let torch_top_k = ("sglang/srt/layers/moe/topk.py".to_string(), 1846, 1);
                assert!(sites == [kernel] || (grouped && sites == [torch_top_k]), "{row:#}");
            }
            _ => panic!("{row:#}"),
        }
    }
}

#[test]
fn sglang_0_5_23_never_applies_nemotron_hs_factor_on_npu() {
    // SGLang 0.5.23, read in nemotron_h.py, fused_moe_triton/layer.py and
    // layers/moe/moe_runner/ascend.py: the block leaves the factor to the runner unless the
    // experts fuse it into the top-k (`_fuses_routed_scaling_factor_in_topk`: never for the
    // unquantized method off the TRT-LLM and CUTLASS runners), and the Ascend runner reads no
    // factor; `fused_topk_npu` is handed 1 where the top-k is not asked. The family of sglang
    // PR 31449 (July 2026: NPU top-k weights left unscaled).
    let Some(tree) = sglang_tree() else { return };
    let assumptions = ["quant_config=None", "get_moe_a2a_backend()=none", "get_fused_op_backend()=None"];
    let out =
        trace_on(&tree, "routed_scaling_factor", "sglang.srt.models.nemotron_h.NemotronHMoE", "npu", &assumptions);
    assert_evaluated_to_the_end(&out);
    let rows = out["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{rows:#?}");
    assert_eq!((rows[0]["verdict"].as_str(), rows[0]["when"].as_str()), (Some("NEVER"), Some("always")));
}

/// SGLang 0.5.23's `DeepseekV2MoE` as DeepSeek V4 builds it, on ROCm without quantization or
/// all-to-all, with the MoE runner backend, aiter and the fused MoE sum all-reduce as given.
fn deepseek_v4_block_on_rocm(tree: &PathBuf, runner: &str, aiter: bool, fused_sum: bool) -> Value {
    let runner = format!("get_moe_runner_backend()={runner}");
    let aiter = format!("get_bool_env_var(\"SGLANG_USE_AITER\")={aiter}");
    let fused_sum = format!("get_exec().moe.enable_fused_moe_sum_all_reduce={fused_sum}");
    let assumptions = [
        "is_deepseek_v4=true",
        "quant_config=None",
        "get_moe_a2a_backend()=none",
        "get_fused_op_backend()=None",
        "get_exec().moe.enable_paged_experts=false",
        &runner,
        &aiter,
        &fused_sum,
    ];
    trace_on(tree, "routed_scaling_factor", "sglang.srt.models.deepseek_v2.DeepseekV2MoE", "rocm", &assumptions)
}

#[test]
fn sglang_0_5_23_on_rocm_never_applies_the_factor_with_the_fused_moe_sum_all_reduce() {
    // SGLang 0.5.23, read in moe_runner/triton_utils/fused_moe.py: with
    // `--enable-fused-moe-sum-all-reduce` (and more than two experts per token) the Triton
    // runner's second GEMM writes the weighted sum straight into the output (`out_slice`),
    // which the CUDA combine then multiplies by the factor; the HIP combine does not test the
    // flag and sums `intermediate_cache3`, never written on that path, into the output. NEVER
    // there, whatever else is configured. Without the flag nothing is NEVER on ROCm: the
    // decode router gate (`rocm_router_gate`, a Triton kernel ending in `tl.where(is_shared,
    // 1.0, weights)`) folds the factor into the weights it hands on.
    let Some(tree) = sglang_tree() else { return };
    for fused_sum in [false, true] {
        let out = deepseek_v4_block_on_rocm(&tree, "auto", true, fused_sum);
        assert_evaluated_to_the_end(&out);
        let rows = out["rows"].as_array().unwrap();
        let never: Vec<&Value> = rows.iter().filter(|r| r["verdict"] == "NEVER").collect();
        assert_eq!(!never.is_empty(), fused_sum, "{fused_sum}: {never:#?}");
        for row in never {
            assert!(row_requires(row, "topk_ids.shape[1] > 2", true), "{row:#}");
            // The row says why: the value scaled a buffer nothing had written.
            assert!(row["unwritten_at"].as_array().is_some_and(|notes| !notes.is_empty()), "{row:#}");
        }
        if !fused_sum {
            let router_gate = rows
                .iter()
                .any(|r| row_sites(r).iter().any(|(path, _, _)| path == "sglang/kernels/ops/moe/rocm_router_gate.py"));
            assert!(router_gate, "{rows:#?}");
        }
    }
}

#[test]
fn sglang_0_5_23_on_rocm_without_aiter_applies_the_factor_twice_with_the_triton_runner() {
    // SGLang 0.5.23, read in moe_runner/triton_utils/fused_moe.py and models/deepseek_v2.py:
    // on ROCm without aiter, the Triton runner's combine sums the experts' outputs with
    // `moe_sum_reduce_triton(..., routed_scaling_factor)` (or, for few tokens, the torch one's
    // `out.mul_(routed_scaling_factor)`), and `forward_normal` multiplies again wherever the
    // platform is not CUDA, MUSA or XPU and aiter does not fold the factor into the top-k
    // (`final_hidden_states *= self.routed_scaling_factor`, deepseek_v2.py:1422, and :1239 on
    // the dual-stream path). Twice in every configuration (MIXED where a shared expert is fused
    // into the top-k, its slot weighted 1/factor). So in 0.5.4.post3 already, where the HIP
    // branch's `vllm_ops.moe_sum` (no factor) of 0.4.10.post2 had become `moe_sum_reduce_triton`.
    let Some(tree) = sglang_tree() else { return };
    let out = deepseek_v4_block_on_rocm(&tree, "triton", false, false);
    assert_evaluated_to_the_end(&out);
    let rows = out["rows"].as_array().unwrap();
    assert!(rows.iter().any(|r| r["verdict"] == "TWICE"), "{rows:#?}");
    let fused_moe = "sglang/srt/layers/moe/moe_runner/triton_utils/fused_moe.py";
    for row in rows {
        assert!(matches!(row["verdict"].as_str(), Some("TWICE" | "MIXED")), "{row:#}");
        let sites = row_sites(row);
        let runner = sites.iter().any(|(path, line, _)| path == fused_moe && [407, 1042].contains(line));
        let block = sites
            .iter()
            .any(|(path, line, _)| path == "sglang/srt/models/deepseek_v2.py" && [1239, 1422].contains(line));
        assert!(runner && block, "{row:#}");
    }
}

#[test]
fn sglang_0_5_23_scales_laguna_and_lfm2_once_with_every_all_to_all_backend() {
    // SGLang 0.5.23, read in token_dispatcher/moriep.py and deepep_v2.py: the MoRI dispatcher
    // picks the implementation it built for the mode (`_get_impl()`: EPv2's where
    // `SGLANG_MORI_EP_V2`, else normal or low-latency as `deepep_mode.resolve(...)` says), and
    // the DeepEP v2 dispatcher's buffer (`-> ElasticBuffer`) is the one the runtime's resources
    // hold, or one made for the key. Neither moves the factor: both blocks scale their routed
    // output once, after the experts, whatever the all-to-all backend. (Read as any
    // implementation of its class, `_get_impl()` gave EPv1 configurations the EPv2 op, and the
    // cached buffer was an unknown object: those rows were UNKNOWN.)
    let Some(tree) = sglang_tree() else { return };
    for entry in ["sglang.srt.models.laguna.LagunaMoE", "sglang.srt.models.lfm2_moe.Lfm2MoeSparseMoeBlock"] {
        let out = trace_on(&tree, "routed_scaling_factor", entry, "cuda", &["quant_config=None"]);
        assert_evaluated_to_the_end(&out);
        assert_eq!(out["verdict"], "ONCE", "{entry}: {:#}", out["rows"]);
        let dispatch_blocked = out["unresolved"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|u| u["what"].as_str().is_some_and(|w| w.contains("_mori_op") || w.contains("deepep_v2_ep_state")))
            .count();
        assert_eq!(dispatch_blocked, 0, "{entry}: {:#}", out["unresolved"]);
    }
}

#[test]
fn sglang_0_5_23_bailing_linear_whole_model_reaches_its_moe_blocks() {
    // `BailingMoELinearModel` builds its layers with a nested `def layer_fn(idx, prefix)` (each
    // on `copy.deepcopy(config)`) handed to `make_pp_layers`. The nested function's calls were
    // nobody's, so the model's constructor read as code that never sees the value: skipped,
    // and the whole model NEVER in 84 steps. It reaches its `BailingMoE` blocks now (the step
    // budget is cut short here, to keep the test short: what the blocks read is not asked).
    let Some(tree) = sglang_tree() else { return };
    let out = trace(
        &tree,
        &[
            "routed_scaling_factor",
            "--entry",
            "sglang.srt.models.bailing_moe_linear.BailingMoELinearForCausalLM",
            "--platform",
            "cuda",
            "--assume",
            "quant_config=None",
            "--assume",
            "get_moe_a2a_backend()=none",
            "--max-steps",
            "20000",
            "--max-cases",
            "0",
        ],
    );
    let blocks = out["blocks"].as_array().map(Vec::as_slice).unwrap_or_default();
    let entries: Vec<&str> = blocks.iter().map(|b| b["entry"].as_str().unwrap()).collect();
    assert_eq!(entries, ["sglang.srt.models.bailing_moe_linear.BailingMoE"], "{:#}", out["verdict"]);
}
