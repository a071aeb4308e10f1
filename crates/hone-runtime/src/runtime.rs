//! [`Runtime`]: configuration and a project root turned into running sessions.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use hone_api::EventFrame;
use hone_config::{CliOverrides, Config, ConfigSources};
use hone_core::{SessionConfig, SessionHandle};
use hone_protocol::Message;
use tokio::sync::mpsc::UnboundedReceiver;

use crate::error::RuntimeError;
use crate::index::CodeIndex;
use crate::interaction::Interaction;
use crate::sessions::{OpenedSession, SessionChoice, SessionManager};

/// Where a runtime's configuration and sessions come from.
#[derive(Debug, Clone)]
pub struct RuntimeOptions {
    /// The project root.
    pub root: PathBuf,
    /// Where the user is (inside `root`; `None`: at the root). The model is told, and the
    /// project instructions are read down to it.
    pub working_dir: Option<PathBuf>,
    /// The configuration files and environment.
    pub sources: ConfigSources,
    /// The command line's settings, over the files.
    pub overrides: CliOverrides,
    /// The session store's file; `None`: the store in hone's data directory.
    pub store_path: Option<PathBuf>,
}

impl RuntimeOptions {
    /// The running process's configuration for the project at `root`, and the store in
    /// hone's data directory.
    pub fn from_process(root: PathBuf, overrides: CliOverrides) -> Self {
        Self {
            sources: ConfigSources::from_process(Some(root.clone())),
            root,
            working_dir: None,
            overrides,
            store_path: None,
        }
    }
}

/// Which session to start, and how.
#[derive(Debug, Clone)]
pub struct SessionRequest {
    /// New, resumed, latest or forked.
    pub choice: SessionChoice,
    /// Another model than the configured one (the same session with `/model NAME`).
    pub model: Option<String>,
    /// Whether the front end answers approvals, error choices and conflicts.
    pub interactive: bool,
    /// Whether a person holds the session as a conversation (the terminal UI), rather
    /// than a one-shot run: such sessions are what [`SessionChoice::LastConversation`]
    /// continues.
    pub conversation: bool,
    /// What the repo map is focused on (the first prompt, or nothing).
    pub focus: String,
    /// Whether the front end shows a resumed session's conversation
    /// ([`StartedSession::history`]).
    pub show_history: bool,
    /// Whether to start the configured MCP servers, whose tools join the session's as they
    /// become ready ([`StartedSession::mcp`]).
    pub mcp_servers: bool,
    /// The `[roles]` role the session plays (`refactor` for an editor's quick refactor): its
    /// profile, or its model and provider, over the configuration; `None` or a role that is
    /// not set: the session as configured.
    pub role: Option<String>,
}

/// What a front end shows about a running session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionSummary {
    /// Provider instance name.
    pub provider: String,
    /// Model name.
    pub model: String,
    /// Approval mode (`ask`, `auto-edit`, …).
    pub approval: String,
    /// The model's context window in tokens, when known.
    pub context_window: Option<u32>,
    /// One line about the code index (`412 files indexed`, `no code index: …`).
    pub index: String,
    /// One line about the commands' sandbox.
    pub sandbox: String,
    /// The model's price (`hone_providers::pricing`): known, free (embedded, Ollama) or
    /// `None` (front ends show tokens only).
    pub price: Option<hone_api::ModelPrice>,
    /// The `[roles]` set, one `role = what` each (`coder = qwen2.5-coder-7b`).
    pub roles: Vec<String>,
}

/// A running session.
pub struct StartedSession {
    /// Where requests go.
    pub handle: SessionHandle,
    /// Where events come from.
    pub events: UnboundedReceiver<EventFrame>,
    /// Provider, model, approval mode, context window, index and sandbox.
    pub summary: SessionSummary,
    /// The saved session, when there is a store.
    pub saved: Option<OpenedSession>,
    /// Why the session is not saved, when it is not.
    pub unsaved: Option<String>,
    /// A resumed session's conversation, repaired (with [`SessionRequest::show_history`]).
    pub history: Vec<Message>,
    /// Warnings about what the session runs without (the code index, the repo map, MCP
    /// servers of an untrusted project file).
    pub warnings: Vec<String>,
    /// The session's MCP servers (for `/mcp`), when some are configured and were asked for.
    pub mcp: Option<hone_mcp::McpClients>,
}

/// Configuration and a project root, ready to start sessions: the provider factory, the
/// policy, the code index, the context configuration and the saved sessions.
pub struct Runtime {
    options: RuntimeOptions,
    config: Config,
    sessions: SessionManager,
    index: OnceLock<CodeIndex>,
    interaction: Arc<dyn Interaction>,
}

