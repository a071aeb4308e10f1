//! The key layout of one namespace.
//!
//! Every key starts with `hone:{NAMESPACE}:`. The braces are Redis Cluster's hash tag: all
//! keys of a namespace live on one slot, so one MULTI/EXEC can write them together there too.
//!
//! | key | type | holds |
//! | --- | --- | --- |
//! | `meta` | hash | `schema`, `generation`, `last_indexed_ms`, `scope` |
//! | `files` | hash | path → the file's record (size, content hash, kind, errors) |
//! | `stamps:CLONE` | hash | path → `[size, mtime, hash]` as one clone last saw the file |
//! | `outlines` | hash | path → the whole outline (JSON) |
//! | `metrics` | hash | path → metrics and symbol counts |
//! | `names` | hash | path → the names the file defines and refers to |
//! | `def:NAME` | set | paths of the files defining `NAME` |
//! | `ref:NAME` | set | paths of the files referring to `NAME` |
//! | `defnames` | hash | name → how many files define it |
//! | `edges` | hash | importing path → its import edges |
//! | `rank` | hash | the repo map's cached graph and the generation it was built at |

/// The keys of one namespace, as seen by one clone.
#[derive(Debug, Clone)]
pub(crate) struct Keys {
    prefix: String,
    pub(crate) meta: String,
    pub(crate) files: String,
    pub(crate) stamps: String,
    pub(crate) outlines: String,
    pub(crate) metrics: String,
    pub(crate) names: String,
    pub(crate) defnames: String,
    pub(crate) edges: String,
    pub(crate) rank: String,
}

impl Keys {
    /// The keys of `namespace` for the clone called `clone`.
    pub(crate) fn new(namespace: &str, clone: &str) -> Self {
        let prefix = format!("hone:{{{namespace}}}:");
        let key = |name: &str| format!("{prefix}{name}");
        Self {
            meta: key("meta"),
            files: key("files"),
            stamps: key(&format!("stamps:{clone}")),
            outlines: key("outlines"),
            metrics: key("metrics"),
            names: key("names"),
            defnames: key("defnames"),
            edges: key("edges"),
            rank: key("rank"),
            prefix,
        }
    }

    /// The set of files defining `name`.
    pub(crate) fn definers(&self, name: &str) -> String {
        format!("{}def:{name}", self.prefix)
    }

    /// The set of files referring to `name`.
    pub(crate) fn referrers(&self, name: &str) -> String {
        format!("{}ref:{name}", self.prefix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_carries_the_namespace_as_a_hash_tag() {
        let keys = Keys::new("acme/web", "c1");
        assert_eq!(keys.files, "hone:{acme/web}:files");
        assert_eq!(keys.stamps, "hone:{acme/web}:stamps:c1");
        assert_eq!(keys.definers("main"), "hone:{acme/web}:def:main");
        assert_eq!(keys.referrers("a b"), "hone:{acme/web}:ref:a b");
    }
}
