//! The checker role (`[roles] checker`): when checks fail and a checker model is configured,
//! it reads the failures and says in a few sentences what fails and where the fault most
//! likely is; the coder's repair message carries that reading. Without a checker nothing is
//! asked (a second prompt would cost a small local model its cached prefix).

use std::sync::Arc;

use futures::StreamExt;
use hone_protocol::{ChatRequest, Message, Outcome, ResponseCollector};
use tokio_util::sync::CancellationToken;

use crate::session::Agent;

/// What the checker is asked to do.
const REVIEW_PROMPT: &str = "You review the failing checks of a code change. Read the failures \
and answer in at most three sentences: what fails, which function or file is most likely at \
fault, and what the fix should do. No code.";

/// The most failure text the checker is shown, in characters.
const MAX_FAILURE_CHARS: usize = 6_000;

/// The checker's answer length, in tokens.
const MAX_REVIEW_TOKENS: u32 = 200;

impl Agent {
    /// The checker's reading of `failures`; `None` without a checker model, or when it
    /// fails or says nothing.
    pub(crate) async fn review_failures(
        &mut self,
        failures: &[String],
        cancel: &CancellationToken,
    ) -> Option<String> {
        let checker = self.roles.checker.clone()?;
        let provider = checker
            .provider
            .clone()
            .unwrap_or_else(|| Arc::clone(&self.provider));
        let shown: String = failures
            .join("\n\n")
            .chars()
            .take(MAX_FAILURE_CHARS)
            .collect();
        let mut request = ChatRequest {
            model: checker.model.clone(),
            system: Some(REVIEW_PROMPT.to_string()),
            messages: vec![Message::user(shown)],
            max_tokens: Some(MAX_REVIEW_TOKENS),
            temperature: Some(0.0),
            ..ChatRequest::default()
        };
        checker.generation.apply_to(&mut request);
        let mut events = provider.stream(request, cancel.clone());
        let mut collector = ResponseCollector::new();
        while let Some(event) = events.next().await {
            collector.push(&event);
        }
        self.changes.note_side_request(collector.usage());
        match collector.outcome() {
            Some(Outcome::Completed(_)) => {
                let review = collector.message().text().trim().to_string();
                (!review.is_empty()).then_some(review)
            }
            _ => None,
        }
    }
}