impl Runtime {
    /// Loads the configuration and opens the session store for `options.root`; the code
    /// index is opened when first needed. `interaction` answers the runtime's questions.
    pub fn open(
        options: RuntimeOptions,
        interaction: Arc<dyn Interaction>,
    ) -> Result<Self, RuntimeError> {
        let config = hone_config::load(&options.sources, &options.overrides)?;
        hone_core::set_audit_max_bytes(config.log_max_bytes());
        let sessions = SessionManager::open(
            &options.root,
            options.store_path.as_deref(),
            &config.index_settings().store,
        );
        Ok(Self {
            options,
            config,
            sessions,
            index: OnceLock::new(),
            interaction,
        })
    }

    /// The project root.
    pub fn root(&self) -> &Path {
        &self.options.root
    }

    /// Where the user is: the working directory given in the options, else the root.
    pub fn working_dir(&self) -> &Path {
        self.options
            .working_dir
            .as_deref()
            .unwrap_or(&self.options.root)
    }

    /// The configuration loaded when the runtime was opened.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The project's saved sessions and input history.
    pub fn sessions(&self) -> &SessionManager {
        &self.sessions
    }

    /// What answers the runtime's questions and shows its warnings.
    pub fn interaction(&self) -> &dyn Interaction {
        self.interaction.as_ref()
    }

    /// The code index, opened on first use: a small update is made at once, a large one on a
    /// thread of its own while sessions run ([`CodeIndex::progress`]); a large first index
    /// is put to the interaction first.
    pub fn code_index(&self) -> &CodeIndex {
        self.index.get_or_init(|| {
            CodeIndex::open(
                &self.options.root,
                &self.config.index_settings(),
                self.interaction.as_ref(),
            )
        })
    }

    /// `text` with its `@path` mentions expanded (files and directory listings of this
    /// project, within [`hone_context::at_mentions::DEFAULT_MENTION_BUDGET_TOKENS`]).
    pub fn expand_mentions(&self, text: &str) -> hone_context::at_mentions::Expanded {
        let secrets = crate::agent::secret_files(&self.config);
        expand_mentions(&self.options.root, &secrets, text)
    }

    /// The configuration, read again (files may have changed), with `model` over the
    /// configured model.
    fn reload(&self, model: Option<&str>) -> Result<Config, RuntimeError> {
        let mut overrides = self.options.overrides.clone();
        if let Some(model) = model {
            overrides.model = Some(model.to_string());
        }
        Ok(hone_config::load(&self.options.sources, &overrides)?)
    }

    /// The configuration for a session playing `role` (see [`SessionRequest::role`]).
    fn reload_as(&self, model: Option<&str>, role: Option<&str>) -> Result<Config, RuntimeError> {
        let config = self.reload(model)?;
        let Some(setting) = role.and_then(|name| crate::agent::role_named(&config.roles(), name))
        else {
            return Ok(config);
        };
        let mut overrides = self.options.overrides.clone();
        match setting.profile {
            Some(profile) => overrides.profile = Some(profile),
            None => {
                overrides.provider = setting.provider.or(overrides.provider);
                overrides.model = setting.model.or_else(|| model.map(str::to_string));
            }
        }
        Ok(hone_config::load(&self.options.sources, &overrides)?)
    }

    /// Starts the session `request` names: the provider (and those of the roles), the
    /// policy, the saved session, the code index's tools, map and localizer, and the
    /// context configuration.
    pub async fn start_session(
        &self,
        request: SessionRequest,
    ) -> Result<StartedSession, RuntimeError> {
        self.start_session_with(request, crate::FaceSetup::default())
            .await
    }

