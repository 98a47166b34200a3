//! The configuration reference cannot drift from the code: the README's table and
//! `configs/infexion.toml` (which documents every field) list exactly the fields of
//! [`Config`], section by section. (Ranges are declared once, in `config/validate.rs`,
//! and quoted by the errors; no document repeats them.)

use std::collections::{BTreeMap, BTreeSet};

use contagion::config::Config;

type Fields = BTreeMap<String, BTreeSet<String>>;

/// Section → field names of a TOML table of tables.
fn fields_of(table: &toml::Table) -> Fields {
    (table.iter())
        .map(|(section, v)| {
            let keys = v.as_table().expect("a section").keys().cloned().collect();
            (section.clone(), keys)
        })
        .collect()
}

/// `text` without its parenthesised parts (nested ones too).
fn without_parentheses(text: &str) -> String {
    let mut depth = 0;
    let mut out = String::new();
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            c if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// The README's "Training configuration" table: `` | `[section]` | `field` (…), … | ``.
fn readme_fields() -> Fields {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let mut out = Fields::new();
    for line in readme.lines() {
        let Some(rest) = line.strip_prefix("| `[") else {
            continue;
        };
        let (section, fields) = rest.split_once("]` |").expect("a section row");
        let names = without_parentheses(fields)
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect();
        out.insert(section.to_string(), names);
    }
    out
}

#[test]
fn the_readme_and_the_reference_config_list_every_field_of_the_code() {
    let code = fields_of(&toml::from_str(&Config::default().to_toml()).unwrap());
    assert_eq!(code.len(), 8, "{code:?}");
    assert_eq!(
        readme_fields(),
        code,
        "README.md's Training configuration table"
    );
    let reference = std::fs::read_to_string("configs/infexion.toml").unwrap();
    assert_eq!(
        fields_of(&toml::from_str(&reference).unwrap()),
        code,
        "configs/infexion.toml"
    );
}
