//! Renames in the guided flow: "rename `getUserName` to `displayName` everywhere" is done
//! by hone itself with the `rename_symbol` tool (every whole-word occurrence, one change
//! through the policy, diff, approval and undo journal), then checked. A small model asked to
//! rewrite every file that uses a name forgets some of them; an editor's rename does not.

use std::sync::Arc;

use hone_api::{Event, TurnEnd};
use hone_protocol::{ContentBlock, Message, Role, ToolCall};
use hone_tools::Plan;
use hone_tools::edit::is_identifier;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::session::Agent;

/// Words that may stand between "rename" and the old name.
const KIND_WORDS: &[&str] = &[
    "the",
    "function",
    "method",
    "class",
    "variable",
    "constant",
    "const",
    "type",
    "struct",
    "enum",
    "trait",
    "interface",
    "field",
    "property",
    "symbol",
    "identifier",
    "helper",
];

/// The old and new names of a request such as "Rename the function `calc_avg` to `mean`
/// everywhere"; `None` unless the request says exactly that.
pub(crate) fn rename_request(request: &str) -> Option<(String, String)> {
    let words: Vec<&str> = request.split_whitespace().collect();
    let start = words.iter().position(|word| {
        word.trim_matches(|c: char| !c.is_alphanumeric())
            .eq_ignore_ascii_case("rename")
    })?;
    let mut rest = words[start + 1..]
        .iter()
        .copied()
        .skip_while(|word| KIND_WORDS.contains(&word.to_ascii_lowercase().as_str()));
    let old = bare_name(rest.next()?)?;
    let joiner = rest.next()?.to_ascii_lowercase();
    if !matches!(joiner.as_str(), "to" | "into" | "as") {
        return None;
    }
    let new = bare_name(rest.next()?)?;
    (old != new).then_some((old, new))
}

/// `word` without quotes, backticks, a call's `()` or closing punctuation, when what is
/// left is an identifier.
fn bare_name(word: &str) -> Option<String> {
    let trimmed = word
        .trim_end_matches(['.', ',', ';', ':', '!', '?'])
        .trim_matches(['`', '\'', '"'])
        .trim_end_matches("()")
        .trim_matches(['`', '\'', '"']);
    is_identifier(trimmed).then(|| trimmed.to_string())
}

impl Agent {
    /// Renames `old` to `new` with the `rename_symbol` tool as a call of hone's own, then
    /// runs the checks. Returns how the turn ended, or `None` when the turn goes on to the
    /// model: the rename could not be planned (the name is not in the project, the tool is
    /// not offered), or the checks failed after it and the model is to repair them.
    pub(crate) async fn guided_rename(
        &mut self,
        old: &str,
        new: &str,
        cancel: &CancellationToken,
    ) -> Option<TurnEnd> {
        let tool = self.registry.resolve("rename_symbol").ok()?;
        let arguments = json!({ "name": old, "new_name": new });
        let context = Arc::clone(&self.context);
        let planned = {
            let arguments = arguments.clone();
            tokio::task::spawn_blocking(move || tool.plan(&context, &arguments)).await
        };
        let Ok(Ok(Plan::Edit(plan))) = planned else {
            return None;
        };
        let call = ToolCall {
            id: format!("rename_{}", self.turns),
            name: "rename_symbol".to_string(),
            arguments: arguments.to_string(),
        };
        self.emit(Event::ToolRequested {
            call_id: call.id.clone(),
            name: call.name.clone(),
            arguments: crate::api::arguments(&call.arguments),
        });
        let summary = plan.summary.clone();
        let started = self.start_clock();
        let output = self.run_edit(&call, "rename_symbol", plan, cancel).await;
        let output = self.finish(&call, output, started);
        self.push_history(Message {
            role: Role::Assistant,
            content: vec![ContentBlock::ToolCall(call.clone())],
        });
        self.push_history(Message {
            role: Role::User,
            content: vec![ContentBlock::ToolResult(hone_protocol::ToolResult {
                call_id: call.id.clone(),
                name: call.name.clone(),
                content: output.content.clone(),
                is_error: output.is_error,
                effect: output.effect.clone(),
            })],
        });
        if output.is_error {
            self.push_history(Message::assistant(format!(
                "The rename of `{old}` to `{new}` was not applied: {}",
                output.content
            )));
            return Some(TurnEnd::Answered);
        }
        if self.check_and_repair(cancel).await {
            return None;
        }
        self.push_history(Message::assistant(format!("Done: {summary}.")));
        Some(TurnEnd::Answered)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rename_requests_give_both_names() {
        for (request, old, new) in [
            (
                "Rename the function `getUserName` to `displayName` everywhere in the project (definition, export and every use).",
                "getUserName",
                "displayName",
            ),
            ("Rename calc_avg to mean.", "calc_avg", "mean"),
            (
                "please rename class ItemStore as Inventory",
                "ItemStore",
                "Inventory",
            ),
            ("rename 'total()' into \"sum\"", "total", "sum"),
        ] {
            assert_eq!(
                rename_request(request),
                Some((old.to_string(), new.to_string())),
                "{request}"
            );
        }
    }

    #[test]
    fn other_requests_are_not_renames() {
        for request in [
            "Rename the file a.py to b.py",
            "fix the rename logic",
            "rename it",
            "Rename x to x",
            "Add a method to rename users",
        ] {
            assert_eq!(rename_request(request), None, "{request}");
        }
    }
}
