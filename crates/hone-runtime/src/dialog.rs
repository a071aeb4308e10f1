//! The questions a line-oriented front end asks, over any reader and writer (the front end
//! passes its terminal): before a large first index, for `hone index` (continue, choose a
//! sub-directory, or cancel; when to ask is [`crate::index::large_repository_action`]) and
//! for a session (now in the background, later, or not at all), whether to download a
//! missing local model, and whether to approve a tool call. The runtime itself never reads
//! or writes the terminal.

use std::io::{self, BufRead, Write};

use hone_api::{ApprovalDecision, display};
use hone_models::{ModelError, catalog_entry, human_bytes};

use crate::IndexChoice;

/// The answer to [`ask_large_repository`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LargeRepoChoice {
    /// Index the whole project.
    Continue,
    /// Index only this root-relative sub-directory.
    Subdirectory(String),
    /// Index nothing.
    Cancel,
}

/// Warns about `new_files` files on `output` and asks what to do, reading answers from
/// `input` until one is valid; end of input cancels. `check_directory` turns a typed
/// sub-directory into a root-relative one (`Ok(None)`: the whole project) or says why it
/// cannot be used.
pub fn ask_large_repository(
    input: &mut dyn BufRead,
    output: &mut dyn Write,
    new_files: usize,
    check_directory: &mut dyn FnMut(&str) -> Result<Option<String>, String>,
) -> io::Result<LargeRepoChoice> {
    writeln!(
        output,
        "hone: {}",
        crate::index::large_repository_warning(new_files)
    )?;
    loop {
        let question = "[c] continue  [d] index one sub-directory only  [q] cancel > ";
        let Some(answer) = ask(input, output, question)? else {
            return Ok(LargeRepoChoice::Cancel);
        };
        match answer.trim().to_ascii_lowercase().as_str() {
            "c" | "continue" | "y" | "yes" => return Ok(LargeRepoChoice::Continue),
            "q" | "cancel" | "n" | "no" => return Ok(LargeRepoChoice::Cancel),
            "d" | "dir" | "directory" => loop {
                let question = "sub-directory, relative to the project root (empty: back) > ";
                let Some(typed) = ask(input, output, question)? else {
                    return Ok(LargeRepoChoice::Cancel);
                };
                let typed = typed.trim();
                if typed.is_empty() {
                    break;
                }
                match check_directory(typed) {
                    Ok(Some(directory)) => return Ok(LargeRepoChoice::Subdirectory(directory)),
                    Ok(None) => return Ok(LargeRepoChoice::Continue),
                    Err(reason) => writeln!(output, "{reason}")?,
                }
            },
            _ => writeln!(output, "answer c, d or q")?,
        }
    }
}

/// Asks on `output` what to do with a first index of `new_files` files (more than the
/// large-repository threshold, or in the home directory: `home`) before a session; reads the
/// answer from `input`. An empty answer builds it now (in the background); end of input
/// leaves it for later.
pub fn ask_large_index(
    input: &mut dyn BufRead,
    output: &mut dyn Write,
    new_files: usize,
    home: bool,
) -> io::Result<IndexChoice> {
    if home {
        writeln!(
            output,
            "hone: this is your home directory: {new_files} files to index"
        )?;
    } else {
        writeln!(
            output,
            "hone: {}",
            crate::index::large_repository_warning(new_files)
        )?;
    }
    loop {
        let question = "[y] index now, in the background  [l] later, when the model needs it  [n] not in \
             this session > ";
        let Some(answer) = ask(input, output, question)? else {
            return Ok(IndexChoice::Later);
        };
        match answer.trim().to_ascii_lowercase().as_str() {
            "" | "y" | "yes" => return Ok(IndexChoice::Now),
            "l" | "later" => return Ok(IndexChoice::Later),
            "n" | "no" | "s" | "skip" => return Ok(IndexChoice::Skip),
            _ => writeln!(output, "answer y, l or n")?,
        }
    }
}

/// Asks on `output` whether to download `model` (missing, or failing its check:
/// `problem`); only an explicit yes read from `input` counts.
pub fn ask_to_pull(
    input: &mut dyn BufRead,
    output: &mut dyn Write,
    model: &str,
    problem: &ModelError,
) -> io::Result<bool> {
    let size = catalog_entry(model).map_or_else(String::new, |entry| {
        format!(" ({})", human_bytes(entry.size))
    });
    let question = match problem {
        ModelError::NotDownloaded { .. } => format!(
            "hone: the local model `{model}`{size} is not downloaded yet. Download it now? [y/N] "
        ),
        _ => format!("hone: {problem}\nhone: download `{model}`{size} again now? [y/N] "),
    };
    let answer = ask(input, output, &question)?.unwrap_or_default();
    Ok(matches!(
        answer.trim().to_ascii_lowercase().as_str(),
        "y" | "yes"
    ))
}

