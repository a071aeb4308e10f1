//! A request's fact as a small executable check in the project's language, run from the
//! project root with nothing written into the project: a Python script (`python3 -B -c`)
//! or a Node script (`node --input-type=module -e`) given on the command line. It exits 0
//! when the call gives what the request says, 1 when it does not (or raises), and 3 when
//! it cannot reach the function (the module does not import, the name is not exported):
//! such a check proves nothing and is not used.

use super::facts::{Expected, Fact};

/// The exit code of a check that could not reach the function.
pub(crate) const UNREACHABLE: i32 = 3;

/// Where the function a fact calls is defined, and in which language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Definition {
    /// A Python module: the directory to put on the path (`.`, `src`) and the module's
    /// dotted name (`shop.cart`).
    Python { path_entry: String, module: String },
    /// A JavaScript file, relative to the root (`src/math.js`).
    JavaScript { file: String },
}

/// The check of `fact`, whose function is defined at `definition`: the command line and
/// its short name.
pub(crate) fn check_command(fact: &Fact, definition: &Definition) -> String {
    match definition {
        Definition::Python { path_entry, module } => {
            format!(
                "python3 -B -c {}",
                shell_quote(&python(fact, path_entry, module))
            )
        }
        Definition::JavaScript { file } => format!(
            "node --input-type=module -e {}",
            shell_quote(&javascript(fact, file))
        ),
    }
}

/// What the check claims, for the user (`add(2, 3) == 5`).
pub(crate) fn claim(fact: &Fact) -> String {
    match &fact.expected {
        Expected::Value(value) => format!("{} == {value}", fact.call),
        Expected::Raises(Some(error)) => format!("{} raises {error}", fact.call),
        Expected::Raises(None) => format!("{} raises an error", fact.call),
    }
}

fn python(fact: &Fact, path_entry: &str, module: &str) -> String {
    let call = &fact.call;
    let function = &fact.function;
    let shown = python_string(call);
    let mut script = format!(
        "import sys\nsys.path.insert(0, {entry})\ntry:\n    from {module} import {function}\n\
         except Exception as error:\n    print('hone check: cannot import {function} from \
         {module}:', error)\n    sys.exit({UNREACHABLE})\n",
        entry = python_string(path_entry),
    );
    match &fact.expected {
        Expected::Value(value) => script.push_str(&format!(
            "expected = {value}\nresult = {call}\nif result != expected:\n    \
             print('hone check failed: %s returned %r, expected %r' % ({shown}, result, \
             expected))\n    sys.exit(1)\nprint('hone check passed: %s returned %r' % \
             ({shown}, result))\n",
            value = python_literal(value),
        )),
        Expected::Raises(error) => {
            let caught = error.as_deref().unwrap_or("Exception");
            script.push_str(&format!(
                "try:\n    result = {call}\nexcept {caught} as error:\n    \
                 print('hone check passed: %s raised %r' % ({shown}, error))\n    \
                 sys.exit(0)\nprint('hone check failed: %s returned %r, expected {caught}' % \
                 ({shown}, result))\nsys.exit(1)\n"
            ));
        }
    }
    script
}

