//! `hone config show` and `hone config example` produce TOML that loads.
#![allow(clippy::unwrap_used)] // helpers outside #[test] functions panic on setup failure by design

use std::path::{Path, PathBuf};

use hone_config::{CliOverrides, Config, ConfigSources, EXAMPLE_CONFIG, load};

/// Loads `user_text` as the user file of a fresh temporary home.
fn load_user(dir: &Path, user_text: &str) -> Config {
    load_user_with(dir, user_text, &[])
}

/// Loads `user_text` as the user file with the environment `env`.
fn load_user_with(dir: &Path, user_text: &str, env: &[(&str, &str)]) -> Config {
    let user: PathBuf = dir.join("config.toml");
    std::fs::write(&user, user_text).unwrap();
    let sources = ConfigSources {
        user_file: Some(user),
        project_dir: None,
        env: env
            .iter()
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect(),
    };
    load(&sources, &CliOverrides::default()).unwrap()
}

#[test]
fn the_example_file_loads_as_is() {
    let dir = tempfile::tempdir().unwrap();
    let config = load_user_with(
        dir.path(),
        EXAMPLE_CONFIG,
        &[("WORK_OPENAI_KEY", "test-key")],
    );
    let provider = config.provider();
    assert!(provider.is_ok(), "{provider:?}");
    assert!(
        !EXAMPLE_CONFIG.contains("--max-tool-rounds"),
        "the example names only flags that exist"
    );
}

#[test]
fn show_is_valid_toml_with_unset_values_as_comments() {
    let dir = tempfile::tempdir().unwrap();
    let config = load_user(dir.path(), "");
    let shown = config.render_show();
    let parsed: toml::Table = toml::from_str(&shown).unwrap();
    assert_eq!(parsed["provider"].as_str(), Some("local"));
    assert!(shown.contains("# profile = not set"), "{shown}");
    assert!(!parsed.contains_key("profile"));
}

#[test]
fn show_toml_round_trips_through_the_loader() {
    let dir = tempfile::tempdir().unwrap();
    let config = load_user(
        dir.path(),
        "provider = \"ollama\"\nmodel = \"qwen3\"\n[network]\nmax_retries = 2\n",
    );
    let text = config.render_toml();
    assert!(!text.contains('#'), "no comments: {text}");
    let again_dir = tempfile::tempdir().unwrap();
    let again = load_user(again_dir.path(), &text);
    assert_eq!(again.render_toml(), text);
    assert_eq!(again.provider().unwrap().model, "qwen3");
}
