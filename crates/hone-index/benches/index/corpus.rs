//! A deterministic corpus of realistic TypeScript and Python for the index benchmark.
//!
//! About half the lines are TypeScript (`packages/pkgN/src/*.ts`), half Python
//! (`backend/appN/<sub>/*.py`, packages with `__init__.py`). Files are 100 to 800 lines and
//! import each other (relative TS imports within and across packages, absolute Python
//! imports), and use classes with decorators, generics, interfaces, enums, arrow functions,
//! dataclasses, properties, async methods, doc comments and TODOs. The same seed and size
//! always give the same bytes.

use std::fmt::Write as _;
use std::path::Path;

use crate::rng::Rng;

const NOUNS: [&str; 20] = [
    "user", "order", "invoice", "payment", "session", "cart", "product", "account", "report",
    "token", "cache", "queue", "event", "metric", "audit", "profile", "config", "schedule",
    "shipment", "review",
];
const ROLES: [&str; 8] = [
    "service",
    "repository",
    "controller",
    "client",
    "store",
    "handler",
    "builder",
    "validator",
];
const VERBS: [&str; 12] = [
    "load", "save", "update", "remove", "find", "create", "validate", "render", "sync", "process",
    "compute", "resolve",
];
const PY_SUBPACKAGES: [&str; 4] = ["core", "api", "models", "services"];

/// Files per TypeScript package or Python application.
const FILES_PER_PACKAGE: usize = 40;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Lang {
    TypeScript,
    Python,
}

/// One planned file.
struct Planned {
    lang: Lang,
    /// Root-relative path.
    path: String,
    /// Package (TS) or application (Python) number.
    package: usize,
    /// The main class, e.g. `OrderService12`.
    class: String,
    /// Python module path (`app3.core.order_service_12`); empty for TypeScript.
    module: String,
    lines: usize,
}

/// What was generated.
pub struct Corpus {
    /// Root-relative paths of the source files (with the `__init__.py` files).
    pub files: Vec<String>,
    pub typescript_files: usize,
    pub python_files: usize,
    pub lines: usize,
    pub bytes: u64,
}

fn capitalise(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|first| first.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

/// Writes a corpus of at least `target_lines` lines under `root`.
pub fn generate(root: &Path, target_lines: usize, seed: u64) -> std::io::Result<Corpus> {
    let mut rng = Rng::new(seed);
    let mut plans: Vec<Planned> = Vec::new();
    let mut corpus = Corpus {
        files: Vec::new(),
        typescript_files: 0,
        python_files: 0,
        lines: 0,
        bytes: 0,
    };
    let (mut ts_lines, mut py_lines, mut ts_count, mut py_count) = (0, 0, 0, 0);
    // Files are planned and written one by one (imports only name earlier files) until the
    // written lines reach the target, half of them TypeScript.
    while ts_lines + py_lines < target_lines {
        let lang = if ts_lines <= py_lines {
            Lang::TypeScript
        } else {
            Lang::Python
        };
        let lines = rng.range(100, 800);
        let noun = rng.pick(&NOUNS);
        let role = rng.pick(&ROLES);
        let plan = match lang {
            Lang::TypeScript => {
                let number = ts_count;
                ts_count += 1;
                let package = number / FILES_PER_PACKAGE;
                Planned {
                    lang,
                    path: format!(
                        "packages/pkg{package}/src/{noun}{}{number}.ts",
                        capitalise(role)
                    ),
                    package,
                    class: format!("{}{}{number}", capitalise(noun), capitalise(role)),
                    module: String::new(),
                    lines,
                }
            }
            Lang::Python => {
                let number = py_count;
                py_count += 1;
                let package = number / FILES_PER_PACKAGE;
                let sub = rng.pick(&PY_SUBPACKAGES);
                let name = format!("{noun}_{role}_{number}");
                Planned {
                    lang,
                    path: format!("backend/app{package}/{sub}/{name}.py"),
                    package,
                    class: format!("{}{}{number}", capitalise(noun), capitalise(role)),
                    module: format!("app{package}.{sub}.{name}"),
                    lines,
                }
            }
        };
        plans.push(plan);
        let index = plans.len() - 1;
        let plan = &plans[index];
        let deps = dependencies(&plans, index, &mut rng);
        let text = match plan.lang {
            Lang::TypeScript => typescript_file(plan, &deps, &mut rng),
            Lang::Python => python_file(plan, &deps, &mut rng),
        };
        write_file(root, &plan.path, &text)?;
        let written = text.lines().count();
        match plan.lang {
            Lang::TypeScript => ts_lines += written,
            Lang::Python => py_lines += written,
        }
        corpus.lines += written;
        corpus.bytes += text.len() as u64;
        corpus.files.push(plan.path.clone());
    }
    corpus.typescript_files = ts_count;
    corpus.python_files = py_count;
    for package in 0..py_count.div_ceil(FILES_PER_PACKAGE) {
        let init = format!("backend/app{package}/__init__.py");
        write_file(root, &init, "")?;
        corpus.files.push(init);
        corpus.python_files += 1 + PY_SUBPACKAGES.len();
        for sub in PY_SUBPACKAGES {
            let init = format!("backend/app{package}/{sub}/__init__.py");
            let text = "\"\"\"Generated package.\"\"\"\n";
            write_file(root, &init, text)?;
            corpus.files.push(init);
            corpus.lines += 1;
            corpus.bytes += text.len() as u64;
        }
    }
    Ok(corpus)
}

fn write_file(root: &Path, relative: &str, text: &str) -> std::io::Result<()> {
    let path = root.join(relative);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, text)
}

