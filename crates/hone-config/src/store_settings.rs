//! `[store]`: where the code index is kept: embedded SQLite (the default) or a Redis server
//! a team shares.
//!
//! ```toml
//! [store]
//! backend = "redis"                     # or "sqlite" (the default)
//! url = "redis://cache.internal:6379/0" # no password here
//! password_env = "HONE_REDIS_PASSWORD"  # the variable holding the password, if any
//! namespace = "acme-web"                # keys live under hone:{acme-web}:…
//! fallback = "sqlite"                   # sessions use the local index when Redis is down
//! ```
//!
//! The password is never written in a file: `password_env` names the variable that holds it,
//! and a `url` with a password in it is refused. The project file's values win over the user
//! file's; an untrusted project's `[store]` is ignored whole (it would send the index, and
//! the password, to a server the repository chose).

use std::fmt;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use crate::error::ConfigError;
use crate::load::Config;
use crate::show::ShownValue;
use crate::source::{Source, Sourced};
use crate::suggest::closest;

/// The longest namespace accepted, in characters.
pub const NAMESPACE_MAX_CHARS: usize = 64;

/// Which store keeps the code index: `backend = "sqlite"` or `"redis"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum StoreBackend {
    /// `sqlite` (the default): an embedded database file (see `[index] database`).
    #[default]
    Sqlite,
    /// `redis`: a Redis server at `url`, shared by every clone on the same `namespace`.
    Redis,
}

impl StoreBackend {
    /// Every choice, the default first.
    pub const ALL: [Self; 2] = [Self::Sqlite, Self::Redis];

    /// The name used in files.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Sqlite => "sqlite",
            Self::Redis => "redis",
        }
    }

    /// The choice called `name` exactly, if any.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|choice| choice.as_str() == name)
    }
}

