//! Exit codes, decided in one place and documented in the README and `--help`.

use std::process::ExitCode;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// The question was answered (for `trace`: the value is applied exactly once everywhere).
    Success = 0,
    /// `trace` found configurations where the value is applied twice, never, or inverted.
    Finding = 1,
    /// Bad arguments, an unknown or ambiguous name, or no Python files.
    Usage = 2,
    /// `trace` could not decide (verdict UNKNOWN).
    Unknown = 3,
    /// A bug in scaletrace.
    Internal = 101,
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit as u8)
    }
}

#[cfg(test)]
mod tests {
    use super::Exit;

    #[test]
    fn codes_are_stable() {
        assert_eq!(Exit::Success as u8, 0);
        assert_eq!(Exit::Finding as u8, 1);
        assert_eq!(Exit::Usage as u8, 2);
        assert_eq!(Exit::Unknown as u8, 3);
        assert_eq!(Exit::Internal as u8, 101);
    }
}
