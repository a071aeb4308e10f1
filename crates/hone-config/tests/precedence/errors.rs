//! Errors that name their source and how to fix them, and `config show`'s rendering.

use hone_protocol::{ErrorCategory, HoneError};

use super::*;

#[test]
fn unknown_provider_lists_names_and_suggests() {
    let fixture = Fixture::new()
        .user("[providers.work]\nkind = \"openai\"\n")
        .env("HONE_PROVIDER", "antropic");
    let error = fixture.config().provider().unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("unknown provider `antropic` (from env HONE_PROVIDER)"),
        "{message}"
    );
    assert!(message.contains("Did you mean `anthropic`?"), "{message}");
    assert!(message.contains("lmstudio"), "{message}");
    assert!(message.contains("configured: work"), "{message}");
    let message = fixture
        .config()
        .provider_named("wrok")
        .unwrap_err()
        .to_string();
    assert!(message.contains("Did you mean `work`?"), "{message}");
    let hone: HoneError = error.into();
    assert_eq!(hone.category, ErrorCategory::Config);
}

#[test]
fn missing_key_names_the_variable_to_set() {
    let cli = CliOverrides {
        provider: Some("anthropic".into()),
        ..CliOverrides::default()
    };
    let error = Fixture::new().load(&cli).unwrap().provider().unwrap_err();
    assert_eq!(
        error.to_string(),
        "no API key for provider `anthropic`: set ANTHROPIC_API_KEY \
         (or api_key_env / api_key_file in [providers.anthropic])"
    );
    let fixture =
        Fixture::new().user("[providers.w]\nkind = \"gemini\"\napi_key_env = \"W_KEY\"\n");
    let message = fixture
        .config()
        .provider_named("w")
        .unwrap_err()
        .to_string();
    assert!(message.contains("set W_KEY"), "{message}");
}

#[test]
fn api_key_file_is_read_and_env_variable_wins() {
    let fixture = Fixture::new();
    write(
        &fixture.path("user/keys/openai"),
        "  sk-from-file-0123456789  \nsecond line\n",
    );
    let fixture = fixture
        .user("provider = \"openai\"\n[providers.openai]\napi_key_file = \"keys/openai\"\n")
        .env("OPENAI_API_KEY", "sk-env-key-is-not-used-with-a-file");
    let provider = fixture.config().provider().unwrap();
    assert_eq!(
        provider.api_key.unwrap().expose(),
        "sk-from-file-0123456789"
    );

    let fixture = fixture.user(
        "provider = \"openai\"\n[providers.openai]\napi_key_file = \"keys/openai\"\n\
         api_key_env = \"MY_OPENAI_KEY\"\n",
    );
    let provider = fixture.config().provider().unwrap();
    assert_eq!(
        provider.api_key.unwrap().expose(),
        "sk-from-file-0123456789"
    );
    let fixture = fixture.env("MY_OPENAI_KEY", "sk-my-variable-key-0123");
    let provider = fixture.config().provider().unwrap();
    assert_eq!(
        provider.api_key.unwrap().expose(),
        "sk-my-variable-key-0123"
    );

    let fixture = Fixture::new().user(
        "provider = \"openai\"\n[providers.openai]\napi_key_file = \"/nonexistent/hone-key\"\n",
    );
    let error = fixture.config().provider().unwrap_err();
    assert!(matches!(error, ConfigError::KeyFile { .. }), "{error}");
}

#[test]
fn bad_toml_names_file_and_line() {
    let fixture = Fixture::new().project("provider = \"openai\"\n\n[providers.openai\n");
    let error = fixture.load(&CliOverrides::default()).unwrap_err();
    let message = error.to_string();
    let ConfigError::Parse { path, line, .. } = error else {
        panic!("expected a parse error: {message}");
    };
    assert_eq!(
        path,
        fixture.project.clone().unwrap().join(".hone/config.toml")
    );
    assert_eq!(line, Some(3));
    assert!(message.contains(".hone/config.toml, line 3"), "{message}");
}

