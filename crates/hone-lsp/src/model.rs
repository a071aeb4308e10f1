//! The completion model: the `completion` role of `[roles]` (unset: the embedded small
//! catalog model) and how it is asked to fill the middle. The embedded engine has its own
//! fill-in-the-middle path (with the KV cache of the previous request reused); servers
//! that take a suffix are asked through their completion endpoints (`wire`); a model that
//! only chats gets an instruction with the code around the cursor.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use futures::StreamExt;
use hone_config::{Config, WireApi};
use hone_local::{FimRequest, LocalProvider};
use hone_protocol::{ChatRequest, StreamEvent};
use hone_provider_api::Provider;
use hone_runtime::Runtime;
use tokio_util::sync::CancellationToken;

use crate::wire::{FimWire, HttpFim};

/// The catalog model completions use when `[roles] completion` is not set.
pub const DEFAULT_COMPLETION_MODEL: &str = "qwen2.5-coder-0.5b";

/// After its first line, the embedded model writes more only while its answer has taken
/// less than this (on a laptop CPU a block would take seconds).
const LINE_TIME: Duration = Duration::from_millis(300);

/// Why a completion failed.
#[derive(Debug, thiserror::Error)]
pub enum CompletionError {
    /// The model (or its server) failed; the message says how.
    #[error("{0}")]
    Model(String),
    /// A newer request or the editor cancelled it.
    #[error("cancelled")]
    Cancelled,
}

/// What the model is asked: the code before and after the cursor, and chunks of other
/// files.
#[derive(Debug, Clone)]
pub(crate) struct FimPrompt {
    /// Chunks of other recently opened or edited files as `(path, text)`, oldest first.
    pub(crate) files: Vec<(String, String)>,
    /// The root-relative path of the document.
    pub(crate) path: String,
    /// Text before the cursor (with the definitions header).
    pub(crate) prefix: String,
    /// Text after the cursor.
    pub(crate) suffix: String,
    /// The document's language id, for the instruction of chat models.
    pub(crate) language: String,
    /// At most this many tokens.
    pub(crate) max_tokens: u32,
}

/// The model behind completions.
pub(crate) enum CompletionModel {
    /// The embedded engine, loaded on first use.
    Local {
        /// Catalog name or GGUF path.
        model: String,
        runtime: Arc<Runtime>,
        loaded: tokio::sync::Mutex<Option<Arc<LocalProvider>>>,
    },
    /// A server with a fill-in-the-middle endpoint.
    Http(HttpFim),
    /// A chat model asked with an instruction (no suffix parameter).
    Chat {
        runtime: Arc<Runtime>,
        settings: Box<hone_config::ProviderConfig>,
        built: tokio::sync::Mutex<Option<Arc<dyn Provider>>>,
    },
}

impl FimPrompt {
    /// The prefix with the other files above it as comments, for models asked with text
    /// only.
    pub(crate) fn prefix_with_files(&self) -> String {
        format!(
            "{}{}",
            crate::context::files_as_comments(&self.language, &self.files),
            self.prefix
        )
    }
}

impl CompletionModel {
    /// The model `[roles] completion` names in `runtime`'s configuration.
    pub(crate) fn from_config(runtime: Arc<Runtime>) -> Result<Self, CompletionError> {
        let config: &Config = runtime.config();
        let Some(role) = config.roles().completion else {
            return Ok(Self::Local {
                model: DEFAULT_COMPLETION_MODEL.to_string(),
                runtime,
                loaded: tokio::sync::Mutex::new(None),
            });
        };
        let instance = match role.provider {
            Some(instance) => instance,
            None => config.provider().map_err(model_error)?.name,
        };
        let mut settings = config.provider_named(&instance).map_err(model_error)?;
        if let Some(model) = &role.model {
            settings.model.clone_from(model);
        }
        if settings.wire == WireApi::Local {
            return Ok(Self::Local {
                model: settings.model,
                runtime,
                loaded: tokio::sync::Mutex::new(None),
            });
        }
        match FimWire::for_provider(&settings) {
            Some(wire) => Ok(Self::Http(HttpFim::new(wire, &settings)?)),
            None => Ok(Self::Chat {
                runtime,
                settings: Box::new(settings),
                built: tokio::sync::Mutex::new(None),
            }),
        }
    }

    /// How much code around the cursor this model is sent.
    pub(crate) fn budget(&self) -> crate::context::Budget {
        match self {
            Self::Local { .. } => crate::context::EMBEDDED_BUDGET,
            Self::Http(_) | Self::Chat { .. } => crate::context::SERVER_BUDGET,
        }
    }

    /// How completions are made, for the log and `initialize`'s server info.
    pub(crate) fn describe(&self) -> String {
        match self {
            Self::Local { model, .. } => format!("embedded {model}"),
            Self::Http(http) => http.describe(),
            Self::Chat { settings, .. } => {
                format!("{} on {} (instruction)", settings.model, settings.name)
            }
        }
    }

