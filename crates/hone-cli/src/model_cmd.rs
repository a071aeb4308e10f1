//! `hone model pull|list|rm`: the embedded models on this machine.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use hone_models::{ModelStore, PullOptions, PullProgress, configured_model};
use hone_protocol::HoneError;
use hone_runtime::model_error;

use crate::cli::{GlobalArgs, ModelCommand};

/// Runs `hone model …`.
pub(crate) async fn run(
    global: &GlobalArgs,
    command: &ModelCommand,
) -> Result<ExitCode, HoneError> {
    let store = ModelStore::open_default().map_err(model_error)?;
    match command {
        ModelCommand::Pull { name } => {
            let name = match name {
                Some(name) => name.clone(),
                None => configured_model(&crate::load_config(global)?),
            };
            let path = pull_with_progress(&store, &name).await?;
            println!("{}", path.display());
        }
        ModelCommand::Import { file, name } => {
            let (view, sink) = progress();
            let imported = store
                .import(
                    file,
                    name.as_deref(),
                    Arc::new(move |e| eprint!("{}", sink.show(&e))),
                )
                .await;
            eprint!("{}", view.finish());
            let path = imported.map_err(model_error)?;
            if !crate::term::quiet() {
                eprintln!("hone: {} verified and registered", file.display());
            }
            println!("{}", path.display());
        }
        ModelCommand::List { json: true } => {
            let rows = hone_models::report::list_json(&store.list());
            let text = hone_api::display::json_pretty(&rows).map_err(|error| {
                HoneError::validation(format!("cannot encode the list: {error}"))
            })?;
            println!("{text}");
        }
        ModelCommand::List { json: false } => print!("{}", hone_models::report::list_table(&store)),
        ModelCommand::Rm { name } => {
            let removed = store.remove(name).map_err(model_error)?;
            if removed.is_empty() {
                eprintln!("hone: `{name}` was not downloaded; nothing to remove");
            }
            for path in removed {
                println!("removed {}", path.display());
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A progress view for stderr, and a second handle for the pull's callback.
fn progress() -> (Arc<PullProgress>, Arc<PullProgress>) {
    let terminal = std::io::stderr().is_terminal();
    let view = Arc::new(PullProgress::new(terminal, crate::term::quiet()));
    (Arc::clone(&view), view)
}

/// Pulls `name` into `store`, drawing a progress bar when stderr is a terminal, and
/// returns the verified file.
pub(crate) async fn pull_with_progress(
    store: &ModelStore,
    name: &str,
) -> Result<PathBuf, HoneError> {
    let (view, sink) = progress();
    let options = PullOptions::from_env();
    let pulled = store
        .pull(
            name,
            &options,
            Arc::new(move |e| eprint!("{}", sink.show(&e))),
        )
        .await;
    eprint!("{}", view.finish());
    let pulled = pulled.map_err(model_error)?;
    match &pulled.source {
        None => eprintln!("hone: `{name}` is already downloaded and verified"),
        Some(source) if source == hone_models::Source::HuggingFaceCache.as_str() => {
            eprintln!("hone: `{name}` reused from the Hugging Face cache and verified")
        }
        Some(source) => eprintln!("hone: `{name}` downloaded from {source} and verified"),
    }
    Ok(pulled.path)
}
