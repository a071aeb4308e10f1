//! Localisation in a session: the code a request names, found through the plugged-in
//! [`Localizer`](hone_context::localize::Localizer), cut to the budget, attached to the
//! request and counted as read.

use std::collections::BTreeMap;

use hone_context::Tokenizer;
use hone_context::localize::{Attachment, locate_request, plan_attachment};
use hone_protocol::{ContentBlock, Message};

use crate::session::Agent;
use hone_api::Event;

impl Agent {
    /// The code `text` (and the files and functions `evidence`, such as failing tests'
    /// output, names) within the budget, announced with `context.localized` and
    /// recorded as read (so an edit right after it is not refused); empty without a
    /// localizer or when nothing matched.
    pub(crate) async fn localize(&self, text: &str, evidence: Option<&str>) -> Attachment {
        let Some(localizer) = self.localizer.clone() else {
            return Attachment::default();
        };
        // Failure output (a traceback) names files and functions; its plain words do not.
        let (request, evidence) = (text.to_string(), evidence.map(str::to_string));
        let located = tokio::task::spawn_blocking(move || {
            locate_request(localizer.as_ref(), &request, evidence.as_deref())
        })
        .await;
        let candidates = match located {
            Ok(candidates) => candidates,
            Err(error) => {
                tracing::warn!(%error, "localisation failed");
                return Attachment::default();
            }
        };
        let mut hashes: BTreeMap<String, String> = BTreeMap::new();
        let guard = self.context.guard();
        let attachment = plan_attachment(
            candidates,
            self.guidance.localize_budget_tokens,
            Tokenizer::for_model(&self.model),
            &mut |path| {
                let resolved = guard.resolve_read(path).ok()?;
                let state = hone_tools::files::read_text(&resolved).ok()?;
                hashes.insert(resolved.relative, state.hash);
                Some(state.content)
            },
        );
        for item in &attachment.items {
            if let Some(hash) = hashes.get(&item.path) {
                self.context.reads().record(&item.path, hash);
            }
        }
        if !attachment.is_empty() {
            self.emit(Event::ContextLocalized {
                items: attachment.items.clone(),
                tokens: attachment.tokens as u64,
            });
        }
        attachment
    }
}

/// Puts the attached code before the request's text (code first, then the question) and
/// `instruction`, when given, after it.
pub(crate) fn attach(message: &mut Message, attachment: &Attachment, instruction: Option<String>) {
    if !attachment.is_empty() {
        let position = message
            .content
            .iter()
            .position(|block| matches!(block, ContentBlock::Text { text } if !text.starts_with(hone_context::HONE_NOTE_PREFIX)))
            .unwrap_or(message.content.len());
        message.content.insert(
            position,
            ContentBlock::Text {
                text: attachment.text.clone(),
            },
        );
    }
    if let Some(text) = instruction {
        message.content.push(ContentBlock::Text { text });
    }
}
