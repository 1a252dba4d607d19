//! Helpers shared by the native integration tests.
#![allow(dead_code, unreachable_pub)]

use std::path::PathBuf;

use serde_json::Value;

/// `../shared` beside the repository (or `$TOOLWIRE_SHARED`). Tests that need it fail loudly
/// when it is missing: a corpus test that skips proves nothing.
pub fn shared_dir() -> PathBuf {
    if let Ok(p) = std::env::var("TOOLWIRE_SHARED") {
        return PathBuf::from(p);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared")
}

/// One corpus server: its name and its `tools/list` tools.
pub struct Server {
    pub name: String,
    pub tools: Value,
}

/// Every server in `../shared/corpus/tools`, sorted by name.
pub fn corpus() -> Vec<Server> {
    let dir = shared_dir().join("corpus/tools");
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("corpus directory {} is required: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    entries.sort();
    entries
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("readable corpus file");
            let v: Value = serde_json::from_str(&text).expect("corpus file is JSON");
            Server {
                name: v["server"].as_str().expect("corpus file names its server").to_owned(),
                tools: v["tools"].clone(),
            }
        })
        .collect()
}
