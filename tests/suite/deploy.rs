//! The Kubernetes manifests under `deploy/` and the Dockerfile, checked in form (no
//! cluster here): every document parses as YAML and has what `kubectl apply
//! --dry-run=client` requires (apiVersion, kind, metadata.name); selectors match their
//! pod labels; every Secret and ConfigMap a pod uses is defined (the Secret by the
//! example); the containers' arguments parse as `contagion` command lines; and the
//! run config in the ConfigMap is a valid config whose trainer plays no games itself, and
//! is the shipped config its comment names, resolved with the overrides it names.

use std::collections::BTreeSet;

use clap::Parser;
use contagion::cli::{Cli, Command};
use contagion::config::Config;
use yaml_rust2::{Yaml, YamlLoader};

fn docs() -> Vec<(String, Yaml)> {
    let mut out = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir("deploy")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    paths.sort();
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        let parsed =
            YamlLoader::load_from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for doc in parsed {
            out.push((path.display().to_string(), doc));
        }
    }
    out
}

fn s<'a>(y: &'a Yaml, what: &str) -> &'a str {
    y.as_str()
        .unwrap_or_else(|| panic!("{what}: missing or not a string"))
}

#[test]
fn manifests_are_complete_and_consistent() {
    let docs = docs();
    assert!(docs.len() >= 5, "{} documents", docs.len());
    let (mut secrets, mut maps, mut used_secrets, mut used_maps) = (
        BTreeSet::new(),
        BTreeSet::new(),
        BTreeSet::new(),
        BTreeSet::new(),
    );
    let mut commands = Vec::new();
    let mut run_toml = None;
    for (file, d) in &docs {
        let kind = s(&d["kind"], &format!("{file}: kind"));
        s(&d["apiVersion"], &format!("{file}: apiVersion"));
        if kind == "Kustomization" {
            for r in d["resources"].as_vec().expect("resources") {
                let path = format!("deploy/{}", s(r, "resource"));
                assert!(std::path::Path::new(&path).is_file(), "{path}");
            }
            continue;
        }
        let name = s(&d["metadata"]["name"], &format!("{file}: metadata.name"));
        match kind {
            "Secret" => {
                secrets.insert(name.to_string());
                for key in ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"] {
                    s(&d["stringData"][key], key);
                }
            }
            "ConfigMap" => {
                maps.insert(name.to_string());
                run_toml = Some(s(&d["data"]["run.toml"], "run.toml").to_string());
            }
            "Deployment" | "Job" => {
                let spec = &d["spec"];
                let pod = &spec["template"];
                if kind == "Deployment" {
                    let labels = pod["metadata"]["labels"].as_hash().expect("pod labels");
                    for (k, v) in spec["selector"]["matchLabels"].as_hash().expect("selector") {
                        assert_eq!(labels.get(k), Some(v), "{file}: selector vs labels");
                    }
                    assert!(spec["replicas"].as_i64().is_some_and(|r| r >= 1));
                } else {
                    assert_eq!(
                        s(&pod["spec"]["restartPolicy"], "restartPolicy"),
                        "OnFailure"
                    );
                }
                let containers = pod["spec"]["containers"].as_vec().expect("containers");
                assert!(!containers.is_empty());
                for c in containers {
                    s(&c["name"], "container name");
                    s(&c["image"], "image");
                    for e in c["envFrom"].as_vec().into_iter().flatten() {
                        used_secrets.insert(s(&e["secretRef"]["name"], "secretRef").to_string());
                    }
                    let args: Vec<String> = c["args"]
                        .as_vec()
                        .expect("args")
                        .iter()
                        .map(|a| s(a, "arg").replace("$(POD_NAME)", "selfplay-abc12-xyz"))
                        .collect();
                    commands.push((file.clone(), args));
                }
                for v in pod["spec"]["volumes"].as_vec().into_iter().flatten() {
                    if let Some(n) = v["configMap"]["name"].as_str() {
                        used_maps.insert(n.to_string());
                    }
                }
            }
            other => panic!("{file}: unexpected kind {other}"),
        }
    }
    assert!(
        used_secrets.is_subset(&secrets),
        "{used_secrets:?} vs {secrets:?}"
    );
    assert!(used_maps.is_subset(&maps), "{used_maps:?} vs {maps:?}");
    // The containers' command lines are ones `contagion` accepts: a trainer and workers.
    let mut roles = BTreeSet::new();
    for (file, args) in &commands {
        let cli = Cli::try_parse_from(std::iter::once("contagion".to_string()).chain(args.clone()))
            .unwrap_or_else(|e| panic!("{file}: {args:?}: {e}"));
        roles.insert(match cli.command {
            Command::Train(t) => {
                assert!(t.store.as_deref().is_some_and(|u| u.starts_with("s3://")));
                "train"
            }
            Command::Selfplay(w) => {
                assert!(w.store.starts_with("s3://"));
                "selfplay"
            }
            _ => panic!("{file}: neither train nor selfplay"),
        });
    }
    assert_eq!(roles, BTreeSet::from(["selfplay", "train"]));
    let run_toml = run_toml.expect("a run config");
    let config = Config::parse(&run_toml, "deploy/config.yaml").unwrap();
    assert_eq!(
        config.selfplay.workers, 0,
        "the trainer leaves self-play to the workers"
    );
    // The config is a shipped one resolved with the overrides its comment names: the
    // recipe has one home (configs/), the ConfigMap follows it.
    let text = std::fs::read_to_string("deploy/config.yaml").unwrap();
    let made_by = text
        .lines()
        .find_map(|l| {
            l.trim_start_matches('#')
                .trim()
                .strip_prefix("contagion config ")
        })
        .expect("deploy/config.yaml names the `contagion config` line that made it");
    let cli = Cli::try_parse_from(
        ["contagion", "config"]
            .into_iter()
            .chain(made_by.split_whitespace()),
    )
    .unwrap();
    let Command::Config(args) = cli.command else {
        panic!("not a config command: {made_by}")
    };
    let source = args.config.expect("--config names the shipped config");
    assert!(source.starts_with("configs"), "{}", source.display());
    let resolved = Config::load_with(&source, &args.set).unwrap();
    assert_eq!(
        config, resolved,
        "deploy/config.yaml is not `contagion config {made_by}`: remake it with that line"
    );
    // Word for word, notes included: a field added with its default changes the text.
    assert_eq!(
        run_toml.trim_end(),
        contagion::config::fields::annotated(&resolved).trim_end(),
        "deploy/config.yaml is not word for word `contagion config {made_by}`: remake it with that line"
    );
}

#[test]
fn the_dockerfile_builds_in_two_stages_and_runs_the_binary() {
    let text = std::fs::read_to_string("Dockerfile").unwrap();
    let froms = text.lines().filter(|l| l.starts_with("FROM ")).count();
    assert_eq!(froms, 2, "a build stage and a runtime stage");
    assert!(text.contains("cargo build --release --locked"));
    assert!(text.contains("COPY --from=build /src/target/release/contagion"));
    assert!(text.contains("ENTRYPOINT [\"contagion\"]"));
    for copied in ["Cargo.toml", "Cargo.lock", "src", "configs"] {
        assert!(std::path::Path::new(copied).exists(), "{copied}");
    }
    // Cargo refuses a workspace whose members are missing: the build stage copies each.
    let manifest: toml::Table = std::fs::read_to_string("Cargo.toml")
        .unwrap()
        .parse()
        .unwrap();
    for member in manifest["workspace"]["members"].as_array().unwrap() {
        let member = member.as_str().unwrap();
        if member != "." {
            assert!(
                text.contains(&format!("COPY {member} ./{member}")),
                "{member}"
            );
        }
    }
}
