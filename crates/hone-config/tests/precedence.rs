//! Layering of defaults, user file, project file, environment and flags.
#![allow(clippy::unwrap_used)] // helpers outside #[test] functions panic on setup failure by design

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hone_config::{
    AZURE_DEFAULT_API_VERSION, CliOverrides, Config, ConfigError, ConfigSources, Source, ToolMode,
    WireApi, load,
};
use tempfile::TempDir;

#[path = "precedence/errors.rs"]
mod errors;

/// A temporary home with optional user and project files; never reads the real environment.
struct Fixture {
    dir: TempDir,
    user: Option<PathBuf>,
    project: Option<PathBuf>,
    env: BTreeMap<String, String>,
}

impl Fixture {
    fn new() -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
            user: None,
            project: None,
            env: BTreeMap::new(),
        }
    }

    fn user(mut self, text: &str) -> Self {
        let path = self.dir.path().join("user").join("config.toml");
        write(&path, text);
        self.user = Some(path);
        self
    }

    fn project(mut self, text: &str) -> Self {
        let project = self.dir.path().join("project");
        write(&project.join(".hone").join("config.toml"), text);
        self.project = Some(project);
        self
    }

    /// A user file listing the project in `trusted_projects`, followed by `text`.
    fn trusting_user(self, text: &str) -> Self {
        let project = self.dir.path().join("project");
        let trusted = format!("trusted_projects = [{:?}]\n", project.display().to_string());
        self.user(&format!("{trusted}{text}"))
    }

    fn env(mut self, name: &str, value: &str) -> Self {
        self.env.insert(name.to_string(), value.to_string());
        self
    }

    fn sources(&self) -> ConfigSources {
        ConfigSources {
            user_file: self.user.clone(),
            project_dir: self.project.clone(),
            env: self.env.clone(),
        }
    }

    fn load(&self, cli: &CliOverrides) -> Result<Config, ConfigError> {
        load(&self.sources(), cli)
    }

    fn config(&self) -> Config {
        self.load(&CliOverrides::default()).unwrap()
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn cli_model(model: &str) -> CliOverrides {
    CliOverrides {
        model: Some(model.into()),
        ..CliOverrides::default()
    }
}

#[test]
fn default_is_the_keyless_embedded_model() {
    let fixture = Fixture::new().env("OLLAMA_HOST", "http://gpu-box:11434");
    let config = fixture.config();
    assert_eq!(config.provider_name(), hone_config::DEFAULT_PROVIDER);
    let provider = config.provider().unwrap();
    assert_eq!(provider.name, "local");
    assert_eq!(provider.wire, WireApi::Local);
    assert_eq!(provider.model, hone_config::LOCAL_DEFAULT_MODEL);
    assert!(provider.api_key.is_none());
    assert!(provider.base_url.is_empty());
}

#[test]
fn with_nothing_configured_a_vendor_key_selects_that_vendor() {
    let fixture = Fixture::new()
        .env("GEMINI_API_KEY", "gm-test-key-123")
        .env("ANTHROPIC_API_KEY", "sk-ant-test-key");
    let config = fixture.config();
    assert_eq!(config.provider_name(), "anthropic");
    let shown = config.render_show();
    assert!(
        shown.contains("provider = \"anthropic\"")
            && shown.contains("# from env ANTHROPIC_API_KEY"),
        "{shown}"
    );
    assert!(!shown.contains("sk-ant-test-key"));
    let with_model = Fixture::new()
        .user("model = \"claude-x\"\n")
        .env("ANTHROPIC_API_KEY", "sk-ant-test-key");
    assert_eq!(with_model.config().provider().unwrap().model, "claude-x");
}

#[test]
fn an_explicit_provider_wins_over_keys_and_the_default() {
    let keyed = Fixture::new().env("OPENAI_API_KEY", "sk-openai-test-key");
    let file = keyed.user("provider = \"local\"\n");
    assert_eq!(file.config().provider_name(), "local");
    let env = Fixture::new()
        .env("OPENAI_API_KEY", "sk-openai-test-key")
        .env("HONE_PROVIDER", "ollama");
    assert_eq!(env.config().provider_name(), "ollama");
    let cli = CliOverrides {
        provider: Some("lmstudio".into()),
        ..CliOverrides::default()
    };
    assert_eq!(env.load(&cli).unwrap().provider_name(), "lmstudio");
}

#[test]
fn the_local_model_comes_from_the_local_section_unless_set_elsewhere() {
    let fixture = Fixture::new().user("[local]\nmodel = \"qwen2.5-coder-0.5b\"\nthreads = 2\n");
    let config = fixture.config();
    assert_eq!(config.provider().unwrap().model, "qwen2.5-coder-0.5b");
    assert_eq!(config.local_settings().threads, Some(2));
    assert_eq!(config.local_settings().context_size, None);
    let shown = config.render_show();
    assert!(shown.contains("[local]"), "{shown}");
    assert!(shown.contains("threads = 2"), "{shown}");
    let overridden = fixture.env("HONE_MODEL", "/models/mine.gguf");
    assert_eq!(
        overridden.config().provider().unwrap().model,
        "/models/mine.gguf"
    );
}

#[test]
fn provider_precedence_user_project_env_cli() {
    let keys = |fixture: Fixture| {
        fixture
            .env("OPENAI_API_KEY", "sk-openai-test-key")
            .env("ANTHROPIC_API_KEY", "sk-ant-test-key")
            .env("GROQ_API_KEY", "gsk-test-key-123")
    };
    let user = keys(Fixture::new().user("provider = \"lmstudio\"\n"));
    assert_eq!(user.config().provider_name(), "lmstudio");
    // An untrusted project cannot choose the provider; a trusted one can.
    let untrusted = keys(
        Fixture::new()
            .user("provider = \"lmstudio\"\n")
            .project("provider = \"openai\"\n"),
    );
    let config = untrusted.config();
    assert_eq!(config.provider_name(), "lmstudio");
    assert_eq!(
        config.ignored_project_settings(),
        ["provider = \"openai\" (chooses the provider)"]
    );
    let project = keys(
        Fixture::new()
            .trusting_user("provider = \"lmstudio\"\n")
            .project("provider = \"openai\"\n"),
    );
    assert_eq!(project.config().provider_name(), "openai");
    let env = project.env("HONE_PROVIDER", "anthropic");
    let config = env.config();
    assert_eq!(config.provider_name(), "anthropic");
    assert_eq!(config.provider().unwrap().wire, WireApi::Anthropic);
    let cli = CliOverrides {
        provider: Some("groq".into()),
        ..CliOverrides::default()
    };
    assert_eq!(env.load(&cli).unwrap().provider().unwrap().name, "groq");
}

#[test]
fn model_precedence_preset_instance_top_level_env_cli() {
    let fixture = Fixture::new().user("provider = \"ollama\"\n");
    assert_eq!(
        fixture.config().provider().unwrap().model,
        "qwen2.5-coder:7b"
    );
    let fixture =
        fixture.user("provider = \"ollama\"\n[providers.ollama]\nmodel = \"user-instance\"\n");
    assert_eq!(fixture.config().provider().unwrap().model, "user-instance");
    let fixture = fixture.project("[providers.ollama]\nmodel = \"project-instance\"\n");
    assert_eq!(
        fixture.config().provider().unwrap().model,
        "project-instance"
    );
    let fixture = fixture
        .user(
            "provider = \"ollama\"\nmodel = \"user-top\"\n\
             [providers.ollama]\nmodel = \"user-instance\"\n",
        )
        .project("model = \"project-top\"\n");
    assert_eq!(fixture.config().provider().unwrap().model, "project-top");
    let fixture = fixture.env("HONE_MODEL", "env-model");
    assert_eq!(fixture.config().provider().unwrap().model, "env-model");
    let provider = fixture
        .load(&cli_model("cli-model"))
        .unwrap()
        .provider()
        .unwrap();
    assert_eq!(provider.model, "cli-model");
}

#[test]
fn base_url_precedence_user_project_env_cli() {
    let fixture = Fixture::new().trusting_user(
        "provider = \"ollama\"\n[providers.ollama]\nbase_url = \"http://user:1/\"\n",
    );
    assert_eq!(
        fixture.config().provider().unwrap().base_url,
        "http://user:1"
    );
    let fixture = fixture.project("[providers.ollama]\nbase_url = \"http://project:2\"\n");
    assert_eq!(
        fixture.config().provider().unwrap().base_url,
        "http://project:2"
    );
    let fixture = fixture.env("OLLAMA_HOST", "http://ollama-host:3");
    assert_eq!(
        fixture.config().provider().unwrap().base_url,
        "http://ollama-host:3"
    );
    let fixture = fixture.env("HONE_BASE_URL", "http://hone-env:4");
    assert_eq!(
        fixture.config().provider().unwrap().base_url,
        "http://hone-env:4"
    );
    let cli = CliOverrides {
        base_url: Some("http://cli:5".into()),
        ..CliOverrides::default()
    };
    let provider = fixture.load(&cli).unwrap().provider().unwrap();
    assert_eq!(provider.base_url, "http://cli:5");
}

#[test]
fn ollama_host_without_scheme_or_port() {
    let ollama = || Fixture::new().env("HONE_PROVIDER", "ollama");
    let fixture = ollama().env("OLLAMA_HOST", "127.0.0.1:11500");
    assert_eq!(
        fixture.config().provider().unwrap().base_url,
        "http://127.0.0.1:11500"
    );
    let fixture = ollama().env("OLLAMA_HOST", "gpu-box");
    assert_eq!(
        fixture.config().provider().unwrap().base_url,
        "http://gpu-box:11434"
    );
    let fixture = ollama().env("OLLAMA_HOST", "https://ollama.example.com/");
    assert_eq!(
        fixture.config().provider().unwrap().base_url,
        "https://ollama.example.com"
    );
}

#[test]
fn empty_environment_values_count_as_unset() {
    let fixture = Fixture::new()
        .user("provider = \"lmstudio\"\n")
        .env("HONE_PROVIDER", "")
        .env("HONE_MODEL", "  ")
        .env("OLLAMA_HOST", "");
    let provider = fixture.config().provider().unwrap();
    assert_eq!(provider.name, "lmstudio");
    assert_eq!(provider.model, "qwen2.5-coder-7b-instruct");
    let fixture = Fixture::new()
        .env("HONE_PROVIDER", "anthropic")
        .env("ANTHROPIC_API_KEY", "");
    let error = fixture.config().provider().unwrap_err();
    assert!(
        matches!(error, ConfigError::MissingApiKey { .. }),
        "{error}"
    );
}

#[test]
fn profile_selects_provider_model_and_options() {
    let fixture = Fixture::new()
        .user(
            "provider = \"openai\"\nprofile = \"fast\"\n\
             [profiles.fast]\nprovider = \"groq\"\nmodel = \"llama-3.1-8b-instant\"\n\
             tool_mode = \"prompt\"\n\
             [profiles.local]\nprovider = \"lmstudio\"\n",
        )
        .env("GROQ_API_KEY", "gsk-test-key-123");
    let config = fixture.config();
    assert_eq!(config.profile_name(), Some("fast"));
    // An explicit key beside `profile` in the same layer wins over the profile.
    assert_eq!(config.provider_name(), "openai");

    let fixture = fixture.user(
        "profile = \"fast\"\n[profiles.fast]\nprovider = \"groq\"\n\
         model = \"llama-3.1-8b-instant\"\ntool_mode = \"prompt\"\n\
         [profiles.local]\nprovider = \"lmstudio\"\n",
    );
    let provider = fixture.config().provider().unwrap();
    assert_eq!(provider.name, "groq");
    assert_eq!(provider.model, "llama-3.1-8b-instant");
    assert_eq!(provider.tool_mode, ToolMode::Prompt);

    let cli = CliOverrides {
        profile: Some("local".into()),
        ..CliOverrides::default()
    };
    let config = fixture.load(&cli).unwrap();
    assert_eq!(config.profile_name(), Some("local"));
    let provider = config.provider().unwrap();
    assert_eq!(provider.name, "lmstudio");
    assert_eq!(provider.tool_mode, ToolMode::Native);

    let env = fixture.env("HONE_PROFILE", "local");
    let cli = cli_model("other");
    let provider = env.load(&cli).unwrap().provider().unwrap();
    assert_eq!(
        (provider.name.as_str(), provider.model.as_str()),
        ("lmstudio", "other")
    );
}

#[test]
fn named_instance_with_custom_kind() {
    let fixture = Fixture::new()
        .user(
            "provider = \"work\"\n[providers.work]\nkind = \"openai\"\n\
             base_url = \"https://proxy.example.com/v1\"\napi_key_env = \"WORK_OPENAI_KEY\"\n\
             model = \"gpt-4.1\"\nheaders = { \"OpenAI-Organization\" = \"org-1\" }\n\
             max_tokens_field = \"max_tokens\"\ncontext_window = 64000\n",
        )
        .env("OPENAI_API_KEY", "sk-personal-key-not-for-work")
        .env("WORK_OPENAI_KEY", "sk-work-key-0123456789");
    let provider = fixture.config().provider().unwrap();
    assert_eq!(provider.name, "work");
    assert_eq!(provider.kind, "openai");
    assert_eq!(provider.base_url, "https://proxy.example.com/v1");
    assert_eq!(provider.api_key.unwrap().expose(), "sk-work-key-0123456789");
    assert_eq!(provider.api_key_env.as_deref(), Some("WORK_OPENAI_KEY"));
    assert_eq!(provider.headers["OpenAI-Organization"], "org-1");
    assert_eq!(provider.context_window, Some(64_000));
    assert_eq!(
        provider.max_tokens_field,
        hone_config::MaxTokensField::MaxTokens
    );

    let fixture = Fixture::new().user("[providers.work]\nmodel = \"x\"\n");
    let error = fixture.config().provider_named("work").unwrap_err();
    assert!(matches!(error, ConfigError::MissingKind { .. }), "{error}");
    let fixture = Fixture::new().user("[providers.work]\nkind = \"opnai\"\n");
    let message = fixture
        .config()
        .provider_named("work")
        .unwrap_err()
        .to_string();
    assert!(message.contains("Did you mean `openai`?"), "{message}");
}

#[test]
fn project_fields_override_user_fields_of_the_same_instance() {
    let fixture = Fixture::new()
        .user(
            "provider = \"ollama\"\n\
             [providers.ollama]\nmodel = \"a\"\nheaders = { X-One = \"1\", X-Two = \"2\" }\n",
        )
        .project("[providers.ollama]\nheaders = { X-Two = \"two\" }\ntool_mode = \"prompt\"\n");
    let provider = fixture.config().provider().unwrap();
    assert_eq!(provider.model, "a");
    assert_eq!(provider.headers["X-One"], "1");
    assert_eq!(provider.headers["X-Two"], "two");
    assert_eq!(provider.tool_mode, ToolMode::Prompt);
}

#[test]
fn context_windows_override_then_table() {
    let fixture =
        Fixture::new().user("[context_windows]\n\"my-finetune\" = 32768\n\"gpt-4o\" = 1000\n");
    let config = fixture.config();
    assert_eq!(config.known_context_window("my-finetune"), Some(32_768));
    assert_eq!(config.known_context_window("gpt-4o"), Some(1_000));
    assert_eq!(config.known_context_window("openai/gpt-4o"), Some(128_000));
    assert_eq!(config.known_context_window("unknown-model"), None);
    assert_eq!(
        hone_config::known_context_window("anthropic/claude-opus-4-1"),
        Some(200_000)
    );
    let provider = fixture
        .load(&cli_model("my-finetune"))
        .unwrap()
        .provider()
        .unwrap();
    assert_eq!(provider.context_window, Some(32_768));
}

#[test]
fn profile_without_provider_applies_to_the_selected_provider() {
    let fixture = Fixture::new()
        .user(
            "provider = \"lmstudio\"\nprofile = \"big\"\n\
             [profiles.big]\nmodel = \"qwen3-coder-30b\"\ncontext_window = 65536\n",
        )
        .project("[profiles.big]\ntool_mode = \"prompt\"\n");
    let config = fixture.config();
    let provider = config.provider().unwrap();
    assert_eq!(provider.name, "lmstudio");
    assert_eq!(provider.model, "qwen3-coder-30b");
    assert_eq!(provider.context_window, Some(65_536));
    assert_eq!(provider.tool_mode, ToolMode::Prompt);
    let shown = config.render_show();
    assert!(shown.contains("model = \"qwen3-coder-30b\""), "{shown}");
    assert!(shown.contains("# from profile big (user file "), "{shown}");
    assert!(
        shown.contains("# from profile big (project file "),
        "{shown}"
    );
}
