//! Coloured unified diffs for the terminal.

/// `diff` with added lines green, removed red and hunk headers cyan when `color` is set.
pub(crate) fn render(diff: &str, color: bool) -> String {
    let mut out = String::with_capacity(diff.len() + 64);
    for line in diff.lines() {
        let code = if !color {
            None
        } else if line.starts_with("+++") || line.starts_with("---") {
            Some("1")
        } else if line.starts_with('+') {
            Some("32")
        } else if line.starts_with('-') {
            Some("31")
        } else if line.starts_with("@@") {
            Some("36")
        } else {
            None
        };
        match code {
            Some(code) => out.push_str(&format!("\x1b[{code}m{line}\x1b[0m\n")),
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_only_when_asked() {
        let diff = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n";
        assert_eq!(render(diff, false), diff);
        let coloured = render(diff, true);
        assert!(coloured.contains("\x1b[31m-old\x1b[0m"));
        assert!(coloured.contains("\x1b[32m+new\x1b[0m"));
    }
}
