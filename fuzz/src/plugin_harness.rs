//! What the `plugin_abi` fuzz target does with one input: it drives the policy module
//! (restartkit_plugin.wasm) through the wasmtime host across the ABI boundary -- request bytes
//! copied into linear memory, raw (pointer, length) pairs, prepared-policy handles, container
//! indices and exit codes -- and checks what comes back. Shared by the libFuzzer target and the
//! stable replay test host/tests/bad_input.rs.
//!
//! Findings: a trap (a guest panic is an abort), an ABI breach the host detects (`Protocol`),
//! an action or status code outside the documented set, or a one-shot answer that differs from
//! the native `restartkit::handle_json` on the same request.

use restartkit_host::{Host, HostError, Status};

fn bytes_at<const N: usize>(data: &[u8], at: usize) -> [u8; N] {
    let mut out = [0u8; N];
    for (i, b) in out.iter_mut().enumerate() {
        *b = data.get(at + i).copied().unwrap_or(0);
    }
    out
}

/// Errors the sandbox may legitimately answer with (limits), as opposed to bugs.
fn limit(e: &HostError) -> bool {
    matches!(
        e,
        HostError::Timeout { .. } | HostError::OutOfFuel { .. } | HostError::MemoryLimit { .. }
    )
}

fn bug(what: &str, e: &HostError) -> String {
    format!("{what}: {} ({e})", e.kind())
}

/// One fuzz input. The first byte picks the boundary exercised; the rest is its payload.
pub fn plugin_abi(host: &mut Host, data: &[u8]) -> Result<(), String> {
    let Some((&pick, rest)) = data.split_first() else {
        return Ok(());
    };
    match pick % 4 {
        // A request as bytes (any bytes: the guest checks UTF-8 and JSON itself).
        0 => match host.evaluate(rest) {
            Ok(e) => {
                if e.status == Status::Ok {
                    // The module must answer exactly what the native core answers.
                    if let Ok(text) = std::str::from_utf8(rest)
                        && !text.contains("\"contractVersion\"")
                    {
                        let native = restartkit::handle_json(text);
                        if native != e.body {
                            return Err(format!(
                                "plugin and native answers differ:\nplugin: {}\nnative: {native}",
                                e.body
                            ));
                        }
                    }
                    crate::core_harness::check_response(&e.body, false).map(drop)
                } else if matches!(e.status, Status::Other(_)) {
                    Err(format!("undocumented status {:?}", e.status))
                } else {
                    Ok(())
                }
            }
            Err(e) if limit(&e) => Ok(()),
            Err(e) => Err(bug("evaluate", &e)),
        },
        // A raw (pointer, length) pair: out-of-memory ranges must be status 1, never a trap.
        1 => {
            let ptr = u32::from_le_bytes(bytes_at(rest, 0));
            let len = u32::from_le_bytes(bytes_at(rest, 4));
            match host.raw_evaluate(ptr, len) {
                Ok(_) => Ok(()),
                Err(e) if limit(&e) => Ok(()),
                Err(e) => Err(bug(&format!("raw_evaluate({ptr}, {len})"), &e)),
            }
        }
        // prepare(request) then decisions for chosen containers and exit codes.
        2 => {
            let split = usize::from(bytes_at::<1>(rest, 0)[0]).min(rest.len());
            let (codes, req) = rest.split_at(split);
            let Ok(req) = std::str::from_utf8(req) else {
                return Ok(());
            };
            let prepared = match host.prepare(req) {
                Ok(p) => p,
                Err(HostError::Status { status, .. })
                    if !matches!(status, Status::Other(_) | Status::Internal) =>
                {
                    return Ok(());
                }
                Err(e) if limit(&e) => return Ok(()),
                Err(e) => return Err(bug("prepare", &e)),
            };
            let n = u32::try_from(prepared.container_names().len()).unwrap_or(u32::MAX);
            let mut result = Ok(());
            for chunk in codes.chunks(5) {
                let index = u32::from(bytes_at::<1>(chunk, 0)[0]);
                let exit = i32::from_le_bytes(bytes_at(chunk, 1));
                match host.decide_exit(&prepared, index, exit) {
                    Ok(_) if index < n => {}
                    Ok(a) => result = Err(format!("container index {index} of {n} decided {a:?}")),
                    Err(HostError::Status {
                        status: Status::OutOfRange,
                        ..
                    }) if index >= n => {}
                    Err(e) if limit(&e) => {}
                    Err(e) => result = Err(bug(&format!("decide_exit({index}, {exit})"), &e)),
                }
                if result.is_err() {
                    break;
                }
            }
            let released = host.release(prepared).map_err(|e| bug("release", &e));
            result.and(released)
        }
        // Raw handles, container indices and exit codes: codes 0..=6 or -8 / -9.
        _ => {
            let handle = i32::from_le_bytes(bytes_at(rest, 0));
            let container = i32::from_le_bytes(bytes_at(rest, 4));
            let exit = i32::from_le_bytes(bytes_at(rest, 8));
            match host.raw_decide_exit(handle, container, exit) {
                Ok(c) if (0..=6).contains(&c) || c == -8 || c == -9 => Ok(()),
                Ok(c) => Err(format!(
                    "raw_decide_exit({handle}, {container}, {exit}) = {c}"
                )),
                Err(e) if limit(&e) => Ok(()),
                Err(e) => Err(bug("raw_decide_exit", &e)),
            }
        }
    }
}