fn javascript(fact: &Fact, file: &str) -> String {
    let call = &fact.call;
    let function = &fact.function;
    let shown = js_string(call);
    let mut script = format!(
        "import {{ isDeepStrictEqual, inspect }} from 'node:util';\n\
         import {{ pathToFileURL }} from 'node:url';\n\
         let m;\n\
         try {{ m = await import(pathToFileURL(process.cwd() + '/' + {file})); }}\n\
         catch (error) {{ console.log('hone check: cannot import', {file}, String(error)); \
         process.exit({UNREACHABLE}); }}\n\
         const {function} = m.{function} ?? m.default?.{function} ?? \
         (typeof m.default === 'function' && m.default.name === {name} ? m.default : undefined);\n\
         if (typeof {function} !== 'function') {{ console.log('hone check: ' + {file} + \
         ' does not export {function}'); process.exit({UNREACHABLE}); }}\n",
        file = js_string(file),
        name = js_string(function),
    );
    match &fact.expected {
        Expected::Value(value) => script.push_str(&format!(
            "const expected = {value};\n\
             let result = {call};\n\
             if (result instanceof Promise) result = await result;\n\
             if (!isDeepStrictEqual(result, expected)) {{ console.log('hone check failed: ' + \
             {shown} + ' returned ' + inspect(result) + ', expected ' + inspect(expected)); \
             process.exit(1); }}\n\
             console.log('hone check passed: ' + {shown} + ' returned ' + inspect(result));\n",
            value = js_literal(value),
        )),
        Expected::Raises(error) => {
            let wanted = error
                .as_deref()
                .map_or_else(|| "null".to_string(), js_string);
            script.push_str(&format!(
                "let result;\n\
                 try {{ result = {call}; if (result instanceof Promise) result = await result; }}\n\
                 catch (error) {{ const name = error?.constructor?.name; const wanted = {wanted};\n\
                 if (wanted === null || name === wanted) {{ console.log('hone check passed: ' + \
                 {shown} + ' threw ' + String(error)); process.exit(0); }}\n\
                 console.log('hone check failed: ' + {shown} + ' threw ' + String(error) + \
                 ', expected ' + wanted); process.exit(1); }}\n\
                 console.log('hone check failed: ' + {shown} + ' returned ' + inspect(result) + \
                 ', expected an error'); process.exit(1);\n"
            ));
        }
    }
    script
}

/// `value` in Python: the other languages' `true`, `false`, `null` spelled its way.
fn python_literal(value: &str) -> String {
    match value {
        "true" => "True".into(),
        "false" => "False".into(),
        "null" | "undefined" => "None".into(),
        "NaN" => "float('nan')".into(),
        other => other.to_string(),
    }
}

/// `value` in JavaScript: Python's `True`, `False`, `None` spelled its way.
fn js_literal(value: &str) -> String {
    match value {
        "True" => "true".into(),
        "False" => "false".into(),
        "None" => "null".into(),
        other => other.to_string(),
    }
}

/// `text` as a Python string literal.
fn python_string(text: &str) -> String {
    format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// `text` as a JavaScript string literal.
fn js_string(text: &str) -> String {
    format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// `text` as one single-quoted shell word.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fact(call: &str, expected: Expected) -> Fact {
        Fact {
            function: call[..call.find('(').unwrap()].to_string(),
            call: call.to_string(),
            expected,
        }
    }

    #[test]
    fn a_python_check_imports_the_module_and_compares() {
        let definition = Definition::Python {
            path_entry: "src".into(),
            module: "shop.cart".into(),
        };
        let command = check_command(
            &fact("total([1, 2])", Expected::Value("3".into())),
            &definition,
        );
        assert!(command.starts_with("python3 -B -c '"), "{command}");
        assert!(
            command.contains("sys.path.insert(0, '\\''src'\\'')"),
            "{command}"
        );
        assert!(command.contains("from shop.cart import total"), "{command}");
        assert!(
            command.contains("expected = 3\nresult = total([1, 2])"),
            "{command}"
        );
        let raises = check_command(
            &fact("parse('x')", Expected::Raises(Some("ValueError".into()))),
            &definition,
        );
        assert!(raises.contains("except ValueError as error"), "{raises}");
        assert_eq!(python_literal("null"), "None");
        assert_eq!(python_literal("'a'"), "'a'");
    }

    #[test]
    fn a_node_check_imports_the_file_whatever_its_module_kind() {
        let definition = Definition::JavaScript {
            file: "src/math.js".into(),
        };
        let command = check_command(&fact("add(2, 3)", Expected::Value("5".into())), &definition);
        assert!(
            command.starts_with("node --input-type=module -e '"),
            "{command}"
        );
        assert!(
            command.contains("const add = m.add ?? m.default?.add"),
            "{command}"
        );
        assert!(command.contains("const expected = 5;"), "{command}");
        assert_eq!(js_literal("None"), "null");
        assert_eq!(
            claim(&fact("add(2, 3)", Expected::Value("5".into()))),
            "add(2, 3) == 5"
        );
    }
}
