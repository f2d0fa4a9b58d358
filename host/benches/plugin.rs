//! Plugin benchmarks: the prepared fast path through wasmtime, the JSON path through the plugin
//! against the native core, and instantiation from the module cache.
//!
//! `cargo bench -p restartkit-host` (after `make plugin`). While the core's PreparedPolicy is a
//! placeholder, `prepared/decide_exit` measures the same call with an unknown handle (the guest
//! answers -8 after one table lookup), and says so in its name.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use criterion::{Criterion, criterion_group, criterion_main};
use restartkit_host::{Cache, Host, Limits};
use serde_json::{Value, json};
use std::hint::black_box;
use std::time::Duration;

fn plugin_path() -> std::path::PathBuf {
    restartkit_host::default_plugin_path()
        .expect("restartkit_plugin.wasm not found: run `make plugin`")
}

fn vector_request(id: &str) -> String {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../conformance/vectors");
    for f in std::fs::read_dir(dir).unwrap() {
        let text = std::fs::read_to_string(f.unwrap().path()).unwrap();
        let vs: Vec<Value> = serde_json::from_str(&text).unwrap();
        if let Some(v) = vs.iter().find(|v| v["id"] == id) {
            return json!({"op": v["op"], "input": v["input"]}).to_string();
        }
    }
    panic!("no vector {id}")
}

const POD: &str = r#"{"object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},
  "spec":{"restartPolicy":"Never","containers":[{"name":"app","image":"busybox",
  "restartPolicy":"Never","restartPolicyRules":[{"action":"Restart","exitCodes":{"operator":"In","values":[42]}}]}]}},
  "featureGates":{"ContainerRestartRules":true}}"#;

