//! Root-relative path helpers (`/` separators, no leading `./`, `""` is the root).

/// The directory of `path` (`""` for a top-level file).
pub(crate) fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// The last component of `path`.
pub(crate) fn file_name(path: &str) -> &str {
    path.rsplit_once('/').map_or(path, |(_, name)| name)
}

/// `relative` applied to `dir`, with `.` and `..` folded; `None` when it leaves the root.
pub(crate) fn join(dir: &str, relative: &str) -> Option<String> {
    let mut out = String::with_capacity(dir.len() + relative.len() + 1);
    for part in dir.split('/').chain(relative.split('/')) {
        match part {
            "" | "." => {}
            ".." => {
                if out.is_empty() {
                    return None;
                }
                out.truncate(out.rfind('/').unwrap_or(0));
            }
            part => {
                if !out.is_empty() {
                    out.push('/');
                }
                out.push_str(part);
            }
        }
    }
    Some(out)
}

/// `dir` and `name` joined by one `/` (or `name` alone at the root).
pub(crate) fn child(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

/// The directories containing `path`, nearest first, ending with the root `""`.
pub(crate) fn ancestors(path: &str) -> impl Iterator<Item = &str> {
    let mut next = Some(parent(path));
    std::iter::from_fn(move || {
        let current = next?;
        next = (!current.is_empty()).then(|| parent(current));
        Some(current)
    })
}

/// How many leading directory components two paths share.
fn shared_components(a: &str, b: &str) -> usize {
    parent(a)
        .split('/')
        .zip(parent(b).split('/'))
        .take_while(|(x, y)| x == y && !x.is_empty())
        .count()
}

/// The candidate closest to `from` in the directory tree (the first one on ties).
pub(crate) fn nearest<'a>(
    from: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let mut best: Option<(usize, &'a str)> = None;
    for candidate in candidates {
        let score = shared_components(from, candidate);
        if best.is_none_or(|(best_score, _)| score > best_score) {
            best = Some((score, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_folds_dots_and_refuses_to_leave_the_root() {
        assert_eq!(join("src/a", "../b/./c").as_deref(), Some("src/b/c"));
        assert_eq!(join("", "./x").as_deref(), Some("x"));
        assert_eq!(join("src", "../../x"), None);
        assert_eq!(join("a/b", "..").as_deref(), Some("a"));
        assert_eq!(join("a", "../b").as_deref(), Some("b"));
    }

    #[test]
    fn ancestors_end_at_the_root() {
        let all: Vec<&str> = ancestors("a/b/c.rs").collect();
        assert_eq!(all, ["a/b", "a", ""]);
        assert_eq!(ancestors("top.rs").collect::<Vec<_>>(), [""]);
    }

    #[test]
    fn nearest_prefers_the_deepest_shared_directory() {
        let candidates = ["lib/util.h", "src/net/util.h", "src/util.h"];
        assert_eq!(nearest("src/net/a.c", candidates), Some("src/net/util.h"));
        assert_eq!(nearest("docs/x.c", candidates), Some("lib/util.h"));
    }
}
