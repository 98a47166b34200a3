//! The commands of a Markdown document's `sh` blocks, for the tests that run a guide as
//! typed (`tests/suite/readme.rs`, `examples/hexxagon/tests/guide.rs`).

/// Each line of the `sh` blocks that is a command, without its trailing `  # comment`.
pub fn sh_lines(text: &str) -> Vec<String> {
    let (mut out, mut in_sh) = (Vec::new(), false);
    for line in text.lines() {
        if line.starts_with("```") {
            in_sh = line == "```sh";
            continue;
        }
        let command = line.split("  #").next().unwrap_or_default().trim();
        if in_sh && !command.is_empty() && !command.starts_with('#') {
            out.push(command.to_string());
        }
    }
    out
}
