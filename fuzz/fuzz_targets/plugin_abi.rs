//! (d) The plugin ABI: restartkit_plugin.wasm in the wasmtime host, driven with fuzzed requests,
//! raw pointers and lengths, handles, container indices and exit codes. Needs the built module:
//! `make plugin-wasm`, then RESTARTKIT_PLUGIN=<path> (mk/fuzz.mk sets it).
#![no_main]
use restartkit_host::{Host, Limits};
use std::sync::{Mutex, OnceLock};

fn host() -> &'static Mutex<Host> {
    static HOST: OnceLock<Mutex<Host>> = OnceLock::new();
    HOST.get_or_init(|| {
        let path = restartkit_host::default_plugin_path().expect("set RESTARTKIT_PLUGIN to restartkit_plugin.wasm");
        Mutex::new(Host::load(path, Limits::default()).expect("load the plugin"))
    })
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let mut h = host().lock().unwrap_or_else(|p| p.into_inner());
    if let Err(e) = restartkit_fuzz::plugin_harness::plugin_abi(&mut h, data) {
        panic!("{e}");
    }
});
