//! `hone web`: a local web UI. An HTTP server (axum) serves one page, embedded in the
//! binary, and a WebSocket that speaks hone's JSON-RPC front-end protocol (the one of
//! `hone app-server`) to a [`hone_server::Connection`]: the page is one more client of the
//! [`Server`], and never re-implements a session.
//!
//! Secure by default, and not switchable off: a random token (from the operating system's
//! CSPRNG, through `rand`) is in the URL printed on start; every request and the socket's
//! upgrade carry it (in the query once, then in a cookie the first page load sets), compared
//! in constant time. The `Host` header must name the bound address (DNS rebinding) and an
//! `Origin`, when sent (always on the socket), must be the page's own. Nothing but the
//! protocol's events reaches the page: no API key or secret.
//!
//! ```no_run
//! # async fn demo(server: std::sync::Arc<hone_server::Server>) -> Result<(), hone_web::WebError> {
//! let web = hone_web::WebServer::bind(server, &hone_web::WebOptions::default()).await?;
//! println!("{}", web.url());
//! web.serve(async { let _ = tokio::signal::ctrl_c().await; }).await?;
//! # Ok(())
//! # }
//! ```

mod access;
mod assets;
mod socket;

use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::routing::get;
use hone_server::Server;
use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::access::Access;

/// Where `hone web` listens.
#[derive(Debug, Clone)]
pub struct WebOptions {
    /// The address to bind (loopback by default).
    pub host: IpAddr,
    /// The port (0: any free port).
    pub port: u16,
    /// How long the sessions of a page whose socket closed stay attached, so that a reload
    /// finds them running.
    pub reload_grace: Duration,
}

impl Default for WebOptions {
    fn default() -> Self {
        Self {
            host: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: 0,
            reload_grace: Duration::from_secs(5),
        }
    }
}

/// Why the web server could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum WebError {
    /// The address could not be bound.
    #[error("cannot listen on {address}: {source}")]
    Bind {
        /// The address asked for.
        address: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// Serving failed.
    #[error("the web server failed: {0}")]
    Serve(std::io::Error),
}

/// A bound web server, not yet serving.
pub struct WebServer {
    listener: TcpListener,
    address: SocketAddr,
    access: Arc<Access>,
    server: Arc<Server>,
    reload_grace: Duration,
}

/// What the handlers share.
#[derive(Clone)]
pub(crate) struct AppState {
    pub(crate) server: Arc<Server>,
    pub(crate) access: Arc<Access>,
    pub(crate) stop: watch::Receiver<bool>,
    pub(crate) reload_grace: Duration,
}

impl WebServer {
    /// Binds `options.host:options.port` and draws the token.
    pub async fn bind(server: Arc<Server>, options: &WebOptions) -> Result<Self, WebError> {
        let wanted = SocketAddr::new(options.host, options.port);
        let bind_error = |source| WebError::Bind {
            address: wanted,
            source,
        };
        let listener = TcpListener::bind(wanted).await.map_err(bind_error)?;
        let address = listener.local_addr().map_err(bind_error)?;
        Ok(Self {
            listener,
            address,
            access: Arc::new(Access::new(address)),
            server,
            reload_grace: options.reload_grace,
        })
    }

    /// The address it listens on (with the port chosen when 0 was asked for).
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// The URL to open: the page, with the token.
    pub fn url(&self) -> String {
        format!("{}/?token={}", self.access.origin(), self.access.token())
    }

    /// Serves until `shutdown` completes; then every socket is closed and its client
    /// detached (the caller waits for [`Server::idle`] to have the sessions stored).
    pub async fn serve<F>(self, shutdown: F) -> Result<(), WebError>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        let (stop_tx, stop) = watch::channel(false);
        let state = AppState {
            server: self.server,
            access: self.access,
            stop,
            reload_grace: self.reload_grace,
        };
        let app = Router::new()
            .route("/", get(assets::page))
            .route("/ws", get(socket::upgrade))
            .route("/{asset}", get(assets::asset))
            .layer(axum::middleware::from_fn_with_state(
                state.clone(),
                access::guard,
            ))
            .with_state(state);
        axum::serve(self.listener, app)
            .with_graceful_shutdown(async move {
                shutdown.await;
                let _ = stop_tx.send(true);
            })
            .await
            .map_err(WebError::Serve)
    }
}
