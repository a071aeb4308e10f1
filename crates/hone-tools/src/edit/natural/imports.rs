//! A standard-library module a reply's Python code uses but never imports (`re.sub(…)`
//! without `import re`): small models leave the import out again and again, and every
//! check then fails with the same `NameError`. The import is added with the change and
//! named among its actions, so the user sees it in the diff.

/// Modules used through attribute access (`math.floor`) that code often forgets to import.
const STANDARD_MODULES: &[&str] = &[
    "bisect",
    "collections",
    "copy",
    "datetime",
    "decimal",
    "functools",
    "heapq",
    "itertools",
    "json",
    "math",
    "operator",
    "os",
    "random",
    "re",
    "statistics",
    "string",
    "sys",
    "textwrap",
    "time",
    "unicodedata",
];

/// `after` (the new content of a Python file) with an `import` for each standard module
/// its code uses only as `module.name` and never imports or binds, and the modules added.
pub(super) fn with_missing_imports(after: &str) -> (String, Vec<&'static str>) {
    let missing: Vec<&'static str> = STANDARD_MODULES
        .iter()
        .copied()
        .filter(|module| used_unbound(after, module))
        .collect();
    if missing.is_empty() {
        return (after.to_string(), missing);
    }
    let mut lines: Vec<&str> = after.lines().collect();
    let at = import_position(&lines);
    let imports: Vec<String> = missing
        .iter()
        .map(|module| format!("import {module}"))
        .collect();
    for (offset, line) in imports.iter().enumerate() {
        lines.insert(at + offset, line);
    }
    let mut text = lines.join("\n");
    if after.ends_with('\n') {
        text.push('\n');
    }
    (text, missing)
}

/// Whether `module` appears in `code` outside comments and strings, always followed by
/// `.`, and no line imports it (`import re`, `import os.path`, `from re import sub`,
/// `import x as re`).
fn used_unbound(code: &str, module: &str) -> bool {
    let mut used = false;
    let masked = without_strings_and_comments(code);
    for code_part in masked.lines() {
        let trimmed = code_part.trim_start();
        if trimmed.starts_with("import ") || trimmed.starts_with("from ") {
            let names = trimmed
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .collect::<Vec<_>>();
            if names.contains(&module) {
                return false;
            }
            continue;
        }
        for (start, _) in code_part.match_indices(module) {
            let before = code_part[..start].chars().next_back();
            let after = code_part[start + module.len()..].chars().next();
            let word_start = before.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '.'));
            let word_end = after.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
            if !(word_start && word_end) {
                continue;
            }
            // Any other use (`string = …`, a parameter `def f(string)`) binds the name.
            if after != Some('.') {
                return false;
            }
            used = true;
        }
    }
    used
}

/// `code` with the text of its comments and string literals (triple-quoted ones across
/// lines too) blanked out, line breaks kept: `open('src/math.ts')` uses no `math`.
fn without_strings_and_comments(code: &str) -> String {
    let mut masked = String::with_capacity(code.len());
    let mut chars = code.chars().peekable();
    // The open string's quote and whether it is triple.
    let mut string: Option<(char, bool)> = None;
    let mut comment = false;
    while let Some(c) = chars.next() {
        if c == '\n' {
            comment = false;
            if string.is_some_and(|(_, triple)| !triple) {
                string = None;
            }
            masked.push(c);
            continue;
        }
        if comment {
            masked.push(' ');
            continue;
        }
        match string {
            Some((quote, triple)) => {
                if c == '\\' {
                    masked.push(' ');
                    if chars.peek().is_some_and(|next| *next != '\n') {
                        chars.next();
                        masked.push(' ');
                    }
                } else if c == quote && (!triple || two_more_quotes(&mut chars, quote)) {
                    string = None;
                    masked.extend(std::iter::repeat_n(c, if triple { 3 } else { 1 }));
                } else {
                    masked.push(' ');
                }
            }
            None if c == '#' => {
                comment = true;
                masked.push(' ');
            }
            None if c == '"' || c == '\'' => {
                let triple = two_more_quotes(&mut chars, c);
                string = Some((c, triple));
                masked.extend(std::iter::repeat_n(c, if triple { 3 } else { 1 }));
            }
            None => masked.push(c),
        }
    }
    masked
}

