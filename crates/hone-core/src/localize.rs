//! Localisation in a session: the code a request names, found through the plugged-in
//! [`Localizer`](hone_context::localize::Localizer), cut to the budget, attached to the
//! request and counted as read.

use std::collections::BTreeMap;

use hone_context::Tokenizer;
use hone_context::localize::{
    Attachment, Candidate, Mention, MentionKind, locate_request, plan_attachment,
};
use hone_protocol::{ContentBlock, Message};

use crate::session::Agent;
use hone_api::Event;

impl Agent {
    /// The code `text` (and the files and functions `evidence`, such as failing tests'
    /// output, names) within the budget, announced with `context.localized` and
    /// recorded as read (so an edit right after it is not refused); empty without a
    /// localizer or when nothing matched. With evidence, the project files the failing
    /// tests lead to (their traceback's code, the modules they import) come first.
    pub(crate) async fn localize(&self, text: &str, evidence: Option<&str>) -> Attachment {
        let Some(localizer) = self.localizer.clone() else {
            return Attachment::default();
        };
        // Failure output (a traceback) names files and functions; its plain words do not.
        // The project files the failing tests import or name lead the attachment.
        let leads: Vec<String> = if evidence.is_some() {
            self.checks.leads().to_vec()
        } else {
            Vec::new()
        };
        let (request, evidence) = (text.to_string(), evidence.map(str::to_string));
        let lead_paths = leads.clone();
        let located = tokio::task::spawn_blocking(move || {
            let mut candidates = locate_request(localizer.as_ref(), &request, evidence.as_deref());
            // The files the failing tests lead to, whatever the request's words match.
            let mentions: Vec<Mention> = lead_paths
                .iter()
                .map(|lead| Mention {
                    text: lead.clone(),
                    kind: MentionKind::Path,
                    names: vec![lead.clone()],
                    rename: false,
                    line: None,
                })
                .collect();
            if !mentions.is_empty() {
                candidates.extend(localizer.locate(&mentions));
            }
            candidates
        })
        .await;
        let candidates = match located {
            Ok(candidates) => leads_first(candidates, &leads),
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

/// `candidates` with those in `leads` ranked first, in the leads' order, just above the
/// best of the others (so the others keep their share of the best and stay attached).
fn leads_first(mut candidates: Vec<Candidate>, leads: &[String]) -> Vec<Candidate> {
    let best = candidates
        .iter()
        .map(|candidate| candidate.score)
        .fold(0.0_f64, f64::max);
    let step = best.max(1.0) * 0.01;
    for candidate in &mut candidates {
        if let Some(index) = leads.iter().position(|lead| *lead == candidate.path) {
            let rank = (leads.len() - index) as f64;
            candidate.score = best.max(candidate.score) + rank * step;
        }
    }
    candidates
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

#[cfg(test)]
mod tests {
    use super::*;
    use hone_context::localize::MentionKind;

    fn candidate(path: &str, score: f64) -> Candidate {
        Candidate {
            path: path.to_string(),
            lines: None,
            what: format!("file {path}"),
            mention: path.to_string(),
            kind: MentionKind::Word,
            score,
        }
    }

    #[test]
    fn the_files_failing_tests_lead_to_rank_first_in_their_order() {
        let candidates = vec![
            candidate("README.md", 10.0),
            candidate("src/prices.py", 2.0),
            candidate("src/cart.py", 1.0),
            candidate("tests/test_cart.py", 8.0),
        ];
        let leads = ["src/cart.py".to_string(), "src/prices.py".to_string()];
        let mut ranked = leads_first(candidates, &leads);
        ranked.sort_by(|a, b| b.score.total_cmp(&a.score));
        let order: Vec<&str> = ranked.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(
            order,
            [
                "src/cart.py",
                "src/prices.py",
                "README.md",
                "tests/test_cart.py"
            ]
        );
        // The others keep their share of the best: they are not pushed out.
        assert!(ranked[2].score >= ranked[0].score * 0.9, "{ranked:?}");
        assert_eq!(leads_first(vec![candidate("a.py", 3.0)], &[])[0].score, 3.0);
    }
}
