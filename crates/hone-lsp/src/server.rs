//! The language server: the LSP methods hone answers, over the open documents, the
//! completer and a hone-server client.

use std::path::PathBuf;

use hone_api::Request;
use hone_api::rpc::SessionEvent;
use hone_server::Client as Hone;
use serde_json::{Value, json};
use tokio::sync::Mutex as AsyncMutex;
use tokio::sync::mpsc::UnboundedReceiver;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

use crate::actions::{self, ActionArgs, COMMANDS};
use crate::complete::Completer;
use crate::documents::{self, Documents};
use crate::model::{CompletionError, FimPrompt};
use crate::ring::Ring;

/// Tokens one completion may take.
const MAX_TOKENS: u32 = 128;

/// hone as a language server.
pub(crate) struct HoneLsp {
    pub(crate) editor: Client,
    pub(crate) hone: Hone,
    /// The events of hone's sessions (the quick refactors', one at a time).
    pub(crate) events: AsyncMutex<UnboundedReceiver<SessionEvent>>,
    pub(crate) root: PathBuf,
    pub(crate) documents: Documents,
    /// Chunks of the recently opened and edited documents, context for completions.
    pub(crate) ring: Ring,
    pub(crate) completer: Option<Completer>,
    /// Why there is no completer (a configuration error), said on each completion.
    pub(crate) completer_problem: Option<String>,
}

/// A cursor's completion, with where it goes.
struct Completed {
    text: String,
    /// The word before the cursor (classic completion replaces it, so editors filter
    /// by it).
    word: String,
    position: Position,
}

fn failed(message: impl Into<String>) -> Error {
    Error {
        code: ErrorCode::InternalError,
        message: message.into().into(),
        data: None,
    }
}

impl HoneLsp {
    /// The completion at `position` of `uri`; `None` for documents the server does not
    /// have or that are outside the project, and when a newer request came.
    async fn complete_at(&self, uri: &Uri, position: Position) -> Result<Option<Completed>> {
        let Some(document) = self.documents.get(uri) else {
            return Ok(None);
        };
        if document.relative.is_none() {
            return Ok(None);
        }
        let Some(completer) = &self.completer else {
            let problem = self.completer_problem.clone().unwrap_or_default();
            return Err(failed(format!("no completion model: {problem}")));
        };
        let relative = document.relative.clone().unwrap_or_default();
        let offset = documents::offset(&document.text, position);
        let budget = completer.budget();
        let (prefix, suffix) = crate::context::around(&document.text, offset, budget);
        let line_before = prefix.rsplit('\n').next().unwrap_or("").to_string();
        let word_start = line_before
            .trim_end_matches(|character: char| character.is_alphanumeric() || character == '_')
            .len();
        let word = line_before[word_start..].to_string();
        // The word being typed is left out (for the embedded engine, the cursor's whole
        // line): the definitions, early in the prompt, then stay the same from one
        // keystroke to the next.
        let mut names =
            crate::context::names_near(&document.text, offset, budget.cursor_line_names);
        names.retain(|name| *name != word);
        let definitions: Vec<(String, String)> =
            crate::context::definitions(&self.hone, &self.documents, &self.root, &names)
                .await
                .into_iter()
                .filter(|(place, line)| {
                    !(place.starts_with(&format!("{relative}:")) && prefix.contains(line.as_str()))
                })
                .collect();
        let files = self
            .ring
            .context(&relative, budget.files)
            .into_iter()
            .rev()
            .map(|chunk| (chunk.path, chunk.text))
            .collect();
        let prompt = FimPrompt {
            files,
            path: relative,
            prefix: format!(
                "{}{prefix}",
                crate::context::header(&document.language, &definitions)
            ),
            suffix: suffix.clone(),
            language: document.language.clone(),
            max_tokens: MAX_TOKENS,
        };
        match completer.complete(prompt, &line_before, &suffix).await {
            Ok(text) if text.trim().is_empty() => Ok(None),
            Ok(text) => Ok(Some(Completed {
                text,
                word,
                position,
            })),
            Err(CompletionError::Cancelled) => Ok(None),
            Err(CompletionError::Model(message)) => {
                self.editor
                    .log_message(MessageType::ERROR, format!("hone: {message}"))
                    .await;
                Err(failed(message))
            }
        }
    }

