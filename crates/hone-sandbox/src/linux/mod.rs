//! Linux: namespaces and a read-only view of the system ([`namespaces`], [`view`]), Landlock
//! for files, TCP, abstract sockets and signals, seccomp for sockets.

mod limits;
mod mountinfo;
pub(crate) mod namespaces;
mod overlay;
mod view;

use std::collections::BTreeMap;
use std::path::PathBuf;

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus, Scope, path_beneath_rules,
};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

use crate::{ALWAYS_WRITABLE, SandboxError, Support};

/// The newest Landlock ABI whose file access rights hone asks for; older kernels get what
/// they support (the landlock crate's best-effort mode).
const FILE_ABI: ABI = ABI::V5;

/// The address families a command without network may not open sockets of.
const BLOCKED_FAMILIES: [i32; 4] = [
    libc::AF_INET,
    libc::AF_INET6,
    libc::AF_NETLINK,
    libc::AF_PACKET,
];

/// Whether the kernel has Landlock, probed by creating (and dropping) rulesets that
/// require the features; nothing is restricted.
pub(crate) fn support() -> Support {
    let handles_files = |abi: ABI| {
        Ruleset::default()
            .set_compatibility(CompatLevel::HardRequirement)
            .handle_access(AccessFs::from_all(abi))
            .and_then(Ruleset::create)
            .is_ok()
    };
    if !handles_files(ABI::V1) {
        return Support::Unavailable(
            "the kernel has no Landlock (it needs Linux 5.13 or later with `landlock` in its \
             LSM list)"
                .to_string(),
        );
    }
    let network_rules = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessNet::from_all(ABI::V4))
        .and_then(Ruleset::create)
        .is_ok();
    let scopes = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .scope(Scope::from_all(ABI::V6))
        .and_then(Ruleset::create)
        .is_ok();
    let abi = if scopes {
        6
    } else if handles_files(ABI::V5) {
        5
    } else if network_rules {
        4
    } else if handles_files(ABI::V3) {
        3
    } else if handles_files(ABI::V2) {
        2
    } else {
        1
    };
    Support::Landlock { abi, network_rules }
}

/// Restricts the calling thread (and what it starts) to writing under `writable`, and
/// without `network` to no TCP and no internet, netlink or packet sockets. Where the kernel
/// has Landlock's scopes (ABI 6), it can neither connect to abstract Unix sockets nor
/// signal processes outside its sandbox.
pub(crate) fn restrict_current_thread(
    writable: &[PathBuf],
    network: bool,
) -> Result<(), SandboxError> {
    let setup = |error: landlock::RulesetError| SandboxError::Setup(error.to_string());
    let mut ruleset = Ruleset::default()
        .handle_access(AccessFs::from_all(FILE_ABI))
        .map_err(setup)?;
    if !network {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(ABI::V4))
            .map_err(setup)?;
    }
    let status = ruleset
        .scope(Scope::from_all(ABI::V6))
        .map_err(setup)?
        .create()
        .map_err(setup)?
        .add_rules(path_beneath_rules(["/"], AccessFs::from_read(FILE_ABI)))
        .map_err(setup)?
        .add_rules(path_beneath_rules(writable, AccessFs::from_all(FILE_ABI)))
        .map_err(setup)?
        .add_rules(path_beneath_rules(
            ALWAYS_WRITABLE,
            AccessFs::from_all(FILE_ABI),
        ))
        .map_err(setup)?
        .restrict_self()
        .map_err(setup)?;
    if status.ruleset == RulesetStatus::NotEnforced {
        return Err(SandboxError::Unavailable(
            "the kernel did not enforce the Landlock rules (no Landlock support)".to_string(),
        ));
    }
    if !network {
        block_sockets()?;
    }
    Ok(())
}

/// Installs a seccomp filter on the calling thread: `socket()` of a blocked family and
/// `io_uring_setup` (which can create sockets too) fail with `EPERM`.
fn block_sockets() -> Result<(), SandboxError> {
    let setup = |error: seccompiler::Error| SandboxError::Setup(format!("seccomp: {error}"));
    let arch = TargetArch::try_from(std::env::consts::ARCH)
        .map_err(|error| SandboxError::Setup(format!("seccomp: {error}")))?;
    let socket_rules = BLOCKED_FAMILIES
        .iter()
        .map(|family| {
            let family = u64::try_from(*family).unwrap_or_default();
            SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, family)
                .and_then(|condition| SeccompRule::new(vec![condition]))
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|error| SandboxError::Setup(format!("seccomp: {error}")))?;
    let mut rules = BTreeMap::new();
    rules.insert(libc::SYS_socket, socket_rules);
    rules.insert(libc::SYS_io_uring_setup, Vec::new());
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(u32::try_from(libc::EPERM).unwrap_or(1)),
        arch,
    )
    .map_err(|error| SandboxError::Setup(format!("seccomp: {error}")))?;
    let program: BpfProgram = filter
        .try_into()
        .map_err(|error: seccompiler::BackendError| {
            SandboxError::Setup(format!("seccomp: {error}"))
        })?;
    seccompiler::apply_filter(&program).map_err(setup)
}
