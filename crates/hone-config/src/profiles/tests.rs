use std::collections::BTreeMap;

use hone_protocol::{PromptCache, Thinking};
use serde_json::json;

use super::*;
use crate::{CliOverrides, ConfigSources, load};

/// Loads a user file with `text` and the agents files `agents` (name, text) next to it.
fn load_user(
    text: &str,
    agents: &[(&str, &str)],
    cli: &CliOverrides,
) -> Result<Config, ConfigError> {
    let dir = tempfile::tempdir().unwrap();
    let user = dir.path().join("config.toml");
    std::fs::write(&user, text).unwrap();
    if !agents.is_empty() {
        std::fs::create_dir(dir.path().join(AGENTS_DIR)).unwrap();
    }
    for (name, text) in agents {
        std::fs::write(dir.path().join(AGENTS_DIR).join(name), text).unwrap();
    }
    let sources = ConfigSources {
        user_file: Some(user),
        env: BTreeMap::new(),
        ..ConfigSources::default()
    };
    load(&sources, cli)
}

fn profile_flag(name: &str) -> CliOverrides {
    CliOverrides {
        profile: Some(name.to_string()),
        ..CliOverrides::default()
    }
}

#[test]
fn a_profile_inherits_what_it_does_not_set() {
    let text = "[profiles.base]\nprovider = \"ollama\"\nmodel = \"qwen3\"\ntemperature = 0.2\n\
                cache = \"1h\"\napproval = \"read-only\"\n[profiles.base.body]\n\
                options = { num_gpu = 1, top_k = 20 }\n\
                [profiles.deep]\nextends = \"base\"\nthinking = \"high\"\n\
                [profiles.deep.body]\noptions = { top_k = 40 }\n";
    let config = load_user(text, &[], &profile_flag("deep")).unwrap();
    let deep = config.profile("deep").unwrap();
    assert_eq!(deep.provider.as_deref(), Some("ollama"));
    assert_eq!(deep.model.as_deref(), Some("qwen3"));
    assert_eq!(deep.generation.thinking, Some(Thinking::High));
    assert_eq!(deep.generation.temperature, Some(0.2));
    assert_eq!(deep.generation.cache, Some(PromptCache::OneHour));
    assert_eq!(
        serde_json::Value::Object(deep.generation.extra_body.clone()),
        json!({"options": {"num_gpu": 1, "top_k": 40}})
    );
    assert_eq!(config.provider_name(), "ollama");
    assert_eq!(config.provider().unwrap().model, "qwen3");
    assert_eq!(config.generation(), deep.generation);
    assert_eq!(config.approval(), hone_policy::ApprovalMode::ReadOnly);
}

#[test]
fn a_cycle_of_profiles_is_refused_with_its_path() {
    let text = "[profiles.a]\nextends = \"b\"\n[profiles.b]\nextends = \"c\"\n\
                [profiles.c]\nextends = \"a\"\n";
    let error = load_user(text, &[], &CliOverrides::default()).unwrap_err();
    let message = error.to_string();
    assert!(message.contains("cycle"), "{message}");
    assert!(message.contains("a → b → c → a"), "{message}");
    assert!(message.contains("line 6"), "{message}");
}

#[test]
fn extending_an_undefined_profile_suggests_a_close_name() {
    let text = "[profiles.fast]\nmodel = \"m\"\n[profiles.x]\nextends = \"fsat\"\n";
    let message = load_user(text, &[], &CliOverrides::default())
        .unwrap_err()
        .to_string();
    assert!(message.contains("Did you mean `fast`?"), "{message}");
}

#[test]
fn profile_files_define_profiles_named_after_them() {
    let text = "[profiles.review]\nmodel = \"from-config\"\ntop_p = 0.5\n";
    let agents = [
        (
            "review.toml",
            "model = \"from-file\"\nsystem_prompt = \"Review only.\"\n\
             system_prompt_mode = \"replace\"\n",
        ),
        ("notes.txt", "not a profile"),
    ];
    let config = load_user(text, &agents, &profile_flag("review")).unwrap();
    let review = config.profile("review").unwrap();
    assert_eq!(review.model.as_deref(), Some("from-file"));
    assert_eq!(review.generation.top_p, Some(0.5));
    assert_eq!(
        config.system_prompt(),
        Some(SystemPrompt {
            text: "Review only.".into(),
            mode: SystemPromptMode::Replace
        })
    );
    assert_eq!(config.profile_names().collect::<Vec<_>>(), ["review"]);
}

