//! Checks of the house's shape, run as unit tests over the crate's own source: which module
//! imports which (from `use` paths and `crate::`/`super::` paths in code, tests left out).

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};
    use std::path::{Path, PathBuf};

    /// Every source file of the crate as (module path, text without its tests).
    fn modules() -> Vec<(String, String)> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        walk(&root, &mut files);
        files
            .into_iter()
            .map(|file| {
                let relative = file.strip_prefix(&root).unwrap().with_extension("");
                let mut parts: Vec<String> = relative
                    .iter()
                    .map(|part| part.to_string_lossy().into_owned())
                    .collect();
                let is_folder_module = parts.last().is_some_and(|last| last == "mod");
                if is_folder_module || parts == ["lib"] || parts == ["main"] {
                    parts.pop();
                }
                let text = std::fs::read_to_string(&file).unwrap();
                let code = text.split("#[cfg(test)]").next().unwrap_or_default().to_owned();
                (parts.join("::"), code)
            })
            .collect()
    }

    fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, files);
            } else if path.extension().is_some_and(|extension| extension == "rs") {
                files.push(path);
            }
        }
    }

    /// Module → the modules it names (the longest module path each `crate::`/`super::` path
    /// starts with), leaving out its own ancestors and descendants.
    fn imports() -> BTreeMap<String, BTreeSet<String>> {
        let modules = modules();
        let names: BTreeSet<String> = modules.iter().map(|(name, ..)| name.clone()).collect();
        let mut graph = BTreeMap::new();
        for (name, code) in &modules {
            let own: Vec<&str> = name.split("::").filter(|part| !part.is_empty()).collect();
            let mut targets = BTreeSet::new();
            for line in code.lines().filter(|line| !line.trim_start().starts_with("//")) {
                for (at, _) in line.match_indices("crate::").chain(line.match_indices("super::")) {
                    let before = &line[..at];
                    if before.ends_with("::") || before.ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                        continue;
                    }
                    let path: String = line[at..]
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                        .collect();
                    let mut segments: Vec<&str> = path.split("::").filter(|part| !part.is_empty()).collect();
                    let mut base: Vec<&str> = own.clone();
                    if segments.first() == Some(&"crate") {
                        base.clear();
                        segments.remove(0);
                    } else {
                        // `super` in `a/b.rs` and in `a/b/mod.rs` is `a`.
                        while segments.first() == Some(&"super") {
                            segments.remove(0);
                            base.pop();
                        }
                    }
                    let full: Vec<&str> = base.into_iter().chain(segments).collect();
                    let found = (1..=full.len())
                        .rev()
                        .map(|count| full[..count].join("::"))
                        .find(|candidate| names.contains(candidate));
                    if let Some(target) = found {
                        let related = target == *name
                            || name.starts_with(&format!("{target}::"))
                            || target.starts_with(&format!("{name}::"));
                        if !related {
                            targets.insert(target);
                        }
                    }
                }
            }
            graph.insert(name.clone(), targets);
        }
        graph
    }

    #[test]
    fn no_two_modules_import_each_other() {
        let graph = imports();
        let mut pairs = Vec::new();
        for (from, targets) in &graph {
            for to in targets {
                if from < to && graph.get(to).is_some_and(|back| back.contains(from)) {
                    pairs.push(format!("{from} <-> {to}"));
                }
            }
        }
        assert!(pairs.is_empty(), "modules that import each other: {pairs:?}");
        // The graph is real: the store imports the engine, the engine never the store.
        assert!(graph["store::worker"].iter().any(|target| target.starts_with("gitdb")));
    }

    #[test]
    fn the_rooms_import_only_rooms_below_them() {
        // The codemap's order, top to bottom (STYLE.md's table); a room may use only rooms
        // after it in this list. `tokens` stands above `domain`, whose validated names it
        // uses, and `metrics` below the store, which counts into it.
        const ROOMS: &[&str] = &[
            "main",
            "app",
            "config",
            "api",
            "client",
            "formats",
            "tokens",
            "webhooks",
            "sync",
            "history",
            "store",
            "metrics",
            "gitdb",
            "domain",
            "routes",
            "deadline",
            "private_file",
            "house",
        ];
        let rank = |module: &str| {
            let room = module.split("::").next().unwrap_or_default();
            ROOMS.iter().position(|candidate| *candidate == room)
        };
        let mut upward = Vec::new();
        for (from, targets) in imports() {
            for to in targets {
                if let (Some(from_rank), Some(to_rank)) = (rank(&from), rank(&to))
                    && to_rank < from_rank
                {
                    upward.push(format!("{from} -> {to}"));
                }
            }
        }
        assert!(upward.is_empty(), "imports of a room above: {upward:?}");
    }
}
