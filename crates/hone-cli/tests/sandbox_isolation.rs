//! End-to-end tests of the sandbox's namespaces through the real `hone sandbox`: each class
//! of escape from the issue "Sandbox v2", with a canary outside a temporary project. They
//! need user namespaces; where the system has none the probe says so and they pass without
//! checking (hone's CI machines have them).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A project, a home directory and a canary directory, all apart.
struct Layout {
    _dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    outside: PathBuf,
}

fn layout() -> Layout {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let root = base.join("project");
    let home = base.join("home");
    let outside = base.join("canary");
    for path in [&root, &home, &outside] {
        std::fs::create_dir_all(path).unwrap();
    }
    std::fs::write(root.join("README.md"), "# demo\n").unwrap();
    Layout {
        _dir: dir,
        root,
        home,
        outside,
    }
}

fn hone(layout: &Layout, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hone"));
    command
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", &layout.home)
        .env("XDG_CONFIG_HOME", layout.home.join(".config"))
        .current_dir(&layout.root)
        .stdin(Stdio::null())
        .args(args);
    command
}

fn sandboxed(layout: &Layout, script: &str) -> Output {
    hone(layout, &["sandbox", "--", "sh", "-c", script])
        .output()
        .expect("hone runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Whether commands get namespaces here; prints why not when they do not.
fn namespaces(layout: &Layout) -> bool {
    let probe = sandboxed(layout, "printf %s \"$HONE_SANDBOX\"");
    if text(&probe.stdout) == "namespaces" {
        return true;
    }
    eprintln!(
        "SKIPPED: no namespaces for commands here ({} {})",
        text(&probe.stdout),
        text(&probe.stderr)
    );
    false
}

#[test]
fn other_processes_and_their_environment_are_out_of_sight() {
    let layout = layout();
    if !namespaces(&layout) {
        return;
    }
    let mut command = hone(
        &layout,
        &[
            "sandbox",
            "--",
            "sh",
            "-c",
            "ls /proc | grep -E '^[0-9]+$' | tr '\\n' ' '; \
             for p in /proc/[0-9]*; do cat $p/environ 2>/dev/null; done; \
             kill -0 \"$TEST_PID\" && echo SIGNALLED",
        ],
    );
    command
        .env("CANARY_API_KEY", "sk-canary-0123456789")
        .env("TEST_PID", std::process::id().to_string());
    let output = command.output().unwrap();
    let seen = text(&output.stdout);
    let pids: Vec<&str> = seen
        .lines()
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    assert!(
        pids.contains(&"1"),
        "the namespace has its own init: {seen}"
    );
    assert!(pids.len() <= 6, "only the command's processes: {seen}");
    assert!(
        !pids.contains(&std::process::id().to_string().as_str()),
        "{seen}"
    );
    // The command's own environment is its own; hone's processes are invisible and the
    // init is not readable.
    assert_eq!(
        seen.matches("sk-canary-0123456789").count(),
        1,
        "only the command's own environment shows the variable: {seen}"
    );
    assert!(!seen.contains("SIGNALLED"), "{seen}");
}

#[test]
fn git_and_hone_state_stay_read_only_inside_the_project() {
    let layout = layout();
    if !namespaces(&layout) {
        return;
    }
    let git = layout.root.join(".git");
    std::fs::create_dir_all(git.join("hooks")).unwrap();
    std::fs::write(git.join("config"), "[core]\n").unwrap();
    std::fs::create_dir_all(layout.root.join(".hone")).unwrap();
    let output = sandboxed(
        &layout,
        "echo '[core] fsmonitor = evil' >> .git/config; \
         echo evil > .git/hooks/pre-commit; \
         python3 -c \"import os; os.chmod('.git/hooks', 0o777)\" 2>/dev/null; \
         echo x > .hone/config.toml; \
         echo ok > src.txt",
    );
    assert_eq!(
        std::fs::read_to_string(git.join("config")).unwrap(),
        "[core]\n"
    );
    assert!(!git.join("hooks/pre-commit").exists());
    assert!(!layout.root.join(".hone/config.toml").exists());
    assert_ne!(
        std::fs::metadata(git.join("hooks"))
            .unwrap()
            .permissions()
            .mode()
            & 0o777,
        0o777
    );
    assert_eq!(
        std::fs::read_to_string(layout.root.join("src.txt")).unwrap(),
        "ok\n",
        "the project itself is writable: {}",
        text(&output.stderr)
    );
}

#[test]
fn a_git_directory_linked_from_outside_the_project_stays_read_only() {
    let layout = layout();
    if !namespaces(&layout) {
        return;
    }
    // `.git` a link to a repository outside the project, and a submodule's `.git` file
    // that points into it: git state either way, both out of the command's reach.
    let real_git = layout.outside.join("repo.git");
    std::fs::create_dir_all(real_git.join("hooks")).unwrap();
    std::fs::write(real_git.join("config"), "[core]\n").unwrap();
    std::os::unix::fs::symlink(&real_git, layout.root.join(".git")).unwrap();
    let submodule = layout.root.join("wt");
    std::fs::create_dir_all(&submodule).unwrap();
    let gitdir = format!("gitdir: {}\n", real_git.display());
    std::fs::write(submodule.join(".git"), &gitdir).unwrap();
    std::fs::write(
        layout.root.join(".gitmodules"),
        "[submodule \"wt\"]\n\tpath = wt\n\turl = ../wt\n",
    )
    .unwrap();
    let output = sandboxed(
        &layout,
        "echo '[core] fsmonitor = evil' >> .git/config; \
         echo evil > .git/hooks/post-checkout; \
         echo 'gitdir: /tmp/evil' > wt/.git; \
         echo ok > src.txt",
    );
    assert_eq!(
        std::fs::read_to_string(real_git.join("config")).unwrap(),
        "[core]\n"
    );
    assert!(!real_git.join("hooks/post-checkout").exists());
    assert_eq!(
        std::fs::read_to_string(submodule.join(".git")).unwrap(),
        gitdir,
        "a submodule's .git file is protected like the project's .git"
    );
    assert_eq!(
        std::fs::read_to_string(layout.root.join("src.txt")).unwrap(),
        "ok\n",
        "the project itself is writable: {}",
        text(&output.stderr)
    );
}

#[test]
fn the_home_is_hidden_but_the_toolchains() {
    let layout = layout();
    if !namespaces(&layout) {
        return;
    }
    std::fs::create_dir_all(layout.home.join(".ssh")).unwrap();
    std::fs::write(layout.home.join(".ssh/id_rsa"), "PRIVATE-CANARY").unwrap();
    std::fs::create_dir_all(layout.home.join(".cargo/bin")).unwrap();
    std::fs::write(layout.home.join(".cargo/bin/tool"), "toolchain").unwrap();
    let output = sandboxed(
        &layout,
        "cat \"$HOME/.ssh/id_rsa\"; cat \"$HOME/.cargo/bin/tool\"; echo; \
         echo x > \"$HOME/.cargo/bin/tool\" && echo WROTE",
    );
    let seen = text(&output.stdout);
    assert!(!seen.contains("PRIVATE-CANARY"), "{seen}");
    assert!(
        seen.contains("toolchain"),
        "{seen} {}",
        text(&output.stderr)
    );
    assert!(!seen.contains("WROTE"), "{seen}");
    assert_eq!(
        std::fs::read_to_string(layout.home.join(".cargo/bin/tool")).unwrap(),
        "toolchain"
    );
}

#[test]
fn sockets_outside_the_project_are_unreachable() {
    let layout = layout();
    if !namespaces(&layout) {
        return;
    }
    if !Command::new("python3")
        .arg("-c")
        .arg("1")
        .status()
        .is_ok_and(|status| status.success())
    {
        eprintln!("SKIPPED: no python3");
        return;
    }
    use std::os::linux::net::SocketAddrExt;
    let path = layout.outside.join("agent.sock");
    let _pathname = std::os::unix::net::UnixListener::bind(&path).unwrap();
    let name = format!("hone-test-{}", std::process::id());
    let address = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
    let _abstract = std::os::unix::net::UnixListener::bind_addr(&address).unwrap();
    let script = format!(
        "import socket\n\
         for target in ['{}', '\\0{name}']:\n\
         \x20   s = socket.socket(socket.AF_UNIX)\n\
         \x20   try:\n\
         \x20       s.connect(target); print('CONNECTED', repr(target))\n\
         \x20   except OSError as error:\n\
         \x20       print('refused', error)\n",
        path.display()
    );
    let output = hone(&layout, &["sandbox", "--", "python3", "-c", &script])
        .output()
        .unwrap();
    let seen = text(&output.stdout);
    assert_eq!(
        seen.lines()
            .filter(|line| line.starts_with("refused"))
            .count(),
        2,
        "{seen}"
    );
    assert!(!seen.contains("CONNECTED"), "{seen}");
}

#[test]
fn metadata_outside_the_project_cannot_change() {
    let layout = layout();
    if !namespaces(&layout) {
        return;
    }
    // A file outside the project that stays visible (read-only) in the sandbox.
    let visible = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let file = visible.path().join("file");
    std::fs::write(&file, "x").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let before = std::fs::metadata(&file).unwrap();
    let output = sandboxed(
        &layout,
        &format!(
            "f='{}'; cat \"$f\" && echo READ; chmod 4777 \"$f\"; touch -d 2001-01-01 \"$f\"; \
             python3 -c \"import os; os.setxattr('$f', 'user.x', b'1')\" 2>&1; true",
            file.display()
        ),
    );
    assert!(
        text(&output.stdout).contains("READ"),
        "{}",
        text(&output.stderr)
    );
    let after = std::fs::metadata(&file).unwrap();
    assert_eq!(after.permissions().mode() & 0o7777, 0o644);
    assert_eq!(
        after.modified().unwrap(),
        before.modified().unwrap(),
        "{}",
        text(&output.stderr)
    );
    assert!(text(&output.stderr).contains("Read-only file system"));
}

#[test]
fn only_harmless_devices_and_no_inherited_descriptors() {
    let layout = layout();
    if !namespaces(&layout) {
        return;
    }
    let canary = layout.outside.join("through-descriptor");
    // A descriptor to a file outside, left open by whoever started hone.
    let output = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "exec 7>>'{}'; exec \"$0\" sandbox -- sh -c 'ls /dev | tr \"\\n\" \" \"; echo leaked >&7'",
            canary.display()
        ))
        .arg(env!("CARGO_BIN_EXE_hone"))
        .env("HOME", &layout.home)
        .current_dir(&layout.root)
        .output()
        .unwrap();
    let devices = text(&output.stdout);
    for absent in ["sda", "vda", "kmsg", "mem", "pts"] {
        assert!(
            !devices.split_whitespace().any(|name| name == absent),
            "{devices}"
        );
    }
    assert!(devices.contains("null"), "{devices}");
    assert_eq!(std::fs::read_to_string(&canary).unwrap_or_default(), "");
}

