//! Code blocks of a model's answer turned into edits, with the index's grammars.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::sync::Arc;

use hone_index::mapper::TreeSitterMapper;
use hone_tools::edit::natural::{NaturalEdit, plan_reply};
use hone_tools::{Plan, ToolContext};
use serde_json::json;
use tempfile::TempDir;

const FIX: &str = "Fix it.";

fn project(files: &[(&str, &str)]) -> (TempDir, ToolContext) {
    let dir = tempfile::tempdir().unwrap();
    for (path, content) in files {
        let full = dir.path().join(path);
        fs::create_dir_all(full.parent().unwrap()).unwrap();
        fs::write(full, content).unwrap();
    }
    let context = ToolContext::new(dir.path())
        .unwrap()
        .with_code_mapper(Some(Arc::new(TreeSitterMapper)));
    (dir, context)
}

/// Applies the reply's change and returns the content of `path`.
fn applied(context: &ToolContext, request: &str, reply: &str, path: &str) -> String {
    match plan_reply(context, request, reply) {
        NaturalEdit::Change(change) => {
            hone_tools::edit::apply(context, &change.plan).unwrap();
        }
        other => panic!("expected a change, got {other:?}"),
    }
    fs::read_to_string(context.root().join(path)).unwrap()
}

fn refused(context: &ToolContext, reply: &str) -> String {
    match plan_reply(context, FIX, reply) {
        NaturalEdit::Refused(reason) => reason,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn a_typescript_function_replaces_its_namesake_and_keeps_the_export() {
    let (_dir, context) = project(&[(
        "src/math.ts",
        "// math\nexport function add(a: number, b: number): number {\n  return a - b;\n}\n\nexport function sub(a: number, b: number): number {\n  return a - b;\n}\n",
    )]);
    let reply = "Here is the fix:\n\n```ts\nfunction add(a: number, b: number): number {\n  return a + b;\n}\n```\n";
    let content = applied(
        &context,
        "The add function subtracts. Fix it.",
        reply,
        "src/math.ts",
    );
    assert_eq!(
        content,
        "// math\nexport function add(a: number, b: number): number {\n  return a + b;\n}\n\nexport function sub(a: number, b: number): number {\n  return a - b;\n}\n"
    );
}

#[test]
fn a_javascript_arrow_function_is_replaced() {
    let (_dir, context) = project(&[(
        "lib/util.js",
        "const double = (x) => x + x + x;\nmodule.exports = { double };\n",
    )]);
    let reply = "```javascript\nconst double = (x) => x * 2;\n```";
    let content = applied(&context, FIX, reply, "lib/util.js");
    assert_eq!(
        content,
        "const double = (x) => x * 2;\nmodule.exports = { double };\n"
    );
}

#[test]
fn a_python_class_fragment_replaces_one_method_and_adds_another() {
    let source = "class Cart:\n    def __init__(self):\n        self.items = []\n\n    def total(self):\n        return 0\n\n\ndef helper():\n    return 1\n";
    let (_dir, context) = project(&[("cart.py", source)]);
    let reply = "```python\nclass Cart:\n    def total(self):\n        return sum(self.items)\n\n    def count(self):\n        return len(self.items)\n```";
    let content = applied(&context, FIX, reply, "cart.py");
    assert_eq!(
        content,
        "class Cart:\n    def __init__(self):\n        self.items = []\n\n    def total(self):\n        return sum(self.items)\n\n    def count(self):\n        return len(self.items)\n\n\ndef helper():\n    return 1\n"
    );
}

#[test]
fn a_typescript_class_fragment_with_one_new_method_is_added_to_the_class() {
    let source = "export class Cart {\n  items: number[] = [];\n\n  add(n: number) {\n    this.items.push(n);\n  }\n}\n";
    let (_dir, context) = project(&[("src/cart.ts", source)]);
    let reply = "```ts\nclass Cart {\n    total() {\n        return this.items.reduce((a, b) => a + b, 0);\n    }\n}\n```";
    let content = applied(&context, "Add a total method to Cart", reply, "src/cart.ts");
    assert_eq!(
        content,
        "export class Cart {\n  items: number[] = [];\n\n  add(n: number) {\n    this.items.push(n);\n  }\n\n  total() {\n      return this.items.reduce((a, b) => a + b, 0);\n  }\n}\n"
    );
}

#[test]
fn a_rust_impl_fragment_replaces_its_method() {
    let source = "pub struct Cart {\n    items: Vec<u32>,\n}\n\nimpl Cart {\n    pub fn total(&self) -> u32 {\n        0\n    }\n\n    pub fn len(&self) -> usize {\n        self.items.len()\n    }\n}\n";
    let (_dir, context) = project(&[("src/cart.rs", source)]);
    let reply = "```rust\nimpl Cart {\n    pub fn total(&self) -> u32 {\n        self.items.iter().sum()\n    }\n}\n```";
    let content = applied(&context, FIX, reply, "src/cart.rs");
    assert_eq!(
        content,
        source.replace("        0\n", "        self.items.iter().sum()\n")
    );
}

#[test]
fn a_go_method_replaces_its_namesake() {
    let source = "package cart\n\ntype Cart struct {\n\tItems []int\n}\n\nfunc (c *Cart) Total() int {\n\treturn 0\n}\n";
    let (_dir, context) = project(&[("cart/cart.go", source)]);
    let reply = "```go\nfunc (c *Cart) Total() int {\n\tsum := 0\n\tfor _, item := range c.Items {\n\t\tsum += item\n\t}\n\treturn sum\n}\n```";
    let content = applied(&context, FIX, reply, "cart/cart.go");
    assert!(content.contains("\tsum := 0\n"), "{content}");
    assert!(!content.contains("return 0"), "{content}");
    assert!(content.starts_with("package cart\n\ntype Cart struct"));
}

#[test]
fn a_bare_java_method_goes_into_its_class() {
    let source = "public class Cart {\n    private int[] items = {};\n\n    public int total() {\n        return 0;\n    }\n}\n";
    let (_dir, context) = project(&[("src/Cart.java", source)]);
    let reply = "```java\npublic int total() {\n    int sum = 0;\n    for (int item : items) sum += item;\n    return sum;\n}\n```";
    let content = applied(&context, FIX, reply, "src/Cart.java");
    assert_eq!(
        content,
        "public class Cart {\n    private int[] items = {};\n\n    public int total() {\n        int sum = 0;\n        for (int item : items) sum += item;\n        return sum;\n    }\n}\n"
    );
}

#[test]
fn a_java_class_fragment_adds_a_missing_method() {
    let source = "public class Cart {\n    public int total() {\n        return 0;\n    }\n}\n";
    let (_dir, context) = project(&[("Cart.java", source)]);
    let reply = "```java\nclass Cart {\n    public int count() {\n        return 0;\n    }\n}\n```";
    let content = applied(&context, "Add count to Cart", reply, "Cart.java");
    assert_eq!(
        content,
        "public class Cart {\n    public int total() {\n        return 0;\n    }\n\n    public int count() {\n        return 0;\n    }\n}\n"
    );
}

#[test]
fn a_path_labelled_block_creates_a_new_file() {
    let (_dir, context) = project(&[("src/a.py", "x = 1\n")]);
    let reply = "Create this file:\n\n```python src/greet.py\ndef greet(name):\n    return f\"hi {name}\"\n```";
    let content = applied(&context, "Write a greet helper", reply, "src/greet.py");
    assert_eq!(content, "def greet(name):\n    return f\"hi {name}\"\n");
}

#[test]
fn a_complete_labelled_file_replaces_the_file() {
    let source = "import os\n\n\ndef a():\n    return 1\n";
    let (_dir, context) = project(&[("m.py", source)]);
    let reply =
        "m.py\n```python\nimport os\n\n\ndef a():\n    return 2\n\n\ndef b():\n    return 3\n```";
    let content = applied(&context, FIX, reply, "m.py");
    assert_eq!(
        content,
        "import os\n\n\ndef a():\n    return 2\n\n\ndef b():\n    return 3\n"
    );
}

#[test]
fn a_labelled_class_that_drops_a_member_is_merged_and_keeps_it() {
    let stack = "class Stack {\n  constructor() {\n    this.items = [];\n  }\n\n  pop() {\n    return this.items.pop();\n  }\n\n  get size() {\n    return this.items.length;\n  }\n}\n\nmodule.exports = { Stack };\n";
    let (_dir, context) = project(&[("stack.js", stack)]);
    // The model rewrote the class to add `peek` and left the `size` getter out; the request
    // describes `peek` "without removing" the item, which asks for no deletion.
    let reply = "```js stack.js\nclass Stack {\n  constructor() {\n    this.items = [];\n  }\n\n  pop() {\n    return this.items.pop();\n  }\n\n  peek() {\n    return this.items[this.items.length - 1];\n  }\n}\n\nmodule.exports = { Stack };\n```\n";
    let content = applied(
        &context,
        "Add a `peek()` method to the `Stack` class: it returns the top item without removing it.",
        reply,
        "stack.js",
    );
    assert!(content.contains("get size() {"), "{content}");
    assert!(content.contains("  peek() {\n"), "{content}");
    assert!(content.contains("return this.items.pop();"), "{content}");
    assert!(
        content.ends_with("module.exports = { Stack };\n"),
        "{content}"
    );
}

#[test]
fn a_struct_written_inside_its_impl_stays_at_the_top_level() {
    let shapes = "/// An axis-aligned rectangle.\n#[derive(Debug, Clone, Copy)]\npub struct Rect {\n    pub width: u32,\n    pub height: u32,\n}\n\nimpl Rect {\n    pub fn new(width: u32, height: u32) -> Self {\n        Self { width, height }\n    }\n}\n";
    let (_dir, context) = project(&[("src/shapes.rs", shapes)]);
    let reply = "```rs src/shapes.rs\nimpl Rect {\n    /// An axis-aligned rectangle.\n    #[derive(Debug, Clone, Copy)]\n    pub struct Rect {\n        pub width: u32,\n        pub height: u32,\n    }\n    pub fn new(width: u32, height: u32) -> Self {\n        Self { width, height }\n    }\n    pub fn area(&self) -> u32 {\n        self.width * self.height\n    }\n}\n```\n";
    let content = applied(
        &context,
        "Add an area method to Rect",
        reply,
        "src/shapes.rs",
    );
    assert!(
        content.starts_with(shapes.split("impl").next().unwrap()),
        "{content}"
    );
    assert_eq!(content.matches("pub struct Rect").count(), 1, "{content}");
    assert!(
        content.contains(
            "    pub fn area(&self) -> u32 {\n        self.width * self.height\n    }\n}\n"
        ),
        "{content}"
    );
}

#[test]
fn a_partial_labelled_file_only_changes_its_definitions() {
    let source = "import os\n\n\ndef a():\n    return 1\n\n\ndef b():\n    return 2\n";
    let (_dir, context) = project(&[("m.py", source)]);
    let reply = "```python\n# m.py\ndef b():\n    return 20\n```";
    let content = applied(&context, FIX, reply, "m.py");
    assert_eq!(content, source.replace("return 2\n", "return 20\n"));
}

#[test]
fn search_replace_blocks_are_applied() {
    let (_dir, context) = project(&[("src/math.py", "def add(a, b):\n    return a - b\n")]);
    let reply = "src/math.py\n```python\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE\n```";
    let content = applied(&context, FIX, reply, "src/math.py");
    assert_eq!(content, "def add(a, b):\n    return a + b\n");
}

#[test]
fn a_unified_diff_in_the_text_is_applied() {
    let (_dir, context) = project(&[("src/math.py", "def add(a, b):\n    return a - b\n")]);
    let reply = "```diff\n--- a/src/math.py\n+++ b/src/math.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n```";
    let content = applied(&context, FIX, reply, "src/math.py");
    assert_eq!(content, "def add(a, b):\n    return a + b\n");
}

#[test]
fn elided_code_is_refused_and_nothing_changes() {
    let source = "export function add(a: number, b: number): number {\n  const sum = a - b;\n  return sum;\n}\n";
    let (_dir, context) = project(&[("src/math.ts", source)]);
    let reply = "```ts\nfunction add(a: number, b: number): number {\n  // ... existing code ...\n  return a + b;\n}\n```";
    let reason = refused(&context, reply);
    assert!(reason.contains("existing code"), "{reason}");
    assert_eq!(
        fs::read_to_string(context.root().join("src/math.ts")).unwrap(),
        source
    );
}

#[test]
fn a_stub_body_is_refused() {
    let (_dir, context) = project(&[("m.py", "def a():\n    x = 1\n    return x\n")]);
    let reason = refused(&context, "```python\ndef a():\n    pass\n```");
    assert!(reason.contains("placeholder body"), "{reason}");
}

#[test]
fn a_change_that_breaks_the_syntax_is_refused() {
    let source = "export function add(a: number, b: number): number {\n  return a - b;\n}\n";
    let (_dir, context) = project(&[("src/math.ts", source)]);
    let reply = "src/math.ts\n<<<<<<< SEARCH\n  return a - b;\n}\n=======\n  return (a + b;\n}\n>>>>>>> REPLACE\n";
    let reason = refused(&context, reply);
    assert!(reason.contains("syntax error"), "{reason}");
    assert_eq!(
        fs::read_to_string(context.root().join("src/math.ts")).unwrap(),
        source
    );
}

#[test]
fn a_name_in_two_files_is_ambiguous_unless_the_request_names_one_or_one_was_read() {
    let source = "export function add(a: number, b: number) {\n  return a - b;\n}\n";
    let (_dir, context) = project(&[("src/a.ts", source), ("src/b.ts", source)]);
    let reply = "```ts\nfunction add(a: number, b: number) {\n  return a + b;\n}\n```";
    match plan_reply(&context, FIX, reply) {
        NaturalEdit::Ambiguous { name, files } => {
            assert_eq!(name, "add");
            assert_eq!(files, vec!["src/a.ts", "src/b.ts"]);
        }
        other => panic!("expected ambiguity, got {other:?}"),
    }
    context.reads().record(
        "src/a.ts",
        &hone_tools::files::hash_bytes(source.as_bytes()),
    );
    assert!(matches!(
        plan_reply(&context, FIX, reply),
        NaturalEdit::Change(change) if change.plan.changes[0].path == "src/a.ts"
    ));
    let content = applied(&context, "Fix add in src/b.ts", reply, "src/b.ts");
    assert!(content.contains("a + b"));
    assert_eq!(
        fs::read_to_string(context.root().join("src/a.ts")).unwrap(),
        source
    );
}

#[test]
fn code_that_matches_nothing_and_answers_to_questions_stay_answers() {
    let source = "export function add(a: number, b: number) {\n  return a - b;\n}\n";
    let (_dir, context) = project(&[("src/math.ts", source)]);
    let example = "For example:\n```ts\nfunction greet(name: string) {\n  return `hi ${name}`;\n}\nconsole.log(add(1, 2));\n```";
    assert_eq!(plan_reply(&context, FIX, example), NaturalEdit::Nothing);
    let quoted = "```ts\nfunction add(a: number, b: number) {\n  return a + b;\n}\n```";
    assert_eq!(
        plan_reply(&context, "What does add do?", quoted),
        NaturalEdit::Nothing
    );
    assert_eq!(
        plan_reply(&context, FIX, "add subtracts; it should add."),
        NaturalEdit::Nothing
    );
}

#[test]
fn write_file_on_an_unread_file_is_allowed_only_when_it_adds() {
    let source = "def a():\n    return 1\n";
    let (_dir, context) = project(&[("m.py", source)]);
    let write = hone_tools::edit::tools()
        .into_iter()
        .find(|tool| tool.name() == "write_file")
        .unwrap();
    let added = format!("{source}\n\ndef b():\n    return 2\n");
    let plan = write
        .plan(&context, &json!({"path": "m.py", "content": added}))
        .unwrap();
    assert!(matches!(plan, Plan::Edit(_)));
    let changed = "def a():\n    return 10\n\n\ndef b():\n    return 2\n";
    let error = write
        .plan(&context, &json!({"path": "m.py", "content": changed}))
        .unwrap_err();
    assert!(error.message.contains("`a` (changed)"), "{}", error.message);
    assert!(error.message.contains("read m.py with read_file first"));
}

#[test]
fn the_index_names_the_files_that_define_a_name() {
    use hone_index::mapper::IndexedMapper;
    use hone_index::tools::SharedIndex;
    use hone_index::{IndexOptions, Indexer};
    use hone_tools::edit::natural::CodeMapper;

    let source = "export function add(a: number, b: number) {\n  return a - b;\n}\n";
    let (dir, _) = project(&[
        ("src/a.ts", source),
        ("lib/b.py", "def add(a, b):\n    return a\n"),
    ]);
    let index = SharedIndex::new(Indexer::open(dir.path(), &IndexOptions::default()).unwrap());
    let mapper = IndexedMapper::new(index);
    assert_eq!(
        mapper.files_defining("add"),
        Some(vec!["lib/b.py".to_string(), "src/a.ts".to_string()])
    );
    assert_eq!(mapper.files_defining("nowhere"), None);

    let context = ToolContext::new(dir.path())
        .unwrap()
        .with_code_mapper(Some(Arc::new(mapper)));
    let reply = "```ts\nfunction add(a: number, b: number) {\n  return a + b;\n}\n```";
    let content = applied(&context, FIX, reply, "src/a.ts");
    assert!(content.contains("return a + b;"), "{content}");
}

#[test]
fn an_unlabelled_copy_of_the_current_definitions_is_unchanged() {
    let source = "function capitalize(word) {\n  return word.charAt(0).toUpperCase() + word.slice(1);\n}\n\nfunction titleCase(text) {\n  return capitalize(text.toLowerCase());\n}\n\nmodule.exports = { capitalize, titleCase };\n";
    let (_dir, context) = project(&[("lib/strings.js", source)]);
    let reply = format!("```js\n{source}```");
    assert_eq!(
        plan_reply(&context, "titleCase is wrong. Fix it.", &reply),
        NaturalEdit::Unchanged {
            path: "lib/strings.js".to_string()
        }
    );
}