    /// Runs a quick refactor command and brings its changes into the editor.
    async fn run_action(&self, command: &str, args: ActionArgs) -> Result<Value> {
        let document = self
            .documents
            .get(&args.uri)
            .ok_or_else(|| Error::invalid_params("the document is not open"))?;
        let relative = document
            .relative
            .clone()
            .ok_or_else(|| Error::invalid_params("the document is outside the project"))?;
        let on_disk = std::fs::read_to_string(self.root.join(&relative)).unwrap_or_default();
        let read_only = command == "hone.explain";
        if !read_only && on_disk != document.text {
            return Err(Error::invalid_params(format!(
                "save {relative} first: hone changes the file on disk"
            )));
        }
        let from = documents::offset(&document.text, Position::new(args.range.start.line, 0));
        let to = documents::offset(&document.text, Position::new(args.range.end.line + 1, 0));
        let selection = document.text[from..to.max(from)].trim_end_matches('\n');
        let text = actions::message(command, &args, &relative, &document.language, selection)
            .ok_or_else(|| Error::invalid_params(format!("unknown command {command}")))?;
        let outcome = {
            let mut events = self.events.lock().await;
            actions::run_turn(&self.hone, &mut events, &self.root, text, read_only)
                .await
                .map_err(failed)?
        };
        if let Some(failure) = &outcome.failure {
            return Err(failed(failure.clone()));
        }
        let mut edit_changes = Vec::new();
        let mut elsewhere = Vec::new();
        for path in &outcome.changed {
            let Some((uri, open)) = self.documents.find(path) else {
                elsewhere.push(path.clone());
                continue;
            };
            let new = std::fs::read_to_string(self.root.join(path)).unwrap_or_default();
            let edits = crate::edits::line_edits(&open.text, &new);
            if edits.is_empty() {
                continue;
            }
            edit_changes.push(TextDocumentEdit {
                text_document: OptionalVersionedTextDocumentIdentifier {
                    uri,
                    version: Some(open.version),
                },
                edits: edits.into_iter().map(OneOf::Left).collect(),
            });
        }
        let mut applied = false;
        if !edit_changes.is_empty() {
            let edit = WorkspaceEdit {
                document_changes: Some(DocumentChanges::Edits(edit_changes)),
                ..WorkspaceEdit::default()
            };
            applied = self
                .editor
                .apply_edit(edit)
                .await
                .map(|response| response.applied)
                .unwrap_or(false);
        }
        let mut message = outcome.answer.trim().to_string();
        if !elsewhere.is_empty() {
            message.push_str(&format!(
                "\n\nAlso changed on disk: {} (`hone undo` takes a change back).",
                elsewhere.join(", ")
            ));
        }
        if !message.is_empty() {
            self.editor.show_message(MessageType::INFO, &message).await;
        }
        Ok(json!({
            "changed": outcome.changed,
            "applied": applied,
            "message": message,
        }))
    }
}