/// Up to four earlier files of the same package and language, and up to two of earlier
/// packages.
fn dependencies<'a>(plans: &'a [Planned], index: usize, rng: &mut Rng) -> Vec<&'a Planned> {
    let plan = &plans[index];
    let earlier: Vec<&Planned> = plans[..index]
        .iter()
        .filter(|other| other.lang == plan.lang)
        .collect();
    let (same, other): (Vec<&Planned>, Vec<&Planned>) = earlier
        .iter()
        .partition(|other| other.package == plan.package);
    let mut deps: Vec<&Planned> = Vec::new();
    for pool in [(&same, rng.range(0, 4)), (&other, rng.range(0, 2))] {
        for _ in 0..pool.1 {
            if pool.0.is_empty() {
                break;
            }
            let candidate = pool.0[rng.range(0, pool.0.len() - 1)];
            if !deps.iter().any(|dep| dep.path == candidate.path) {
                deps.push(candidate);
            }
        }
    }
    deps
}

/// The TS import specifier of `to` from `from` (both `packages/pkgN/src/x.ts`).
fn ts_specifier(from: &Planned, to: &Planned) -> String {
    let stem = to
        .path
        .rsplit('/')
        .next()
        .unwrap_or("")
        .trim_end_matches(".ts");
    if from.package == to.package {
        format!("./{stem}")
    } else {
        format!("../../pkg{}/src/{stem}", to.package)
    }
}

fn line_count(text: &str) -> usize {
    text.bytes().filter(|byte| *byte == b'\n').count()
}

