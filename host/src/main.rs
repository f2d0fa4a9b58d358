//! `restartkit-host`: the plugin host's command line.
//!
//! ```text
//! restartkit-host conformance [--plugin PATH] FILE...   run vectors through the plugin
//! restartkit-host describe [--plugin PATH]              print the plugin's describe JSON
//! restartkit-host eval [--plugin PATH] [REQUEST]        one contract request (stdin when absent)
//! restartkit-host wat2wasm IN.wat OUT.wasm              compile WebAssembly text (for other hosts)
//! ```

use restartkit_host::{Host, Limits};
use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage:
  restartkit-host conformance [--plugin PATH] FILE...
  restartkit-host describe [--plugin PATH]
  restartkit-host eval [--plugin PATH] [REQUEST_JSON]
  restartkit-host wat2wasm IN.wat OUT.wasm
The plugin defaults to $RESTARTKIT_PLUGIN, then restartkit_plugin.wasm next to this program or in
the cargo target directory.";

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("restartkit-host: {msg}");
            ExitCode::from(2)
        }
    }
}

fn run(args: Vec<String>) -> Result<ExitCode, String> {
    let mut it = args.into_iter();
    let cmd = it.next().ok_or(USAGE)?;
    let mut plugin: Option<PathBuf> = None;
    let mut rest = Vec::new();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--plugin" => plugin = Some(it.next().ok_or("--plugin needs a path")?.into()),
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(ExitCode::SUCCESS);
            }
            _ => rest.push(a),
        }
    }
    let load = |plugin: Option<PathBuf>| -> Result<Host, String> {
        let path = plugin
            .or_else(restartkit_host::default_plugin_path)
            .ok_or("no plugin found: give --plugin PATH or set RESTARTKIT_PLUGIN")?;
        Host::load(&path, Limits::default()).map_err(|e| format!("{}: {e}", path.display()))
    };
    match cmd.as_str() {
        "conformance" => {
            if rest.is_empty() {
                return Err("conformance needs at least one vector file".to_owned());
            }
            let mut host = load(plugin)?;
            let (_, failed) =
                restartkit_host::conformance::run_files(&mut host, &rest, &mut std::io::stdout());
            Ok(if failed == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        "describe" => {
            let mut host = load(plugin)?;
            println!("{}", host.describe().map_err(|e| e.to_string())?);
            Ok(ExitCode::SUCCESS)
        }
        "eval" => {
            let request = match rest.first() {
                Some(r) => r.clone(),
                None => {
                    let mut s = String::new();
                    std::io::stdin()
                        .read_to_string(&mut s)
                        .map_err(|e| e.to_string())?;
                    s
                }
            };
            let mut host = load(plugin)?;
            println!("{}", host.handle_json(&request).map_err(|e| e.to_string())?);
            Ok(ExitCode::SUCCESS)
        }
        "wat2wasm" => {
            let [input, output] = rest.as_slice() else {
                return Err("wat2wasm needs IN and OUT".to_owned());
            };
            let text = std::fs::read(input).map_err(|e| format!("{input}: {e}"))?;
            let bin = wat::parse_bytes(&text).map_err(|e| format!("{input}: {e:#}"))?;
            std::fs::write(output, bin).map_err(|e| format!("{output}: {e}"))?;
            Ok(ExitCode::SUCCESS)
        }
        other => Err(format!("unknown command {other:?}\n{USAGE}")),
    }
}