impl LanguageServer for HoneLsp {
    async fn initialize(&self, _params: InitializeParams) -> Result<InitializeResult> {
        let commands = COMMANDS
            .iter()
            .map(|(name, _)| (*name).to_string())
            .collect();
        Ok(InitializeResult {
            capabilities: ServerCapabilities {
                text_document_sync: Some(TextDocumentSyncCapability::Options(
                    TextDocumentSyncOptions {
                        open_close: Some(true),
                        change: Some(TextDocumentSyncKind::INCREMENTAL),
                        save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                        ..TextDocumentSyncOptions::default()
                    },
                )),
                completion_provider: Some(CompletionOptions::default()),
                inline_completion_provider: Some(OneOf::Left(true)),
                code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
                execute_command_provider: Some(ExecuteCommandOptions {
                    commands,
                    ..ExecuteCommandOptions::default()
                }),
                workspace_symbol_provider: Some(OneOf::Left(true)),
                ..ServerCapabilities::default()
            },
            server_info: Some(ServerInfo {
                name: "hone".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
            offset_encoding: None,
        })
    }

    async fn initialized(&self, _params: InitializedParams) {
        let completions = match (&self.completer, &self.completer_problem) {
            (Some(completer), _) => completer.describe(),
            (None, problem) => format!("none ({})", problem.clone().unwrap_or_default()),
        };
        self.editor
            .log_message(
                MessageType::INFO,
                format!(
                    "hone lsp in {}; completions: {completions}",
                    self.root.display()
                ),
            )
            .await;
    }

    async fn shutdown(&self) -> Result<()> {
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let document = params.text_document;
        let uri = document.uri.clone();
        self.documents.open(
            &self.root,
            document.uri,
            document.text,
            document.version,
            document.language_id,
        );
        if let Some(opened) = self.documents.get(&uri) {
            self.ring.remember_document(&opened, 0);
        }
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let document = params.text_document;
        self.documents.change(
            &document.uri,
            document.version,
            params.content_changes,
            |changed, line| self.ring.remember_document(changed, line),
        );
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        let inside = self
            .documents
            .get(&params.text_document.uri)
            .is_some_and(|document| document.relative.is_some());
        if inside {
            // The index learns the saved file (incremental: only changed files are parsed).
            let _ = self.hone.call(None, Request::Reindex).await;
        }
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        self.documents.close(&params.text_document.uri);
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        let at = params.text_document_position;
        let Some(done) = self.complete_at(&at.text_document.uri, at.position).await? else {
            return Ok(Some(CompletionResponse::Array(Vec::new())));
        };
        let start = Position::new(
            done.position.line,
            done.position
                .character
                .saturating_sub(u32::try_from(done.word.encode_utf16().count()).unwrap_or(0)),
        );
        let text = format!("{}{}", done.word, done.text);
        let label: String = text.lines().next().unwrap_or("").chars().take(60).collect();
        let item = CompletionItem {
            label,
            kind: Some(CompletionItemKind::TEXT),
            detail: Some("hone".into()),
            filter_text: Some(text.clone()),
            text_edit: Some(CompletionTextEdit::Edit(TextEdit {
                range: Range::new(start, done.position),
                new_text: text,
            })),
            ..CompletionItem::default()
        };
        Ok(Some(CompletionResponse::Array(vec![item])))
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let inside = self
            .documents
            .get(&params.text_document.uri)
            .is_some_and(|document| document.relative.is_some());
        if !inside {
            return Ok(Some(Vec::new()));
        }
        let mut actions = Vec::new();
        for (command, title) in COMMANDS {
            let diagnostics = params.context.diagnostics.clone();
            if command == "hone.fixDiagnostic" && diagnostics.is_empty() {
                continue;
            }
            let args = ActionArgs {
                uri: params.text_document.uri.clone(),
                range: params.range,
                instruction: None,
                diagnostics,
            };
            let kind = match command {
                "hone.refactor" => CodeActionKind::REFACTOR,
                "hone.fixDiagnostic" => CodeActionKind::QUICKFIX,
                _ => CodeActionKind::EMPTY,
            };
            actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: title.into(),
                kind: Some(kind),
                command: Some(Command {
                    title: title.into(),
                    command: command.into(),
                    arguments: Some(vec![serde_json::to_value(args).unwrap_or(Value::Null)]),
                }),
                ..CodeAction::default()
            }));
        }
        Ok(Some(actions))
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        let argument = params
            .arguments
            .into_iter()
            .next()
            .ok_or_else(|| Error::invalid_params("expected one argument: {uri, range}"))?;
        let args: ActionArgs = serde_json::from_value(argument)
            .map_err(|error| Error::invalid_params(format!("bad argument: {error}")))?;
        self.run_action(&params.command, args).await.map(Some)
    }

    async fn symbol(
        &self,
        params: WorkspaceSymbolParams,
    ) -> Result<Option<WorkspaceSymbolResponse>> {
        let answer = self
            .hone
            .call(
                None,
                Request::Symbols {
                    prefix: params.query,
                    limit: Some(50),
                },
            )
            .await
            .map_err(|error| failed(error.message))?;
        let symbols = answer["symbols"].as_array().cloned().unwrap_or_default();
        let found = symbols
            .iter()
            .filter_map(|symbol| crate::symbols::to_lsp(&self.root, symbol))
            .collect();
        Ok(Some(WorkspaceSymbolResponse::Flat(found)))
    }
}

impl HoneLsp {
    /// `textDocument/inlineCompletion` (LSP 3.18).
    pub(crate) async fn inline_completion(
        &self,
        params: InlineCompletionParams,
    ) -> Result<Option<InlineCompletionResponse>> {
        let at = params.text_document_position;
        let items = match self.complete_at(&at.text_document.uri, at.position).await? {
            Some(done) => vec![InlineCompletionItem {
                insert_text: done.text,
                filter_text: None,
                range: Some(Range::new(done.position, done.position)),
                command: None,
                insert_text_format: None,
            }],
            None => Vec::new(),
        };
        Ok(Some(InlineCompletionResponse::Array(items)))
    }
}
