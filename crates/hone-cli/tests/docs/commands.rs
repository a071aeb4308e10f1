//! The command line as the built binary describes it (`hone … --help` for every
//! subcommand), and the `hone …` command lines the docs show, checked against it.

use std::collections::BTreeMap;
use std::path::Path;

/// Whether an option takes a value: `--model <MODEL>`, `--resume [<ID|last>]`, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value {
    None,
    Required,
    Optional,
}

/// One command of the command line: its options (global ones included, as clap lists them)
/// and its subcommands.
#[derive(Debug, Default)]
pub struct CommandSpec {
    pub longs: BTreeMap<String, Value>,
    pub shorts: BTreeMap<char, Value>,
    pub subcommands: BTreeMap<String, CommandSpec>,
}

impl CommandSpec {
    /// `hone [path…] --help`, read recursively, through `run` (which returns the help text).
    pub fn read(path: &[String], run: &dyn Fn(&[String]) -> String) -> Self {
        let mut args = path.to_vec();
        args.push("--help".into());
        let mut spec = Self::from_help(&run(&args));
        let names: Vec<String> = spec.subcommands.keys().cloned().collect();
        for name in names {
            if name == "help" {
                continue; // clap's own; `hone help COMMAND` takes no options
            }
            let mut sub_path = path.to_vec();
            sub_path.push(name.clone());
            spec.subcommands.insert(name, Self::read(&sub_path, run));
        }
        spec
    }

    /// One command's `--help` text: the "Commands:" section and every options section.
    pub fn from_help(help: &str) -> Self {
        let mut spec = Self::default();
        let mut section = "";
        for line in help.lines() {
            if !line.starts_with(' ') && line.ends_with(':') {
                section = line;
                continue;
            }
            let indent = line.len() - line.trim_start().len();
            let entry = line.trim_start();
            if section == "Commands:" && indent == 2 {
                if let Some(name) = entry.split_whitespace().next() {
                    spec.subcommands.insert(name.into(), Self::default());
                }
            } else if section.to_lowercase().contains("options") && indent <= 6 {
                spec.add_option(entry);
            }
        }
        spec
    }

    /// `-C, --cd <DIR>`, `--resume [<ID|last>]`, `-v, --verbose...`, `--json`.
    fn add_option(&mut self, entry: &str) {
        let mut words = entry.split_whitespace().peekable();
        let mut short = None;
        let mut long = None;
        while let Some(word) = words.peek() {
            let word = word.trim_end_matches(',').trim_end_matches("...");
            if let Some(name) = word.strip_prefix("--") {
                long = Some(name.to_string());
            } else if let Some(name) = word.strip_prefix('-') {
                short = name.chars().next();
            } else {
                break;
            }
            words.next();
        }
        let value = match words.next() {
            Some(word) if word.starts_with("[<") => Value::Optional,
            Some(word) if word.starts_with('<') => Value::Required,
            _ => Value::None,
        };
        if let Some(long) = long {
            self.longs.insert(long, value);
        }
        if let Some(short) = short {
            self.shorts.insert(short, value);
        }
    }
}

/// A word of a command line, and whether it was quoted (a prompt, a value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    pub text: String,
    pub quoted: bool,
}

/// Splits a shell line into words: quotes group, `#` at the start of a word comments out the
/// rest.
fn words(line: &str) -> Vec<Word> {
    let mut words = Vec::new();
    let mut current: Option<Word> = None;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(open), c) if c == open => quote = None,
            (Some(_), c) => current.get_or_insert(empty_word()).text.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                current.get_or_insert(empty_word()).quoted = true;
            }
            (None, c) if c.is_whitespace() => words.extend(current.take()),
            (None, '#') if current.is_none() => break,
            (None, c) => current.get_or_insert(empty_word()).text.push(c),
        }
    }
    words.extend(current);
    words
}

fn empty_word() -> Word {
    Word {
        text: String::new(),
        quoted: false,
    }
}

/// Words that end a command: pipes, lists, redirections.
fn ends_command(word: &Word) -> bool {
    !word.quoted
        && (matches!(word.text.as_str(), "|" | "||" | "&&" | ";" | "&" | ")")
            || word.text.starts_with('>')
            || word.text.starts_with('<')
            || word.text.starts_with("2>"))
}

/// The `hone …` command lines in `text` (a code span, or a line of a shell block): at the
/// start, after `|`, `&&`, `;` and environment assignments, and inside `$(…)`.
pub fn hone_commands(text: &str) -> Vec<Vec<Word>> {
    let text = text.replace("\\|", "|");
    let mut found = Vec::new();
    let mut rest = text.as_str();
    while let Some(start) = rest.find("$(") {
        let inner = &rest[start + 2..];
        let end = inner.find(')').unwrap_or(inner.len());
        found.extend(hone_commands(&inner[..end]));
        rest = &inner[end..];
    }
    let words = words(&text);
    let mut at = 0;
    while at < words.len() {
        while at < words.len() && is_assignment(&words[at]) {
            at += 1;
        }
        let end = (at..words.len())
            .find(|&i| ends_command(&words[i]) && !is_alternation(&words, i))
            .unwrap_or(words.len());
        if words.get(at).is_some_and(|w| !w.quoted && w.text == "hone") {
            found.push(words[at..end].to_vec());
        }
        at = end + 1;
    }
    found
}

/// `VAR=value` before a command.
fn is_assignment(word: &Word) -> bool {
    word.text.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_uppercase() || c == '_')
    })
}