fn benches(c: &mut Criterion) {
    let path = plugin_path();
    let mut host = Host::load(&path, Limits::default()).unwrap();

    // Prepared fast path.
    let mut g = c.benchmark_group("prepared");
    match host.prepare(POD) {
        Ok(p) => {
            g.bench_function("decide_exit", |b| {
                let mut code = 0;
                b.iter(|| {
                    code = (code + 1) & 63;
                    black_box(host.decide_exit(&p, 0, black_box(code)).unwrap())
                })
            });
            let policy = restartkit::prepared::PreparedPolicy::new(
                &serde_json::from_str::<Value>(POD).unwrap()["object"],
                &serde_json::from_value(json!({"featureGates": {"ContainerRestartRules": true}}))
                    .unwrap(),
            )
            .unwrap();
            g.bench_function("decide_exit/native", |b| {
                let mut code = 0;
                b.iter(|| {
                    code = (code + 1) & 63;
                    black_box(policy.decide_exit(0, black_box(code)))
                })
            });
        }
        Err(e) => {
            eprintln!(
                "prepare: {e}\n-> measuring decide_exit with an unknown handle (placeholder PreparedPolicy)"
            );
            g.bench_function("decide_exit_unknown_handle", |b| {
                b.iter(|| {
                    black_box(
                        host.raw_decide_exit(black_box(1), 0, black_box(42))
                            .unwrap(),
                    )
                })
            });
        }
    }
    g.finish();

    // JSON path: plugin vs native, on a few real requests.
    let mut g = c.benchmark_group("json");
    let cases = [
        ("describe", r#"{"op":"describe","input":{}}"#.to_owned()),
        ("validate-job", vector_request("val-job-valid-pfp")),
        (
            "container-restart",
            vector_request("rr-cr-in-nomatch-fallback"),
        ),
    ];
    for (name, req) in &cases {
        assert_eq!(host.handle_json(req).unwrap(), restartkit::handle_json(req));
        g.bench_function(format!("{name}/native"), |b| {
            b.iter(|| black_box(restartkit::handle_json(black_box(req))))
        });
        g.bench_function(format!("{name}/plugin"), |b| {
            b.iter(|| black_box(host.handle_json(black_box(req)).unwrap()))
        });
    }
    g.finish();

    // Instantiation: a fresh instance from the compiled module (what follows a trap), and a whole
    // Host::load from the warm module cache -- "instantiation from the cache": engine, epoch
    // thread, cache lookup by the file's identity (no read, no hash), deserialize_file (mmap),
    // InstancePre, first instance and its ABI version checks.
    let mut g = c.benchmark_group("instantiate");
    g.bench_function("instance_from_compiled_module", |b| {
        b.iter(|| host.reinstantiate().unwrap())
    });
    // `host_load_from_cache`: a whole `Host::load` of the plugin file from the warm module cache,
    // dropped inside the timing: stat + canonicalize of the file, the identity-keyed compiled
    // module mapped by `deserialize_file`, InstancePre, the first instance with its ABI checks and
    // export lookups. The engine and its epoch thread are shared with the live `host` above, as
    // in any process that keeps one host alive; `part/engine_new` is their cost otherwise.
    let cached = Host::load_with_cache(&path, Limits::default(), Cache::Default).unwrap();
    assert!(cached.from_cache(), "the module cache is not warm");
    drop(cached);
    let cached = Host::load_with_cache(&path, Limits::default(), Cache::Default).unwrap();
    if cached.cache_hit() != Some(restartkit_host::CacheHit::FileIdentity) {
        eprintln!(
            "note: the plugin file is under a second old, no identity key yet: measuring the content-key path"
        );
    }
    drop(cached);
    g.bench_function("host_load_from_cache", |b| {
        b.iter(|| {
            black_box(Host::load_with_cache(&path, Limits::default(), Cache::Default).unwrap())
        })
    });
    // The same load keyed by content only (what every load did before the identity key): read the
    // module (3.3 MB), SHA-256 it, then as above.
    g.bench_function("host_load_from_cache_by_content", |b| {
        b.iter(|| {
            let bytes = std::fs::read(&path).unwrap();
            black_box(Host::from_bytes(&bytes, Limits::default(), Cache::Default).unwrap())
        })
    });
    // Parts of a load, to see where the time goes.
    let bytes = std::fs::read(&path).unwrap();
    g.bench_function("part/read_file", |b| {
        b.iter(|| black_box(std::fs::read(&path).unwrap()))
    });
    g.bench_function("part/sha256", |b| {
        use sha2::Digest;
        b.iter(|| black_box(sha2::Sha256::digest(black_box(&bytes))))
    });
    g.bench_function("part/stat_and_canonicalize", |b| {
        b.iter(|| {
            black_box((
                std::fs::metadata(&path).unwrap(),
                std::fs::canonicalize(&path).unwrap(),
            ))
        })
    });
    g.bench_function("part/engine_new", |b| {
        b.iter(|| {
            let mut c = wasmtime::Config::new();
            c.epoch_interruption(true);
            black_box(wasmtime::Engine::new(&c).unwrap())
        })
    });
    let mut c = wasmtime::Config::new();
    c.epoch_interruption(true);
    let engine = wasmtime::Engine::new(&c).unwrap();
    let module = wasmtime::Module::new(&engine, &bytes).unwrap();
    let serialized = module.serialize().unwrap();
    let file = std::env::temp_dir().join(format!("restartkit-bench-{}.cwasm", std::process::id()));
    std::fs::write(&file, &serialized).unwrap();
    #[allow(unsafe_code)]
    g.bench_function("part/module_deserialize_file", |b| {
        // SAFETY: a file this benchmark just serialized with the same engine.
        b.iter(|| black_box(unsafe { wasmtime::Module::deserialize_file(&engine, &file) }.unwrap()))
    });
    #[allow(unsafe_code)]
    g.bench_function("part/module_deserialize_bytes", |b| {
        // SAFETY: bytes this benchmark just serialized with the same engine.
        b.iter(|| {
            black_box(unsafe { wasmtime::Module::deserialize(&engine, &serialized) }.unwrap())
        })
    });
    let linker: wasmtime::Linker<()> = wasmtime::Linker::new(&engine);
    g.bench_function("part/instance_pre", |b| {
        b.iter(|| black_box(linker.instantiate_pre(&module).unwrap()))
    });
    let pre = linker.instantiate_pre(&module).unwrap();
    g.bench_function("part/instantiate", |b| {
        b.iter(|| {
            let mut store = wasmtime::Store::new(&engine, ());
            store.set_epoch_deadline(1 << 40);
            black_box(pre.instantiate(&mut store).unwrap());
        })
    });
    let _ = std::fs::remove_file(&file);
    g.finish();
}

criterion_group! {
    name = plugin;
    config = Criterion::default().sample_size(20).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    targets = benches
}
criterion_main!(plugin);
