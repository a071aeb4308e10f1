//! A throw-away `redis-server` for tests (feature `test-server`): started on a free loopback
//! port with its data in a temporary directory, append-only file on, stopped when dropped.
//!
//! Without `redis-server` on the `PATH`, [`RedisServer::start`] prints a note and returns
//! `None` so the test can pass without it, unless `HONE_REQUIRE_REDIS=1` (CI) makes that a
//! failure.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

/// How long a server may take to accept connections.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// A running `redis-server`, killed when dropped.
#[derive(Debug)]
pub struct RedisServer {
    child: Option<Child>,
    port: u16,
    dir: PathBuf,
}

impl RedisServer {
    /// Starts a server with its data under `dir` (which must outlive it), or returns `None`
    /// (with a note) when `redis-server` is not installed.
    ///
    /// # Panics
    /// When `HONE_REQUIRE_REDIS=1` and there is no `redis-server`, or when it does not start.
    pub fn start(dir: &Path) -> Option<Self> {
        let found = Command::new("redis-server")
            .arg("--version")
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|status| status.success());
        if !found {
            assert!(
                std::env::var("HONE_REQUIRE_REDIS").as_deref() != Ok("1"),
                "HONE_REQUIRE_REDIS=1 but redis-server is not installed"
            );
            eprintln!("note: skipped: redis-server is not installed");
            return None;
        }
        let port = free_port();
        let mut server = Self {
            child: None,
            port,
            dir: dir.to_path_buf(),
        };
        server.restart();
        Some(server)
    }

    /// `redis://127.0.0.1:PORT/0`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }

    /// Kills the server at once (SIGKILL: no shutdown save), as a crash would.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server again on the same port and data (after [`RedisServer::kill`]),
    /// and waits until it answers.
    ///
    /// # Panics
    /// When it does not start or answer within a while.
    pub fn restart(&mut self) {
        self.kill();
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string()])
            .args(["--bind", "127.0.0.1"])
            .arg("--dir")
            .arg(&self.dir)
            .args(["--appendonly", "yes", "--appendfsync", "always"])
            .args(["--save", ""])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        let child = match child {
            Ok(child) => child,
            Err(error) => panic!("cannot start redis-server: {error}"),
        };
        self.child = Some(child);
        let started = Instant::now();
        while !self.answers() {
            assert!(
                started.elapsed() < START_TIMEOUT,
                "redis-server did not answer on port {}",
                self.port
            );
            sleep(Duration::from_millis(50));
        }
    }

    /// Whether the server answers PING (and has loaded its data).
    fn answers(&self) -> bool {
        let Ok(mut stream) = TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
        if stream.write_all(b"PING\r\n").is_err() {
            return false;
        }
        let mut line = String::new();
        BufReader::new(stream).read_line(&mut line).is_ok() && line.starts_with("+PONG")
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A loopback port free right now.
fn free_port() -> u16 {
    TcpListener::bind(("127.0.0.1", 0))
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .unwrap_or(6390)
}
