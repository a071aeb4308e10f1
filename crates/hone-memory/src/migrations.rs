//! The session store's schema, one migration per version (applied by [`hone_sqlite::migrate`]).

/// Migration `i` takes the schema from version `i` to `i + 1`. Append only: never edit a
/// migration that has shipped.
pub(crate) const MIGRATIONS: &[&str] = &[
    include_str!("schema/001_initial.sql"),
    include_str!("schema/002_failed_runs.sql"),
    include_str!("schema/003_conversations.sql"),
    include_str!("schema/004_notices.sql"),
];

/// The schema version this build writes (the number of migrations).
pub const SCHEMA_VERSION: i64 = hone_sqlite::schema_version(MIGRATIONS);
