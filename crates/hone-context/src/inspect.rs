//! The context inspector: a built request broken into its parts (hone's prompt, the repo
//! map, instructions, task memory, summary, tools, pinned files, localised code, history,
//! tool results) with the tokens of each. The parts are counted from the very request a
//! turn sends ([`Built`]), with the counts the request's own estimate adds up, so they sum
//! to it exactly.

use std::collections::BTreeMap;

use hone_api::{ContextPart, ContextPartKind};
use hone_protocol::{ContentBlock, Message, ToolSpec};

use crate::build::{Built, REQUEST_OVERHEAD, Section};
use crate::manager::ContextManager;
use crate::tokens::{MESSAGE_OVERHEAD, TokenCounter};
use crate::tracked::{is_snapshot, snapshot_path};

/// The next request, part by part.
#[derive(Debug, Clone, PartialEq)]
pub struct Inspection {
    /// The parts, in the order the request holds them.
    pub parts: Vec<ContextPart>,
    /// hone's estimate of the whole request (calibrated): the sum of the parts' tokens.
    pub tokens: usize,
    /// The same before calibration: the sum of the parts' raw counts.
    pub raw_tokens: usize,
    /// Messages left out to fit the window.
    pub trimmed: usize,
    /// Pinned files whose snapshot goes with the next message.
    pub pending: Vec<String>,
}

impl ContextManager {
    /// Builds the request for `history` as a turn does ([`ContextManager::build`]) and
    /// breaks it into its parts. `repo_map` is the map the base prompt holds, counted as a
    /// part of its own.
    pub fn inspect(
        &mut self,
        base_system: &str,
        repo_map: Option<&str>,
        history: &[Message],
        tools: &[ToolSpec],
    ) -> Result<(Built, Inspection), crate::ContextError> {
        let built = self.build(base_system, history, tools)?;
        let label = match tools.len() {
            1 => "1 tool definition".to_string(),
            count => format!("{count} tool definitions"),
        };
        let raw = raw_parts(&mut self.counter, &built, tools, repo_map, &label);
        let raw_tokens: usize = raw.iter().map(|part| part.1).sum();
        let tokens = self.counter.calibrated(raw_tokens);
        let shares = apportion(&raw, tokens);
        let parts = raw
            .into_iter()
            .zip(shares)
            .map(|((part, _), tokens)| ContextPart {
                tokens: tokens as u64,
                ..part
            })
            .collect();
        let inspection = Inspection {
            parts,
            tokens,
            raw_tokens,
            trimmed: built.trimmed,
            pending: self.state.pending.clone(),
        };
        Ok((built, inspection))
    }
}

/// The parts of `built` with their raw tokens (tokens still 0).
fn raw_parts(
    counter: &mut TokenCounter,
    built: &Built,
    tools: &[ToolSpec],
    repo_map: Option<&str>,
    tools_label: &str,
) -> Vec<(ContextPart, usize)> {
    let mut parts = Vec::new();
    let part = |kind, label: &str, why: &str, path: Option<String>| ContextPart {
        kind,
        label: label.to_string(),
        why: why.to_string(),
        tokens: 0,
        path,
    };
    for (section, raw) in &built.sections {
        match section {
            Section::Base => {
                let map = repo_map
                    .map(str::trim_end)
                    .filter(|map| !map.is_empty())
                    .map_or(0, |map| counter.text_raw(map))
                    .min(*raw);
                parts.push((
                    part(
                        ContextPartKind::System,
                        "hone's instructions",
                        "the rules every request starts with, and the request's framing",
                        None,
                    ),
                    raw - map + REQUEST_OVERHEAD,
                ));
                if map > 0 {
                    parts.push((
                        part(
                            ContextPartKind::RepoMap,
                            "repository map",
                            "the project's most important files and signatures, from the index",
                            None,
                        ),
                        map,
                    ));
                }
            }
            Section::Instructions => parts.push((
                part(
                    ContextPartKind::Instructions,
                    "project instructions",
                    "the project's instruction files (AGENTS.md and the like)",
                    None,
                ),
                *raw,
            )),
            Section::Task => parts.push((
                part(
                    ContextPartKind::Task,
                    "task memory",
                    "what the task is and where it stands, since older messages are gone",
                    None,
                ),
                *raw,
            )),
            Section::Summary => parts.push((
                part(
                    ContextPartKind::Summary,
                    "summary of earlier turns",
                    "older turns were compacted into it",
                    None,
                ),
                *raw,
            )),
        }
    }
    if !tools.is_empty() {
        parts.push((
            part(
                ContextPartKind::Tools,
                tools_label,
                "the tools the model may call, with their parameters",
                None,
            ),
            counter.tools_raw(tools),
        ));
    }
    let mut tracked: BTreeMap<String, usize> = BTreeMap::new();
    let (mut localized, mut history, mut results) = (0, 0, 0);
    let (mut messages, mut calls) = (0, 0);
    for message in &built.messages {
        history += MESSAGE_OVERHEAD;
        messages += 1;
        for block in &message.content {
            let raw = counter.block_raw(block);
            match block {
                ContentBlock::Text { text } if is_snapshot(text) => {
                    let path = snapshot_path(text).unwrap_or_default().to_string();
                    *tracked.entry(path).or_default() += raw;
                }
                ContentBlock::Text { text } if crate::localize::is_localized(text) => {
                    localized += raw;
                }
                ContentBlock::ToolResult(_) => {
                    results += raw;
                    calls += 1;
                }
                _ => history += raw,
            }
        }
    }
    for (path, raw) in tracked {
        parts.push((
            part(
                ContextPartKind::Tracked,
                &path,
                "pinned: its latest snapshot goes with every request",
                Some(path.clone()),
            ),
            raw,
        ));
    }
    if localized > 0 {
        parts.push((
            part(
                ContextPartKind::Localized,
                "localised code",
                "code the requests named, found in the index and attached to them",
                None,
            ),
            localized,
        ));
    }
    parts.push((
        part(
            ContextPartKind::History,
            &format!("{messages} messages"),
            "the conversation since the last compaction: requests, replies and tool calls",
            None,
        ),
        history,
    ));
    if results > 0 {
        parts.push((
            part(
                ContextPartKind::ToolResults,
                &format!("{calls} tool results"),
                "what the tools returned (stale file contents are stubbed by compaction)",
                None,
            ),
            results,
        ));
    }
    parts
}

/// Splits `total` calibrated tokens over the parts in proportion to their raw tokens
/// (largest remainders first), so that the shares add up to `total` exactly.
fn apportion(raw: &[(ContextPart, usize)], total: usize) -> Vec<usize> {
    let sum: usize = raw.iter().map(|part| part.1).sum();
    if sum == 0 {
        return vec![0; raw.len()];
    }
    let exact: Vec<f64> = raw
        .iter()
        .map(|part| part.1 as f64 * total as f64 / sum as f64)
        .collect();
    let mut shares: Vec<usize> = exact.iter().map(|share| share.floor() as usize).collect();
    let mut order: Vec<usize> = (0..raw.len()).collect();
    order.sort_by(|a, b| {
        let fraction = |index: usize| exact[index] - exact[index].floor();
        fraction(*b).total_cmp(&fraction(*a))
    });
    let missing = total.saturating_sub(shares.iter().sum());
    for index in order.into_iter().cycle().take(missing) {
        shares[index] += 1;
    }
    shares
}
