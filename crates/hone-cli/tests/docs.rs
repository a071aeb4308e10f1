//! The docs name only what exists. Every `hone …` command line in README.md, CONTRIBUTING.md
//! and `docs/*.md` (code spans, and lines of shell code blocks) must use subcommands and
//! options the built binary has (read from `hone … --help` for every subcommand); every
//! `toml` code block must load as a hone configuration file, and every `[section] key` span
//! must name a key hone knows (through `hone_config::load`, which rejects unknown keys); every
//! relative link must lead to a file and heading that exist. A synthetic document checks that
//! made-up names are caught.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

#[path = "docs/commands.rs"]
mod commands;
#[path = "docs/markdown.rs"]
mod markdown;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use commands::{CommandSpec, help_of, hone_commands, problems};
use markdown::Document;

/// The workspace root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The documents the test reads, relative to the root: the README, CONTRIBUTING and the
/// manual (the changelog records history, so it may name what no longer exists).
fn documents() -> Vec<PathBuf> {
    let mut paths = vec![PathBuf::from("README.md"), PathBuf::from("CONTRIBUTING.md")];
    let mut manual: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .map(|path| Path::new("docs").join(path.file_name().unwrap()))
        .collect();
    manual.sort();
    paths.extend(manual);
    paths
}

/// The command line of the built binary, read once.
fn cli() -> &'static CommandSpec {
    static CLI: OnceLock<CommandSpec> = OnceLock::new();
    CLI.get_or_init(|| {
        let home = tempfile::tempdir().unwrap();
        let binary = Path::new(env!("CARGO_BIN_EXE_hone"));
        CommandSpec::read(&[], &|args| help_of(binary, home.path(), args))
    })
}

/// Code blocks whose lines are shell commands (or their output).
fn is_shell(info: &str) -> bool {
    let language = info.split_whitespace().next().unwrap_or("");
    matches!(language, "" | "sh" | "bash" | "shell" | "console" | "text")
}

/// What is wrong with the `hone …` command lines of `document`, as `LINE: problem`, and how
/// many command lines there were.
fn command_problems(document: &Document, cli: &CommandSpec) -> (Vec<String>, usize) {
    let mut lines = document.spans.clone();
    for block in document.blocks.iter().filter(|b| is_shell(&b.info)) {
        lines.extend(block.lines.iter().map(|line| markdown::Found {
            line: line.line,
            text: line.text.trim_start().trim_start_matches("$ ").to_string(),
        }));
    }
    let mut found = Vec::new();
    let mut checked = 0;
    for line in lines {
        for command in hone_commands(&line.text) {
            checked += 1;
            for problem in problems(cli, &command) {
                found.push(format!("{}: {problem}", line.line));
            }
        }
    }
    (found, checked)
}

/// Loads `text` as the user's configuration file; the error's message when it does not load.
fn load_config(text: &str) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, text).unwrap();
    let sources = hone_config::ConfigSources {
        user_file: Some(path.clone()),
        project_dir: None,
        env: BTreeMap::from([(
            hone_config::HONE_CONFIG_ENV.to_string(),
            path.display().to_string(),
        )]),
    };
    hone_config::load(&sources, &hone_config::CliOverrides::default())
        .map(|_| ())
        .map_err(|error| error.to_string())
}

/// A span such as `[index] map_budget`, `[sandbox] network = true` or `[checks]` as a
/// configuration file; `None` for spans that are not settings (`[y] index now`).
fn inline_setting(span: &str) -> Option<String> {
    let (section, after) = span.strip_prefix('[')?.split_once(']')?;
    let section_ok = section.len() >= 3
        && section.starts_with(|c: char| c.is_ascii_lowercase())
        && section
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-');
    if !section_ok {
        return None;
    }
    let after = after.trim();
    if after.is_empty() {
        // A bare `[tool.ruff]` may be another file's table; plain names are hone's.
        return (!section.contains('.')).then(|| format!("[{section}]\n"));
    }
    let (key, value) = after
        .split_once('=')
        .map_or((after, ""), |(key, value)| (key.trim(), value.trim()));
    let key_ok = key.starts_with(|c: char| c.is_ascii_lowercase())
        && key
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !key_ok {
        return None;
    }
    let line = format!("{key} = {value}");
    let line = if toml::from_str::<toml::Table>(&line).is_ok() {
        line
    } else {
        format!("{key} = 0") // no value given: a wrong type is still not an unknown key
    };
    Some(format!("[{section}]\n{line}\n"))
}

/// What is wrong with the configuration `document` shows, as `LINE: problem`, and how many
/// files and settings were checked.
fn config_problems(document: &Document) -> (Vec<String>, usize) {
    let mut found = Vec::new();
    let mut checked = 0;
    for block in document.blocks.iter().filter(|b| b.info == "toml") {
        checked += 1;
        let text: Vec<&str> = block.lines.iter().map(|l| l.text.as_str()).collect();
        if let Err(error) = load_config(&text.join("\n")) {
            found.push(format!(
                "{}: this configuration does not load: {error}",
                block.line
            ));
        }
    }
    for span in &document.spans {
        let Some(file) = inline_setting(&span.text) else {
            continue;
        };
        checked += 1;
        // A wrong value is fine here (the span may leave it out); an unknown name is not.
        if let Err(error) = load_config(&file)
            && (error.contains("unknown field") || error.contains("unknown key"))
        {
            found.push(format!(
                "{}: `{}` is not a setting: {error}",
                span.line, span.text
            ));
        }
    }
    (found, checked)
}

