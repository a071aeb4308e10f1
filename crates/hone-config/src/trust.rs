//! Project trust: a repository's `.hone/config.toml` must not be able to send the user's API
//! key, or the user's requests, to a server of the repository's choosing.
//!
//! The rule, checked by [`Config::provider`] and [`Config::provider_named`]: resolving an
//! instance fails with [`ConfigError::UntrustedProjectBaseUrl`] when all of these hold:
//!
//! 1. its `base_url` was set by the project file (directly, or through a profile the project
//!    file defines);
//! 2. that URL's host is not a loopback address (`localhost`, `127.0.0.0/8`, `::1`);
//! 3. the project directory is not listed in `trusted_projects` of the user file.
//!
//! With a key found for the instance (in the environment or an `api_key_file`) the error
//! names it; a keyless instance is refused too, since the repository's server would then see
//! the user's requests and its model would decide every tool call.
//!
//! The project file's `api_key_env` and `api_key_file` can only leak a secret through the URL
//! the key is sent to, so they are covered by the same rule: a secret they select is sent
//! only to a loopback URL or to a URL set by the user file, the environment, a flag or a
//! preset. The error then names the setting that picked the secret. The project file's
//! `headers` never need trust: their values are literal text from the repository itself and
//! cannot read anything from the user's environment or disk.
//!
//! `trusted_projects` is honoured in the user file only; a project file setting it is
//! rejected, since a repository cannot trust itself. Entries must be absolute or start with
//! `~/` (a relative entry would trust whatever directory hone happens to run in); they match
//! the project directory exactly, after canonicalisation where the path exists.
//!
//! Trust also decides which agent settings of the project file count: an untrusted project's
//! `[permissions] allow` rules are ignored and its `approval` may only tighten the mode (see
//! the `agent` module); it cannot choose the provider or a model file nor raise limits (the
//! `untrusted` module).

use std::net::{Ipv4Addr, Ipv6Addr};
use std::path::{Path, PathBuf};

use crate::error::{ConfigError, UntrustedProjectBaseUrl};
use crate::file::{FileConfig, FileRole, line_and_column};
use crate::load::Config;
use crate::resolve::Resolution;
use crate::source::{Source, Sourced};

/// The user's `trusted_projects` and whether the current project is among them.
#[derive(Debug, Clone, Default)]
pub(crate) struct ProjectTrust {
    /// The project directory, canonicalised when possible: the form `trusted_projects` lists.
    pub(crate) project_dir: Option<PathBuf>,
    /// The user file, where `trusted_projects` belongs (whether or not it exists yet).
    pub(crate) user_file: Option<PathBuf>,
    /// `trusted_projects` as written in the user file.
    pub(crate) listed: Option<Sourced<Vec<String>>>,
    /// Whether `project_dir` is listed.
    pub(crate) trusted: bool,
}

impl ProjectTrust {
    /// Decides whether `project_dir` is one of the `listed` trusted projects.
    pub(crate) fn new(
        project_dir: Option<&Path>,
        user_file: Option<&Path>,
        listed: Option<Sourced<Vec<String>>>,
    ) -> Self {
        let project_dir = project_dir.map(canonical_or_literal);
        let trusted = match (&project_dir, &listed) {
            (Some(project_dir), Some(listed)) => listed
                .value
                .iter()
                .filter_map(|entry| expand_entry(entry))
                .any(|entry| canonical_or_literal(&entry) == *project_dir),
            _ => false,
        };
        Self {
            project_dir,
            user_file: user_file.map(Path::to_path_buf),
            listed,
            trusted,
        }
    }
}