    /// [`Runtime::start_session`] with what the face adds (`setup`): the tools read and
    /// write through its files, its MCP servers start beside the configured ones.
    pub async fn start_session_with(
        &self,
        request: SessionRequest,
        setup: crate::FaceSetup,
    ) -> Result<StartedSession, RuntimeError> {
        let config = self.reload_as(request.model.as_deref(), request.role.as_deref())?;
        let provider_config = config.provider()?;
        let interaction = self.interaction.as_ref();
        let basics = crate::agent::basics(&config, &provider_config, interaction)?;
        let context_window = crate::context::context_window(&config, &provider_config);
        let mut roles = crate::agent::roles(&config, &provider_config, interaction).await?;
        if let Some(allowed) = &self.options.overrides.allowed_tools {
            roles.chat.tools.only = Some(allowed.clone());
        }
        let explore = crate::agent::explore_role(&config, &provider_config, interaction).await?;
        let price = hone_providers::pricing::price(provider_config.wire, &basics.model);
        let provider = crate::provider::build(&config, provider_config, interaction).await?;
        let opened = self.sessions.open_session(
            &request,
            config.provider_name(),
            &basics.model,
            config.undo_depth(),
        )?;
        let index = self.code_index();
        let parts = index.parts(
            &request.focus,
            &config.index_settings(),
            basics.prompt_profile,
        );
        let mut warnings: Vec<String> = self
            .sessions
            .warning()
            .map(str::to_string)
            .into_iter()
            .collect();
        let mut index_status = index.status().to_string();
        if let Some(problem) = index.problem() {
            warnings.push(format!(
                "no code index ({problem}); continuing without the index tools"
            ));
        }
        if let Some(warning) = parts.map_warning {
            index_status.push_str(&format!("; {warning}"));
            warnings.push(warning);
        }
        let summary = SessionSummary {
            provider: config.provider_name().to_string(),
            model: basics.model.clone(),
            approval: basics.approval,
            context_window,
            index: index_status,
            sandbox: basics.sandbox_status,
            price,
            roles: crate::agent::role_lines(&config.roles()),
        };
        let root = self.options.root.clone();
        if let Some(warning) = ignored_project_settings(&config) {
            warnings.push(warning);
        }
        if let Some(warning) = read_only_project(&root, &summary.approval) {
            warnings.push(warning);
        }
        warnings.extend(crate::agent::unknown_profile_tools(
            &roles.chat.tools,
            &parts.tools,
        ));
        let mcp = request
            .mcp_servers
            .then(|| crate::mcp::start_servers(&config, setup.mcp_servers, &root, &basics.commands))
            .flatten();
        let mut extra_tools = parts.tools;
        if let Some(role) = explore {
            let explorer = crate::explore::Explorer {
                root: root.clone(),
                provider: role.provider.clone().unwrap_or_else(|| provider.clone()),
                role,
                secrets: basics.secrets.clone(),
                index_tools: extra_tools.clone(),
            };
            extra_tools.push(Arc::new(crate::explore::ExploreTool::new(explorer)));
        }
        let hooks = crate::hooks::session_hooks(&config, &mut warnings);
        let mut context =
            crate::context::session_context(&config, context_window, &root, self.working_dir());
        let skills = config.skills();
        warnings.extend(skills.warnings.iter().cloned());
        if let Some((tool, listing)) = crate::skills::session_skills(skills) {
            extra_tools.push(tool);
            context.instructions.files.insert(0, listing);
        }
        let (handle, events) = hone_core::start_session_with_files(
            SessionConfig {
                context,
                root,
                provider,
                model: basics.model,
                permissions: basics.permissions,
                max_tool_rounds: basics.max_tool_rounds,
                interactive: request.interactive,
                audit: true,
                secrets: basics.secrets,
                commands: basics.commands,
                extra_tools,
                tool_sources: crate::mcp::tool_sources(mcp.as_ref()),
                repo_map: parts.repo_map,
                prompt_profile: basics.prompt_profile,
                memory: opened.persistence,
                checks: crate::agent::checks(&config),
                code_mapper: Some(parts.mapper),
                localizer: parts.localizer,
                guidance: crate::agent::guidance(&config),
                roles,
                hooks,
            },
            setup.files,
        )?;
        Ok(StartedSession {
            handle,
            events,
            summary,
            saved: opened.saved,
            unsaved: opened.unsaved,
            history: opened.history,
            warnings,
            mcp,
        })
    }
}

/// `text` with its `@path` mentions inside the project at `root` expanded (files with
/// numbered lines, directories as listings, within the mention budget); mentions that could
/// not be attached (files that may hold secrets by `secrets` among them) are left as
/// written and named in `problems`.
pub fn expand_mentions(
    root: &std::path::Path,
    secrets: &hone_policy::SecretFiles,
    text: &str,
) -> hone_context::at_mentions::Expanded {
    match hone_policy::PathGuard::new(root) {
        Ok(guard) => hone_context::at_mentions::expand(
            &guard.with_secret_files(secrets.clone()),
            text,
            hone_context::at_mentions::DEFAULT_MENTION_BUDGET_TOKENS,
        ),
        Err(error) => hone_context::at_mentions::Expanded {
            text: text.to_string(),
            attached: Vec::new(),
            problems: hone_context::at_mentions::find(text)
                .into_iter()
                .map(|mention| hone_context::at_mentions::MentionError::Refused {
                    path: mention.path,
                    reason: error.to_string(),
                })
                .collect(),
            images: Vec::new(),
        },
    }
}

/// A warning naming the settings of an untrusted project file that were ignored (its MCP
/// servers, a provider or model file it chose, limits it raised, …), if any.
fn ignored_project_settings(config: &Config) -> Option<String> {
    let ignored = config.ignored_project_settings();
    (!ignored.is_empty()).then(|| {
        format!(
            "settings of the untrusted project file ignored: {} (add the project to \
             `trusted_projects` in your user config to honour them)",
            ignored.join("; ")
        )
    })
}

/// The warning for a project hone cannot write, in a mode that edits: said once at the
/// start rather than learnt from every failing edit.
fn read_only_project(root: &Path, approval: &str) -> Option<String> {
    if approval == hone_policy::ApprovalMode::ReadOnly.as_str() {
        return None;
    }
    let error = hone_fs::check_writable_dir(root).err()?;
    Some(format!(
        "the project {} cannot be written ({error}): edits will fail and the code index \
         cannot be updated; use --approval read-only to only ask questions",
        root.display()
    ))
}