fn typescript_file(plan: &Planned, deps: &[&Planned], rng: &mut Rng) -> String {
    let class = &plan.class;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "/**\n * {}: the {class} module.\n *\n * Generated for hone's index benchmark.\n */",
        plan.path
    );
    out.push_str("import { EventEmitter } from \"events\";\nimport * as path from \"path\";\n");
    for dep in deps {
        let _ = writeln!(
            out,
            "import {{ {0}, create{0}, type {0}Options }} from \"{1}\";",
            dep.class,
            ts_specifier(plan, dep)
        );
    }
    if rng.chance(30) {
        out.push_str("import type { Logger } from \"@app/logging\";\n");
    } else {
        out.push_str("type Logger = { info(message: string): void };\n");
    }
    let _ = write!(
        out,
        "\nexport interface {class}Options<T = unknown> {{\n  readonly id: string;\n  limit?: number;\n  \
         payload: T;\n  tags: ReadonlyArray<string>;\n}}\n\n\
         export type {class}Key = keyof {class}Options;\n\n\
         export enum {class}State {{\n  Idle = \"idle\",\n  Running = \"running\",\n  Done = \"done\",\n}}\n\n\
         function sealed(constructor: Function): void {{\n  Object.seal(constructor);\n  Object.seal(constructor.prototype);\n}}\n\n\
         function logged(_target: object, key: string, descriptor: PropertyDescriptor): PropertyDescriptor {{\n  \
         const original = descriptor.value;\n  descriptor.value = function (...args: unknown[]) {{\n    \
         console.debug(`call ${{key}}`);\n    return original.apply(this, args);\n  }};\n  return descriptor;\n}}\n\n"
    );
    let fields: Vec<String> = deps
        .iter()
        .enumerate()
        .map(|(n, dep)| format!("dep{n}: {}", dep.class))
        .collect();
    ts_class(&mut out, class, &fields, true, rng);
    let mut block = 0;
    while line_count(&out) + 8 < plan.lines {
        block += 1;
        match rng.range(0, 3) {
            0 => ts_class(&mut out, &format!("{class}Helper{block}"), &[], false, rng),
            1 => {
                let verb = rng.pick(&VERBS);
                let _ = writeln!(
                    out,
                    "/** {verb}s items of the {class}. */\nexport function {verb}{class}{block}<T, U extends object = Record<string, unknown>>(\n  \
                     items: T[],\n  map: (item: T, index: number) => U,\n): U[] {{\n  const result: U[] = [];"
                );
                ts_statements(&mut out, "  ", rng.range(3, 12), rng);
                out.push_str("  items.forEach((item, index) => result.push(map(item, index)));\n  return result;\n}\n\n");
            }
            2 => {
                let verb = rng.pick(&VERBS);
                let _ = writeln!(
                    out,
                    "export const {verb}{block}Async = async (input: string, options?: Partial<{class}Options>): Promise<number> => {{\n  \
                     const result: string[] = [];\n  const items = input.split(\",\");\n  let total = options?.limit ?? 0;"
                );
                ts_statements(&mut out, "  ", rng.range(3, 10), rng);
                out.push_str("  return total + result.length;\n};\n\n");
            }
            _ => {
                let dep_call = deps.first().map_or(String::new(), |dep| {
                    format!(
                        "  const peer = create{0}({{ id: key }} as {0}Options);\n  void peer;\n",
                        dep.class
                    )
                });
                let _ = writeln!(
                    out,
                    "export function create{class}{block}(key: string): {class} | undefined {{\n{dep_call}  \
                     // TODO: cache instances per key\n  return key.length > 0 ? undefined : undefined;\n}}\n"
                );
            }
        }
    }
    let _ = writeln!(
        out,
        "export function create{class}(options: {class}Options): {class} {{\n  return new {class}(options);\n}}\n\nexport default {class};"
    );
    out
}

fn ts_class(out: &mut String, name: &str, deps: &[String], main: bool, rng: &mut Rng) {
    let decorator = if rng.chance(60) { "@sealed\n" } else { "" };
    let heritage = if main {
        " extends EventEmitter".to_string()
    } else {
        format!(" implements Iterable<{name}Item>")
    };
    if !main {
        let _ = writeln!(
            out,
            "interface {name}Item {{\n  key: string;\n  value: number;\n}}\n"
        );
    }
    let type_parameter = if main {
        ""
    } else {
        "<T extends object = object>"
    };
    let _ = writeln!(
        out,
        "/**\n * {name}: keeps state for its callers.\n */\n{decorator}export class {name}{type_parameter}{heritage} {{\n  \
         private readonly cache = new Map<string, number>();\n  protected items: Array<{{ key: string; value: number }}> = [];\n  \
         static instances = 0;\n"
    );
    let mut parameters = vec!["options: unknown".to_string()];
    parameters.extend(deps.iter().map(|dep| format!("private readonly {dep}")));
    let _ = writeln!(
        out,
        "  constructor({}) {{\n    {}\n    {name}.instances += 1;\n    void options;\n  }}\n",
        parameters.join(", "),
        if main { "super();" } else { "// no base class" }
    );
    if !main {
        let _ = writeln!(
            out,
            "  *[Symbol.iterator](): Iterator<{name}Item> {{\n    for (const item of this.items) {{\n      yield item;\n    }}\n  }}\n"
        );
    }
    for method in 0..rng.range(2, 6) {
        let verb = rng.pick(&VERBS);
        let noun = capitalise(rng.pick(&NOUNS));
        let visibility = rng.pick(&["public ", "private ", "protected ", ""]);
        if rng.chance(40) {
            out.push_str("  @logged\n");
        }
        let (asyncness, returns) = if rng.chance(50) {
            ("async ", "Promise<number>")
        } else {
            ("", "number")
        };
        let _ = writeln!(
            out,
            "  {visibility}{asyncness}{verb}{noun}{method}(key: string, limit = 10, ...rest: string[]): {returns} {{\n    \
             const result: string[] = [];\n    const items = rest.concat(key);\n    let total = limit;"
        );
        ts_statements(out, "    ", rng.range(2, 9), rng);
        if !deps.is_empty() {
            out.push_str("    void this.dep0;\n");
        }
        out.push_str("    this.cache.set(key, total);\n    return total + result.length;\n  }\n\n");
    }
    let _ = writeln!(
        out,
        "  get size(): number {{\n    return this.cache.size;\n  }}\n}}\n"
    );
}