impl fmt::Display for StoreBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The `[store]` settings in effect ([`Config::store_settings`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoreSettings {
    /// Which store.
    pub backend: StoreBackend,
    /// The server (`redis://host:port/db` or `redis+unix:///path`), without a password.
    pub url: Option<String>,
    /// The environment variable holding the server's password, if it needs one.
    pub password_env: Option<String>,
    /// The namespace the index lives in; `None`: the project directory's name.
    pub namespace: Option<String>,
    /// `fallback = "sqlite"`: a session whose Redis server is unreachable uses the local
    /// SQLite index instead (and says so); `hone index` still fails.
    pub fallback_sqlite: bool,
}

impl StoreSettings {
    /// These settings with the store `--store` names: `sqlite`, or a Redis URL (which
    /// selects the Redis backend). Errors say what is wrong with the value.
    pub fn overridden(&self, store: &str) -> Result<Self, String> {
        if store == StoreBackend::Sqlite.as_str() {
            return Ok(Self {
                backend: StoreBackend::Sqlite,
                ..self.clone()
            });
        }
        check_url(store)?;
        Ok(Self {
            backend: StoreBackend::Redis,
            url: Some(store.to_string()),
            ..self.clone()
        })
    }

    /// The namespace for the project at `root`: the configured one, else the directory's
    /// name with characters a namespace may not hold replaced by `_`.
    pub fn namespace_for(&self, root: &Path) -> String {
        if let Some(namespace) = &self.namespace {
            return namespace.clone();
        }
        let name: String = root
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default()
            .chars()
            .map(|c| if namespace_char(c) { c } else { '_' })
            .take(NAMESPACE_MAX_CHARS)
            .collect();
        if name.is_empty() {
            "root".to_string()
        } else {
            name
        }
    }

    /// The password from the variable `password_env` names (`None` when no variable is
    /// named). An error names the variable, never a value.
    pub fn password(&self) -> Result<Option<String>, String> {
        let Some(variable) = &self.password_env else {
            return Ok(None);
        };
        match std::env::var(variable) {
            Ok(password) if !password.is_empty() => Ok(Some(password)),
            _ => Err(format!(
                "`[store] password_env` names {variable}, which is not set (or is empty); set it \
                 to the Redis password"
            )),
        }
    }
}

/// Whether `c` may appear in a namespace.
fn namespace_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/')
}

/// Checks a namespace: 1 to [`NAMESPACE_MAX_CHARS`] letters, digits, `-`, `_`, `.` or `/`.
pub fn check_namespace(namespace: &str) -> Result<(), String> {
    let length = namespace.chars().count();
    if length == 0 || length > NAMESPACE_MAX_CHARS || !namespace.chars().all(namespace_char) {
        return Err(format!(
            "expected 1 to {NAMESPACE_MAX_CHARS} letters, digits, `-`, `_`, `.` or `/`"
        ));
    }
    Ok(())
}

/// Checks a store URL: `redis://`, `rediss://` (TLS), `redis+unix://` or `unix://`, with no
/// password in it.
pub fn check_url(url: &str) -> Result<(), String> {
    let Some((scheme, rest)) = url.split_once("://") else {
        return Err(format!(
            "{url:?} is not a Redis URL: expected `redis://HOST[:PORT][/DB]`, \
             `rediss://HOST[:PORT][/DB]` (TLS) or `redis+unix:///PATH`"
        ));
    };
    if !matches!(scheme, "redis" | "rediss" | "redis+unix" | "unix") {
        return Err(format!(
            "unsupported scheme `{scheme}`: expected `redis`, `rediss` (TLS) or `redis+unix`"
        ));
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if authority
        .rsplit_once('@')
        .is_some_and(|(user, _)| user.contains(':'))
        || rest.contains("pass=")
        || rest.contains("password=")
    {
        return Err(
            "the URL holds a password: remove it and name the variable holding it with \
             `password_env`"
                .to_string(),
        );
    }
    if matches!(scheme, "redis" | "rediss")
        && authority.rsplit('@').next().unwrap_or_default().is_empty()
    {
        return Err(format!("{url:?} names no host"));
    }
    Ok(())
}

/// `[store]` as written in a file; spans locate values for error messages.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StoreSection {
    backend: Option<Spanned<String>>,
    url: Option<Spanned<String>>,
    password_env: Option<Spanned<String>>,
    namespace: Option<Spanned<String>>,
    fallback: Option<Spanned<String>>,
    /// `backend`, checked; filled in by [`validate`].
    #[serde(skip)]
    checked_backend: Option<StoreBackend>,
}

impl StoreSection {
    /// Drops the whole section of an untrusted project's file.
    pub(crate) fn restrict_untrusted(&mut self, ignored: &mut Vec<String>) {
        let set = self.backend.is_some()
            || self.url.is_some()
            || self.password_env.is_some()
            || self.namespace.is_some()
            || self.fallback.is_some();
        if set {
            *self = Self::default();
            ignored.push("[store] (chooses the server the index and its password go to)".into());
        }
    }
}

/// Checks `section`, from the contents `text` of `path`; errors name the file and line.
pub(crate) fn validate(
    path: &Path,
    text: &str,
    section: &mut StoreSection,
) -> Result<(), ConfigError> {
    let error = |value: &Spanned<String>, message: String| {
        crate::file::error_at(path, text, value.span().start, message)
    };
    if let Some(value) = &section.backend {
        let name = value.get_ref();
        let backend = StoreBackend::from_name(name).ok_or_else(|| {
            let hint = closest(name, StoreBackend::ALL.map(StoreBackend::as_str))
                .map(|name| format!(". Did you mean `{name}`?"))
                .unwrap_or_default();
            error(
                value,
                format!("invalid `store.backend` {name:?}: expected `sqlite` or `redis`{hint}"),
            )
        })?;
        section.checked_backend = Some(backend);
    }
    if let Some(value) = &section.url {
        check_url(value.get_ref())
            .map_err(|reason| error(value, format!("invalid `store.url`: {reason}")))?;
    }
    if let Some(value) = &section.password_env {
        let name = value.get_ref();
        let valid = !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(error(
                value,
                format!(
                    "invalid `store.password_env` {name:?}: expected the name of an environment \
                     variable (letters, digits and `_`), not the password itself"
                ),
            ));
        }
    }
    if let Some(value) = &section.fallback
        && value.get_ref() != StoreBackend::Sqlite.as_str()
    {
        return Err(error(
            value,
            format!(
                "invalid `store.fallback` {:?}: the only fallback is `sqlite`",
                value.get_ref()
            ),
        ));
    }
    if let Some(value) = &section.namespace {
        check_namespace(value.get_ref()).map_err(|reason| {
            error(
                value,
                format!("invalid `store.namespace` {:?}: {reason}", value.get_ref()),
            )
        })?;
    }
    Ok(())
}

