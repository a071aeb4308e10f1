//! Constrained tool calls: once the model has written `<tool_call>`, only tokens that keep
//! the call valid are allowed — JSON naming one of the offered tools with arguments that
//! match its schema, then the closing tag. Text outside calls is not constrained.
//!
//! The token masks come from llguidance, over a trie of the model's vocabulary built once
//! per loaded model.

mod grammar;
mod vocab;

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock, PoisonError};

use hone_protocol::ToolSpec;
use llguidance::api::TopLevelGrammar;
use llguidance::{Matcher, ParserFactory};

use crate::sampler::mask_logits;
use crate::tokenizer::ModelTokenizer;
use grammar::{CLOSE_TAG, ToolSchema, call_grammar};

/// The tag after which a call is constrained.
const OPEN_TAG: &str = "<tool_call>";

/// Constraint machinery shared by the requests of one loaded model.
pub(crate) struct Guidance {
    factory: OnceLock<Option<ParserFactory>>,
    /// The last grammar compiled and its start state: an agent offers the same tools
    /// every turn.
    last: Mutex<Option<(String, Matcher)>>,
    /// Tools whose schema was replaced by "any object", so each is logged once.
    loosened: Mutex<HashSet<String>>,
}

impl Guidance {
    /// Nothing is built until the first request with tools.
    pub(crate) fn new() -> Self {
        Self {
            factory: OnceLock::new(),
            last: Mutex::new(None),
            loosened: Mutex::new(HashSet::new()),
        }
    }

    /// A guide for one answer that may call `tools`; `None` (unconstrained) when there
    /// are no tools or the constraint cannot be built for this model.
    pub(crate) fn tool_calls(
        &self,
        tokenizer: &ModelTokenizer,
        tools: &[ToolSpec],
    ) -> Option<ToolGuide> {
        if tools.is_empty() {
            return None;
        }
        let factory = self.factory(tokenizer)?;
        let close = tokenizer.token_id(CLOSE_TAG);
        let mut schemas: Vec<ToolSchema> = tools.iter().map(ToolSchema::strict).collect();
        let key = call_grammar(&schemas, close);
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((cached, start)) = last.as_ref()
            && *cached == key
        {
            return Some(ToolGuide::new(start.deep_clone(), tokenizer));
        }
        let start = match compile(factory, &key) {
            Ok(start) => start,
            Err(_) => {
                self.loosen_unsupported(factory, &mut schemas, close);
                match compile(factory, &call_grammar(&schemas, close)) {
                    Ok(start) => start,
                    Err(error) => {
                        tracing::debug!(%error, "tool calls are not constrained");
                        return None;
                    }
                }
            }
        };
        let guide = ToolGuide::new(start.deep_clone(), tokenizer);
        *last = Some((key, start));
        Some(guide)
    }

    /// Replaces the arguments schema of every tool the compiler rejects on its own by
    /// "any JSON object".
    fn loosen_unsupported(
        &self,
        factory: &ParserFactory,
        schemas: &mut [ToolSchema],
        close: Option<u32>,
    ) {
        for schema in schemas.iter_mut() {
            let Err(error) = compile(factory, &call_grammar(std::slice::from_ref(schema), close))
            else {
                continue;
            };
            let mut loosened = self.loosened.lock().unwrap_or_else(PoisonError::into_inner);
            if loosened.insert(schema.name.clone()) {
                tracing::debug!(
                    tool = %schema.name,
                    %error,
                    "the arguments of this tool are constrained to any JSON object"
                );
            }
            *schema = schema.loose();
        }
    }

    fn factory(&self, tokenizer: &ModelTokenizer) -> Option<&ParserFactory> {
        self.factory
            .get_or_init(|| match build_factory(tokenizer) {
                Ok(factory) => Some(factory),
                Err(error) => {
                    tracing::debug!(%error, "constrained tool calls are not available");
                    None
                }
            })
            .as_ref()
    }
}

