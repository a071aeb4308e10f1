//! `hone` in a pseudo-terminal for the end-to-end tests: every byte it writes, the screen
//! those bytes draw (a vt100 parser), and answers typed at its questions.

use std::io::{Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, PtySize, native_pty_system};

/// Generous: debug builds on a shared 2-core machine.
pub const WAIT: Duration = Duration::from_secs(90);
pub const ROWS: u16 = 40;
pub const COLS: u16 = 200;

/// `hone` running in a pseudo-terminal: every byte it wrote, and the screen they draw.
pub struct Terminal {
    child: Box<dyn Child + Send + Sync>,
    pub writer: Box<dyn Write + Send>,
    bytes: Arc<Mutex<Vec<u8>>>,
    pub screen: Arc<Mutex<vt100::Parser>>,
}

impl Terminal {
    pub fn start(root: &Path, args: &[&str]) -> Self {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: ROWS,
                cols: COLS,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_hone"));
        command.env_clear();
        command.env("PATH", std::env::var("PATH").unwrap_or_default());
        command.env("HOME", root.join(".home"));
        command.env("XDG_CONFIG_HOME", root.join(".home/.config"));
        command.env("HONE_DATA_DIR", root.join(".home/data"));
        command.env("TERM", "xterm-256color");
        command.cwd(root);
        command.args(args);
        let child = pair.slave.spawn_command(command).unwrap();
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().unwrap();
        let writer = pair.master.take_writer().unwrap();
        let bytes = Arc::new(Mutex::new(Vec::new()));
        let screen = Arc::new(Mutex::new(vt100::Parser::new(ROWS, COLS, 1_000)));
        let (all, feed) = (bytes.clone(), screen.clone());
        std::thread::spawn(move || {
            let _master = pair.master;
            let mut buffer = [0_u8; 8192];
            while let Ok(read) = reader.read(&mut buffer) {
                if read == 0 {
                    break;
                }
                all.lock().unwrap().extend_from_slice(&buffer[..read]);
                feed.lock().unwrap().process(&buffer[..read]);
            }
        });
        Self {
            child,
            writer,
            bytes,
            screen,
        }
    }

    /// Everything written so far, as text.
    pub fn output(&self) -> String {
        String::from_utf8_lossy(&self.bytes.lock().unwrap()).into_owned()
    }

    pub fn screen(&self) -> String {
        self.screen.lock().unwrap().screen().contents()
    }

    pub fn wait_for(&self, text: &str) {
        let deadline = Instant::now() + WAIT;
        while !self.output().contains(text) {
            assert!(
                Instant::now() < deadline,
                "`{text}` never came:\n{:?}",
                self.output()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn answer(&mut self, line: &str) {
        self.writer.write_all(line.as_bytes()).unwrap();
        self.writer.write_all(b"\r").unwrap();
        self.writer.flush().unwrap();
    }

    /// Waits for the end and returns the exit code and everything written.
    pub fn finish(mut self) -> (u32, String) {
        let deadline = Instant::now() + WAIT;
        let code = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status.exit_code();
            }
            assert!(
                Instant::now() < deadline,
                "hone did not end:\n{:?}",
                self.output()
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        // The reader drains what is left once the child is gone.
        std::thread::sleep(Duration::from_millis(200));
        (code, self.output())
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

/// Runs `hone ARGS` on a terminal in `root` to its end off the async runtime: its exit
/// code, every byte it wrote and the screen at the end.
pub async fn on_terminal(root: &Path, args: Vec<String>) -> (u32, String, String) {
    let root = root.to_path_buf();
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let terminal = Terminal::start(&root, &args);
        let screen = Arc::clone(&terminal.screen);
        let (code, output) = terminal.finish();
        let screen = screen.lock().unwrap().screen().contents();
        (code, output, screen)
    })
    .await
    .unwrap()
}