/// Every problem of the Markdown `text` with commands and settings, and how many command
/// lines and configuration files or settings were checked.
fn check(text: &str) -> (Vec<String>, usize, usize) {
    let document = markdown::parse(text);
    let (mut found, commands) = command_problems(&document, cli());
    let (config, settings) = config_problems(&document);
    found.extend(config);
    (found, commands, settings)
}

fn problems_of(text: &str) -> Vec<String> {
    check(text).0
}

#[test]
fn docs_name_only_commands_options_and_settings_that_exist() {
    let (mut found, mut commands, mut settings) = (Vec::new(), 0, 0);
    for path in documents() {
        let text = std::fs::read_to_string(root().join(&path)).unwrap();
        let (problems, in_commands, in_settings) = check(&text);
        found.extend(problems.iter().map(|p| format!("{}:{p}", path.display())));
        commands += in_commands;
        settings += in_settings;
    }
    assert!(
        found.is_empty(),
        "the docs name what does not exist:\n{}",
        found.join("\n")
    );
    // The manual is full of both: far fewer means the reader stopped finding them.
    assert!(commands > 150, "only {commands} command lines found");
    assert!(
        settings > 40,
        "only {settings} configuration files and settings found"
    );
}

#[test]
fn a_made_up_command_option_or_setting_is_caught() {
    let made_up = "\
Run `hone exec --frobnicate \"fix it\"`, then `hone sesions list` or `hone -Z`.
`hone sessions list --everything` and `hone model pul` and `hone sessions show\\|destroy ID`.

```sh
cat log | hone ask --sytem x \"why?\"   # a comment: hone --not-checked
export M=\"$(hone modle pull)\"
```

Set `[index] map_budgett`, `[sandboxx] mode` or:

```toml
[sandbox]
netwrok = true
```
";
    let found = problems_of(made_up).join("\n");
    for expected in [
        "1: `hone exec` has no option `--frobnicate`",
        "1: `hone` has no subcommand `sesions`",
        "1: `hone` has no option `-Z`",
        "2: `hone sessions list` has no option `--everything`",
        "2: `hone model` has no subcommand `pul`",
        "2: `hone sessions` has no subcommand `destroy`",
        "5: `hone ask` has no option `--sytem`",
        "6: `hone` has no subcommand `modle`",
        "9: `[index] map_budgett` is not a setting",
        "9: `[sandboxx] mode` is not a setting",
        "11: this configuration does not load",
    ] {
        assert!(
            found.contains(expected),
            "{expected} not caught in:\n{found}"
        );
    }
    assert!(!found.contains("not-checked"), "{found}");
    assert_eq!(found.lines().count(), 11, "{found}");
}

#[test]
fn what_exists_passes() {
    let real = "\
`hone exec --approval auto-edit --json \"fix it\"`, `hone --profile fast ask \"…\"`,
`hone -C repo/src`, `hone -vv index status`, `hone ask -- what does --frobnicate do`,
`hone sessions show\\|delete ID`, `hone exec --resume last \"go on\"`, `hone undo 3`,
`hone mcp serve --approval auto-edit --no-agent`, `hone completions bash > file`,
`[index] map_budget`, `[sandbox] network = true`, `[checks]`, `[tool.ruff]`, `[y] yes`.

```sh
hone sandbox --explain -- cargo test --frobnicate
export HONE_TEST_MODEL=\"$(hone model pull qwen2.5-coder-0.5b)\"
```

```toml task.toml
prompt = \"not hone's configuration\"
```

```toml
[index]
map_budget = 4000
```
";
    assert_eq!(problems_of(real), Vec::<String>::new());
}

#[test]
fn relative_links_lead_to_files_and_headings_that_exist() {
    let mut parsed = BTreeMap::new();
    for path in documents() {
        let text = std::fs::read_to_string(root().join(&path)).unwrap();
        parsed.insert(path, markdown::parse(&text));
    }
    let mut broken = Vec::new();
    for (path, document) in &parsed {
        let dir = path.parent().unwrap_or(Path::new(""));
        for link in &document.links {
            if link.text.contains("://") || link.text.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = link.text.split_once('#').unwrap_or((&link.text, ""));
            let target = if file.is_empty() {
                path.clone()
            } else {
                normalise(&dir.join(file))
            };
            if !root().join(&target).exists() {
                broken.push(format!(
                    "{}:{}: no file {}",
                    path.display(),
                    link.line,
                    link.text
                ));
            } else if !anchor.is_empty() {
                let anchors = match parsed.get(&target) {
                    Some(document) => document.anchors.clone(),
                    None => continue, // a file the test does not read (the changelog)
                };
                if !anchors.iter().any(|a| a == anchor) {
                    broken.push(format!(
                        "{}:{}: no heading {}",
                        path.display(),
                        link.line,
                        link.text
                    ));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// `docs/../README.md` as `README.md`.
fn normalise(path: &Path) -> PathBuf {
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                parts.pop();
            }
            std::path::Component::CurDir => {}
            other => parts.push(other.as_os_str()),
        }
    }
    parts.iter().collect()
}

#[test]
fn the_readme_is_a_landing_page_with_the_test_command_ci_runs() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= 250,
        "README.md has {lines} lines; the manual is docs/"
    );
    let ci = std::fs::read_to_string(root().join(".ci/run")).unwrap();
    let command = ci
        .lines()
        .rev()
        .find_map(|line| line.strip_prefix("exec "))
        .expect(".ci/run ends by running the test command");
    let shown = markdown::parse(&readme)
        .blocks
        .iter()
        .flat_map(|block| block.lines.iter())
        .any(|line| line.text.trim() == command.trim());
    assert!(shown, "README.md shows the test command CI runs: {command}");
}
