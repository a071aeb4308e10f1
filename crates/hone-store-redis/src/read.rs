//! Queries: each reads what it needs in one MULTI/EXEC (one consistent state), except the
//! symbol lookups, which read a name's set and then the outlines it lists (a file that went
//! in between is skipped).

use std::collections::{BTreeMap, HashMap};

use hone_index::analysis::{Edge, SymbolTable};
use hone_index::{
    FileMetrics, FileOutline, FileRecord, IndexError, IndexStats, IndexStore, IndexWrite,
    SymbolLocation, SymbolRole,
};

use crate::RedisStore;
use crate::codec::{Stamp, StoredMetrics, StoredRecord, decode_edges};
use crate::write::RedisWrite;

impl RedisStore {
    fn decode_outline(&self, path: &str, json: &str) -> Result<FileOutline, IndexError> {
        serde_json::from_str(json)
            .map_err(|error| self.corrupt(&format!("outline of `{path}`"), error))
    }

    fn decode_record(&self, json: &str) -> Result<StoredRecord, IndexError> {
        serde_json::from_str(json).map_err(|error| self.corrupt("file record", error))
    }

    /// The occurrences of `name` with `role`, from the files its set lists.
    fn occurrences(&self, name: &str, role: SymbolRole) -> Result<Vec<SymbolLocation>, IndexError> {
        let set = match role {
            SymbolRole::Definition => self.keys.definers(name),
            SymbolRole::Reference => self.keys.referrers(name),
        };
        let paths: Vec<String> =
            self.run(|connection| redis::cmd("SMEMBERS").arg(&set).query(connection))?;
        if paths.is_empty() {
            return Ok(Vec::new());
        }
        let outlines: Vec<Option<String>> = self.run(|connection| {
            redis::cmd("HMGET")
                .arg(&self.keys.outlines)
                .arg(&paths)
                .query(connection)
        })?;
        let mut found = Vec::new();
        for (path, json) in paths.iter().zip(outlines) {
            let Some(json) = json else { continue };
            let outline = self.decode_outline(path, &json)?;
            let matching = outline
                .symbols
                .into_iter()
                .filter(|symbol| symbol.role == role && symbol.name == name);
            found.extend(matching.map(|symbol| SymbolLocation {
                name: symbol.name,
                kind: symbol.kind,
                role: symbol.role,
                path: path.clone(),
                line: symbol.line,
                column: symbol.column,
            }));
        }
        found.sort_by(|a, b| (&a.path, a.line, a.column).cmp(&(&b.path, b.line, b.column)));
        Ok(found)
    }

    fn edges_where(&self, keep: impl Fn(&Edge) -> bool) -> Result<Vec<Edge>, IndexError> {
        let stored: HashMap<String, String> = self.run(|connection| {
            redis::cmd("HGETALL")
                .arg(&self.keys.edges)
                .query(connection)
        })?;
        let mut edges = Vec::new();
        for (from, json) in stored {
            let decoded =
                decode_edges(&from, &json).map_err(|error| self.corrupt("import edges", error))?;
            edges.extend(decoded.into_iter().filter(|edge| keep(edge)));
        }
        Ok(edges)
    }
}

impl IndexStore for RedisStore {
    fn files(&self) -> Result<BTreeMap<String, FileRecord>, IndexError> {
        let (records, stamps): (HashMap<String, String>, HashMap<String, String>) =
            self.run(|connection| {
                redis::pipe()
                    .atomic()
                    .cmd("HGETALL")
                    .arg(&self.keys.files)
                    .cmd("HGETALL")
                    .arg(&self.keys.stamps)
                    .query(connection)
            })?;
        let mut files = BTreeMap::new();
        for (path, json) in records {
            let stored = self.decode_record(&json)?;
            let stamp = stamps
                .get(&path)
                .and_then(|stamp| serde_json::from_str::<Stamp>(stamp).ok());
            let record = stored
                .into_record(path.clone(), stamp)
                .ok_or_else(|| self.failure(format!("bad kind stored for `{path}`")))?;
            files.insert(path, record);
        }
        Ok(files)
    }

