//! Agent settings: `approval`, `max_tool_rounds` and `[permissions]`, layered with provenance,
//! and an untrusted project unable to grant itself commands.
#![allow(clippy::unwrap_used)] // helpers outside #[test] functions panic on setup failure by design

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hone_config::{
    CliOverrides, Config, ConfigError, ConfigSources, PermissionRules, Source, load,
};
use hone_policy::ApprovalMode;
use tempfile::TempDir;

/// A temporary user file, project and environment; never reads the real environment.
struct Fixture {
    dir: TempDir,
    user: PathBuf,
    project: Option<PathBuf>,
    env: BTreeMap<String, String>,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("user").join("config.toml");
        Self {
            dir,
            user,
            project: None,
            env: BTreeMap::new(),
        }
    }

    fn user(self, text: &str) -> Self {
        write(&self.user, text);
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

    fn user_source(&self) -> Source {
        Source::UserFile(self.user.clone())
    }

    fn project_source(&self) -> Source {
        let project = self.project.clone().unwrap();
        Source::ProjectFile(project.join(".hone").join("config.toml"))
    }

    fn load(&self, cli: &CliOverrides) -> Result<Config, ConfigError> {
        let sources = ConfigSources {
            user_file: Some(self.user.clone()),
            project_dir: self.project.clone(),
            env: self.env.clone(),
        };
        load(&sources, cli)
    }

    fn config(&self) -> Config {
        self.load(&CliOverrides::default()).unwrap()
    }

    fn error(&self) -> String {
        self.load(&CliOverrides::default()).unwrap_err().to_string()
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn cli_approval(mode: &str) -> CliOverrides {
    CliOverrides {
        approval: Some(mode.into()),
        ..CliOverrides::default()
    }
}

fn cli_rounds(rounds: u32) -> CliOverrides {
    CliOverrides {
        max_tool_rounds: Some(rounds),
        ..CliOverrides::default()
    }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|item| item.to_string()).collect()
}

#[test]
fn nothing_configured_means_ask_with_25_rounds_and_no_rules() {
    let config = Fixture::new().config();
    assert_eq!(config.approval(), ApprovalMode::Ask);
    assert_eq!(config.approval_source(), &Source::Default);
    assert_eq!(config.max_tool_rounds(), 25);
    assert_eq!(config.max_tool_rounds_source(), &Source::Default);
    assert_eq!(config.permission_rules(), PermissionRules::default());
}

#[test]
fn approval_is_layered_user_project_env_cli() {
    let fixture = Fixture::new().user("approval = \"auto-edit\"\n");
    let config = fixture.config();
    assert_eq!(config.approval(), ApprovalMode::AutoEdit);
    assert_eq!(config.approval_source(), &fixture.user_source());

    let fixture = fixture.project("approval = \"read-only\"\n");
    let config = fixture.config();
    assert_eq!(config.approval(), ApprovalMode::ReadOnly);
    assert_eq!(config.approval_source(), &fixture.project_source());

    let fixture = fixture.env("HONE_APPROVAL", "full-auto");
    let config = fixture.config();
    assert_eq!(config.approval(), ApprovalMode::FullAuto);
    assert_eq!(
        config.approval_source(),
        &Source::Env("HONE_APPROVAL".into())
    );

    let config = fixture.load(&cli_approval("ask")).unwrap();
    assert_eq!(config.approval(), ApprovalMode::Ask);
    assert_eq!(config.approval_source(), &Source::Cli("--approval".into()));
}

#[test]
fn max_tool_rounds_is_layered_user_project_env_cli() {
    let fixture = Fixture::new().user("max_tool_rounds = 10\n");
    let config = fixture.config();
    assert_eq!(config.max_tool_rounds(), 10);
    assert_eq!(config.max_tool_rounds_source(), &fixture.user_source());

    // An untrusted project may lower the limit, not raise it.
    let fixture = fixture.project("max_tool_rounds = 40\n");
    let config = fixture.config();
    assert_eq!(config.max_tool_rounds(), 10);
    assert!(
        config
            .ignored_project_settings()
            .contains(&"max_tool_rounds = 40 (raises the limit of 10)".to_string())
    );
    let lowered = fixture.project("max_tool_rounds = 4\n");
    assert_eq!(lowered.config().max_tool_rounds(), 4);
    assert_eq!(
        lowered.config().max_tool_rounds_source(),
        &lowered.project_source()
    );
    let fixture = Fixture::new()
        .trusting_user("max_tool_rounds = 10\n")
        .project("max_tool_rounds = 40\n");
    let config = fixture.config();
    assert_eq!(config.max_tool_rounds(), 40);
    assert_eq!(config.max_tool_rounds_source(), &fixture.project_source());

    let fixture = fixture.env("HONE_MAX_TOOL_ROUNDS", "1000");
    let config = fixture.config();
    assert_eq!(config.max_tool_rounds(), 1000);
    let variable = Source::Env("HONE_MAX_TOOL_ROUNDS".into());
    assert_eq!(config.max_tool_rounds_source(), &variable);

    let config = fixture.load(&cli_rounds(1)).unwrap();
    assert_eq!(config.max_tool_rounds(), 1);
    let flag = Source::Cli("--max-tool-rounds".into());
    assert_eq!(config.max_tool_rounds_source(), &flag);
}

#[test]
fn empty_variables_and_flags_count_as_unset() {
    let fixture = Fixture::new()
        .user("approval = \"read-only\"\nmax_tool_rounds = 5\n")
        .env("HONE_APPROVAL", " ")
        .env("HONE_MAX_TOOL_ROUNDS", "");
    let config = fixture.load(&cli_approval("")).unwrap();
    assert_eq!(config.approval(), ApprovalMode::ReadOnly);
    assert_eq!(config.max_tool_rounds(), 5);
}

#[test]
fn an_invalid_approval_in_a_file_names_the_file_line_and_valid_values() {
    let fixture = Fixture::new().user("model = \"m\"\napproval = \"full_auto\"\n");
    let message = fixture.error();
    let expected = format!(
        "invalid config file {}, line 2, column 12: invalid `approval` \"full_auto\": expected \
         one of read-only, ask, auto-edit, full-auto. Did you mean `full-auto`?",
        fixture.user.display()
    );
    assert_eq!(message, expected);
}

#[test]
fn an_invalid_profile_approval_names_the_profile() {
    let fixture = Fixture::new().user("[profiles.fast]\napproval = \"yolo\"\n");
    let message = fixture.error();
    assert!(message.contains("line 2"), "{message}");
    assert!(
        message.contains("invalid `profiles.fast.approval` \"yolo\": expected one of"),
        "{message}"
    );
}

#[test]
fn out_of_range_max_tool_rounds_in_a_file_names_the_file_and_line() {
    for value in ["0", "1001", "-1", "99999999999"] {
        let fixture = Fixture::new().project(&format!("\nmax_tool_rounds = {value}\n"));
        let message = fixture.error();
        let project_file = fixture.project.as_ref().unwrap().join(".hone/config.toml");
        let expected = format!(
            "invalid config file {}, line 2, column 19: invalid `max_tool_rounds` {value}: \
             expected a whole number from 1 to 1000",
            project_file.display()
        );
        assert_eq!(message, expected);
    }
    let message = Fixture::new().user("max_tool_rounds = \"25\"\n").error();
    assert!(message.contains("line 1"), "{message}");
}

#[test]
fn invalid_environment_values_name_the_variable() {
    let message = Fixture::new().env("HONE_APPROVAL", "yolo").error();
    assert_eq!(
        message,
        "invalid approval `yolo` (from env HONE_APPROVAL): expected one of read-only, ask, \
         auto-edit, full-auto"
    );
    for value in ["0", "1001", "many", "-5"] {
        let message = Fixture::new().env("HONE_MAX_TOOL_ROUNDS", value).error();
        assert_eq!(
            message,
            format!(
                "invalid max_tool_rounds `{value}` (from env HONE_MAX_TOOL_ROUNDS): expected a \
                 whole number from 1 to 1000"
            )
        );
    }
}

#[test]
fn invalid_flags_name_the_flag() {
    let fixture = Fixture::new();
    let error = fixture.load(&cli_approval("Ask")).unwrap_err();
    assert!(matches!(error, ConfigError::InvalidValue { .. }), "{error}");
    let message = error.to_string();
    assert!(
        message.starts_with("invalid approval `Ask` (from --approval): expected one of"),
        "{message}"
    );
    assert!(message.ends_with("Did you mean `ask`?"), "{message}");
    let message = fixture.load(&cli_rounds(0)).unwrap_err().to_string();
    assert!(
        message.starts_with("invalid max_tool_rounds `0` (from --max-tool-rounds)"),
        "{message}"
    );
}

#[test]
fn a_profile_sets_approval_just_below_the_layer_selecting_it() {
    let fixture = Fixture::new()
        .user("profile = \"careful\"\n[profiles.careful]\napproval = \"read-only\"\n");
    let config = fixture.config();
    assert_eq!(config.approval(), ApprovalMode::ReadOnly);
    let profile_source = Source::Profile {
        name: "careful".into(),
        defined_in: Box::new(fixture.user_source()),
    };
    assert_eq!(config.approval_source(), &profile_source);

    let fixture = fixture.user(
        "profile = \"careful\"\napproval = \"auto-edit\"\n\
         [profiles.careful]\napproval = \"read-only\"\n",
    );
    assert_eq!(fixture.config().approval(), ApprovalMode::AutoEdit);

    let fixture = fixture.env("HONE_APPROVAL", "ask");
    let with_flag = CliOverrides {
        profile: Some("careful".into()),
        ..CliOverrides::default()
    };
    let config = fixture.load(&with_flag).unwrap();
    assert_eq!(config.approval(), ApprovalMode::ReadOnly);
    assert_eq!(config.approval_source(), &profile_source);
}

#[test]
fn an_untrusted_project_may_tighten_approval_but_not_loosen_it() {
    let fixture = Fixture::new()
        .user("approval = \"auto-edit\"\n")
        .project("approval = \"full-auto\"\n");
    let config = fixture.config();
    assert_eq!(config.approval(), ApprovalMode::AutoEdit);
    assert_eq!(config.approval_source(), &fixture.user_source());
    let shown = config.render_show();
    let ignored = format!(
        "# ignored: approval = \"full-auto\" from {} (the project is not trusted: it may only \
         tighten approval)",
        fixture.project_source()
    );
    assert!(shown.contains(&ignored), "{shown}");

    let fixture = fixture.project("approval = \"ask\"\n");
    assert_eq!(fixture.config().approval(), ApprovalMode::Ask);
}

#[test]
fn an_untrusted_project_profile_cannot_loosen_approval_even_when_the_user_selects_it() {
    let fixture = Fixture::new().project("[profiles.yolo]\napproval = \"full-auto\"\n");
    let cli = CliOverrides {
        profile: Some("yolo".into()),
        ..CliOverrides::default()
    };
    let config = fixture.load(&cli).unwrap();
    assert_eq!(config.approval(), ApprovalMode::Ask);
    assert_eq!(config.approval_source(), &Source::Default);
    assert!(
        config
            .render_show()
            .contains("# ignored: approval = \"full-auto\" from profile yolo")
    );
}

#[test]
fn a_trusted_project_may_loosen_approval() {
    let fixture = Fixture::new()
        .trusting_user("approval = \"ask\"\n")
        .project("approval = \"full-auto\"\n");
    let config = fixture.config();
    assert!(config.is_project_trusted());
    assert_eq!(config.approval(), ApprovalMode::FullAuto);
    assert_eq!(config.approval_source(), &fixture.project_source());
    assert!(!config.render_show().contains("# ignored:"));
}

#[test]
fn the_users_own_variables_and_flags_are_never_limited_by_trust() {
    let fixture = Fixture::new()
        .project("approval = \"read-only\"\n")
        .env("HONE_APPROVAL", "full-auto");
    assert_eq!(fixture.config().approval(), ApprovalMode::FullAuto);
}

#[test]
fn permission_lists_of_user_and_trusted_project_are_concatenated() {
    let fixture = Fixture::new()
        .trusting_user(
            "[permissions]\nallow = [\"cargo test\", \"git log *\"]\ndeny = [\"git push\"]\n",
        )
        .project("[permissions]\nallow = [\"make check\"]\ndeny = [\"rm -rf *\"]\n");
    let rules = fixture.config().permission_rules();
    assert_eq!(
        rules.allow,
        strings(&["cargo test", "git log *", "make check"])
    );
    assert_eq!(rules.deny, strings(&["git push", "rm -rf *"]));
}

#[test]
fn an_untrusted_projects_allow_rules_are_ignored_but_its_deny_rules_kept() {
    let fixture = Fixture::new()
        .user("[permissions]\nallow = [\"cargo test\"]\n")
        .project("[permissions]\nallow = [\"curl *\"]\ndeny = [\"git push\"]\n");
    let config = fixture.config();
    assert!(!config.is_project_trusted());
    let rules = config.permission_rules();
    assert_eq!(rules.allow, strings(&["cargo test"]));
    assert_eq!(rules.deny, strings(&["git push"]));
    assert_eq!(
        config.ignored_project_allow_rules().collect::<Vec<_>>(),
        ["curl *"]
    );
    let shown = config.render_show();
    let ignored = format!(
        "# ignored: allow = \"curl *\" from {} (the project is not trusted: list it in \
         trusted_projects to honour its allow rules)",
        fixture.project_source()
    );
    assert!(shown.contains(&ignored), "{shown}");
    assert!(
        shown.contains(", allow commands or loosen approval)"),
        "{shown}"
    );
}

#[test]
fn secret_file_globs_of_every_file_add_up_even_from_an_untrusted_project() {
    let fixture = Fixture::new()
        .user("[permissions]\nsecret_files = [\"*.secret\"]\n")
        .project("[permissions]\nsecret_files = [\"config/prod/*.yml\"]\n");
    let config = fixture.config();
    assert!(!config.is_project_trusted());
    assert_eq!(
        config.permission_rules().secret_files,
        strings(&["*.secret", "config/prod/*.yml"])
    );
    assert!(config.render_show().contains("secret_files = \"*.secret\""));
    let message = Fixture::new()
        .user("[permissions]\nsecret_files = [\"a[\"]\n")
        .error();
    assert!(message.contains("line 2"), "{message}");
    assert!(
        message.contains("invalid `permissions.secret_files` entry"),
        "{message}"
    );
}

#[test]
fn blank_rules_and_unknown_permission_keys_are_rejected_with_their_line() {
    let message = Fixture::new()
        .user("[permissions]\ndeny = [\"git push\", \" \"]\n")
        .error();
    assert!(message.contains("line 2, column 21"), "{message}");
    assert!(
        message.contains("`permissions.deny` entries must not be empty"),
        "{message}"
    );
    let message = Fixture::new().user("[permissions]\nalow = []\n").error();
    assert!(message.contains("line 2"), "{message}");
    assert!(message.contains("unknown field `alow`"), "{message}");
}

#[test]
fn render_show_lists_agent_settings_and_rules_with_their_sources() {
    let fixture = Fixture::new()
        .trusting_user("max_tool_rounds = 12\n[permissions]\nallow = [\"cargo test\"]\n")
        .project("[permissions]\nallow = [\"make\"]\ndeny = [\"git push\"]\n")
        .env("HONE_APPROVAL", "auto-edit");
    let shown = fixture.config().render_show();
    let line = |text: &str, source: &Source| {
        let found = shown
            .lines()
            .any(|line| line.starts_with(text) && line.ends_with(&format!("# from {source}")));
        assert!(found, "no `{text} … # from {source}` in\n{shown}");
    };
    assert!(shown.contains("\n# agent (top-level keys)\n"), "{shown}");
    line(
        "approval = \"auto-edit\"",
        &Source::Env("HONE_APPROVAL".into()),
    );
    line("max_tool_rounds = 12", &fixture.user_source());
    assert!(shown.contains("\n[permissions]\n"), "{shown}");
    line("allow = \"cargo test\"", &fixture.user_source());
    line("allow = \"make\"", &fixture.project_source());
    line("deny = \"git push\"", &fixture.project_source());

    let shown = Fixture::new().config().render_show();
    assert!(shown.contains("approval = \"ask\""), "{shown}");
    assert!(shown.contains("max_tool_rounds = 25"), "{shown}");
    assert!(shown.contains("\nallow = []\ndeny = []\n"), "{shown}");
}

/// Every limit an untrusted project file tries to raise, and every model file and provider
/// choice it makes.
const UNTRUSTED_PROJECT: &str = "provider = \"openai\"\nmodel = \"/tmp/evil.gguf\"\n\
    max_tool_rounds = 1000\n\
    [local]\nmodel = \"./weights/evil.gguf\"\ncontext_size = 1048576\n\
    [context]\ninstructions_max_bytes = 1048576\nlocalize_budget_tokens = 32000\n\
    recent_turns = 100\ncompaction_model = \"~/m.gguf\"\n\
    [checks]\nmax_repair_rounds = 10\n\
    [index]\nmap_budget = 200000\n\
    [roles]\ncoder = { model = \"gpt-4.1\", provider = \"openai\" }\nsummary = \"gpt-4.1-mini\"\n";

#[test]
fn an_untrusted_project_cannot_raise_limits_nor_choose_the_provider_or_a_model_file() {
    let fixture = Fixture::new().user("").project(UNTRUSTED_PROJECT);
    let config = fixture.config();
    assert_eq!(config.provider_name(), hone_config::DEFAULT_PROVIDER);
    assert_eq!(
        config.max_tool_rounds(),
        hone_config::DEFAULT_MAX_TOOL_ROUNDS
    );
    let local = config.local_settings();
    assert_eq!(local.model, None);
    assert_eq!(local.context_size, None);
    let context = config.context_settings();
    let defaults = hone_config::ContextSettings::default();
    assert_eq!(
        context.instructions_max_bytes,
        defaults.instructions_max_bytes
    );
    assert_eq!(
        context.localize_budget_tokens,
        defaults.localize_budget_tokens
    );
    assert_eq!(context.recent_turns, defaults.recent_turns);
    assert_eq!(context.compaction_model, None);
    assert_eq!(
        config.checks_settings().max_repair_rounds,
        hone_config::DEFAULT_MAX_REPAIR_ROUNDS
    );
    assert_eq!(
        config.index_settings().map_budget,
        hone_config::DEFAULT_MAP_BUDGET
    );
    let roles = config.roles();
    assert_eq!(roles.coder, None);
    assert_eq!(
        roles.compaction.unwrap().model.as_deref(),
        Some("gpt-4.1-mini")
    );
    let ignored = config.ignored_project_settings();
    for expected in [
        "provider = \"openai\"",
        "model = \"/tmp/evil.gguf\"",
        "max_tool_rounds = 1000",
        "[local] model = \"./weights/evil.gguf\"",
        "[local] context_size = 1048576",
        "[context] instructions_max_bytes = 1048576",
        "[context] localize_budget_tokens = 32000",
        "[context] recent_turns = 100",
        "[context] compaction_model = \"~/m.gguf\"",
        "[checks] max_repair_rounds = 10",
        "[index] map_budget = 200000",
        "[roles] coder = \"gpt-4.1\" on \"openai\"",
    ] {
        assert!(
            ignored.iter().any(|line| line.starts_with(expected)),
            "{expected} not in {ignored:?}"
        );
    }
    let shown = config.render_show();
    assert!(
        shown.contains("# ignored: [context] instructions_max_bytes = 1048576"),
        "{shown}"
    );

    let trusted = Fixture::new().trusting_user("").project(UNTRUSTED_PROJECT);
    let config = trusted.config();
    assert!(config.ignored_project_settings().is_empty());
    assert_eq!(config.provider_name(), "openai");
    assert_eq!(config.max_tool_rounds(), 1000);
    assert_eq!(config.context_settings().instructions_max_bytes, 1_048_576);
    assert_eq!(config.local_settings().context_size, Some(1_048_576));
}

#[test]
fn an_untrusted_project_may_lower_limits_below_the_users() {
    let fixture = Fixture::new()
        .user("[context]\ninstructions_max_bytes = 65536\n[local]\ncontext_size = 16384\n")
        .project(
            "[context]\ninstructions_max_bytes = 60000\n[local]\ncontext_size = 16384\n\
             model = \"qwen2.5-coder-0.5b\"\n[checks]\nmax_repair_rounds = 1\n",
        );
    let config = fixture.config();
    assert!(config.ignored_project_settings().is_empty());
    assert_eq!(config.context_settings().instructions_max_bytes, 60_000);
    assert_eq!(config.local_settings().context_size, Some(16_384));
    assert_eq!(
        config.local_settings().model.as_deref(),
        Some("qwen2.5-coder-0.5b")
    );
    assert_eq!(config.checks_settings().max_repair_rounds, 1);
}