#[test]
fn unknown_field_is_rejected_with_its_name() {
    let fixture = Fixture::new().user("[network]\nmax_retries = 2\nretries = 3\n");
    let message = fixture
        .load(&CliOverrides::default())
        .unwrap_err()
        .to_string();
    assert!(message.contains("user/config.toml, line 3"), "{message}");
    assert!(message.contains("unknown field `retries`"), "{message}");
    let fixture = Fixture::new().user("[providers.openai]\napi_key = \"sk-inline-secret\"\n");
    let message = fixture
        .load(&CliOverrides::default())
        .unwrap_err()
        .to_string();
    assert!(message.contains("api_key_env"), "{message}");
    assert!(!message.contains("sk-inline-secret"), "{message}");
}

#[test]
fn azure_needs_a_deployment_url_and_gets_an_api_version() {
    let fixture = Fixture::new()
        .env("HONE_PROVIDER", "azure")
        .env("AZURE_OPENAI_API_KEY", "azure-key-0123456789");
    let error = fixture.config().provider().unwrap_err();
    assert!(matches!(error, ConfigError::AzureBaseUrl { .. }), "{error}");
    assert!(error.to_string().contains("/openai/deployments/DEPLOYMENT"));

    let fixture = fixture
        .env("AZURE_OPENAI_ENDPOINT", "https://res.openai.azure.com/")
        .env("HONE_MODEL", "my-gpt4o");
    let provider = fixture.config().provider().unwrap();
    assert_eq!(
        provider.base_url,
        "https://res.openai.azure.com/openai/deployments/my-gpt4o"
    );
    assert_eq!(
        provider.api_version.as_deref(),
        Some(AZURE_DEFAULT_API_VERSION)
    );
}

#[test]
fn invalid_base_url_is_an_error_naming_its_source() {
    let fixture = Fixture::new().env("HONE_BASE_URL", "localhost:8080");
    let message = fixture.config().provider().unwrap_err().to_string();
    assert!(message.contains("from env HONE_BASE_URL"), "{message}");
}

#[test]
fn render_show_masks_secrets_and_names_sources() {
    let fixture = Fixture::new()
        .user(
            "provider = \"work\"\n[providers.work]\nkind = \"openai\"\n\
             api_key_env = \"WORK_KEY\"\n\
             headers = { Authorization = \"Bearer header-secret-0123456789\", X-Team = \"blue\" }\n",
        )
        .project("[network]\nmax_retries = 7\n")
        .env("WORK_KEY", "sk-work-secret-0123456789abcdef")
        .env("HONE_MODEL", "gpt-4o-mini");
    let shown = fixture.config().render_show();
    assert!(
        !shown.contains("sk-work-secret-0123456789abcdef"),
        "{shown}"
    );
    assert!(!shown.contains("header-secret-0123456789"), "{shown}");
    assert!(shown.contains("sk-w…(31 chars)"), "{shown}");
    assert!(shown.contains("# from env WORK_KEY"), "{shown}");
    assert!(shown.contains("[providers.work]"), "{shown}");
    assert!(shown.contains("headers.X-Team = \"blue\""), "{shown}");
    assert!(shown.contains("# from env HONE_MODEL"), "{shown}");
    assert!(shown.contains("max_retries = 7"), "{shown}");
    assert!(shown.contains("context_window = 128000"), "{shown}");
    assert!(shown.contains("known-models table"), "{shown}");
    assert!(shown.contains("(loaded)"), "{shown}");

    let values = fixture.config().shown_values();
    let provider = values.iter().find(|value| value.key == "provider").unwrap();
    assert_eq!(provider.value, "\"work\"");
    assert!(matches!(provider.source, Some(Source::UserFile(_))));
}

#[test]
fn render_show_explains_a_missing_key() {
    let fixture = Fixture::new().env("HONE_PROVIDER", "anthropic");
    let shown = fixture.config().render_show();
    assert!(
        shown.contains("api_key = not set (set ANTHROPIC_API_KEY)"),
        "{shown}"
    );
    assert!(shown.contains("# problem: no API key"), "{shown}");
}
