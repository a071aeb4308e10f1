//! Skills in the Agent Skills format: a folder holding `SKILL.md` (front matter `name` and
//! `description`, then instructions) and any files it refers to, found in
//! `~/.config/hone/skills/` and, for a trusted project only, `.hone/skills/` and the shared
//! `.agents/skills/`. Sessions list names and descriptions; the body is read on demand.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::extension_dirs::{Scope, entries, read_text};
use crate::front_matter::FrontMatter;
use crate::load::Config;

/// The directory of skills next to the user file.
pub const SKILLS_DIR: &str = "skills";
/// The file naming and describing a skill.
pub const SKILL_FILE: &str = "SKILL.md";
/// The most files of a skill's folder listed when it is loaded.
const MAX_LISTED_FILES: usize = 200;

/// One skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// Its name (front matter `name`, else the folder's name).
    pub name: String,
    /// When to use it (front matter `description`).
    pub description: String,
    /// Its folder.
    pub dir: PathBuf,
    /// Whether it is the user's or the project's.
    pub scope: Scope,
}

impl Skill {
    /// `SKILL.md`'s text followed by the list of the folder's other files (relative paths),
    /// read again now; a project's skill never follows a symbolic link.
    pub fn load(&self) -> Result<String, String> {
        let text = read_text(&self.dir.join(SKILL_FILE), self.scope)
            .map_err(|error| format!("could not read the skill `{}`: {error}", self.name))?;
        let mut files = Vec::new();
        list_files(&self.dir, Path::new(""), self.scope, &mut files);
        files.retain(|file| file != SKILL_FILE);
        let mut loaded = format!(
            "# Skill `{}` ({})\n\n{}",
            self.name,
            self.dir.display(),
            text.trim_end()
        );
        if !files.is_empty() {
            loaded.push_str("\n\n## Files of this skill (paths relative to its folder)\n");
            for file in &files {
                loaded.push_str(&format!("- {file}\n"));
            }
            if files.len() >= MAX_LISTED_FILES {
                loaded.push_str("- … (more files not listed)\n");
            }
        }
        Ok(loaded)
    }
}

/// Adds the files under `dir/relative` to `files` (at most [`MAX_LISTED_FILES`]).
fn list_files(dir: &Path, relative: &Path, scope: Scope, files: &mut Vec<String>) {
    for path in entries(&dir.join(relative), scope) {
        if files.len() >= MAX_LISTED_FILES {
            return;
        }
        let Some(name) = path.file_name() else {
            continue;
        };
        let inner = relative.join(name);
        if path.is_dir() {
            list_files(dir, &inner, scope, files);
        } else {
            files.push(inner.to_string_lossy().replace('\\', "/"));
        }
    }
}

/// The skills found, and what was wrong with the folders that were skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Skills {
    /// By name.
    pub skills: Vec<Skill>,
    /// Folders skipped and why, and a project's skills ignored as it is not trusted.
    pub warnings: Vec<String>,
}

impl Skills {
    /// The skill named `name`.
    pub fn get(&self, name: &str) -> Option<&Skill> {
        self.skills.iter().find(|skill| skill.name == name)
    }
}

impl Config {
    /// The skills of the user and, when the project is trusted, of the project (a project's
    /// skill replaces the user's of the same name; `.hone/skills/` over `.agents/skills/`).
    pub fn skills(&self) -> Skills {
        let (dirs, ignored) = self.extension_dirs(SKILLS_DIR, &[".agents/skills", ".hone/skills"]);
        let mut found = BTreeMap::new();
        let mut warnings: Vec<String> = ignored
            .iter()
            .map(|dir| {
                format!(
                    "the project's skills in {} are ignored: the project is not trusted (add \
                     it to `trusted_projects` in your user config to use them)",
                    dir.display()
                )
            })
            .collect();
        for dir in dirs {
            for folder in entries(&dir.path, dir.scope) {
                let file = folder.join(SKILL_FILE);
                if !folder.is_dir() || std::fs::symlink_metadata(&file).is_err() {
                    continue;
                }
                match read_skill(&folder, dir.scope) {
                    Ok(skill) => {
                        found.insert(skill.name.clone(), skill);
                    }
                    Err(problem) => {
                        warnings.push(format!("skill {} skipped: {problem}", folder.display()))
                    }
                }
            }
        }
        Skills {
            skills: found.into_values().collect(),
            warnings,
        }
    }
}

