//! Files a tool's change to always asks about, in every mode but read-only: hone's own files
//! under `.hone/` (the project configuration, the audit logs, the code index), whose change
//! decides what the next session does, and the instruction files (`AGENTS.md`, `HONE.md`) that
//! go into every session's prompt.

/// Why a change to the file at `relative` (a root-relative path) always asks, as a phrase
/// (`"is one of hone's own files …"`), or `None` for an ordinary file.
///
/// ```
/// use hone_policy::protected_write;
///
/// assert!(protected_write(".hone/config.toml").is_some());
/// assert!(protected_write("docs/AGENTS.md").is_some());
/// assert!(protected_write("src/main.rs").is_none());
/// ```
pub fn protected_write(relative: &str) -> Option<&'static str> {
    let relative = relative.trim_start_matches("./");
    if relative
        .split('/')
        .any(|component| component.eq_ignore_ascii_case(".hone"))
    {
        return Some(
            "is one of hone's own files (configuration, logs, code index), which decide what \
             the next session does",
        );
    }
    let name = relative.rsplit('/').next().unwrap_or(relative);
    ["AGENTS.md", "HONE.md"]
        .iter()
        .any(|instructions| name.eq_ignore_ascii_case(instructions))
        .then_some("holds project instructions that go into every session's prompt")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hones_files_and_instruction_files_are_protected() {
        for path in [
            ".hone/config.toml",
            ".hone/logs/tools.jsonl",
            "./.hone/index.db",
            "AGENTS.md",
            "sub/dir/hone.md",
        ] {
            assert!(protected_write(path).is_some(), "{path}");
        }
        for path in [
            "src/hone.rs",
            "honest/AGENTS.md.bak",
            "docs/agents.txt",
            ".honeignore",
        ] {
            assert!(protected_write(path).is_none(), "{path}");
        }
    }
}
