//! The system prompt: role, rules and tool guidance, written so small models succeed too.

use std::path::Path;

use crate::profile::PromptProfile;
use crate::tools::ToolRegistry;

/// `built_in` with a profile's `system_prompt` after it (`append`) or in its place
/// (`replace`). In the profile's text `{project}` becomes the project directory's name and
/// `{root}` its path.
pub(crate) fn with_profile_prompt(
    built_in: String,
    root: &Path,
    custom: Option<&hone_protocol::SystemPrompt>,
) -> String {
    let Some(custom) = custom else {
        return built_in;
    };
    let project = root.file_name().map_or_else(
        || root.display().to_string(),
        |name| name.to_string_lossy().into_owned(),
    );
    let text = custom
        .text
        .replace("{project}", &project)
        .replace("{root}", &root.display().to_string());
    match custom.mode {
        hone_protocol::SystemPromptMode::Replace => text,
        hone_protocol::SystemPromptMode::Append => {
            format!("{}\n\n{}\n", built_in.trim_end(), text.trim_end())
        }
    }
}

/// The system prompt for a session in `root`, with the repository map when there is one.
pub(crate) fn system_prompt(
    root: &Path,
    registry: &ToolRegistry,
    repo_map: Option<&str>,
) -> String {
    let project = root.file_name().map_or_else(
        || root.display().to_string(),
        |name| name.to_string_lossy().into_owned(),
    );
    let tools: Vec<&str> = registry.names().collect();
    if registry.profile() == PromptProfile::Compact {
        return compact_system_prompt(&project, &tools, repo_map);
    }
    let navigation = if tools.contains(&"find_definition") {
        "- Navigate code with the index tools: get_outline for a file's structure, get_function \
           and get_class for one definition's source, find_definition and find_references for \
           symbols, get_dependencies and get_dependents for imports.\n"
    } else {
        ""
    };
    let mut prompt = format!(
        "You are hone, a coding agent working in the project `{project}` on the user's machine.\n\
         You act through tools: {tools}.\n\
         \n\
         Rules:\n\
         - Paths are relative to the project root, e.g. `src/main.rs`. Never invent paths: use \
           list_dir, glob_files or search_files to find files first.\n\
         {navigation}\
         - Read a file with read_file before changing it. Its output has line numbers; never copy \
           the numbers into edits.\n\
         - Prefer edit_file for small changes: old_text must be copied exactly from the file and be \
           unique (add surrounding lines if needed); new_text must differ from old_text. Use \
           apply_patch for several related changes, write_file only for new files or full rewrites, rename_symbol to rename a symbol across files.\n\
         - After a tool error, read the message: it says what to do next. Do not repeat a call \
           that failed without changing it.\n\
         - Run the project's tests with run_tests after changing code when tests exist.\n\
         - Edits and commands may need the user's approval; if one is denied, respect the reason.\n\
         - When the task is done, answer briefly: what you changed and how you checked it.\n\
         - Answer in the language the user writes in (code, paths and commands stay as they are).\n",
        tools = tools.join(", "),
    );
    if let Some(map) = repo_map.map(str::trim_end).filter(|map| !map.is_empty()) {
        prompt.push_str(
            "\n# Repository map\n\
             The project's most important files with their main signatures (not all files are \
             shown; use the tools for the rest):\n\n",
        );
        prompt.push_str(map);
        prompt.push('\n');
    }
    prompt
}

/// The short system prompt of the compact profile: a few direct rules a small model follows.
fn compact_system_prompt(project: &str, tools: &[&str], repo_map: Option<&str>) -> String {
    let mut prompt = format!(
        "You are hone, a coding agent in the project `{project}`. Use the tools ({tools}) to \
         look at and change files.\n\
         - Paths are relative to the project root.\n\
         - Read a file before you edit it.\n\
         - edit_file: copy old_text exactly from the file, without the line numbers.\n\
         - If a tool fails, read the error and fix the call.\n\
         - When done, say in one or two sentences what you changed.\n\
         - Answer in the user's language.\n",
        tools = tools.join(", "),
    );
    if let Some(map) = repo_map.map(str::trim_end).filter(|map| !map.is_empty()) {
        prompt.push_str("\nFiles:\n");
        prompt.push_str(map);
        prompt.push('\n');
    }
    prompt
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profile_prompt_follows_or_replaces_the_built_in_one() {
        let root = Path::new("/work/shop");
        let custom = |mode| hone_protocol::SystemPrompt {
            text: "Work on {project} in {root}.".into(),
            mode,
        };
        let appended = with_profile_prompt(
            "Built in.\n".into(),
            root,
            Some(&custom(hone_protocol::SystemPromptMode::Append)),
        );
        assert_eq!(appended, "Built in.\n\nWork on shop in /work/shop.\n");
        let replaced = with_profile_prompt(
            "Built in.\n".into(),
            root,
            Some(&custom(hone_protocol::SystemPromptMode::Replace)),
        );
        assert_eq!(replaced, "Work on shop in /work/shop.");
        assert_eq!(with_profile_prompt("Same".into(), root, None), "Same");
    }

    #[test]
    fn the_repo_map_is_appended_when_given() {
        let registry = ToolRegistry::builtin();
        let root = Path::new("/tmp/project");
        let plain = system_prompt(root, &registry, None);
        assert!(!plain.contains("# Repository map"));
        assert!(!plain.contains("find_definition"));
        let mapped = system_prompt(root, &registry, Some("src/a.ts:\n  function a()\n"));
        assert!(mapped.starts_with(&plain), "{mapped}");
        assert!(
            mapped.ends_with("# Repository map\nThe project's most important files with their main signatures (not all files are shown; use the tools for the rest):\n\nsrc/a.ts:\n  function a()\n"),
            "{mapped}"
        );
        assert_eq!(system_prompt(root, &registry, Some("  \n")), plain);
    }

    #[test]
    fn the_compact_profile_has_a_short_prompt_and_few_tools() {
        let registry = ToolRegistry::with(Vec::new(), Vec::new(), PromptProfile::Compact);
        let root = Path::new("/tmp/project");
        let full = system_prompt(root, &ToolRegistry::builtin(), None);
        let compact = system_prompt(root, &registry, Some("src/a.ts\n"));
        assert!(compact.len() * 2 < full.len(), "{compact}");
        assert!(
            compact.contains("read_file, rename_symbol, run_command, search_files"),
            "{compact}"
        );
        assert!(!compact.contains("git_commit"), "{compact}");
        assert!(
            compact.contains("Answer in the user's language."),
            "{compact}"
        );
        assert!(
            full.contains("Answer in the language the user writes in"),
            "{full}"
        );
        assert!(compact.ends_with("\nFiles:\nsrc/a.ts\n"), "{compact}");
        let names: Vec<String> = registry.specs().into_iter().map(|spec| spec.name).collect();
        assert_eq!(
            names,
            [
                "edit_file",
                "list_dir",
                "read_file",
                "rename_symbol",
                "run_command",
                "search_files",
                "write_file"
            ]
        );
        assert!(registry.resolve("git_status").is_ok());
    }
}