fn ts_statements(out: &mut String, indent: &str, count: usize, rng: &mut Rng) {
    for n in 0..count {
        match rng.range(0, 5) {
            0 => {
                let _ = writeln!(
                    out,
                    "{indent}const value{n} = items.length * {};\n{indent}if (value{n} > {}) {{\n{indent}  \
                     // Large inputs are summarised rather than listed.\n{indent}  result.push(`${{value{n}}}-{n}`);\n\
                     {indent}}} else {{\n{indent}  result.push(String(value{n}));\n{indent}}}",
                    rng.range(1, 9),
                    rng.range(10, 99)
                );
            }
            1 => {
                let _ = writeln!(
                    out,
                    "{indent}for (const item of items) {{\n{indent}  if (item.startsWith(\"x-\")) {{\n{indent}    \
                     continue;\n{indent}  }}\n{indent}  total += item.length;\n{indent}}}"
                );
            }
            2 => {
                let _ = writeln!(
                    out,
                    "{indent}try {{\n{indent}  total += JSON.parse(items[0] ?? \"0\") as number;\n{indent}}} catch (error) {{\n\
                     {indent}  // FIXME: report parse failures\n{indent}  console.warn(path.basename(String(error)));\n{indent}}}"
                );
            }
            3 => {
                let _ = writeln!(
                    out,
                    "{indent}const mapped{n} = items.map((item) => ({{ key: item, size: item.length }})).filter((entry) => entry.size > {});\n\
                     {indent}total += mapped{n}.reduce((sum, entry) => sum + entry.size, 0);",
                    rng.range(0, 5)
                );
            }
            4 => {
                let _ = writeln!(
                    out,
                    "{indent}switch (items.length % 3) {{\n{indent}  case 0:\n{indent}    total += 1;\n{indent}    break;\n\
                     {indent}  case 1:\n{indent}    total -= 1;\n{indent}    break;\n{indent}  default:\n{indent}    total *= 2;\n{indent}}}"
                );
            }
            _ => {
                let _ = writeln!(
                    out,
                    "{indent}const label{n} = items.length > 0 ? items.join(\"/\") : \"empty\";\n{indent}result.push(label{n});"
                );
            }
        }
    }
}

fn python_file(plan: &Planned, deps: &[&Planned], rng: &mut Rng) -> String {
    let class = &plan.class;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\"\"\"{}: the {class} module.\n\nGenerated for hone's index benchmark.\n\"\"\"\n\n\
         from __future__ import annotations\n\nimport asyncio\nimport logging\n\
         from dataclasses import dataclass, field\nfrom typing import Generic, Optional, TypeVar\n",
        plan.path
    );
    for dep in deps {
        let function = snake(&dep.class);
        let _ = writeln!(
            out,
            "from {} import {}, create_{function}",
            dep.module, dep.class
        );
    }
    let _ = writeln!(
        out,
        "\nT = TypeVar(\"T\")\nlogger = logging.getLogger(__name__)\n\n\n\
         @dataclass\nclass {class}Record:\n    \"\"\"A stored {class} entry.\"\"\"\n\n    key: str\n    \
         value: int = 0\n    tags: list[str] = field(default_factory=list)\n\n"
    );
    py_class(&mut out, class, deps, true, rng);
    let mut block = 0;
    while line_count(&out) + 8 < plan.lines {
        block += 1;
        match rng.range(0, 2) {
            0 => py_class(&mut out, &format!("{class}Helper{block}"), &[], false, rng),
            1 => {
                let verb = rng.pick(&VERBS);
                let asyncness = if rng.chance(40) { "async " } else { "" };
                let _ = writeln!(
                    out,
                    "{asyncness}def {verb}_{}_{block}(items: list[str], limit: int = 10) -> dict[str, int]:\n    \
                     \"\"\"{verb} the items.\"\"\"\n    result: list[str] = []\n    total = limit",
                    snake(class)
                );
                py_statements(&mut out, "    ", rng.range(3, 12), rng);
                out.push_str("    return {\"total\": total, \"count\": len(result)}\n\n\n");
            }
            _ => {
                let dep_call = deps.first().map_or(String::new(), |dep| {
                    format!(
                        "    peer = create_{}(key)\n    logger.debug(\"peer %s\", peer)\n",
                        snake(&dep.class)
                    )
                });
                let _ = writeln!(
                    out,
                    "def make_{}_{block}(key: str) -> Optional[{class}]:\n{dep_call}    \
                     # TODO: cache instances per key\n    return None if not key else {class}(key)\n\n",
                    snake(class)
                );
            }
        }
    }
    let _ = writeln!(
        out,
        "def create_{}(key: str) -> {class}:\n    \"\"\"Builds a {class}.\"\"\"\n    return {class}(key)",
        snake(class)
    );
    out
}