/// What a line-oriented front end shows before [`ask_approval`] (after the diff, if any):
/// `hone wants to run: COMMAND` with every control character of the command visible, and a
/// warning when it has any (a carriage return and erase-line could otherwise hide its start),
/// or `hone wants to: SUMMARY`; then the policy's reason in parentheses.
pub fn approval_request(summary: &str, reason: &str, command: Option<&str>) -> String {
    let mut out = match command {
        Some(command) => {
            let mut shown = format!("hone wants to run: {}\n", display::exact(command));
            if display::has_controls(command) {
                shown.push_str(&format!("hone: warning: {}\n", display::CONTROL_WARNING));
            }
            shown
        }
        None => format!("hone wants to: {}\n", display::flat(summary)),
    };
    out.push_str(&format!("({})\n", display::flat(reason)));
    out
}

/// Asks on `output` what to do with a tool call the front end has just shown, reading
/// `input`: approve, deny (with an optional reason for the model), edit first (a command is
/// retyped on one line; other content comes from `edit_content`, `None` when there is
/// nothing to edit), or always for this session. End of input (or an unreadable one) denies.
pub fn ask_approval(
    input: &mut dyn BufRead,
    output: &mut dyn Write,
    is_command: bool,
    edit_content: &mut dyn FnMut() -> Option<String>,
) -> ApprovalDecision {
    let mut answer =
        |output: &mut dyn Write, question: &str| ask(input, output, question).ok().flatten();
    loop {
        let Some(line) = answer(
            output,
            "[y] approve  [n] deny  [e] edit first  [a] always this session > ",
        ) else {
            return ApprovalDecision::Deny {
                message: Some("no answer from the terminal".into()),
            };
        };
        match line.trim() {
            "y" | "Y" | "yes" => return ApprovalDecision::Approve,
            "a" | "A" | "always" => return ApprovalDecision::AlwaysForSession,
            "n" | "N" | "no" => {
                let message = answer(output, "reason for the model (optional) > ")
                    .map(|text| text.trim().to_string())
                    .filter(|text| !text.is_empty());
                return ApprovalDecision::Deny { message };
            }
            "e" | "E" | "edit" => {
                let replacement = if is_command {
                    answer(output, "command to run instead > ")
                        .map(|text| text.trim().to_string())
                        .filter(|text| !text.is_empty())
                } else {
                    edit_content()
                };
                if let Some(replacement) = replacement {
                    return ApprovalDecision::Edit { replacement };
                }
                let _ = writeln!(output, "nothing to edit here; answer y, n or a");
            }
            _ => {
                let _ = writeln!(output, "answer y, n, e or a");
            }
        }
    }
}

