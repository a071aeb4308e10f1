//! Skills in a session: their names and descriptions in the system prompt, and the `skill`
//! tool that loads one's instructions when the model needs them.

use std::sync::Arc;

use hone_config::{Skill, Skills};
use hone_context::InstructionFile;
use hone_protocol::ToolSpec;
use hone_tools::{Plan, Tool, ToolContext, ToolError, ToolKind, ToolOutput};
use serde_json::{Value, json};

/// The name of the tool that loads a skill.
pub(crate) const SKILL_TOOL: &str = "skill";

/// Loads a skill's `SKILL.md` and the list of its files.
#[derive(Debug)]
pub(crate) struct SkillTool {
    skills: Vec<Skill>,
}

impl Tool for SkillTool {
    fn name(&self) -> &str {
        SKILL_TOOL
    }

    fn spec(&self) -> ToolSpec {
        let names: Vec<&str> = self
            .skills
            .iter()
            .map(|skill| skill.name.as_str())
            .collect();
        ToolSpec {
            name: SKILL_TOOL.to_string(),
            description: "Load a skill's instructions (listed under Skills in the system \
                          prompt) before doing a task it covers; returns its SKILL.md and the \
                          files of its folder."
                .to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "enum": names, "description": "The skill's name"}
                },
                "required": ["name"]
            }),
        }
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn plan(&self, _context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let name = arguments
            .get("name")
            .and_then(Value::as_str)
            .map(str::trim)
            .unwrap_or_default();
        let Some(skill) = self.skills.iter().find(|skill| skill.name == name) else {
            let known: Vec<&str> = self
                .skills
                .iter()
                .map(|skill| skill.name.as_str())
                .collect();
            return Err(ToolError::invalid(format!(
                "no skill named `{name}`; the skills are: {}",
                known.join(", ")
            )));
        };
        Ok(Plan::Done(match skill.load() {
            Ok(text) => ToolOutput::ok(text),
            Err(problem) => ToolOutput::error(problem),
        }))
    }
}

/// The `skill` tool and the system prompt's list of skills, when there are skills.
pub(crate) fn session_skills(skills: Skills) -> Option<(Arc<dyn Tool>, InstructionFile)> {
    if skills.skills.is_empty() {
        return None;
    }
    let mut text = format!(
        "Skills are instructions for particular tasks. When a task matches a skill's \
         description, call `{SKILL_TOOL}` with its name first and follow what it says.\n\n"
    );
    for skill in &skills.skills {
        text.push_str(&format!(
            "- `{}`: {}\n",
            skill.name,
            skill.description.trim()
        ));
    }
    let listing = InstructionFile {
        path: skills.skills[0].dir.clone(),
        shown: "Skills".to_string(),
        text,
        truncated: false,
    };
    Some((
        Arc::new(SkillTool {
            skills: skills.skills,
        }),
        listing,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skills(root: &std::path::Path) -> Skills {
        let dir = root.join("review");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            "---\nname: review\n---\nCheck tests.\n",
        )
        .unwrap();
        Skills {
            skills: vec![Skill {
                name: "review".into(),
                description: "Review a change".into(),
                dir,
                scope: hone_config::Scope::User,
            }],
            warnings: Vec::new(),
        }
    }

    #[test]
    fn the_tool_loads_a_named_skill_and_refuses_unknown_names() {
        let dir = tempfile::tempdir().unwrap();
        let (tool, listing) = session_skills(skills(dir.path())).unwrap();
        assert!(
            listing.text.contains("- `review`: Review a change"),
            "{}",
            listing.text
        );
        let context = ToolContext::new(dir.path()).unwrap();
        match tool.plan(&context, &json!({"name": "review"})).unwrap() {
            Plan::Done(output) => assert!(
                output.content.contains("Check tests."),
                "{}",
                output.content
            ),
            _ => panic!("a skill is read at once"),
        }
        let error = tool
            .plan(&context, &json!({"name": "deploy"}))
            .err()
            .unwrap();
        assert!(
            error.message.contains("the skills are: review"),
            "{}",
            error.message
        );
    }

    #[test]
    fn no_skills_means_no_tool() {
        assert!(session_skills(Skills::default()).is_none());
    }
}
