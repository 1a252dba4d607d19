//! Native throughput of the conversion core over `../shared/corpus` (the ceiling for the wasm
//! build). Prints MB/s per provider and mode; run with `cargo bench --bench native`.

use std::time::Instant;

use serde_json::Value;
use toolwire::convert::{convert_json, ConvertOptions};
use toolwire::providers::{GeminiMode, Provider};

fn main() {
    let shared = std::env::var("TOOLWIRE_SHARED").unwrap_or_else(|_| format!("{}/../shared", env!("CARGO_MANIFEST_DIR")));
    let dir = format!("{shared}/corpus/tools");
    let mut files: Vec<_> = std::fs::read_dir(&dir).expect("corpus").filter_map(|e| e.ok()).map(|e| e.path()).collect();
    files.sort();
    let mut inputs = Vec::new();
    for f in files {
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
        inputs.push((v["server"].as_str().unwrap_or("").to_owned(), v["tools"].to_string()));
    }
    let bytes: usize = inputs.iter().map(|(_, t)| t.len()).sum();
    let quick = std::env::args().any(|a| a == "--quick");
    let rounds = if quick { 1 } else { 5 };
    println!("native core over the corpus: {} servers, {:.2} MB of tools JSON, median of {rounds}", inputs.len(), bytes as f64 / 1e6);
    println!("{:<34} {:>10} {:>10}", "path", "ms", "MB/s");
    let modes: &[(&str, Provider, bool, GeminiMode)] = &[
        ("openai", Provider::OpenAi, false, GeminiMode::Parameters),
        ("openai strict", Provider::OpenAi, true, GeminiMode::Parameters),
        ("openai-responses", Provider::OpenAiResponses, false, GeminiMode::Parameters),
        ("anthropic", Provider::Anthropic, false, GeminiMode::Parameters),
        ("anthropic strict", Provider::Anthropic, true, GeminiMode::Parameters),
        ("gemini parameters", Provider::Gemini, false, GeminiMode::Parameters),
        ("gemini parametersJsonSchema", Provider::Gemini, false, GeminiMode::JsonSchema),
        ("vertex", Provider::Vertex, false, GeminiMode::Parameters),
        ("bedrock", Provider::Bedrock, false, GeminiMode::Parameters),
        ("bedrock strict", Provider::Bedrock, true, GeminiMode::Parameters),
    ];
    // The floor: parse the same bytes into a Value and write them back, nothing else.
    {
        let mut times = Vec::new();
        for _ in 0..rounds {
            let t = Instant::now();
            for (_, tools) in &inputs {
                let v: Value = serde_json::from_str(tools).expect("json");
                std::hint::black_box(serde_json::to_string(&v).expect("json"));
            }
            times.push(t.elapsed().as_secs_f64());
        }
        times.sort_by(|a, b| a.total_cmp(b));
        let med = times[times.len() / 2];
        println!("{:<34} {:>10.1} {:>10.1}", "floor: serde_json parse+serialize", med * 1e3, bytes as f64 / 1e6 / med);
    }
    for (label, provider, strict, mode) in modes {
        let mut times = Vec::new();
        for _ in 0..rounds {
            let t = Instant::now();
            for (server, tools) in &inputs {
                let mut o = ConvertOptions { server: Some(server.clone()), ..ConvertOptions::default() };
                o.schema.strict = *strict;
                o.schema.gemini_mode = *mode;
                let out = convert_json(tools, *provider, &o).expect("converts");
                std::hint::black_box(out);
            }
            times.push(t.elapsed().as_secs_f64());
        }
        times.sort_by(|a, b| a.total_cmp(b));
        let med = times[times.len() / 2];
        println!("{label:<34} {:>10.1} {:>10.1}", med * 1e3, bytes as f64 / 1e6 / med);
    }
}
