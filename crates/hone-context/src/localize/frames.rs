//! The frames of a traceback pasted into a request (or of a failing test's output): the
//! file and line of each, and the function when the format names it.
//!
//! Python's `File "app/users.py", line 12, in find`, JavaScript's `at find (src/users.js:12:5)`,
//! Java's `at app.Users.find(Users.java:12)`, and the `path:line[:column]` of Rust, Go,
//! C and most compilers and test runners (`--> src/lib.rs:12:5`, `users_test.go:12:`).

/// One frame: where it points and the function it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The path as written (possibly absolute, possibly a bare file name).
    pub path: String,
    /// The 1-based line.
    pub line: u32,
    /// The function, when the frame names it.
    pub function: Option<String>,
}

/// The frames in `text`, in order, without repeats.
pub fn frames(text: &str) -> Vec<Frame> {
    let mut found: Vec<Frame> = Vec::new();
    for line in text.lines() {
        let frame = python_frame(line)
            .or_else(|| java_frame(line))
            .or_else(|| located_frame(line));
        if let Some(frame) = frame
            && !found
                .iter()
                .any(|known| known.path == frame.path && known.line == frame.line)
        {
            found.push(frame);
        }
    }
    found
}

/// `File "path", line N, in function`.
fn python_frame(line: &str) -> Option<Frame> {
    let rest = line.trim_start().strip_prefix("File \"")?;
    let (path, rest) = rest.split_once('"')?;
    let rest = rest.trim_start().strip_prefix(',')?.trim_start();
    let rest = rest.strip_prefix("line ")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let number = digits.parse().ok()?;
    let function = rest[digits.len()..]
        .trim_start()
        .strip_prefix(", in ")
        .map(|name| name.trim().to_string())
        .filter(|name| is_name(name));
    Some(Frame {
        path: path.to_string(),
        line: number,
        function,
    })
}

/// `at package.Class.method(File.java:N)`.
fn java_frame(line: &str) -> Option<Frame> {
    let rest = line.trim_start().strip_prefix("at ")?;
    let (callee, inside) = rest.split_once('(')?;
    let inside = inside.strip_suffix(')').unwrap_or(inside);
    let (file, number) = inside.rsplit_once(':')?;
    if file.contains('/') || !file.contains('.') || callee.contains(' ') {
        return None;
    }
    let method = callee.rsplit('.').next().filter(|name| is_name(name));
    Some(Frame {
        path: file.to_string(),
        line: number.trim().parse().ok()?,
        function: method.map(str::to_string),
    })
}

/// The first `path:line[:column]` of a line, with the function of a JavaScript
/// `at function (path:line:column)`.
fn located_frame(line: &str) -> Option<Frame> {
    for (index, raw) in line.split_whitespace().enumerate() {
        let token = raw.trim_matches(|c: char| "()[]<>'\",;`".contains(c));
        let token = token.strip_prefix("file://").unwrap_or(token);
        let Some((path, number)) = path_and_line(token) else {
            continue;
        };
        let words: Vec<&str> = line.split_whitespace().collect();
        let function = (index >= 2 && words[index - 2] == "at")
            .then(|| words[index - 1].rsplit('.').next().unwrap_or_default())
            .filter(|name| is_name(name))
            .map(str::to_string);
        return Some(Frame {
            path: path.to_string(),
            line: number,
            function,
        });
    }
    None
}

/// `src/lib.rs:12` or `src/lib.rs:12:5` (also with a trailing `:`): the path, which must
/// have a file extension, and the line.
fn path_and_line(token: &str) -> Option<(&str, u32)> {
    let mut parts = token.split(':');
    let mut path = parts.next()?;
    // A Windows drive (`C:\…`) is not a line number.
    if path.len() == 1 {
        return None;
    }
    if path.is_empty() {
        path = parts.next()?;
    }
    let number: u32 = parts.next()?.parse().ok()?;
    let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let has_extension = file.rsplit_once('.').is_some_and(|(stem, extension)| {
        !stem.is_empty()
            && extension.starts_with(|c: char| c.is_ascii_alphabetic())
            && extension.chars().all(|c| c.is_ascii_alphanumeric())
    });
    let plain = path
        .chars()
        .all(|c| c.is_alphanumeric() || "_-./\\@+".contains(c));
    (has_extension && plain && number > 0).then_some((path, number))
}

fn is_name(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        && !matches!(name, "new" | "Object" | "<module>" | "async")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(path: &str, line: u32, function: Option<&str>) -> Frame {
        Frame {
            path: path.to_string(),
            line,
            function: function.map(str::to_string),
        }
    }

    #[test]
    fn python_tracebacks_give_files_lines_and_functions() {
        let traceback = "Traceback (most recent call last):\n  File \"/home/u/proj/tests/test_users.py\", line 9, in test_missing\n    self.assertIsNone(find(3))\n  File \"/home/u/proj/app/users.py\", line 4, in find\n    return USERS[user_id]\nKeyError: 3";
        assert_eq!(
            frames(traceback),
            [
                frame("/home/u/proj/tests/test_users.py", 9, Some("test_missing")),
                frame("/home/u/proj/app/users.py", 4, Some("find")),
            ]
        );
        let module = "  File \"run.py\", line 1, in <module>";
        assert_eq!(frames(module), [frame("run.py", 1, None)]);
    }

    #[test]
    fn javascript_and_java_stacks_give_their_frames() {
        let node = "TypeError: x is not a function\n    at titleCase (/p/lib/strings.js:3:17)\n    at Object.<anonymous> (/p/test/page.test.js:5:3)\n    at node:internal/main:1:1";
        assert_eq!(
            frames(node),
            [
                frame("/p/lib/strings.js", 3, Some("titleCase")),
                frame("/p/test/page.test.js", 5, None),
            ]
        );
        let java = "Exception in thread \"main\" java.lang.ArithmeticException\n\tat MathUtil.max(MathUtil.java:7)\n\tat TestMain.main(TestMain.java:3)";
        assert_eq!(
            frames(java),
            [
                frame("MathUtil.java", 7, Some("max")),
                frame("TestMain.java", 3, Some("main")),
            ]
        );
    }

    #[test]
    fn compiler_and_panic_locations_are_frames() {
        let rust = "thread 'main' panicked at src/version.rs:14:37:\ncalled `Option::unwrap()` on a `None` value\nerror[E0308]: mismatched types\n --> src/lib.rs:3:5";
        assert_eq!(
            frames(rust),
            [
                frame("src/version.rs", 14, None),
                frame("src/lib.rs", 3, None)
            ]
        );
        assert_eq!(
            frames("    sum_test.go:12: got 1, want 2"),
            [frame("sum_test.go", 12, None)]
        );
    }

    #[test]
    fn prose_times_and_urls_are_not_frames() {
        for text in [
            "meet at 10:30 in room 4",
            "see https://example.com:8080/a.html",
            "C:\\code\\a.py is fine",
            "version 1.2:3 is odd",
            "a ratio of 3:4",
        ] {
            assert!(frames(text).is_empty(), "{text}: {:?}", frames(text));
        }
    }
}