fn read_skill(folder: &Path, scope: Scope) -> Result<Skill, String> {
    let text = read_text(&folder.join(SKILL_FILE), scope).map_err(|error| error.to_string())?;
    let parsed = FrontMatter::parse(&text)?;
    let name = parsed
        .get(&["name"])
        .map(str::to_string)
        .or_else(|| {
            folder
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
        })
        .unwrap_or_default();
    let valid = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !valid {
        return Err(format!(
            "the name `{name}` may use letters, digits, `-`, `_` and `.`"
        ));
    }
    let description = parsed
        .get(&["description"])
        .map(str::trim)
        .filter(|description| !description.is_empty())
        .ok_or("SKILL.md has no `description` in its front matter")?;
    Ok(Skill {
        name,
        description: description.to_string(),
        dir: folder.to_path_buf(),
        scope,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::custom_commands::tests::reload;
    use crate::test_support::load_layered;

    fn skill(root: &Path, folder: &str, text: &str) -> PathBuf {
        let dir = root.join(folder);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(SKILL_FILE), text).unwrap();
        dir
    }

    #[test]
    fn skills_are_listed_and_loaded_with_their_files() {
        let (dir, _) = load_layered("", "");
        let skills_dir = dir.path().join(SKILLS_DIR);
        let pdf = skill(
            &skills_dir,
            "pdf",
            "---\nname: pdf-tools\ndescription: Fill PDF forms\n---\nRun scripts/fill.py.\n",
        );
        std::fs::create_dir_all(pdf.join("scripts")).unwrap();
        std::fs::write(pdf.join("scripts/fill.py"), "print()").unwrap();
        skill(&skills_dir, "nameless", "---\nname: x\n---\nbody\n");
        let config = reload(&dir);
        let found = config.skills();
        let names: Vec<&str> = found
            .skills
            .iter()
            .map(|skill| skill.name.as_str())
            .collect();
        assert_eq!(names, ["pdf-tools"]);
        let loaded = found.get("pdf-tools").unwrap().load().unwrap();
        assert!(loaded.contains("Run scripts/fill.py."), "{loaded}");
        assert!(loaded.contains("- scripts/fill.py"), "{loaded}");
        assert!(!loaded.contains("- SKILL.md"), "{loaded}");
        assert!(
            found.warnings.join("\n").contains("no `description`"),
            "{:?}",
            found.warnings
        );
    }

    #[test]
    fn an_untrusted_projects_skills_are_ignored_with_a_warning() {
        let (dir, _) = load_layered("", "");
        skill(
            &dir.path().join("project/.agents/skills"),
            "deploy",
            "---\nname: deploy\ndescription: Deploy\n---\nGo.\n",
        );
        let found = reload(&dir).skills();
        assert!(found.skills.is_empty());
        assert!(
            found.warnings.join("\n").contains("not trusted"),
            "{:?}",
            found.warnings
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_trusted_projects_skill_files_are_not_followed_through_links() {
        let (dir, _) = load_layered("", "");
        let project = dir.path().join("project");
        let user = format!(
            "trusted_projects = [{:?}]\n",
            project.canonicalize().unwrap().display().to_string()
        );
        std::fs::write(dir.path().join("user.toml"), user).unwrap();
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("secret.txt"), "s").unwrap();
        let deploy = skill(
            &project.join(".hone/skills"),
            "deploy",
            "---\nname: deploy\ndescription: Deploy\n---\nGo.\n",
        );
        std::os::unix::fs::symlink(&outside, deploy.join("linked")).unwrap();
        std::os::unix::fs::symlink(&outside, project.join(".hone/skills/escape")).unwrap();
        let found = reload(&dir).skills();
        let names: Vec<&str> = found
            .skills
            .iter()
            .map(|skill| skill.name.as_str())
            .collect();
        assert_eq!(names, ["deploy"]);
        let loaded = found.skills[0].load().unwrap();
        assert!(!loaded.contains("secret.txt"), "{loaded}");
    }
}