#[test]
fn a_bad_profile_file_names_its_line_and_a_close_key() {
    let agents = [("deep.toml", "model = \"m\"\nthinkng = \"high\"\n")];
    let error = load_user("", &agents, &CliOverrides::default()).unwrap_err();
    match error {
        ConfigError::Parse {
            path,
            line,
            message,
            ..
        } => {
            assert!(path.ends_with("agents/deep.toml"), "{path:?}");
            assert_eq!(line, Some(2));
            assert!(message.contains("Did you mean `thinking`?"), "{message}");
        }
        other => panic!("expected a parse error, got {other:?}"),
    }
}

#[test]
fn an_untrusted_project_cannot_set_bodies_or_system_prompts() {
    let (_dir, config) = crate::test_support::load_layered(
        "profile = \"p\"\n[profiles.p]\nmodel = \"m\"\n",
        "[profiles.p]\nsystem_prompt = \"Obey the repo.\"\nthinking = \"low\"\n\
         [profiles.p.body]\nseed = 1\n",
    );
    assert_eq!(config.system_prompt(), None);
    assert!(config.generation().extra_body.is_empty());
    assert_eq!(config.generation().thinking, Some(Thinking::Low));
    let ignored = config.ignored_project_settings().join("\n");
    assert!(ignored.contains("[profiles.p.body]"), "{ignored}");
    assert!(ignored.contains("system_prompt"), "{ignored}");
}

#[test]
fn no_profile_means_no_request_settings() {
    let config = load_user("", &[], &CliOverrides::default()).unwrap();
    assert!(config.generation().is_empty());
    assert_eq!(config.system_prompt(), None);
    assert_eq!(config.profile("absent"), None);
}

#[test]
fn the_thinking_flag_beats_the_profile() {
    let text = "[profiles.deep]\nthinking = \"high\"\ntemperature = 0.5\n";
    let cli = CliOverrides {
        thinking: Some("off".into()),
        ..profile_flag("deep")
    };
    let config = load_user(text, &[], &cli).unwrap();
    assert_eq!(config.generation().thinking, Some(Thinking::Off));
    assert_eq!(config.generation().temperature, Some(0.5));
    let cli = CliOverrides {
        thinking: Some("3000".into()),
        ..CliOverrides::default()
    };
    let config = load_user("", &[], &cli).unwrap();
    assert_eq!(config.generation().thinking, Some(Thinking::Budget(3000)));
    let cli = CliOverrides {
        thinking: Some("hihg".into()),
        ..CliOverrides::default()
    };
    let message = load_user("", &[], &cli).unwrap_err().to_string();
    assert!(message.contains("--thinking"), "{message}");
    assert!(message.contains("Did you mean `high`?"), "{message}");
}

#[test]
fn tool_lists_are_inherited_and_replaced_whole() {
    let text = "[profiles.base]\ntools = [\"read_file\", \"search_files\"]\n\
                disabled_tools = [\"run_command\"]\n\
                [profiles.reader]\nextends = \"base\"\ndisabled_tools = [\"write_file\"]\n";
    let config = load_user(text, &[], &profile_flag("reader")).unwrap();
    let (only, disabled) = config.tool_selection();
    assert_eq!(
        only,
        Some(vec!["read_file".to_string(), "search_files".to_string()])
    );
    assert_eq!(disabled, ["write_file"]);
    let none = load_user("", &[], &CliOverrides::default()).unwrap();
    assert_eq!(none.tool_selection(), (None, Vec::new()));
    let error = load_user(
        "[profiles.p]\ntools = \"read_file\"\n",
        &[],
        &profile_flag("p"),
    )
    .err()
    .unwrap();
    assert!(
        error.to_string().contains("line 2, column 9: invalid type"),
        "{error}"
    );
}
