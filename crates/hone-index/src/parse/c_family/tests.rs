use crate::model::{ClassKind, ImportOrigin, Language, Visibility};
use crate::parse::outline;

#[test]
fn include_origins() {
    let found = outline(
        Language::Cpp,
        "#include <stdio.h>\n#include <vector>\n#include <boost/any.hpp>\n#include <sys/types.h>\n#include \"local.h\"\n",
    );
    let origins: Vec<_> = found
        .imports
        .iter()
        .map(|import| (import.source.as_str(), import.origin))
        .collect();
    assert_eq!(
        origins,
        [
            ("stdio.h", ImportOrigin::Builtin),
            ("vector", ImportOrigin::Builtin),
            ("boost/any.hpp", ImportOrigin::External),
            ("sys/types.h", ImportOrigin::Builtin),
            ("local.h", ImportOrigin::Internal),
        ]
    );
}

#[test]
fn prototypes_count_only_without_definitions() {
    let found = outline(
        Language::C,
        "static int helper(int a);\nint api(void);\nstatic int helper(int a) { return a; }\n",
    );
    let functions: Vec<_> = found
        .functions
        .iter()
        .map(|function| {
            (
                function.name.as_str(),
                function.start_line,
                function.is_exported,
            )
        })
        .collect();
    assert_eq!(functions, [("api", 2, true), ("helper", 3, false)]);
}

#[test]
fn access_sections_and_out_of_line_methods() {
    let found = outline(
        Language::Cpp,
        "class A { int hidden; public: A(); static int count(); };\nA::A() {}\nvoid B::run() {}\n",
    );
    let a = &found.classes[0];
    assert_eq!(a.properties[0].visibility, Visibility::Private);
    assert_eq!(a.methods.len(), 2);
    assert!(a.methods[1].is_static);
    let b = &found.classes[1];
    assert_eq!(
        (b.name.as_str(), b.kind, b.start_line),
        ("B", ClassKind::Class, 3)
    );
    assert_eq!(b.methods[0].name, "run");
}