/// A `|` between alternatives in a synopsis (`[-c | --resume ID]`), not a pipe.
fn is_alternation(words: &[Word], at: usize) -> bool {
    words[at].text == "|"
        && words
            .get(at + 1)
            .is_some_and(|next| next.text.trim_start_matches('[').starts_with('-'))
}

/// What is wrong with one `hone …` command line (`words[0]` is `hone`), checked against
/// `root`: subcommands that do not exist, options the command does not take.
pub fn problems(root: &CommandSpec, words: &[Word]) -> Vec<String> {
    let mut problems = Vec::new();
    let mut spec = root;
    let mut path = vec!["hone".to_string()];
    let mut positional = false;
    let mut at = 1;
    while at < words.len() {
        if words[at].quoted {
            positional = true; // a prompt or a value
            at += 1;
            continue;
        }
        let word = words[at]
            .text
            .trim_start_matches(['[', '('])
            .trim_end_matches([']', ')', '…', ','])
            .trim_end_matches("...");
        let next_is_value = words
            .get(at + 1)
            .is_some_and(|next| next.quoted || !next.text.trim_start_matches('[').starts_with('-'));
        at += 1;
        if word == "--" {
            break;
        } else if let Some(long) = word.strip_prefix("--").filter(|l| !l.is_empty()) {
            let (name, inline) = long
                .split_once('=')
                .map_or((long, false), |(n, _)| (n, true));
            match spec.longs.get(name) {
                None => problems.push(format!("`{}` has no option `--{name}`", path.join(" "))),
                Some(Value::Required) if !inline => at += 1,
                Some(Value::Optional) if !inline && next_is_value => at += 1,
                Some(_) => {}
            }
        } else if let Some(shorts) = word
            .strip_prefix('-')
            .filter(|s| s.starts_with(|c: char| c.is_ascii_alphabetic()))
        {
            for (index, short) in shorts.char_indices() {
                match spec.shorts.get(&short) {
                    None => problems.push(format!("`{}` has no option `-{short}`", path.join(" "))),
                    Some(Value::None) => continue,
                    Some(_) => {
                        if index + 1 == shorts.len() {
                            at += 1; // the value is the next word
                        }
                        break; // or the rest of this one
                    }
                }
            }
        } else if !positional && !spec.subcommands.is_empty() && is_command_word(word) {
            let mut alternatives = word.split('|');
            let first = alternatives.next().unwrap_or_default();
            for other in alternatives {
                if !spec.subcommands.contains_key(other) {
                    problems.push(format!("`{}` has no subcommand `{other}`", path.join(" ")));
                }
            }
            match spec.subcommands.get(first) {
                Some(sub) => {
                    spec = sub;
                    path.push(first.to_string());
                }
                None => {
                    problems.push(format!("`{}` has no subcommand `{first}`", path.join(" ")));
                    positional = true;
                }
            }
        } else if !word.is_empty() {
            positional = true;
        }
    }
    problems
}

/// A word that can only be a subcommand (`list`, `show|delete`), not a placeholder (`ID`) or
/// a value (`src/a.rs`).
fn is_command_word(word: &str) -> bool {
    !word.is_empty()
        && word.split('|').all(|part| {
            part.starts_with(|c: char| c.is_ascii_lowercase())
                && part
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        })
}

/// Runs the built binary with `args` and returns its stdout (clap prints help there).
pub fn help_of(binary: &Path, home: &Path, args: &[String]) -> String {
    let output = std::process::Command::new(binary)
        .env_clear()
        .env("HOME", home)
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .expect("hone runs");
    assert!(output.status.success(), "hone {args:?} failed");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    const HELP: &str = "Usage: hone sessions [OPTIONS] <COMMAND>\n\nCommands:\n  list    List\n  \
        help    Print this message\n\nOptions:\n      --resume [<ID|last>]\n          Continue\n  \
        -h, --help     Print help\n\nGlobal options:\n  -C, --cd <DIR>         Run in DIR\n  \
        -v, --verbose...       Log\n";

    fn texts(commands: &[Vec<Word>]) -> Vec<Vec<&str>> {
        commands
            .iter()
            .map(|words| words.iter().map(|w| w.text.as_str()).collect())
            .collect()
    }

    #[test]
    fn help_gives_options_values_and_subcommands() {
        let spec = CommandSpec::from_help(HELP);
        assert_eq!(spec.longs["resume"], Value::Optional);
        assert_eq!(spec.longs["cd"], Value::Required);
        assert_eq!(spec.longs["verbose"], Value::None);
        assert_eq!(spec.shorts[&'C'], Value::Required);
        assert!(spec.shorts.contains_key(&'h'));
        assert!(spec.subcommands.contains_key("list"));
        assert!(!spec.longs.contains_key("Continue"));
    }

    #[test]
    fn command_lines_are_found_where_a_shell_would_run_them() {
        let found = hone_commands(
            "HONE_LOG=debug hone index --json | jq . && cat x | hone ask \"why?\" # hone nope",
        );
        assert_eq!(
            texts(&found),
            [vec!["hone", "index", "--json"], vec!["hone", "ask", "why?"]]
        );
        assert!(found[1][2].quoted);
        let nested = hone_commands("export M=\"$(hone model pull x)\"");
        assert_eq!(texts(&nested), [vec!["hone", "model", "pull", "x"]]);
        let synopsis = hone_commands("hone [-c \\| --resume ID\\|last] [PROMPT]");
        assert_eq!(synopsis[0].len(), 6, "{synopsis:?}");
        assert!(hone_commands("hone: attached src/a.rs").is_empty());
    }
}