/// Writes `question` to `output` and reads one line of `input`, `None` at its end.
fn ask(
    input: &mut dyn BufRead,
    output: &mut dyn Write,
    question: &str,
) -> io::Result<Option<String>> {
    write!(output, "{question}")?;
    output.flush()?;
    let mut line = String::new();
    Ok((input.read_line(&mut line)? > 0).then_some(line))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(answers: &str) -> (LargeRepoChoice, String) {
        let mut output = Vec::new();
        let mut check = |typed: &str| match typed {
            "src" | "./src/" => Ok(Some("src".to_string())),
            "." => Ok(None),
            other => Err(format!("`{other}`: no such directory")),
        };
        let choice =
            ask_large_repository(&mut answers.as_bytes(), &mut output, 12_345, &mut check).unwrap();
        (choice, String::from_utf8(output).unwrap())
    }

    #[test]
    fn continue_and_cancel_are_one_key() {
        let (choice, output) = ask("c\n");
        assert_eq!(choice, LargeRepoChoice::Continue);
        assert!(output.contains("12345 files to index"), "{output}");
        assert_eq!(ask("Q\n").0, LargeRepoChoice::Cancel);
        assert_eq!(ask("yes\n").0, LargeRepoChoice::Continue);
    }

    #[test]
    fn unknown_answers_ask_again_and_end_of_input_cancels() {
        let (choice, output) = ask("maybe\n");
        assert_eq!(choice, LargeRepoChoice::Cancel);
        assert!(output.contains("answer c, d or q"), "{output}");
        assert_eq!(ask("").0, LargeRepoChoice::Cancel);
    }

    #[test]
    fn a_sub_directory_is_checked_until_valid() {
        let (choice, output) = ask("d\nnope\n./src/\n");
        assert_eq!(choice, LargeRepoChoice::Subdirectory("src".to_string()));
        assert!(output.contains("`nope`: no such directory"), "{output}");
        assert_eq!(ask("d\n.\n").0, LargeRepoChoice::Continue);
        assert_eq!(ask("d\n\nq\n").0, LargeRepoChoice::Cancel);
        assert_eq!(ask("d\nnope\n").0, LargeRepoChoice::Cancel);
    }

    #[test]
    fn a_large_index_before_a_session_is_now_later_or_skipped() {
        let ask = |answers: &str, home: bool| {
            let mut output = Vec::new();
            let choice =
                ask_large_index(&mut answers.as_bytes(), &mut output, 20_000, home).unwrap();
            (choice, String::from_utf8(output).unwrap())
        };
        let (choice, output) = ask("\n", false);
        assert_eq!(choice, IndexChoice::Now);
        assert!(output.contains("20000 files to index"), "{output}");
        assert_eq!(ask("l\n", false).0, IndexChoice::Later);
        assert_eq!(ask("what\nn\n", false).0, IndexChoice::Skip);
        assert!(ask("what\nn\n", false).1.contains("answer y, l or n"));
        assert_eq!(ask("", false).0, IndexChoice::Later);
        assert!(ask("y\n", true).1.contains("home directory"));
    }

    #[test]
    fn only_an_explicit_yes_downloads() {
        let problem = ModelError::NotDownloaded {
            name: "qwen2.5-coder-1.5b".into(),
            size: "1 GB".into(),
        };
        let ask = |answer: &str| {
            let mut output = Vec::new();
            let yes = ask_to_pull(
                &mut answer.as_bytes(),
                &mut output,
                "qwen2.5-coder-1.5b",
                &problem,
            )
            .unwrap();
            (yes, String::from_utf8(output).unwrap())
        };
        let (yes, question) = ask("Y\n");
        assert!(yes);
        assert!(question.contains("is not downloaded yet"), "{question}");
        assert!(!ask("\n").0);
        assert!(!ask("").0);
        assert!(!ask("sure\n").0);
    }

    #[test]
    fn an_approval_is_one_key_and_a_denial_may_carry_a_reason() {
        let ask = |answers: &str, is_command: bool| {
            let mut output = Vec::new();
            let mut edited = || Some("new content".to_string());
            let decision = ask_approval(
                &mut answers.as_bytes(),
                &mut output,
                is_command,
                &mut edited,
            );
            (decision, String::from_utf8(output).unwrap())
        };
        assert_eq!(ask("y\n", true).0, ApprovalDecision::Approve);
        assert_eq!(ask("always\n", true).0, ApprovalDecision::AlwaysForSession);
        assert_eq!(
            ask("n\ntoo risky\n", true).0,
            ApprovalDecision::Deny {
                message: Some("too risky".into())
            }
        );
        assert_eq!(
            ask("n\n\n", true).0,
            ApprovalDecision::Deny { message: None }
        );
        let (decision, output) = ask("what\n", true);
        assert_eq!(
            decision,
            ApprovalDecision::Deny {
                message: Some("no answer from the terminal".into())
            }
        );
        assert!(output.contains("answer y, n, e or a"), "{output}");
    }

    #[test]
    fn an_approval_request_shows_a_hidden_command_and_warns() {
        let shown = approval_request(
            "run a command",
            "not on the allow list",
            Some("touch pwned\r\x1b[2Kls src"),
        );
        assert_eq!(
            shown.lines().next(),
            Some(r"hone wants to run: touch pwned\r\x1b[2Kls src")
        );
        assert!(shown.contains("contains control characters"), "{shown}");
        assert!(!shown.contains(['\r', '\x1b']), "{shown:?}");
        let plain = approval_request("run", "asks", Some("cargo test"));
        assert_eq!(plain, "hone wants to run: cargo test\n(asks)\n");
        let edit = approval_request("edit src/\u{202e}x.rs", "writes", None);
        assert_eq!(edit, "hone wants to: edit src/\\u{202e}x.rs\n(writes)\n");
    }

    #[test]
    fn editing_retypes_a_command_or_edits_the_content() {
        let mut output = Vec::new();
        let mut nothing = || None;
        let decision = ask_approval(
            &mut "e\ncargo test -q\n".as_bytes(),
            &mut output,
            true,
            &mut nothing,
        );
        assert_eq!(
            decision,
            ApprovalDecision::Edit {
                replacement: "cargo test -q".into()
            }
        );
        let decision = ask_approval(&mut "e\ny\n".as_bytes(), &mut output, false, &mut nothing);
        assert_eq!(decision, ApprovalDecision::Approve);
        assert!(
            String::from_utf8(output)
                .unwrap()
                .contains("nothing to edit here")
        );
        let mut edited = || Some("new".to_string());
        let decision = ask_approval(&mut "e\n".as_bytes(), &mut Vec::new(), false, &mut edited);
        assert_eq!(
            decision,
            ApprovalDecision::Edit {
                replacement: "new".into()
            }
        );
    }
}
