//! Asking the user on the terminal: approve, deny, edit first (in `$VISUAL`/`$EDITOR`, else
//! `vi`), or always for this session (`hone_runtime::dialog::ask_approval`).

use hone_api::{ApprovalDecision, Event};
use hone_runtime::dialog;

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
    eprint!(
        "{}",
        dialog::approval_request(summary, reason, command.as_deref())
    );
    let content = content.clone();
    let is_command = command.is_some();
    tokio::task::spawn_blocking(move || {
        let mut edit = || hone_tui::edit(content.as_deref()?, Some("vi"));
        dialog::ask_approval(
            &mut std::io::stdin().lock(),
            &mut std::io::stderr(),
            is_command,
            &mut edit,
        )
    })
    .await
    .unwrap_or(ApprovalDecision::Deny { message: None })
}