/// `[store]` merged over the files, each value with its source.
#[derive(Debug, Clone, Default)]
pub(crate) struct StoreLayers {
    backend: Option<Sourced<StoreBackend>>,
    url: Option<Sourced<String>>,
    password_env: Option<Sourced<String>>,
    namespace: Option<Sourced<String>>,
    fallback: Option<Sourced<String>>,
}

impl StoreLayers {
    /// Layers `section`, read from `source`, over the files merged so far.
    pub(crate) fn merge(&mut self, section: &StoreSection, source: &Source) {
        let sourced = |value: &Option<Spanned<String>>| {
            value
                .as_ref()
                .map(|value| Sourced::new(value.get_ref().clone(), source.clone()))
        };
        if let Some(backend) = section.checked_backend {
            self.backend = Some(Sourced::new(backend, source.clone()));
        }
        for (slot, value) in [
            (&mut self.url, sourced(&section.url)),
            (&mut self.password_env, sourced(&section.password_env)),
            (&mut self.namespace, sourced(&section.namespace)),
            (&mut self.fallback, sourced(&section.fallback)),
        ] {
            if value.is_some() {
                *slot = value;
            }
        }
    }
}

impl Config {
    /// The `[store]` settings: the project file over the user file over the defaults.
    pub fn store_settings(&self) -> StoreSettings {
        let store = &self.store;
        let value = |slot: &Option<Sourced<String>>| slot.as_ref().map(|value| value.value.clone());
        StoreSettings {
            backend: store
                .backend
                .as_ref()
                .map_or(StoreBackend::default(), |value| value.value),
            url: value(&store.url),
            password_env: value(&store.password_env),
            namespace: value(&store.namespace),
            fallback_sqlite: store.fallback.is_some(),
        }
    }

    /// The `[store]` values as `hone config show` lists them (the password's variable by
    /// name only).
    pub(crate) fn show_store(&self, values: &mut Vec<ShownValue>) {
        let store = &self.store;
        let mut push = |key: &str, value: String, source: Option<Source>| {
            values.push(ShownValue {
                section: "store".to_string(),
                key: key.to_string(),
                value,
                source,
            });
        };
        let (backend, source) = match &store.backend {
            Some(backend) => (backend.value, backend.source.clone()),
            None => (StoreBackend::default(), Source::Default),
        };
        push("backend", quote(backend.as_str()), Some(source));
        for (key, slot) in [
            ("url", &store.url),
            ("password_env", &store.password_env),
            ("namespace", &store.namespace),
            ("fallback", &store.fallback),
        ] {
            if let Some(value) = slot {
                push(key, quote(&value.value), Some(value.source.clone()));
            }
        }
    }
}