/// `path` with symbolic links and `..` resolved, or `path` itself when that fails
/// (e.g. it does not exist).
fn canonical_or_literal(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Whether a `trusted_projects` entry is anchored: absolute, `~` or `~/…`.
fn is_anchored(entry: &str) -> bool {
    entry == "~" || entry.starts_with("~/") || Path::new(entry).is_absolute()
}

/// A `trusted_projects` entry as an absolute path, `~` being the home directory; `None` when
/// it is not anchored or the home directory is unknown, so that it matches nothing.
fn expand_entry(entry: &str) -> Option<PathBuf> {
    let path = if entry == "~" {
        dirs::home_dir()?
    } else if let Some(rest) = entry.strip_prefix("~/") {
        dirs::home_dir()?.join(rest)
    } else {
        PathBuf::from(entry)
    };
    path.is_absolute().then_some(path)
}

/// Checks a file's `trusted_projects`: a project file may not set it, and every entry must be
/// absolute or start with `~/`. `text` is the file's contents, for line numbers.
pub(crate) fn validate_trusted_projects(
    path: &Path,
    text: &str,
    file: &FileConfig,
    role: FileRole,
) -> Result<(), ConfigError> {
    let Some(listed) = &file.trusted_projects else {
        return Ok(());
    };
    if role == FileRole::Project {
        let (line, column) = line_and_column(text, listed.span().start);
        return Err(ConfigError::TrustedProjectsInProjectFile {
            path: path.to_path_buf(),
            line: Some(line),
            column: Some(column),
        });
    }
    match listed
        .get_ref()
        .iter()
        .find(|entry| !is_anchored(entry.get_ref()))
    {
        Some(entry) => {
            let (line, column) = line_and_column(text, entry.span().start);
            Err(ConfigError::Parse {
                path: path.to_path_buf(),
                line: Some(line),
                column: Some(column),
                message: format!(
                    "`trusted_projects` entry {:?} must be an absolute path or start with `~/`",
                    entry.get_ref()
                ),
            })
        }
        None => Ok(()),
    }
}

/// Whether `url`, an `http(s)://` base URL, points at this machine: its host is `localhost`,
/// an address in `127.0.0.0/8`, or `::1` (also as `::ffff:127.x.y.z`). Anything unclear counts
/// as remote.
pub(crate) fn is_loopback_url(url: &str) -> bool {
    url_host(url).is_some_and(|host| is_loopback_host(&host))
}

/// The host of an `http(s)://` URL, lower-cased, with brackets of IPv6 literals removed.
///
/// The authority ends where the HTTP client's (WHATWG) parser ends it, at `/`, `\`, `?` or
/// `#`, and user info before the last `@` is skipped, so that e.g.
/// `http://evil.example\@localhost` is seen as `evil.example`, as the client sees it.
fn url_host(url: &str) -> Option<String> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))?;
    let authority_end = rest.find(['/', '\\', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    let host_and_port = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let host = match host_and_port.strip_prefix('[') {
        Some(bracketed) => {
            let (inside, after) = bracketed.split_once(']')?;
            if !after.is_empty() && !after.starts_with(':') {
                return None;
            }
            inside
        }
        None => host_and_port
            .split_once(':')
            .map_or(host_and_port, |(host, _)| host),
    };
    Some(host.to_ascii_lowercase())
}

/// Whether `host` (lower-case, without brackets) names this machine.
fn is_loopback_host(host: &str) -> bool {
    if host == "localhost" {
        return true;
    }
    if let Ok(address) = host.parse::<Ipv4Addr>() {
        return address.is_loopback();
    }
    if let Ok(address) = host.parse::<Ipv6Addr>() {
        return address.is_loopback()
            || address
                .to_ipv4_mapped()
                .is_some_and(|mapped| mapped.is_loopback());
    }
    false
}

/// The project file behind `source`: the file itself, or the project file defining the
/// profile or naming the key file it came through.
pub(crate) fn project_file_behind(source: &Source) -> Option<&Path> {
    match source {
        Source::ProjectFile(path) => Some(path),
        Source::Profile { defined_in, .. } => project_file_behind(defined_in),
        Source::KeyFile { configured_in, .. } => project_file_behind(configured_in),
        _ => None,
    }
}

impl Config {
    /// Whether the project directory is listed in `trusted_projects` of the user file, which
    /// lets its project file send keys to remote URLs it chooses, allow commands
    /// (`[permissions] allow`) and loosen `approval`.
    pub fn is_project_trusted(&self) -> bool {
        self.trust.trusted
    }

    /// `trusted_projects` as written in the user file.
    pub fn trusted_projects(&self) -> &[String] {
        self.trust
            .listed
            .as_ref()
            .map_or(&[], |listed| listed.value.as_slice())
    }

    /// Fails when `resolution` would send a key to a remote URL set by an untrusted project
    /// file (see the [module documentation](self)).
    pub(crate) fn check_trust(&self, resolution: &Resolution) -> Result<(), ConfigError> {
        let config = &resolution.config;
        let key_source = config
            .api_key
            .as_ref()
            .and(resolution.sources.api_key.as_ref());
        let Some(project_file) = project_file_behind(&resolution.sources.base_url) else {
            return Ok(());
        };
        if self.trust.trusted || config.base_url.is_empty() || is_loopback_url(&config.base_url) {
            return Ok(());
        }
        let api_key_env_origin = match key_source {
            Some(Source::Env(_)) => self
                .instances
                .get(&config.name)
                .and_then(|settings| settings.api_key_env.as_ref())
                .map(|variable| variable.source.clone()),
            _ => None,
        };
        let project_dir = self.trust.project_dir.clone().unwrap_or_else(|| {
            project_file
                .parent()
                .and_then(Path::parent)
                .unwrap_or(project_file)
                .to_path_buf()
        });
        Err(ConfigError::UntrustedProjectBaseUrl(Box::new(
            UntrustedProjectBaseUrl {
                provider: config.name.clone(),
                base_url: config.base_url.clone(),
                project_file: project_file.to_path_buf(),
                project_dir,
                key_source: key_source.cloned(),
                api_key_env_origin,
                user_file: self.trust.user_file.clone(),
            },
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts_are_recognised() {
        for url in [
            "http://localhost:11434",
            "http://LOCALHOST/v1",
            "https://localhost",
            "http://127.0.0.1:1234/v1",
            "http://127.8.9.10",
            "http://[::1]:8080/v1",
            "http://[::ffff:127.0.0.1]/v1",
            "http://user:pw@localhost:1/v1",
            "http://localhost?x=1",
        ] {
            assert!(is_loopback_url(url), "{url}");
        }
    }

    #[test]
    fn remote_and_unclear_hosts_are_not_loopback() {
        for url in [
            "https://evil.example/v1",
            "http://localhost.evil.example",
            "http://localhost@evil.example/",
            "http://evil.example\\@localhost/",
            "http://127.0.0.1.evil.example",
            "http://128.0.0.1",
            "http://0.0.0.0:8000",
            "http://[::2]",
            "http://[::1]evil",
            "http:///localhost",
            "ftp://localhost",
            "",
        ] {
            assert!(!is_loopback_url(url), "{url}");
        }
    }

    #[test]
    fn entries_must_be_anchored() {
        assert!(is_anchored("/srv/repo"));
        assert!(is_anchored("~/code/repo"));
        assert!(is_anchored("~"));
        assert!(!is_anchored("code/repo"));
        assert!(!is_anchored("."));
        assert!(!is_anchored("~other/repo"));
        assert_eq!(expand_entry("."), None);
        assert_eq!(expand_entry("/srv/repo"), Some(PathBuf::from("/srv/repo")));
        if let Some(home) = dirs::home_dir() {
            assert_eq!(expand_entry("~/code/repo"), Some(home.join("code/repo")));
        }
    }

    #[test]
    fn trust_compares_canonical_paths() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("repo");
        std::fs::create_dir_all(project.join("sub")).unwrap();
        let listed = |entry: &Path| {
            Some(Sourced::new(
                vec![entry.display().to_string()],
                Source::UserFile("/u/config.toml".into()),
            ))
        };
        let roundabout = project.join("sub").join("..");
        let trust = ProjectTrust::new(Some(&roundabout), None, listed(&project));
        assert!(trust.trusted);
        let trust = ProjectTrust::new(Some(&project), None, listed(&project.join("sub")));
        assert!(!trust.trusted);
        let missing = dir.path().join("missing");
        let trust = ProjectTrust::new(Some(&missing), None, listed(&missing));
        assert!(
            trust.trusted,
            "literal paths match when canonicalisation fails"
        );
        assert!(!ProjectTrust::new(None, None, listed(&project)).trusted);
    }

    #[test]
    fn project_files_are_found_behind_profiles_and_key_files() {
        let project = Source::ProjectFile("/p/.hone/config.toml".into());
        let profile = Source::Profile {
            name: "fast".into(),
            defined_in: Box::new(project.clone()),
        };
        assert_eq!(
            project_file_behind(&profile),
            Some(Path::new("/p/.hone/config.toml"))
        );
        let key_file = Source::KeyFile {
            path: "/k".into(),
            configured_in: Box::new(Source::UserFile("/u".into())),
        };
        assert_eq!(project_file_behind(&key_file), None);
        assert_eq!(project_file_behind(&Source::Env("X".into())), None);
    }
}