    fn begin(&mut self) -> Result<Box<dyn IndexWrite + '_>, IndexError> {
        Ok(Box::new(RedisWrite::new(self)))
    }

    fn outline(&self, path: &str) -> Result<Option<FileOutline>, IndexError> {
        let json: Option<String> = self.run(|connection| {
            redis::cmd("HGET")
                .arg(&self.keys.outlines)
                .arg(path)
                .query(connection)
        })?;
        json.map(|json| self.decode_outline(path, &json))
            .transpose()
    }

    fn outlines(&self) -> Result<BTreeMap<String, FileOutline>, IndexError> {
        let stored: HashMap<String, String> = self.run(|connection| {
            redis::cmd("HGETALL")
                .arg(&self.keys.outlines)
                .query(connection)
        })?;
        stored
            .into_iter()
            .map(|(path, json)| {
                let outline = self.decode_outline(&path, &json)?;
                Ok((path, outline))
            })
            .collect()
    }

    fn defined_symbols(&self) -> Result<SymbolTable, IndexError> {
        Ok(SymbolTable::of_defined(&self.outlines()?))
    }

    fn all_edges(&self) -> Result<Vec<Edge>, IndexError> {
        let mut edges = self.edges_where(|_| true)?;
        edges.sort();
        Ok(edges)
    }

    fn metrics(&self) -> Result<BTreeMap<String, FileMetrics>, IndexError> {
        let stored: HashMap<String, String> = self.run(|connection| {
            redis::cmd("HGETALL")
                .arg(&self.keys.metrics)
                .query(connection)
        })?;
        stored
            .into_iter()
            .map(|(path, json)| {
                let stored: StoredMetrics = serde_json::from_str(&json)
                    .map_err(|error| self.corrupt(&format!("metrics of `{path}`"), error))?;
                Ok((path, stored.metrics))
            })
            .collect()
    }

    fn definitions(&self, name: &str) -> Result<Vec<SymbolLocation>, IndexError> {
        self.occurrences(name, SymbolRole::Definition)
    }

    fn references(&self, name: &str) -> Result<Vec<SymbolLocation>, IndexError> {
        self.occurrences(name, SymbolRole::Reference)
    }

    fn search_symbols(&self, query: &str, limit: usize) -> Result<Vec<SymbolLocation>, IndexError> {
        let query = query.trim();
        if query.is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        let counts: HashMap<String, i64> = self.run(|connection| {
            redis::cmd("HGETALL")
                .arg(&self.keys.defnames)
                .query(connection)
        })?;
        let lowered = query.to_lowercase();
        let mut names: Vec<(u8, String)> = counts
            .into_iter()
            .filter(|(_, count)| *count > 0)
            .filter_map(|(name, _)| {
                let candidate = name.to_lowercase();
                let rank = if candidate == lowered {
                    0
                } else if candidate.starts_with(&lowered) {
                    1
                } else if candidate.contains(&lowered) {
                    2
                } else {
                    return None;
                };
                Some((rank, name))
            })
            .collect();
        names.sort_by(|(rank_a, a), (rank_b, b)| {
            (rank_a, a.chars().count(), a).cmp(&(rank_b, b.chars().count(), b))
        });
        let mut found = Vec::new();
        for (_, name) in names {
            if found.len() >= limit {
                break;
            }
            found.extend(self.definitions(&name)?);
        }
        found.truncate(limit);
        Ok(found)
    }

    fn dependencies(&self, path: &str) -> Result<Vec<Edge>, IndexError> {
        let json: Option<String> = self.run(|connection| {
            redis::cmd("HGET")
                .arg(&self.keys.edges)
                .arg(path)
                .query(connection)
        })?;
        let mut edges = match json {
            Some(json) => {
                decode_edges(path, &json).map_err(|error| self.corrupt("import edges", error))?
            }
            None => Vec::new(),
        };
        edges.sort_by(|a, b| (a.line, &a.to).cmp(&(b.line, &b.to)));
        Ok(edges)
    }

    fn dependents(&self, path: &str) -> Result<Vec<Edge>, IndexError> {
        let mut edges = self.edges_where(|edge| edge.to == path)?;
        edges.sort_by(|a, b| (&a.from, a.line).cmp(&(&b.from, b.line)));
        Ok(edges)
    }

    fn stats(&self) -> Result<IndexStats, IndexError> {
        type Snapshot = (Vec<String>, Vec<String>, Vec<String>, Option<i64>);
        let (records, metrics, edges, last_indexed_ms): Snapshot = self.run(|connection| {
            redis::pipe()
                .atomic()
                .cmd("HVALS")
                .arg(&self.keys.files)
                .cmd("HVALS")
                .arg(&self.keys.metrics)
                .cmd("HVALS")
                .arg(&self.keys.edges)
                .cmd("HGET")
                .arg(&self.keys.meta)
                .arg("last_indexed_ms")
                .query(connection)
        })?;
        let mut stats = IndexStats {
            files: records.len(),
            last_indexed_ms,
            ..IndexStats::default()
        };
        for json in &records {
            let record = self.decode_record(json)?;
            if let Some(language) = record.language() {
                *stats.by_language.entry(language).or_default() += 1;
            }
            stats.parse_errors += usize::from(record.has_errors());
        }
        for json in &metrics {
            let stored: StoredMetrics =
                serde_json::from_str(json).map_err(|error| self.corrupt("metrics", error))?;
            stats.definitions += stored.definitions;
            stats.references += stored.references;
        }
        for json in &edges {
            let decoded =
                decode_edges("", json).map_err(|error| self.corrupt("import edges", error))?;
            stats.edges += decoded.len();
        }
        Ok(stats)
    }

    fn scope(&self) -> Result<Option<String>, IndexError> {
        let scope: Option<String> = self.run(|connection| {
            redis::cmd("HGET")
                .arg(&self.keys.meta)
                .arg("scope")
                .query(connection)
        })?;
        Ok(scope.filter(|scope| !scope.is_empty()))
    }

    fn set_scope(&mut self, scope: Option<&str>) -> Result<(), IndexError> {
        let scope = scope.filter(|scope| !scope.is_empty());
        self.run(|connection| {
            let command = match scope {
                Some(scope) => {
                    let mut command = redis::cmd("HSET");
                    command.arg(&self.keys.meta).arg("scope").arg(scope);
                    command
                }
                None => {
                    let mut command = redis::cmd("HDEL");
                    command.arg(&self.keys.meta).arg("scope");
                    command
                }
            };
            command.query::<()>(connection)
        })
    }

    fn rank_cache(&self) -> Result<(i64, Option<Vec<u8>>), IndexError> {
        let (generation, built_at, graph): (Option<i64>, Option<i64>, Option<Vec<u8>>) =
            self.run(|connection| {
                redis::pipe()
                    .atomic()
                    .cmd("HGET")
                    .arg(&self.keys.meta)
                    .arg("generation")
                    .cmd("HGET")
                    .arg(&self.keys.rank)
                    .arg("generation")
                    .cmd("HGET")
                    .arg(&self.keys.rank)
                    .arg("graph")
                    .query(connection)
            })?;
        let generation = generation.unwrap_or(0);
        let current = built_at == Some(generation);
        Ok((generation, graph.filter(|_| current)))
    }

    fn store_rank_cache(&self, generation: i64, graph: &[u8]) -> Result<bool, IndexError> {
        self.run(|connection| {
            redis::cmd("WATCH")
                .arg(&self.keys.meta)
                .query::<()>(connection)?;
            let current: Option<i64> = redis::cmd("HGET")
                .arg(&self.keys.meta)
                .arg("generation")
                .query(connection)?;
            if current.unwrap_or(0) != generation {
                redis::cmd("UNWATCH").query::<()>(connection)?;
                return Ok(false);
            }
            // Aborted (nil) when a write changed `meta` since the WATCH: the graph is stale.
            let stored: Option<()> = redis::pipe()
                .atomic()
                .cmd("HSET")
                .arg(&self.keys.rank)
                .arg("generation")
                .arg(generation)
                .arg("graph")
                .arg(graph)
                .ignore()
                .query(connection)?;
            Ok(stored.is_some())
        })
    }
}