/// `text` as a TOML string.
fn quote(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CliOverrides, ConfigSources};

    fn parse(text: &str) -> Result<StoreSection, ConfigError> {
        let file = crate::file::parse(
            Path::new("/p/config.toml"),
            text,
            crate::file::FileRole::User,
        )?;
        Ok(file.store)
    }

    fn error_at(text: &str) -> (Option<usize>, String) {
        match parse(text) {
            Err(ConfigError::Parse { line, message, .. }) => (line, message),
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    #[test]
    fn a_redis_store_is_read_with_every_key() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("user.toml");
        std::fs::write(
            &user,
            "[store]\nbackend = \"redis\"\nurl = \"redis://127.0.0.1:6390/2\"\n\
             password_env = \"TEAM_REDIS_PASSWORD\"\nnamespace = \"acme/web\"\n",
        )
        .unwrap();
        let sources = ConfigSources {
            user_file: Some(user),
            ..ConfigSources::default()
        };
        let config = crate::load(&sources, &CliOverrides::default()).unwrap();
        let settings = config.store_settings();
        assert_eq!(settings.backend, StoreBackend::Redis);
        assert_eq!(settings.url.as_deref(), Some("redis://127.0.0.1:6390/2"));
        assert_eq!(settings.namespace_for(Path::new("/x/y")), "acme/web");
        let shown = config.render_show();
        assert!(shown.contains("backend = \"redis\""), "{shown}");
        assert!(
            shown.contains("password_env = \"TEAM_REDIS_PASSWORD\""),
            "{shown}"
        );
    }

    #[test]
    fn sqlite_is_the_default_and_the_namespace_defaults_to_the_directory() {
        let defaults = crate::load(&ConfigSources::default(), &CliOverrides::default()).unwrap();
        let settings = defaults.store_settings();
        assert_eq!(settings, StoreSettings::default());
        assert_eq!(settings.backend, StoreBackend::Sqlite);
        assert_eq!(settings.namespace_for(Path::new("/work/my app")), "my_app");
        assert!(defaults.render_show().contains("backend = \"sqlite\""));
    }

    #[test]
    fn bad_values_are_refused_with_their_line_and_a_suggestion() {
        let (line, message) = error_at("model = \"m\"\n[store]\nbackend = \"reddis\"\n");
        assert_eq!(line, Some(3));
        assert!(message.contains("Did you mean `redis`?"), "{message}");
        let (line, message) = error_at("[store]\nurl = \"redis://u:secret@host:6379\"\n");
        assert_eq!(line, Some(2));
        assert!(message.contains("password_env"), "{message}");
        assert!(!message.contains("secret"), "{message}");
        let (_, message) = error_at("[store]\nurl = \"http://host\"\n");
        assert!(message.contains("unsupported scheme"), "{message}");
        let (_, message) = error_at("[store]\npassword_env = \"hunter2!\"\n");
        assert!(message.contains("not the password itself"), "{message}");
        let (_, message) = error_at("[store]\nnamespace = \"a{b}\"\n");
        assert!(message.contains("store.namespace"), "{message}");
        let (line, message) = error_at("[store]\nnamspace = \"x\"\n");
        assert_eq!(line, Some(2));
        assert!(message.contains("Did you mean `namespace`?"), "{message}");
    }

    #[test]
    fn urls_are_checked() {
        for good in [
            "redis://localhost",
            "redis://127.0.0.1:6379/3",
            "redis://team-user@cache:6379",
            "redis+unix:///run/redis.sock",
            "rediss://cache.internal:6380/0",
        ] {
            assert_eq!(check_url(good), Ok(()), "{good}");
        }
        for bad in [
            "localhost:6379",
            "rediss://:pw@host",
            "rediss:///0",
            "https://host",
            "redis://:pw@host",
            "redis:///0",
            "redis+unix:///run/redis.sock?pass=x",
        ] {
            assert!(check_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_store_flag_overrides_the_backend_and_url() {
        let settings = StoreSettings::default();
        let redis = settings.overridden("redis://h:1").unwrap();
        assert_eq!(redis.backend, StoreBackend::Redis);
        assert_eq!(redis.url.as_deref(), Some("redis://h:1"));
        assert_eq!(
            redis.overridden("sqlite").unwrap().backend,
            StoreBackend::Sqlite
        );
        assert!(settings.overridden("mysql://h").is_err());
    }

    #[test]
    fn the_password_comes_from_the_named_variable_and_errors_name_only_it() {
        let unset = StoreSettings {
            password_env: Some("HONE_TEST_SURELY_UNSET_PASSWORD".to_string()),
            ..StoreSettings::default()
        };
        let message = unset.password().unwrap_err();
        assert!(
            message.contains("HONE_TEST_SURELY_UNSET_PASSWORD"),
            "{message}"
        );
        assert_eq!(StoreSettings::default().password(), Ok(None));
    }

    #[test]
    fn an_untrusted_project_cannot_choose_the_store() {
        let mut section = parse("[store]\nurl = \"redis://evil\"\n").unwrap();
        let mut ignored = Vec::new();
        section.restrict_untrusted(&mut ignored);
        assert!(section.url.is_none());
        assert_eq!(ignored.len(), 1);
        let mut empty = StoreSection::default();
        let mut none = Vec::new();
        empty.restrict_untrusted(&mut none);
        assert!(none.is_empty());
    }
}