    /// The middle between `prompt.prefix` and `prompt.suffix`, as the model writes it.
    pub(crate) async fn fill(
        &self,
        prompt: FimPrompt,
        cancel: CancellationToken,
    ) -> Result<String, CompletionError> {
        match self {
            Self::Local {
                model,
                runtime,
                loaded,
            } => {
                let provider = {
                    let mut loaded = loaded.lock().await;
                    match &*loaded {
                        Some(provider) => Arc::clone(provider),
                        None => {
                            let provider = hone_runtime::provider::build_local(
                                runtime.config(),
                                model,
                                runtime.interaction(),
                            )
                            .await
                            .map_err(|error| CompletionError::Model(error.message))?;
                            *loaded = Some(Arc::clone(&provider));
                            provider
                        }
                    }
                };
                let token = cancel.clone();
                let filled = tokio::task::spawn_blocking(move || {
                    // The model stops as soon as the answer reaches where it is cut, or
                    // at a line end once it has written for a while.
                    let line_before = prompt.prefix.rsplit('\n').next().unwrap_or("");
                    let first_piece = OnceLock::new();
                    let timed_out = AtomicBool::new(false);
                    let finished = |text: &str| {
                        if crate::trim::finished(text, line_before, &prompt.suffix) {
                            return true;
                        }
                        let late = first_piece.get_or_init(Instant::now).elapsed() > LINE_TIME;
                        let stop = late && text.contains('\n');
                        timed_out.store(stop, Ordering::Relaxed);
                        stop
                    };
                    let request = FimRequest {
                        files: &prompt.files,
                        path: &prompt.path,
                        prefix: &prompt.prefix,
                        suffix: &prompt.suffix,
                        max_tokens: prompt.max_tokens,
                        finished: Some(&finished),
                    };
                    let mut middle = provider.complete_fim(&request, token)?;
                    if timed_out.load(Ordering::Relaxed) {
                        // Only whole lines: the last one was cut off.
                        middle.truncate(middle.rfind('\n').unwrap_or(middle.len()));
                    }
                    Ok::<_, hone_local::LocalError>(middle)
                })
                .await
                .map_err(|error| CompletionError::Model(error.to_string()))?;
                if cancel.is_cancelled() {
                    return Err(CompletionError::Cancelled);
                }
                filled.map_err(|error| CompletionError::Model(error.to_string()))
            }
            Self::Http(http) => tokio::select! {
                () = cancel.cancelled() => Err(CompletionError::Cancelled),
                filled = http.fill(&prompt) => filled,
            },
            Self::Chat {
                runtime,
                settings,
                built,
            } => {
                let provider = {
                    let mut built = built.lock().await;
                    match &*built {
                        Some(provider) => Arc::clone(provider),
                        None => {
                            let provider = hone_runtime::provider::build(
                                runtime.config(),
                                (**settings).clone(),
                                runtime.interaction(),
                            )
                            .await
                            .map_err(|error| CompletionError::Model(error.message))?;
                            *built = Some(Arc::clone(&provider));
                            provider
                        }
                    }
                };
                chat_fill(provider.as_ref(), &settings.model, &prompt, cancel).await
            }
        }
    }
}

fn model_error(error: impl std::fmt::Display) -> CompletionError {
    CompletionError::Model(error.to_string())
}

/// The instruction for a model without a suffix parameter.
fn instruction(prompt: &FimPrompt) -> String {
    format!(
        "Complete the {language} code at <CURSOR>. Reply with only the code that goes at \
         <CURSOR>: no explanation, no code fence, nothing that is already before or after \
         it.\n\n{prefix}<CURSOR>{suffix}",
        language = prompt.language,
        prefix = prompt.prefix_with_files(),
        suffix = prompt.suffix,
    )
}

/// Asks a chat model for the middle with [`instruction`]; a code fence around the answer
/// is taken off.
async fn chat_fill(
    provider: &dyn Provider,
    model: &str,
    prompt: &FimPrompt,
    cancel: CancellationToken,
) -> Result<String, CompletionError> {
    let mut request = ChatRequest::new(model, instruction(prompt));
    request.max_tokens = Some(prompt.max_tokens);
    request.temperature = Some(0.2);
    let mut stream = provider.stream(request, cancel.clone());
    let mut text = String::new();
    while let Some(event) = stream.next().await {
        match event {
            StreamEvent::TextDelta { text: delta } => text.push_str(&delta),
            StreamEvent::Completed { .. } => return Ok(unfence(&text)),
            StreamEvent::Failed { error } => return Err(CompletionError::Model(error.message)),
            StreamEvent::Cancelled => return Err(CompletionError::Cancelled),
            _ => {}
        }
    }
    if cancel.is_cancelled() {
        return Err(CompletionError::Cancelled);
    }
    Ok(unfence(&text))
}

/// `text` without a surrounding Markdown code fence.
fn unfence(text: &str) -> String {
    let trimmed = text.trim_matches('\n');
    let Some(rest) = trimmed.strip_prefix("```") else {
        return text.to_string();
    };
    let body = rest.split_once('\n').map_or("", |(_, body)| body);
    body.strip_suffix("```")
        .unwrap_or(body)
        .trim_end_matches('\n')
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_come_off_chat_answers() {
        assert_eq!(unfence("```rust\nlet x = 1;\n```\n"), "let x = 1;");
        assert_eq!(unfence("a + b"), "a + b");
    }

    #[test]
    fn the_instruction_marks_the_cursor() {
        let prompt = FimPrompt {
            files: vec![("src/b.rs".into(), "fn b() {}\n".into())],
            path: "src/a.rs".into(),
            prefix: "fn a() {".into(),
            suffix: "}".into(),
            language: "rust".into(),
            max_tokens: 10,
        };
        let text = instruction(&prompt);
        assert!(text.contains("fn a() {<CURSOR>}"), "{text}");
        assert!(text.contains("rust"), "{text}");
        assert!(text.contains("// src/b.rs:\n// fn b() {}\n"), "{text}");
    }
}