#[test]
fn variables_that_reach_other_processes_are_removed_and_limits_set() {
    let layout = layout();
    if !namespaces(&layout) {
        return;
    }
    let output = hone(
        &layout,
        &[
            "sandbox",
            "--limit-processes",
            "64",
            "--",
            "sh",
            "-c",
            "echo tmux=${TMUX-unset} ssh=${SSH_AUTH_SOCK-unset}; \
             grep -E 'Max (cpu time|processes)' /proc/self/limits",
        ],
    )
    .env("TMUX", "/tmp/tmux-0/default,1,0")
    .env("SSH_AUTH_SOCK", "/tmp/ssh-agent.sock")
    .output()
    .unwrap();
    let seen = text(&output.stdout);
    assert!(seen.contains("tmux=unset ssh=unset"), "{seen}");
    let limits: Vec<Vec<&str>> = seen
        .lines()
        .skip(1)
        .map(|line| line.split_whitespace().collect())
        .collect();
    assert_eq!(limits[0][3..5], ["3600", "3600"], "{seen}");
    assert_eq!(limits[1][2..4], ["64", "64"], "{seen}");
}

/// Whether a process whose name (`argv[0]`) is `marker` is alive.
fn running(marker: &str) -> bool {
    std::fs::read_dir("/proc").unwrap().flatten().any(|entry| {
        std::fs::read(entry.path().join("cmdline"))
            .is_ok_and(|line| line.split(|byte| *byte == 0).next() == Some(marker.as_bytes()))
    })
}

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "timed out waiting until {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn nothing_outlives_the_command_or_a_killed_hone() {
    let layout = layout();
    if !namespaces(&layout) {
        return;
    }
    // A daemon in its own session, left behind by a command that returns at once.
    let marker = format!("hone-daemon-{}", std::process::id());
    let output = sandboxed(
        &layout,
        &format!("setsid bash -c 'exec -a {marker} sleep 300' >/dev/null 2>&1 & echo started"),
    );
    assert!(text(&output.stdout).contains("started"));
    assert!(!running(&marker), "the daemon outlived its command");

    for signal in ["-KILL", "-HUP"] {
        let marker = format!("hone-orphan-{}{signal}", std::process::id());
        let mut child = hone(
            &layout,
            &[
                "sandbox",
                "--",
                "bash",
                "-c",
                &format!("exec -a {marker} sleep 300"),
            ],
        )
        .spawn()
        .unwrap();
        wait_until("the command runs", || running(&marker));
        Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .unwrap();
        let _ = child.wait();
        wait_until("the command is gone", || !running(&marker));
    }
}

#[test]
fn without_namespaces_landlock_still_applies_and_the_marker_says_so() {
    let layout = layout();
    if !namespaces(&layout) {
        return;
    }
    let canary = layout.outside.join("written");
    let output = hone(
        &layout,
        &[
            "sandbox",
            "--no-namespaces",
            "--",
            "sh",
            "-c",
            &format!("printf %s \"$HONE_SANDBOX\"; touch '{}'", canary.display()),
        ],
    )
    .output()
    .unwrap();
    assert_eq!(text(&output.stdout), "landlock");
    assert!(!canary.exists());
    let explain = hone(&layout, &["sandbox", "--explain", "--", "true"])
        .output()
        .unwrap();
    let rules = text(&explain.stderr);
    for part in [
        "own user, mount, PID",
        "/tmp, /var/tmp and /run are empty",
        ".git and .hone",
    ] {
        assert!(rules.contains(part), "{part} missing from {rules}");
    }
}
