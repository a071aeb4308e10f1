//! The `explore` tool, offered when `[roles] explore` names a model: the session's model asks
//! a question about the code base, and a read-only helper session on the explore model
//! answers it, reading and searching with the read tools and the code index. Only its answer
//! comes back, so the exploration's reads do not fill the main conversation.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use hone_api::{Event, Request};
use hone_core::{
    ChatSettings, ChecksConfig, FlowMode, Guidance, LocalizeMode, RoleModel, RoleModels,
    SessionConfig, ToolSelection,
};
use hone_policy::{ApprovalMode, CommandPolicy, Permissions};
use hone_protocol::ToolSpec;
use hone_providers::Provider;
use hone_tools::{
    ExternalCall, ExternalPlan, Plan, Tool, ToolContext, ToolError, ToolKind, ToolOutput,
};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// The tool's name.
pub const EXPLORE_TOOL: &str = "explore";

/// Tool rounds the helper may take.
const EXPLORE_ROUNDS: u32 = 12;

/// The longest an exploration may take.
const EXPLORE_TIMEOUT: Duration = Duration::from_secs(600);

/// What the helper is told besides the question.
const EXPLORE_BRIEF: &str = "Explore this project to answer the question below. Read and search; \
change nothing. Answer briefly with what you found: file paths with line numbers, the names of \
the functions and types involved, and how they connect.";

/// The read tools the helper may use (the code index's are added when the session has them).
const READ_TOOLS: [&str; 5] = [
    "read_file",
    "list_dir",
    "search_files",
    "glob_files",
    "git_log",
];

/// What the helper session is made of.
#[derive(Clone)]
pub(crate) struct Explorer {
    pub(crate) root: PathBuf,
    pub(crate) role: RoleModel,
    pub(crate) provider: Arc<dyn Provider>,
    pub(crate) secrets: Vec<String>,
    /// The code index's read tools.
    pub(crate) index_tools: Vec<Arc<dyn Tool>>,
}

/// The `explore` tool.
pub(crate) struct ExploreTool {
    explorer: Explorer,
}

impl ExploreTool {
    pub(crate) fn new(explorer: Explorer) -> Self {
        Self { explorer }
    }
}

impl Tool for ExploreTool {
    fn name(&self) -> &str {
        EXPLORE_TOOL
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: EXPLORE_TOOL.to_string(),
            description: "Ask a helper to explore the code base and answer a question (where \
                          something is defined or handled, how parts connect). It reads and \
                          searches on its own and returns only its answer, with paths and line \
                          numbers. It changes nothing."
                .to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "question": {
                        "type": "string",
                        "description": "What to find out, e.g. `Where are sessions saved and loaded?`"
                    }
                },
                "required": ["question"]
            }),
        }
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn plan(&self, _context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let question = arguments
            .get("question")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|question| !question.is_empty())
            .ok_or_else(|| ToolError::invalid("`question` is required: what to find out"))?;
        Ok(Plan::External(ExternalPlan {
            display: format!("explore: {question}"),
            trusted: true,
            call: Arc::new(ExploreCall {
                explorer: self.explorer.clone(),
                question: question.to_string(),
            }),
        }))
    }
}

/// One exploration.
struct ExploreCall {
    explorer: Explorer,
    question: String,
}

impl ExternalCall for ExploreCall {
    fn run(
        &self,
        cancel: CancellationToken,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ToolOutput> + Send>> {
        let explorer = self.explorer.clone();
        let question = self.question.clone();
        Box::pin(async move {
            match tokio::time::timeout(EXPLORE_TIMEOUT, explore(explorer, question, cancel)).await {
                Ok(output) => output,
                Err(_) => ToolOutput::error(format!(
                    "the exploration took more than {} s and was stopped",
                    EXPLORE_TIMEOUT.as_secs()
                )),
            }
        })
    }
}

/// Runs a read-only helper session on the explore model and returns its answer.
async fn explore(explorer: Explorer, question: String, cancel: CancellationToken) -> ToolOutput {
    let mut allowed: Vec<String> = READ_TOOLS.iter().map(ToString::to_string).collect();
    allowed.extend(
        explorer
            .index_tools
            .iter()
            .map(|tool| tool.name().to_string()),
    );
    let config = SessionConfig {
        root: explorer.root.clone(),
        provider: explorer.provider.clone(),
        model: explorer.role.model.clone(),
        permissions: Permissions::new(ApprovalMode::ReadOnly, CommandPolicy::default()),
        max_tool_rounds: EXPLORE_ROUNDS,
        interactive: false,
        audit: false,
        secrets: explorer.secrets.clone(),
        commands: Default::default(),
        extra_tools: explorer.index_tools.clone(),
        tool_sources: Vec::new(),
        repo_map: None,
        prompt_profile: hone_core::PromptProfile::Full,
        memory: None,
        context: hone_core::ContextConfig::default(),
        checks: ChecksConfig::disabled(),
        code_mapper: None,
        localizer: None,
        guidance: Guidance {
            localize: LocalizeMode::Off,
            flow: FlowMode::Agent,
            ..Guidance::default()
        },
        roles: RoleModels {
            chat: ChatSettings {
                generation: explorer.role.generation.clone(),
                system_prompt: None,
                tools: ToolSelection {
                    only: Some(allowed),
                    disabled: Vec::new(),
                },
            },
            ..RoleModels::default()
        },
        hooks: hone_core::Hooks::default(),
    };
    let (handle, mut events) = match hone_core::start_session(config) {
        Ok(started) => started,
        Err(error) => {
            return ToolOutput::error(format!("the exploration could not start: {error}"));
        }
    };
    handle.send(Request::user_message(format!(
        "{EXPLORE_BRIEF}\n\nQuestion: {question}"
    )));
    let mut answer = String::new();
    loop {
        let frame = tokio::select! {
            () = cancel.cancelled() => {
                handle.send(Request::Cancel);
                return ToolOutput::error("the exploration was cancelled");
            }
            frame = events.recv() => frame,
        };
        let Some(frame) = frame else {
            return ToolOutput::error("the exploration ended without an answer");
        };
        match frame.event {
            // Only the last reply is the answer: text before a tool call is thinking aloud.
            Event::ToolRequested { .. } => answer.clear(),
            Event::MessageDelta { text } => answer.push_str(&text),
            Event::TurnCompleted { .. } => break,
            Event::TurnFailed { error, .. } => {
                return ToolOutput::error(format!("the exploration failed: {}", error.message));
            }
            Event::TurnCancelled { .. } => {
                return ToolOutput::error("the exploration was cancelled");
            }
            _ => {}
        }
    }
    handle.send(Request::Shutdown);
    let answer = answer.trim();
    if answer.is_empty() {
        ToolOutput::error("the exploration found nothing to say")
    } else {
        ToolOutput::ok(format!("[explored with {}]\n{answer}", explorer.role.model))
    }
}