/// After one `quote`: whether two more follow (consumed when they do), which opens or
/// closes a triple-quoted string.
fn two_more_quotes(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, quote: char) -> bool {
    let mut ahead = chars.clone();
    if ahead.next() == Some(quote) && ahead.next() == Some(quote) {
        chars.next();
        chars.next();
        return true;
    }
    false
}

/// The line an import goes before: after the last import at the top of the file, else
/// after a leading comment, `from __future__` and the module docstring.
fn import_position(lines: &[&str]) -> usize {
    let mut position = 0;
    let mut in_docstring: Option<&str> = None;
    for (index, line) in lines.iter().enumerate() {
        let trimmed = line.trim();
        if let Some(quote) = in_docstring {
            if trimmed.contains(quote) {
                in_docstring = None;
                position = index + 1;
            }
            continue;
        }
        if index == position && (trimmed.starts_with("\"\"\"") || trimmed.starts_with("'''")) {
            let quote = &trimmed[..3];
            if trimmed.len() >= 6 && trimmed[3..].contains(quote) {
                position = index + 1;
            } else {
                in_docstring = Some(quote);
            }
            continue;
        }
        if line.starts_with("import ") || line.starts_with("from ") {
            position = index + 1;
        } else if trimmed.is_empty() || trimmed.starts_with('#') {
            if index == position && trimmed.starts_with('#') {
                position = index + 1;
            }
        } else {
            break;
        }
    }
    position
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_module_used_without_its_import_is_imported_after_the_others() {
        let code = "from collections import Counter\n\n\ndef count(text):\n    return Counter(re.findall(r\"\\w+\", text.lower()))\n";
        let (fixed, added) = with_missing_imports(code);
        assert_eq!(added, ["re"]);
        assert_eq!(
            fixed,
            "from collections import Counter\nimport re\n\n\ndef count(text):\n    return Counter(re.findall(r\"\\w+\", text.lower()))\n"
        );
    }

    #[test]
    fn a_file_without_imports_gets_it_after_its_docstring() {
        let code =
            "\"\"\"Geometry.\n\nShapes.\n\"\"\"\n\ndef area(r):\n    return math.pi * r * r\n";
        let (fixed, added) = with_missing_imports(code);
        assert_eq!(added, ["math"]);
        assert!(fixed.starts_with("\"\"\"Geometry.\n\nShapes.\n\"\"\"\nimport math\n\ndef area"));
        let (fixed, _) = with_missing_imports("#!/usr/bin/env python3\nx = math.pi\n");
        assert_eq!(fixed, "#!/usr/bin/env python3\nimport math\nx = math.pi\n");
    }

    #[test]
    fn strings_and_comments_are_blanked_with_their_line_breaks() {
        let code = "x = 'a#b' # c\ny = \"\"\"q\nr\"\"\" + math.pi\n";
        let masked = without_strings_and_comments(code);
        assert_eq!(masked.lines().count(), code.lines().count());
        assert_eq!(masked, "x = '   '    \ny = \"\"\" \n \"\"\" + math.pi\n");
        let (_, added) = with_missing_imports(code);
        assert_eq!(added, ["math"]);
    }

    #[test]
    fn imported_bound_or_unrelated_names_are_left_alone() {
        for code in [
            "import re\nre.sub('a', 'b', s)\n",
            "import os.path\nos.path.join(a, b)\n",
            "from re import sub\nre.compile('x')\n",
            "import regex as re\nre.sub('a', 'b', s)\n",
            "def f(string):\n    return string.upper()\n",
            "self.re.sub(x)\n",
            "# re.sub in a comment\nx = 1\n",
            "mode.re = 2\nprefix_re.match(x)\n",
            "with open('src/math.ts') as f:\n    pass\n",
            "\"\"\"Uses\nre.sub inside a docstring.\"\"\"\nx = \"it's json.dumps\"\n",
            "s = 'a \\' re.sub'\n",
        ] {
            let (fixed, added) = with_missing_imports(code);
            assert!(added.is_empty(), "{code:?} got {added:?}");
            assert_eq!(fixed, code);
        }
    }
}
