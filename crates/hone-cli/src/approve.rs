//! Asking the user on the terminal: approve, deny, edit first, or always for this session.

use std::io::{BufRead, Write};

use hone_api::{ApprovalDecision, Event};

/// Shows an approval request on stderr and reads the answer from the terminal.
pub(crate) async fn ask_on_terminal(event: &Event) -> ApprovalDecision {
    let Event::ApprovalNeeded {
        summary,
        reason,
        diff,
        command,
        content,
        ..
    } = event
    else {
        return ApprovalDecision::Deny { message: None };
    };
    eprintln!();
    if let Some(diff) = diff {
        eprint!("{}", crate::diff::render(diff, true));
    }
    match command {
        Some(command) => eprintln!("hone wants to run: {command}"),
        None => eprintln!("hone wants to: {summary}"),
    }
    eprintln!("({reason})");
    let content = content.clone();
    let is_command = command.is_some();
    tokio::task::spawn_blocking(move || read_answer(is_command, content.as_deref()))
        .await
        .unwrap_or(ApprovalDecision::Deny { message: None })
}

fn read_answer(is_command: bool, content: Option<&str>) -> ApprovalDecision {
    loop {
        eprint!("[y] approve  [n] deny  [e] edit first  [a] always this session > ");
        let _ = std::io::stderr().flush();
        let Some(line) = read_line() else {
            return ApprovalDecision::Deny {
                message: Some("no answer from the terminal".into()),
            };
        };
        match line.trim() {
            "y" | "Y" | "yes" => return ApprovalDecision::Approve,
            "a" | "A" | "always" => return ApprovalDecision::AlwaysForSession,
            "n" | "N" | "no" => {
                eprint!("reason for the model (optional) > ");
                let _ = std::io::stderr().flush();
                let message = read_line()
                    .map(|text| text.trim().to_string())
                    .filter(|text| !text.is_empty());
                return ApprovalDecision::Deny { message };
            }
            "e" | "E" | "edit" => {
                if let Some(replacement) = edit(is_command, content) {
                    return ApprovalDecision::Edit { replacement };
                }
                eprintln!("nothing to edit here; answer y, n or a");
            }
            _ => eprintln!("answer y, n, e or a"),
        }
    }
}

fn read_line() -> Option<String> {
    let mut line = String::new();
    match std::io::stdin().lock().read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line),
    }
}

/// A replacement command typed on one line, or proposed content edited in `$EDITOR`.
fn edit(is_command: bool, content: Option<&str>) -> Option<String> {
    if is_command {
        eprint!("command to run instead > ");
        let _ = std::io::stderr().flush();
        return read_line()
            .map(|text| text.trim().to_string())
            .filter(|text| !text.is_empty());
    }
    let content = content?;
    let file = std::env::temp_dir().join(format!("hone-edit-{}.txt", std::process::id()));
    std::fs::write(&file, content).ok()?;
    let editor = std::env::var("VISUAL")
        .or_else(|_| std::env::var("EDITOR"))
        .unwrap_or_else(|_| "vi".into());
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(&file)
        .status()
        .ok()?;
    let edited = std::fs::read_to_string(&file).ok();
    let _ = std::fs::remove_file(&file);
    if status.success() { edited } else { None }
}