/// `OrderService12` → `order_service12`.
fn snake(name: &str) -> String {
    let mut out = String::new();
    for (index, character) in name.chars().enumerate() {
        if character.is_ascii_uppercase() {
            if index > 0 {
                out.push('_');
            }
            out.push(character.to_ascii_lowercase());
        } else {
            out.push(character);
        }
    }
    out
}

fn py_class(out: &mut String, name: &str, deps: &[&Planned], main: bool, rng: &mut Rng) {
    let bases = if main { "Generic[T]" } else { "object" };
    let _ = writeln!(
        out,
        "class {name}({bases}):\n    \"\"\"{name} keeps state for its callers.\"\"\"\n\n    instances: int = 0\n"
    );
    let mut parameters = vec!["self".to_string(), "key: str".to_string()];
    parameters.extend(
        deps.iter()
            .enumerate()
            .map(|(n, dep)| format!("dep{n}: Optional[{}] = None", dep.class)),
    );
    let _ = writeln!(
        out,
        "    def __init__({}) -> None:\n        self._key = key\n        self._cache: dict[str, int] = {{}}\n        \
         {name}.instances += 1\n",
        parameters.join(", ")
    );
    let _ = writeln!(
        out,
        "    @property\n    def size(self) -> int:\n        return len(self._cache)\n\n    \
         @staticmethod\n    def normalise(value: str) -> str:\n        return value.strip().lower()\n"
    );
    for method in 0..rng.range(2, 6) {
        let verb = rng.pick(&VERBS);
        let noun = rng.pick(&NOUNS);
        let asyncness = if rng.chance(40) { "async " } else { "" };
        let _ = writeln!(
            out,
            "    {asyncness}def {verb}_{noun}_{method}(self, items: list[str], *, limit: int = 10) -> int:\n        \
             \"\"\"{verb} {noun} entries.\"\"\"\n        result: list[str] = []\n        total = limit"
        );
        py_statements(out, "        ", rng.range(2, 9), rng);
        if asyncness.is_empty() {
            out.push_str(
                "        self._cache[self._key] = total\n        return total + len(result)\n\n",
            );
        } else {
            out.push_str("        await asyncio.sleep(0)\n        return total + len(result)\n\n");
        }
    }
    out.push('\n');
}

fn py_statements(out: &mut String, indent: &str, count: usize, rng: &mut Rng) {
    for n in 0..count {
        match rng.range(0, 4) {
            0 => {
                let _ = writeln!(
                    out,
                    "{indent}value_{n} = len(items) * {}\n{indent}if value_{n} > {}:\n{indent}    \
                     # Large inputs are summarised rather than listed.\n{indent}    result.append(f\"{{value_{n}}}-{n}\")\n\
                     {indent}else:\n{indent}    result.append(str(value_{n}))",
                    rng.range(1, 9),
                    rng.range(10, 99)
                );
            }
            1 => {
                let _ = writeln!(
                    out,
                    "{indent}for item in items:\n{indent}    if item.startswith(\"x-\"):\n{indent}        continue\n\
                     {indent}    total += len(item)"
                );
            }
            2 => {
                let _ = writeln!(
                    out,
                    "{indent}try:\n{indent}    total += int(items[0]) if items else 0\n{indent}except ValueError as error:\n\
                     {indent}    # FIXME: report parse failures\n{indent}    logger.warning(\"bad item: %s\", error)"
                );
            }
            3 => {
                let _ = writeln!(
                    out,
                    "{indent}sizes_{n} = [len(item) for item in items if len(item) > {}]\n{indent}total += sum(sizes_{n})",
                    rng.range(0, 5)
                );
            }
            _ => {
                let _ = writeln!(
                    out,
                    "{indent}with open(\"/dev/null\") as handle_{n}:\n{indent}    total += len(handle_{n}.read(0))"
                );
            }
        }
    }
}
