//! `hone doctor`'s report: which providers this machine can use right now, the embedded
//! models, and how the model's commands would be sandboxed.

use std::fmt::Write as _;
use std::time::Duration;

use hone_config::{Config, PRESETS, WireApi};
use hone_models::{ModelState, ModelStore, ResolvedModel, catalog_entry, human_bytes};

use crate::Interaction;

/// Local servers probed, by preset name.
const LOCAL_SERVERS: [&str; 3] = ["ollama", "lmstudio", "llamacpp"];

/// How long a local server may take to list its models.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// `hone doctor`'s findings: the printable report, and the providers usable right now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The report as printed.
    pub text: String,
    /// Providers that can answer now (a key set, a local server reachable, the embedded model
    /// pulled); empty when hone cannot run a turn yet.
    pub usable: Vec<String>,
}

/// `hone doctor`'s report for `config`; `interaction` hears the sandbox's warnings.
pub async fn report(config: &Config, interaction: &dyn Interaction) -> Report {
    let mut out = String::new();
    let mut usable = Vec::new();
    selected(config, &mut out);
    keys(config, &mut out, &mut usable);
    servers(config, &mut out, &mut usable).await;
    embedded(config, &mut out, &mut usable);
    sandbox(config, &mut out, interaction);
    if let Ok(root) = std::env::current_dir() {
        crate::index_store::doctor_lines(&root, &config.store_settings(), &mut out);
    }
    let _ = writeln!(
        out,
        "\nusable now: {}",
        if usable.is_empty() {
            "none (run `hone model pull` for the embedded model, or set an API key)".to_string()
        } else {
            usable.join(", ")
        }
    );
    Report { text: out, usable }
}

/// The selected provider, why, and whether it can be used.
fn selected(config: &Config, out: &mut String) {
    let source = config
        .shown_values()
        .into_iter()
        .find(|value| value.section.is_empty() && value.key == "provider")
        .and_then(|value| value.source)
        .map_or_else(String::new, |source| format!(" (from {source})"));
    let _ = writeln!(out, "selected provider: {}{source}", config.provider_name());
    match config.provider() {
        Ok(provider) => {
            let _ = writeln!(out, "  model: {}", provider.model);
        }
        Err(error) => {
            let _ = writeln!(out, "  problem: {error}");
        }
    }
}

/// How the model's commands would be sandboxed under the configured approval mode.
fn sandbox(config: &Config, out: &mut String, interaction: &dyn Interaction) {
    let commands = crate::sandbox::command_sandbox(config, config.approval(), interaction);
    let _ = writeln!(out, "\ncommand sandbox:");
    let _ = writeln!(
        out,
        "  {:<20} {}",
        if commands.sandboxed { "on" } else { "off" },
        commands.status
    );
    let hidden = commands.setup.remove_env.len();
    let _ = writeln!(
        out,
        "  {:<20} {hidden} secret variable(s) kept from commands",
        "environment"
    );
}

/// One line per cloud preset: whether its key variable is set (never the key itself).
fn keys(config: &Config, out: &mut String, usable: &mut Vec<String>) {
    let _ = writeln!(out, "\nAPI keys (values are never shown):");
    for preset in PRESETS.iter().filter(|preset| preset.key_required) {
        let variable = preset.api_key_env.unwrap_or("-");
        let in_environment = std::env::var(variable).is_ok_and(|value| !value.trim().is_empty());
        let status = match config.provider_named(preset.name) {
            Ok(provider) if provider.api_key.is_some() => {
                usable.push(preset.name.to_string());
                "set".to_string()
            }
            Err(error) if in_environment => format!("set, but not usable: {error}"),
            _ => "not set".to_string(),
        };
        let _ = writeln!(out, "  {:<20} {variable:<22} {status}", preset.name);
    }
}

/// Whether each local server answers a model listing quickly.
async fn servers(config: &Config, out: &mut String, usable: &mut Vec<String>) {
    let _ = writeln!(out, "\nlocal servers:");
    let probes = LOCAL_SERVERS.map(|name| crate::provider::probe(config, name, PROBE_TIMEOUT));
    let results = futures::future::join_all(probes).await;
    for (name, (url, result)) in LOCAL_SERVERS.iter().zip(results) {
        let status = match result {
            Ok(count) => {
                usable.push((*name).to_string());
                format!("reachable ({count} models)")
            }
            Err(reason) => format!("not reachable ({reason})"),
        };
        let _ = writeln!(out, "  {name:<20} {url:<30} {status}");
    }
}

/// The embedded models: each catalog model's state, and the configured local model.
fn embedded(config: &Config, out: &mut String, usable: &mut Vec<String>) {
    let store = match ModelStore::open_default() {
        Ok(store) => store,
        Err(error) => {
            let _ = writeln!(out, "\nembedded models: {error}");
            return;
        }
    };
    let _ = writeln!(out, "\nembedded models ({}):", store.dir().display());
    for status in store.list() {
        let name = status.entry.name;
        let state = match &status.state {
            ModelState::Verified { source } => {
                usable.push(format!("local ({name})"));
                format!(
                    "downloaded and verified ({source}): {}",
                    status.path.display()
                )
            }
            ModelState::Unverified => format!(
                "present, not verified yet (checked on first use): {}",
                status.path.display()
            ),
            ModelState::Partial { bytes } => format!(
                "partial download ({} of {}): run `hone model pull {name}` to resume",
                human_bytes(*bytes),
                human_bytes(status.entry.size)
            ),
            ModelState::Missing => format!(
                "not downloaded ({}): run `hone model pull {name}`",
                human_bytes(status.entry.size)
            ),
        };
        let _ = writeln!(out, "  {name:<20} {state}");
    }
    let local_model = config
        .provider_named("local")
        .ok()
        .filter(|provider| provider.wire == WireApi::Local)
        .map(|provider| provider.model);
    if let Some(model) = local_model.filter(|model| catalog_entry(model).is_none()) {
        let state = match store.resolve(&model) {
            Ok(ResolvedModel::File(path)) => {
                usable.push(format!("local ({})", path.display()));
                "a GGUF file (loaded as is, no checksum known)".to_string()
            }
            Ok(ResolvedModel::Catalog { .. }) => "a catalog model".to_string(),
            Err(error) => error.to_string(),
        };
        let _ = writeln!(out, "  configured model {model}: {state}");
    }
}
