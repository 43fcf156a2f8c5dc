//! End-to-end tests: run the real binary on fixture trees and compare what a user sees.
//! One test binary for all of them (faster to build), one module per concern.

mod broken;
mod queries;
mod trace;

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

pub fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/tiny_moe")
}

/// What one run printed, with its exit code: the thing snapshots record.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn snapshot(&self) -> String {
        format!("exit code: {}\n----- stdout -----\n{}----- stderr -----\n{}", self.code, self.stdout, self.stderr)
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", self.stdout))
    }
}

/// Runs `scaletrace --root ROOT ARGS...`. Paths in the output are relative to the root, so the
/// output does not depend on where the checkout lives.
pub fn run(root: &Path, args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_scaletrace"))
        .arg("--root")
        .arg(root)
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("the scaletrace binary runs");
    let code = output.status.code().unwrap_or(-1);
    let root_text = root.display().to_string();
    let clean = |bytes: &[u8]| String::from_utf8_lossy(bytes).replace(&root_text, "[ROOT]");
    Run { code, stdout: clean(&output.stdout), stderr: clean(&output.stderr) }
}
