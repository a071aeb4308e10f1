use super::*;

fn permissions(mode: ApprovalMode) -> Permissions {
    Permissions::new(mode, CommandPolicy::default())
}

#[test]
fn outside_tools_ask_like_unknown_commands() {
    let untrusted = Action::External { trusted: false };
    let trusted = Action::External { trusted: true };
    assert!(matches!(
        permissions(ApprovalMode::ReadOnly).decide("m__t", &trusted),
        Decision::Deny { .. }
    ));
    assert!(matches!(
        permissions(ApprovalMode::AutoEdit).decide("m__t", &untrusted),
        Decision::Ask { .. }
    ));
    assert_eq!(
        permissions(ApprovalMode::Ask).decide("m__t", &trusted),
        Decision::Allow
    );
    assert_eq!(
        permissions(ApprovalMode::FullAuto).decide("m__t", &untrusted),
        Decision::Allow
    );
    let mut granted = permissions(ApprovalMode::Ask);
    granted.grant_tool("m__t");
    assert_eq!(granted.decide("m__t", &untrusted), Decision::Allow);
    assert!(matches!(
        granted.decide("m__u", &untrusted),
        Decision::Ask { .. }
    ));
}

#[test]
fn a_file_that_may_hold_secrets_is_asked_for_in_every_mode_until_granted() {
    let read = Action::ReadSecret { path: ".env" };
    for mode in [
        ApprovalMode::ReadOnly,
        ApprovalMode::Ask,
        ApprovalMode::AutoEdit,
        ApprovalMode::FullAuto,
    ] {
        let Decision::Ask { reason } = permissions(mode).decide("read_file", &read) else {
            panic!("{mode:?} must ask");
        };
        assert!(reason.contains("may hold secrets"), "{reason}");
    }
    let mut granted = permissions(ApprovalMode::FullAuto);
    granted.grant_secret_file(".env");
    assert_eq!(granted.decide("read_file", &read), Decision::Allow);
    assert!(matches!(
        granted.decide("read_file", &Action::ReadSecret { path: "id_rsa" }),
        Decision::Ask { .. }
    ));
}

#[test]
fn an_allow_listed_reader_of_a_secret_file_asks() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(".env"), "TOKEN=1\n").unwrap();
    std::fs::write(dir.path().join("notes.txt"), "hi\n").unwrap();
    let mut permissions = permissions(ApprovalMode::AutoEdit);
    permissions.set_project(PathGuard::new(dir.path()).unwrap());
    let Decision::Ask { reason } = permissions.decide("shell", &command("cat .env")) else {
        panic!("cat .env must ask");
    };
    assert!(reason.contains("may hold secrets"), "{reason}");
    assert!(matches!(
        permissions.decide("shell", &command("grep TOKEN < .env")),
        Decision::Ask { .. }
    ));
    assert_eq!(
        permissions.decide("shell", &command("cat notes.txt")),
        Decision::Allow
    );
}

#[test]
fn a_protected_write_asks_in_every_mode_despite_grants_and_read_only_refuses_it() {
    let write = Action::WriteProtected {
        path: "AGENTS.md",
        why: crate::protected_write("AGENTS.md").unwrap(),
    };
    for mode in [
        ApprovalMode::Ask,
        ApprovalMode::AutoEdit,
        ApprovalMode::FullAuto,
    ] {
        let mut permissions = permissions(mode);
        permissions.grant_tool("write_file");
        let Decision::Ask { reason } = permissions.decide("write_file", &write) else {
            panic!("{mode:?} must ask");
        };
        assert!(reason.contains("project instructions"), "{reason}");
    }
    assert!(matches!(
        permissions(ApprovalMode::ReadOnly).decide("write_file", &write),
        Decision::Deny { .. }
    ));
}

fn command(command: &str) -> Action<'_> {
    Action::Command { command }
}

const WRITE: Action<'static> = Action::Write { destructive: false };
const DESTRUCTIVE: Action<'static> = Action::Write { destructive: true };

/// A short name for a decision, to compare whole tables.
fn kind(decision: &Decision) -> &'static str {
    match decision {
        Decision::Allow => "allow",
        Decision::Ask { .. } => "ask",
        Decision::Deny { .. } => "deny",
    }
}