fn build_factory(tokenizer: &ModelTokenizer) -> Result<ParserFactory, String> {
    let env = vocab::token_env(tokenizer).map_err(|error| error.to_string())?;
    let mut factory = ParserFactory::new_simple(&env).map_err(|error| error.to_string())?;
    // llguidance reports on stderr by default, which would write over the terminal UI.
    factory.quiet();
    Ok(factory)
}

/// The start state of `grammar`, or why it does not compile.
fn compile(factory: &ParserFactory, grammar: &str) -> Result<Matcher, String> {
    let parser = factory
        .create_parser(TopLevelGrammar::from_lark(grammar.to_owned()))
        .map_err(|error| error.to_string())?;
    let matcher = Matcher::new(Ok(parser));
    match matcher.get_error() {
        Some(error) => Err(error),
        None => Ok(matcher),
    }
}

/// The constraint state of one answer.
pub(crate) struct ToolGuide {
    start: Matcher,
    /// `<tool_call>` as one token, and whether the answer has no visible text yet: an
    /// answer that starts with `{` is a call written without its tag (small models do
    /// that), so the tag is put in its place.
    open: Option<u32>,
    at_start: bool,
    /// The call being written, when the model is inside one.
    call: Option<Matcher>,
    /// The end of the text so far, to see the opening tag arrive.
    tail: String,
}

impl ToolGuide {
    fn new(start: Matcher, tokenizer: &ModelTokenizer) -> Self {
        Self {
            start,
            open: tokenizer.token_id(OPEN_TAG),
            at_start: true,
            call: None,
            tail: String::new(),
        }
    }

    /// Whether the model is writing a call (its next token is constrained).
    pub(crate) fn in_call(&self) -> bool {
        self.call.is_some()
    }

    /// Inside a call, keeps only the logits of tokens the grammar allows (the others
    /// become −∞). Should the grammar fail, the rest of the call is left unconstrained.
    pub(crate) fn constrain(&mut self, logits: &mut [f32]) {
        let Some(call) = &mut self.call else { return };
        match call.compute_mask() {
            Ok(mask) if !mask.is_zero() => mask_logits(logits, mask.as_slice()),
            Ok(_) => self.give_up("no token is allowed"),
            Err(error) => self.give_up(&error.to_string()),
        }
    }

    /// The token to use for the one sampled: `<tool_call>` instead of a first token that
    /// starts the answer with `{` (whitespace before it aside), else the token itself.
    pub(crate) fn redirect(&mut self, token: u32, tokenizer: &ModelTokenizer) -> u32 {
        if !self.at_start || self.call.is_some() {
            return token;
        }
        let text = tokenizer.decode(&[token]).unwrap_or_default();
        let visible = text.trim_start();
        if visible.is_empty() {
            return token;
        }
        self.at_start = false;
        match self.open {
            Some(open) if visible.starts_with('{') => open,
            _ => token,
        }
    }

    /// Records the token chosen and the text it completed (if any).
    pub(crate) fn accept(&mut self, token: u32, text: Option<&str>) {
        if let Some(call) = &mut self.call {
            if let Err(error) = call.consume_token(token) {
                self.give_up(&error.to_string());
            } else if call.is_stopped() || call.is_accepting().unwrap_or(false) {
                self.call = None;
            }
            return;
        }
        let Some(text) = text else { return };
        self.tail.push_str(text);
        if self.tail.ends_with(OPEN_TAG) {
            self.tail.clear();
            self.call = Some(self.start.deep_clone());
        } else if self.tail.len() > OPEN_TAG.len() {
            let mut cut = self.tail.len() - OPEN_TAG.len();
            while !self.tail.is_char_boundary(cut) {
                cut += 1;
            }
            self.tail.drain(..cut);
        }
    }

    fn give_up(&mut self, reason: &str) {
        tracing::debug!(reason, "the rest of this tool call is not constrained");
        self.call = None;
    }
}

#[cfg(test)]
mod tests;
