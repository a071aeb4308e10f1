//! The one rule for files that may hold secrets: `.env` files, private keys, credential
//! files, and the globs the user adds (`[permissions] secret_files`). Reading one is asked for
//! in every mode (and refused when nobody can be asked), an `@` mention of one is refused, a
//! search leaves it out, and an allow-listed reader in a command asks.

use globset::{Glob, GlobSet, GlobSetBuilder};

use crate::PolicyError;

/// `.env.*` files that are templates, not secrets.
const TEMPLATES: &[&str] = &[".example", ".sample", ".template", ".dist"];
/// File names that hold credentials.
const NAMES: &[&str] = &[
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    ".htpasswd",
    "credentials",
    "credentials.json",
];
/// Private keys: `id_rsa`, `id_ed25519_work` (never their `.pub` halves).
const KEY_PREFIXES: &[&str] = &["id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"];
/// Extensions of keys and keystores.
const EXTENSIONS: &[&str] = &[".pem", ".key", ".p12", ".pfx", ".keystore", ".jks"];

/// Which files may hold secrets.
///
/// ```
/// use hone_policy::SecretFiles;
///
/// let files = SecretFiles::new(&["config/prod/*.yml".into()])?;
/// assert!(files.matches(".env"));
/// assert!(files.matches("deploy/server.pem"));
/// assert!(files.matches("config/prod/db.yml"));
/// assert!(!files.matches(".env.example"));
/// assert!(!files.matches("src/env.rs"));
/// # Ok::<(), hone_policy::PolicyError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct SecretFiles {
    /// Globs matched against the file name (those without `/`).
    names: Option<GlobSet>,
    /// Globs matched against the root-relative path (those with `/`).
    paths: Option<GlobSet>,
}

impl SecretFiles {
    /// The built-in rule plus `globs` (a glob without `/` matches a file name anywhere, one
    /// with `/` the path from the project root).
    pub fn new(globs: &[String]) -> Result<Self, PolicyError> {
        let mut names = GlobSetBuilder::new();
        let mut paths = GlobSetBuilder::new();
        let (mut any_name, mut any_path) = (false, false);
        for glob in globs {
            let pattern = glob.trim().trim_start_matches('/');
            let compiled = Glob::new(pattern).map_err(|error| PolicyError::InvalidRule {
                rule: glob.clone(),
                reason: error.to_string(),
            })?;
            if pattern.contains('/') {
                paths.add(compiled);
                any_path = true;
            } else {
                names.add(compiled);
                any_name = true;
            }
        }
        let build = |builder: GlobSetBuilder, any: bool| {
            if any {
                builder.build().map(Some)
            } else {
                Ok(None)
            }
        };
        let invalid = |error: globset::Error| PolicyError::InvalidRule {
            rule: globs.join(", "),
            reason: error.to_string(),
        };
        Ok(Self {
            names: build(names, any_name).map_err(invalid)?,
            paths: build(paths, any_path).map_err(invalid)?,
        })
    }

    /// Whether the file at `relative` (a path from the project root, `/`-separated) may hold
    /// secrets.
    pub fn matches(&self, relative: &str) -> bool {
        let relative = relative.trim_start_matches("./");
        let name = relative.rsplit('/').next().unwrap_or(relative);
        built_in(&name.to_lowercase())
            || self.names.as_ref().is_some_and(|set| set.is_match(name))
            || self
                .paths
                .as_ref()
                .is_some_and(|set| set.is_match(relative))
    }
}

/// The built-in rule on a lower-cased file name.
fn built_in(name: &str) -> bool {
    if name == ".env" {
        return true;
    }
    if name.starts_with(".env.") || name.ends_with(".env") {
        return !TEMPLATES.iter().any(|template| name.ends_with(template));
    }
    if KEY_PREFIXES.iter().any(|prefix| name.starts_with(prefix)) {
        return !name.ends_with(".pub");
    }
    NAMES.contains(&name) || EXTENSIONS.iter().any(|extension| name.ends_with(extension))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_files_keys_and_credentials_may_hold_secrets() {
        let files = SecretFiles::default();
        for secret in [
            ".env",
            "app/.env.production",
            "prod.env",
            ".ENV.local",
            "certs/server.pem",
            "tls.key",
            "id_rsa",
            ".ssh/id_ed25519_work",
            "store.p12",
            ".netrc",
            ".git-credentials",
            "aws/credentials",
        ] {
            assert!(files.matches(secret), "{secret}");
        }
        for plain in [
            ".env.example",
            ".env.sample",
            "src/env.rs",
            "keys.rs",
            "id_rsa.pub",
            "README.md",
            "environment.ts",
            "monkey.txt",
        ] {
            assert!(!files.matches(plain), "{plain}");
        }
    }

    #[test]
    fn configured_globs_match_names_anywhere_or_paths_from_the_root() {
        let files = SecretFiles::new(&["*.secret".into(), "config/prod/*.yml".into()]).unwrap();
        assert!(files.matches("deep/down/db.secret"));
        assert!(files.matches("config/prod/db.yml"));
        assert!(files.matches("./config/prod/db.yml"));
        assert!(!files.matches("config/dev/db.yml"));
        assert!(!files.matches("other/config/prod/db.yml"));
    }

    #[test]
    fn a_broken_glob_is_an_error() {
        let error = SecretFiles::new(&["[".into()]).unwrap_err();
        assert!(error.to_string().contains('['), "{error}");
    }
}