#[test]
fn every_mode_decides_every_kind_of_action_as_documented() {
    let actions = [
        ("read", Action::Read),
        ("write", WRITE),
        ("destructive write", DESTRUCTIVE),
        ("allowed command", command("git status")),
        ("other command", command("cargo test")),
        ("denied command", command("rm -rf /")),
    ];
    let expected = [
        (
            ApprovalMode::ReadOnly,
            ["allow", "deny", "deny", "deny", "deny", "deny"],
        ),
        (
            ApprovalMode::Ask,
            ["allow", "ask", "ask", "allow", "ask", "deny"],
        ),
        (
            ApprovalMode::AutoEdit,
            ["allow", "allow", "ask", "allow", "ask", "deny"],
        ),
        (
            ApprovalMode::FullAuto,
            ["allow", "allow", "allow", "allow", "allow", "deny"],
        ),
    ];
    for (mode, kinds) in expected {
        let permissions = permissions(mode);
        for ((name, action), expected) in actions.iter().zip(kinds) {
            let decision = permissions.decide("tool", action);
            assert_eq!(kind(&decision), expected, "{mode} / {name}: {decision:?}");
        }
    }
}

#[test]
fn reasons_explain_the_mode_and_the_command() {
    let read_only = permissions(ApprovalMode::ReadOnly);
    assert_eq!(
        read_only.decide("shell", &command("ls")),
        Decision::Deny {
            reason: "read-only mode: commands are not run".into()
        }
    );
    let ask = permissions(ApprovalMode::Ask);
    assert_eq!(
        ask.decide("shell", &command("npm install")),
        Decision::Ask {
            reason: "`npm install` is not on the allow list".into()
        }
    );
    assert!(matches!(
        ask.decide("write_file", &WRITE),
        Decision::Ask { reason } if reason.contains("`write_file`")
    ));
    assert!(matches!(
        ask.decide("shell", &command("sudo ls")),
        Decision::Deny { reason } if reason.contains("another user")
    ));
}

#[test]
fn a_tool_grant_allows_its_writes_but_not_destructive_ones() {
    let mut permissions = permissions(ApprovalMode::Ask);
    permissions.grant_tool("edit_file");
    assert_eq!(permissions.decide("edit_file", &WRITE), Decision::Allow);
    assert!(matches!(
        permissions.decide("write_file", &WRITE),
        Decision::Ask { .. }
    ));
    assert!(matches!(
        permissions.decide("edit_file", &DESTRUCTIVE),
        Decision::Ask { .. }
    ));
    assert!(matches!(
        permissions.decide("edit_file", &command("cargo test")),
        Decision::Ask { .. }
    ));
    assert_eq!(
        permissions.grants().tools().collect::<Vec<_>>(),
        ["edit_file"]
    );
}

#[test]
fn a_prefix_grant_allows_matching_commands_in_ask_and_auto_edit() {
    for mode in [ApprovalMode::Ask, ApprovalMode::AutoEdit] {
        let mut permissions = permissions(mode);
        permissions.grant_command_prefix("cargo test");
        assert_eq!(
            permissions.decide("shell", &command("cargo test --all")),
            Decision::Allow
        );
        assert_eq!(
            permissions.decide("shell", &command("cd x && cargo test")),
            Decision::Allow
        );
        assert!(matches!(
            permissions.decide("shell", &command("cargo build")),
            Decision::Ask { .. }
        ));
    }
}

#[test]
fn a_prefix_grant_does_not_cover_a_piped_second_command() {
    let mut permissions = permissions(ApprovalMode::Ask);
    permissions.grant_command_prefix("cargo test");
    let decision = permissions.decide("shell", &command("cargo test | tee out.log"));
    assert_eq!(
        decision,
        Decision::Ask {
            reason: "`tee out.log` is not on the allow list".into()
        }
    );
    permissions.grant_command_prefix("tee");
    assert_eq!(
        permissions.decide("shell", &command("cargo test | tee out.log")),
        Decision::Allow
    );
}

#[test]
fn a_prefix_grant_never_covers_denied_commands_or_file_writes() {
    let mut permissions = permissions(ApprovalMode::Ask);
    permissions.grant_command_prefix("rm");
    permissions.grant_command_prefix("cargo");
    assert!(matches!(
        permissions.decide("shell", &command("rm -rf x")),
        Decision::Deny { .. }
    ));
    assert_eq!(
        permissions.decide("shell", &command("rm x")),
        Decision::Allow
    );
    assert!(matches!(
        permissions.decide("shell", &command("cargo test > log")),
        Decision::Ask { .. }
    ));
    assert!(matches!(
        permissions.decide("shell", &command("cargo test 'open")),
        Decision::Ask { .. }
    ));
}

