//! Applies [`Limits`] to the calling process (and so to the command it starts).

use nix::sys::resource::{Resource, getrlimit, setrlimit};

use crate::{Limits, SandboxError};

/// Lowers the soft and hard limits to `limits`; a limit already lower stays.
pub(crate) fn apply(limits: &Limits) -> Result<(), SandboxError> {
    let memory = limits
        .memory_mb
        .map(|megabytes| megabytes.saturating_mul(1024 * 1024));
    for (resource, value) in [
        (Resource::RLIMIT_CPU, limits.cpu_seconds),
        (Resource::RLIMIT_AS, memory),
        (Resource::RLIMIT_NPROC, limits.processes),
    ] {
        let Some(value) = value else { continue };
        let (soft, hard) = getrlimit(resource)
            .map_err(|error| SandboxError::Setup(format!("reading {resource:?}: {error}")))?;
        let hard = hard.min(value);
        setrlimit(resource, soft.min(hard), hard)
            .map_err(|error| SandboxError::Setup(format!("setting {resource:?}: {error}")))?;
    }
    Ok(())
}
