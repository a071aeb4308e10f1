//! `hone web`: the local web UI (docs/web.md), served until Ctrl+C.

use std::io::Write;
use std::net::IpAddr;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use hone_protocol::HoneError;
use hone_runtime::{RuntimeOptions, Unattended};
use hone_server::Server;
use hone_web::{WebOptions, WebServer};

use crate::cli::GlobalArgs;

/// `hone web`.
#[derive(Debug, Args)]
pub struct WebArgs {
    /// The port to listen on (default: any free port).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// The address to listen on. Anything but loopback lets other machines reach the
    /// page (the token still guards it): hone warns.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: IpAddr,
    /// Open the page in the default browser.
    #[arg(long)]
    pub open: bool,
}

/// Serves until SIGINT, SIGTERM or SIGHUP; then the sessions are shut down and stored.
pub(crate) async fn run(global: &GlobalArgs, args: &WebArgs) -> Result<ExitCode, HoneError> {
    let place = crate::place(global)?;
    let mut options = RuntimeOptions::from_process(place.root, crate::overrides(global));
    options.working_dir = Some(place.working_dir);
    // The page answers approvals and choices through the protocol; warnings go to the log.
    let server = Server::open(options, Arc::new(Unattended))?;
    let web_options = WebOptions {
        host: args.host,
        port: args.port,
        ..WebOptions::default()
    };
    if !args.host.is_loopback() {
        eprintln!(
            "hone: warning: listening on {}: other machines can reach the page; only the \
             token guards it, and it travels unencrypted (plain HTTP)",
            args.host
        );
    }
    let web = WebServer::bind(Arc::clone(&server), &web_options)
        .await
        .map_err(|error| HoneError::config(format!("web: {error}")))?;
    let url = web.url();
    let mut stdout = std::io::stdout();
    let _ = writeln!(stdout, "hone web: {url}");
    let _ = writeln!(
        stdout,
        "Open that URL (it holds this run's token); Ctrl+C stops."
    );
    let _ = stdout.flush();
    if args.open {
        open_browser(&url);
    }
    let mut signals = crate::signals::listen();
    web.serve(async move {
        let _ = signals.recv().await;
    })
    .await
    .map_err(|error| HoneError::config(format!("web: {error}")))?;
    server.idle().await;
    Ok(ExitCode::SUCCESS)
}

/// What the browser launcher needs to find the user's desktop and browser: nothing else of
/// hone's environment (no API key) reaches it.
const BROWSER_ENV: [&str; 11] = [
    "PATH",
    "HOME",
    "LANG",
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "XDG_RUNTIME_DIR",
    "XDG_CONFIG_HOME",
    "XDG_DATA_DIRS",
    "XDG_CURRENT_DESKTOP",
    "DBUS_SESSION_BUS_ADDRESS",
    "BROWSER",
];

/// Opens `url` in the default browser (failures are reported, not fatal).
fn open_browser(url: &str) {
    let program = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let mut command = std::process::Command::new(program);
    command.env_clear();
    for name in BROWSER_ENV {
        if let Some(value) = std::env::var_os(name) {
            command.env(name, value);
        }
    }
    let spawned = command
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Err(error) = spawned {
        eprintln!(
            "hone: warning: could not open a browser ({program}: {error}); open the URL yourself"
        );
    }
}
