//! Resource limits for a sandboxed command: CPU time, address space and processes, with
//! defaults a build stays under.

use std::ffi::OsString;

/// The flag of `hone sandbox` that sets the CPU-time limit in seconds (0: none).
pub const CPU_FLAG: &str = "--limit-cpu";
/// The flag of `hone sandbox` that sets the address-space limit in MiB (0: none).
pub const MEMORY_FLAG: &str = "--limit-memory";
/// The flag of `hone sandbox` that sets the limit on processes (0: none).
pub const PROCESSES_FLAG: &str = "--limit-processes";

/// CPU seconds a command may use by default: an hour, far above any build or test run
/// hone waits for, low enough to stop a runaway loop left in the background.
pub const DEFAULT_CPU_SECONDS: u64 = 3600;
/// Processes (of the user) a command may have by default: enough for a parallel build,
/// not for a fork bomb.
pub const DEFAULT_PROCESSES: u64 = 4096;

/// Resource limits; `None` leaves a resource as hone found it. A limit is only ever
/// lowered, never raised above what the user's session allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// CPU time in seconds (`RLIMIT_CPU`).
    pub cpu_seconds: Option<u64>,
    /// Address space in MiB (`RLIMIT_AS`); off by default, since runtimes such as V8 and
    /// the JVM reserve far more address space than they use.
    pub memory_mb: Option<u64>,
    /// Processes of the user (`RLIMIT_NPROC`).
    pub processes: Option<u64>,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            cpu_seconds: Some(DEFAULT_CPU_SECONDS),
            memory_mb: None,
            processes: Some(DEFAULT_PROCESSES),
        }
    }
}

impl Limits {
    /// No limits at all.
    pub fn none() -> Self {
        Self {
            cpu_seconds: None,
            memory_mb: None,
            processes: None,
        }
    }

    /// The flags of `hone sandbox` for the limits that differ from the defaults.
    pub fn helper_args(&self) -> Vec<OsString> {
        let defaults = Self::default();
        let mut args = Vec::new();
        for (flag, value, default) in [
            (CPU_FLAG, self.cpu_seconds, defaults.cpu_seconds),
            (MEMORY_FLAG, self.memory_mb, defaults.memory_mb),
            (PROCESSES_FLAG, self.processes, defaults.processes),
        ] {
            if value != default {
                args.push(flag.into());
                args.push(value.unwrap_or(0).to_string().into());
            }
        }
        args
    }

    /// The limits in words, for `--explain`.
    pub fn describe(&self) -> String {
        let part = |value: Option<u64>, unit: &str| {
            value.map_or_else(|| "unlimited".to_string(), |value| format!("{value}{unit}"))
        };
        format!(
            "limits: CPU time {}, address space {}, processes {}",
            part(self.cpu_seconds, " s"),
            part(self.memory_mb, " MiB"),
            part(self.processes, "")
        )
    }

    /// A limit from a flag's value: 0 means none.
    pub fn parse_value(value: u64) -> Option<u64> {
        (value > 0).then_some(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_limits_that_differ_from_the_defaults_become_flags() {
        assert!(Limits::default().helper_args().is_empty());
        let args: Vec<String> = Limits {
            cpu_seconds: None,
            memory_mb: Some(2048),
            processes: Some(DEFAULT_PROCESSES),
        }
        .helper_args()
        .into_iter()
        .map(|arg| arg.to_string_lossy().into_owned())
        .collect();
        assert_eq!(args, ["--limit-cpu", "0", "--limit-memory", "2048"]);
    }

    #[test]
    fn zero_means_no_limit_and_the_description_says_so() {
        assert_eq!(Limits::parse_value(0), None);
        assert_eq!(Limits::parse_value(7), Some(7));
        let text = Limits::none().describe();
        assert!(text.contains("CPU time unlimited"), "{text}");
        assert!(Limits::default().describe().contains("3600 s"));
    }
}