#[test]
fn grants_are_kept_once_and_ignore_empty_prefixes() {
    let mut grants = SessionGrants::default();
    grants.grant_command_prefix("cargo  test");
    grants.grant_command_prefix("cargo test");
    grants.grant_command_prefix("   ");
    assert_eq!(
        grants.command_prefixes().collect::<Vec<_>>(),
        ["cargo test"]
    );
    assert!(!grants.covers_tool("shell"));
}

#[test]
fn switching_modes_keeps_grants() {
    let mut permissions = permissions(ApprovalMode::Ask);
    permissions.grant_tool("edit_file");
    permissions.set_mode(ApprovalMode::ReadOnly);
    assert_eq!(permissions.mode(), ApprovalMode::ReadOnly);
    assert!(matches!(
        permissions.decide("edit_file", &WRITE),
        Decision::Deny { .. }
    ));
    permissions.set_mode(ApprovalMode::Ask);
    assert_eq!(permissions.decide("edit_file", &WRITE), Decision::Allow);
}

#[test]
fn full_auto_asks_for_what_the_policy_cannot_see_unless_sandboxed() {
    let unseen = [
        "RM=rm; $RM -rf ../x",
        "$(printf rm) -rf x",
        "eval \"$X\"",
        "echo cm0gLXJmIHgK | base64 -d | sh",
        "sh -c \"$(cat script)\"",
        "strace rm -rf x",
        "trap -- \"$X\" EXIT",
        "env -C /tmp rm x",
        "python3 x.py > ~/.bashrc",
        "case $x in a) ls;; esac",
    ];
    let full_auto = permissions(ApprovalMode::FullAuto);
    let sandboxed = permissions(ApprovalMode::FullAuto).with_commands_sandboxed(true);
    assert!(sandboxed.commands_sandboxed());
    for line in unseen {
        let decision = full_auto.decide("shell", &command(line));
        assert!(
            matches!(&decision, Decision::Ask { reason } if reason.contains("sandbox")),
            "{line}: {decision:?}"
        );
        assert_eq!(
            sandboxed.decide("shell", &command(line)),
            Decision::Allow,
            "{line}"
        );
    }
    for line in [
        "cargo test",
        "npm install",
        "python3 x.py",
        "echo hi > notes.md",
    ] {
        assert_eq!(
            full_auto.decide("shell", &command(line)),
            Decision::Allow,
            "{line}"
        );
    }
    assert!(matches!(
        sandboxed.decide("shell", &command("rm -rf x")),
        Decision::Deny { .. }
    ));
}

#[test]
fn unseen_commands_cannot_be_granted_by_prefix() {
    let mut permissions = permissions(ApprovalMode::Ask);
    permissions.grant_command_prefix("strace");
    permissions.grant_command_prefix("env");
    for line in ["strace rm x", "env -C /tmp rm x"] {
        assert!(
            matches!(
                permissions.decide("shell", &command(line)),
                Decision::Ask { .. }
            ),
            "{line}"
        );
    }
}

#[test]
fn a_project_makes_symlinks_that_leave_it_ask() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(dir.path().join("secret.txt"), "canary").unwrap();
    std::os::unix::fs::symlink(dir.path().join("secret.txt"), root.join("link")).unwrap();
    std::fs::write(root.join("plain.txt"), "x").unwrap();
    let mut permissions = permissions(ApprovalMode::Ask);
    assert_eq!(
        permissions.decide("shell", &command("cat link")),
        Decision::Allow
    );
    permissions.set_project(PathGuard::new(&root).unwrap());
    assert!(matches!(
        permissions.decide("shell", &command("cat link")),
        Decision::Ask { reason } if reason.contains("outside the project")
    ));
    assert_eq!(
        permissions.decide("shell", &command("cat plain.txt")),
        Decision::Allow
    );
    // An embedded bare repository brings its own configuration (core.fsmonitor…).
    std::fs::create_dir_all(root.join("sub/objects")).unwrap();
    std::fs::write(root.join("sub/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(
        root.join("sub/config"),
        "[core]\n\tfsmonitor = touch canary\n",
    )
    .unwrap();
    for line in ["git -C sub status", "cd sub && git status"] {
        assert!(
            matches!(
                permissions.decide("shell", &command(line)),
                Decision::Ask { reason } if reason.contains("git repository")
            ),
            "{line}"
        );
    }
    assert_eq!(
        permissions.decide("shell", &command("git status")),
        Decision::Allow
    );
}

