use hone_tools::edit::natural::{CodeMapper, Definition, DefinitionKind};

use super::TreeSitterMapper;

fn names(definitions: &[Definition]) -> Vec<(String, DefinitionKind)> {
    definitions
        .iter()
        .map(|definition| (definition.name.clone(), definition.kind))
        .collect()
}

fn member_names(definition: &Definition) -> Vec<&str> {
    definition
        .members
        .iter()
        .map(|member| member.name.as_str())
        .collect()
}

#[test]
fn typescript_definitions_keep_their_export_as_the_outer_range() {
    let source = "import x from './x';\nexport function add(a: number, b: number) {\n  return a - b;\n}\nconst mul = (a, b) => a * b;\nconst n = 1;\nexport class Cart {\n  items = [];\n  total() {\n    return 0;\n  }\n}\ninterface P { a: string }\n";
    let definitions = TreeSitterMapper.definitions("a.ts", source).unwrap();
    assert_eq!(
        names(&definitions),
        vec![
            ("add".to_string(), DefinitionKind::Function),
            ("mul".to_string(), DefinitionKind::Function),
            ("Cart".to_string(), DefinitionKind::Container),
            ("P".to_string(), DefinitionKind::Type),
        ]
    );
    let add = &definitions[0];
    assert!(source[add.outer.clone()].starts_with("export function add"));
    assert!(source[add.inner.clone()].starts_with("function add"));
    let cart = &definitions[2];
    assert_eq!(member_names(cart), vec!["items", "total"]);
    let insert_at = cart.insert_at.unwrap();
    assert_eq!(&source[insert_at..insert_at + 2], "}\n");
}

#[test]
fn python_classes_take_members_after_their_body() {
    let source = "@dataclass\nclass Cart:\n    def total(self):\n        return 0\n\n\ndef add(a, b):\n    return a - b\n";
    let definitions = TreeSitterMapper.definitions("a.py", source).unwrap();
    assert_eq!(
        names(&definitions),
        vec![
            ("Cart".to_string(), DefinitionKind::Container),
            ("add".to_string(), DefinitionKind::Function),
        ]
    );
    let cart = &definitions[0];
    assert!(source[cart.outer.clone()].starts_with("@dataclass"));
    assert!(source[cart.inner.clone()].starts_with("class Cart"));
    assert_eq!(member_names(cart), vec!["total"]);
    assert_eq!(cart.insert_at, Some(source.find("\n\n").unwrap() + 1));
}

#[test]
fn rust_impl_blocks_are_containers_named_after_their_type() {
    let source = "struct Cart { items: Vec<u32> }\n\nimpl Cart {\n    fn total(&self) -> u32 {\n        0\n    }\n}\n\nimpl Display for Cart {\n}\n\nfn add(a: i32, b: i32) -> i32 { a - b }\n";
    let definitions = TreeSitterMapper.definitions("a.rs", source).unwrap();
    assert_eq!(
        names(&definitions),
        vec![
            ("Cart".to_string(), DefinitionKind::Type),
            ("Cart".to_string(), DefinitionKind::Container),
            ("Display for Cart".to_string(), DefinitionKind::Container),
            ("add".to_string(), DefinitionKind::Function),
        ]
    );
    assert_eq!(member_names(&definitions[1]), vec!["total"]);
}

#[test]
fn go_methods_are_named_after_their_receiver() {
    let source = "package cart\n\ntype Cart struct {\n\tItems []int\n}\n\nfunc (c *Cart) Total() int {\n\treturn 0\n}\n\nfunc Add(a, b int) int {\n\treturn a - b\n}\n";
    let definitions = TreeSitterMapper.definitions("a.go", source).unwrap();
    assert_eq!(
        names(&definitions),
        vec![
            ("Cart".to_string(), DefinitionKind::Type),
            ("Cart.Total".to_string(), DefinitionKind::Function),
            ("Add".to_string(), DefinitionKind::Function),
        ]
    );
}

#[test]
fn java_and_c_definitions_are_found() {
    let java = "public class Cart {\n    private int n;\n    public int total() {\n        return 0;\n    }\n}\n";
    let definitions = TreeSitterMapper.definitions("Cart.java", java).unwrap();
    assert_eq!(member_names(&definitions[0]), vec!["n", "total"]);
    let c =
        "int add(int a, int b) {\n    return a - b;\n}\nstatic char *name(void) { return 0; }\n";
    let definitions = TreeSitterMapper.definitions("a.c", c).unwrap();
    assert_eq!(
        names(&definitions),
        vec![
            ("add".to_string(), DefinitionKind::Function),
            ("name".to_string(), DefinitionKind::Function),
        ]
    );
}

#[test]
fn bare_methods_become_a_nameless_container() {
    let fragment = "  total() {\n    return 1;\n  }\n";
    let definitions = TreeSitterMapper.definitions("reply.ts", fragment).unwrap();
    assert_eq!(
        names(&definitions),
        vec![(String::new(), DefinitionKind::Container)]
    );
    let total = &definitions[0].members[0];
    assert_eq!(total.name, "total");
    assert!(fragment[total.outer.clone()].starts_with("total() {"));
    let java = "public int total() {\n    return 1;\n}\n";
    let definitions = TreeSitterMapper.definitions("reply.java", java).unwrap();
    assert_eq!(member_names(&definitions[0]), vec!["total"]);
}

#[test]
fn syntax_errors_are_counted_and_other_files_are_unsupported() {
    assert_eq!(
        TreeSitterMapper.syntax_errors("a.py", "def a():\n    return 1\n"),
        Some(0)
    );
    assert!(
        TreeSitterMapper
            .syntax_errors("a.ts", "function a( {\n")
            .unwrap()
            > 0
    );
    assert_eq!(TreeSitterMapper.syntax_errors("a.json", "{}"), None);
    assert_eq!(TreeSitterMapper.definitions("notes.txt", "text"), None);
}
