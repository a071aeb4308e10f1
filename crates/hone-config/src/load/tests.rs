use super::*;

fn write(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("config.toml");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn nothing_configured_selects_the_embedded_model() {
    let config = load(&ConfigSources::default(), &CliOverrides::default()).unwrap();
    assert_eq!(config.provider_name(), crate::DEFAULT_PROVIDER);
    assert_eq!(config.selection.provider.source, Source::Default);
    assert_eq!(config.profile_name(), None);
    assert_eq!(config.network(), NetworkConfig::default());
    assert_eq!(config.loaded_files().count(), 0);
}

#[test]
fn changing_provider_drops_the_lower_layers_model() {
    let dir = tempfile::tempdir().unwrap();
    let user = write(
        dir.path(),
        "provider = \"anthropic\"\nmodel = \"claude-x\"\n",
    );
    let sources = ConfigSources {
        user_file: Some(user),
        ..ConfigSources::default()
    };
    let same = CliOverrides {
        provider: Some("anthropic".into()),
        ..CliOverrides::default()
    };
    let config = load(&sources, &same).unwrap();
    assert_eq!(config.selection.model.unwrap().value, "claude-x");
    let other = CliOverrides {
        provider: Some("openai".into()),
        ..CliOverrides::default()
    };
    let config = load(&sources, &other).unwrap();
    assert!(config.selection.model.is_none());
}

#[test]
fn network_and_relative_key_files_are_merged() {
    let dir = tempfile::tempdir().unwrap();
    let user = write(
        dir.path(),
        "[network]\nmax_retries = 1\nretry_base_delay_ms = 50\n\
         [providers.openai]\napi_key_file = \"secrets/key\"\n",
    );
    let sources = ConfigSources {
        user_file: Some(user),
        ..ConfigSources::default()
    };
    let config = load(&sources, &CliOverrides::default()).unwrap();
    let network = config.network();
    assert_eq!(network.max_retries, 1);
    assert_eq!(network.retry_base_delay, Duration::from_millis(50));
    assert_eq!(
        network.connect_timeout,
        NetworkConfig::default().connect_timeout
    );
    let key_file = config.instances["openai"].api_key_file.as_ref().unwrap();
    assert_eq!(key_file.value, dir.path().join("secrets/key"));
    assert_eq!(config.instance_names().collect::<Vec<_>>(), ["openai"]);
}

#[test]
fn hone_config_naming_a_missing_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nope.toml");
    let mut sources = ConfigSources {
        user_file: Some(path.clone()),
        ..ConfigSources::default()
    };
    assert!(load(&sources, &CliOverrides::default()).is_ok());
    sources
        .env
        .insert(HONE_CONFIG_ENV.into(), path.display().to_string());
    let error = load(&sources, &CliOverrides::default()).unwrap_err();
    assert!(
        matches!(error, ConfigError::MissingUserFile { .. }),
        "{error}"
    );
}

#[test]
fn unknown_profile_suggests_a_defined_one() {
    let dir = tempfile::tempdir().unwrap();
    let user = write(dir.path(), "[profiles.fast]\nmodel = \"m\"\n");
    let sources = ConfigSources {
        user_file: Some(user),
        ..ConfigSources::default()
    };
    let cli = CliOverrides {
        profile: Some("fsat".into()),
        ..CliOverrides::default()
    };
    let message = load(&sources, &cli).unwrap_err().to_string();
    assert!(
        message.contains("unknown profile `fsat` (from --profile)"),
        "{message}"
    );
    assert!(message.contains("Did you mean `fast`?"), "{message}");
}