#[test]
fn hone_checks_run_unasked_in_auto_edit_only_when_commands_are_isolated() {
    let check = "python3 -m unittest discover";
    for mode in [ApprovalMode::AutoEdit, ApprovalMode::FullAuto] {
        assert_eq!(
            permissions(mode)
                .with_commands_isolated(true)
                .decide_check(check),
            Decision::Allow,
            "{mode:?}"
        );
    }
    assert!(matches!(
        permissions(ApprovalMode::AutoEdit).decide_check(check),
        Decision::Ask { .. }
    ));
    // `ask` keeps asking, read-only never runs, a denial stays a denial.
    assert!(matches!(
        permissions(ApprovalMode::Ask)
            .with_commands_isolated(true)
            .decide_check(check),
        Decision::Ask { .. }
    ));
    assert!(matches!(
        permissions(ApprovalMode::ReadOnly)
            .with_commands_isolated(true)
            .decide_check(check),
        Decision::Deny { .. }
    ));
    assert!(matches!(
        permissions(ApprovalMode::AutoEdit)
            .with_commands_isolated(true)
            .decide_check("sudo make test"),
        Decision::Deny { .. }
    ));
    // The model's own commands are not checks: they still ask in auto-edit.
    assert!(matches!(
        permissions(ApprovalMode::AutoEdit)
            .with_commands_isolated(true)
            .decide("run_command", &Action::Command { command: check }),
        Decision::Ask { .. }
    ));
}

#[test]
fn a_check_is_decided_as_hones_own_command() {
    let check = "python3 -m unittest discover";
    let isolated = permissions(ApprovalMode::AutoEdit).with_commands_isolated(true);
    assert_eq!(
        isolated.decide("check", &Action::Check { command: check }),
        isolated.decide_check(check)
    );
    assert_eq!(
        isolated.decide("check", &Action::Check { command: check }),
        Decision::Allow
    );
}

#[test]
fn always_grants_the_same_for_a_check_and_for_the_models_command() {
    // The one rule: the program and its subcommand (or module) of the first part that
    // asks, whoever runs the command.
    for (command, prefix) in [
        ("cd src && cargo test --all", "cargo test"),
        ("npm test -- --watch=false", "npm test"),
        (
            "python3 -m unittest discover -s tests",
            "python3 -m unittest",
        ),
    ] {
        let mut by_check = permissions(ApprovalMode::Ask);
        let mut by_model = permissions(ApprovalMode::Ask);
        let granted = by_check.grant_for_session("check", &Action::Check { command });
        assert_eq!(
            granted,
            Some(Grant::CommandPrefix(prefix.to_string())),
            "{command}"
        );
        assert_eq!(
            by_model.grant_for_session("run_command", &Action::Command { command }),
            granted,
            "{command}"
        );
        // The grant covers the model's later run of the same program and subcommand…
        let later = format!("{prefix} -q");
        for granted in [&by_check, &by_model] {
            assert_eq!(
                granted.decide("run_command", &Action::Command { command: &later }),
                Decision::Allow,
                "{later}"
            );
        }
        // …and not another program.
        assert!(matches!(
            by_check.decide(
                "run_command",
                &Action::Command {
                    command: "make install"
                }
            ),
            Decision::Ask { .. }
        ));
    }
}

#[test]
fn always_grants_the_tool_the_file_or_nothing_for_other_calls() {
    let mut policy = permissions(ApprovalMode::Ask);
    assert_eq!(
        policy.grant_for_session("edit_file", &Action::Write { destructive: false }),
        Some(Grant::Tool("edit_file".into()))
    );
    assert_eq!(
        policy.decide("edit_file", &Action::Write { destructive: false }),
        Decision::Allow
    );
    // Another tool's writes still ask.
    assert!(matches!(
        policy.decide("write_file", &Action::Write { destructive: false }),
        Decision::Ask { .. }
    ));
    assert_eq!(
        policy.grant_for_session("m__t", &Action::External { trusted: false }),
        Some(Grant::Tool("m__t".into()))
    );
    assert_eq!(
        policy.grant_for_session("read_file", &Action::ReadSecret { path: ".env" }),
        Some(Grant::SecretFile(".env".into()))
    );
    assert_eq!(
        policy.decide("read_file", &Action::ReadSecret { path: ".env" }),
        Decision::Allow
    );
    let protected = Action::WriteProtected {
        path: "AGENTS.md",
        why: "holds the project's instructions",
    };
    assert_eq!(policy.grant_for_session("edit_file", &protected), None);
    assert!(matches!(
        policy.decide("edit_file", &protected),
        Decision::Ask { .. }
    ));
    assert_eq!(policy.grant_for_session("read_file", &Action::Read), None);
}
