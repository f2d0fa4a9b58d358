//! Compile once: compiled modules are kept as wasmtime's serialized form in a cache directory,
//! keyed by the SHA-256 of the module bytes and wasmtime's engine-compatibility hash.
#![allow(unsafe_code)]

use crate::HostError;
use sha2::{Digest, Sha256};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use wasmtime::{Engine, Module};

/// Where compiled modules are cached.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Cache {
    /// `$RESTARTKIT_CACHE_DIR`, else `$XDG_CACHE_HOME/restartkit/modules`, else
    /// `$HOME/.cache/restartkit/modules`; no cache when none of them is set.
    #[default]
    Default,
    /// This directory (created if missing). It must be writable by this user only: a file in it
    /// is loaded as native code.
    Dir(PathBuf),
    /// Compile every time.
    Disabled,
}

impl Cache {
    pub fn dir(&self) -> Option<PathBuf> {
        match self {
            Cache::Disabled => None,
            Cache::Dir(d) => Some(d.clone()),
            Cache::Default => std::env::var_os("RESTARTKIT_CACHE_DIR")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("XDG_CACHE_HOME").map(|x| PathBuf::from(x).join("restartkit/modules")))
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/restartkit/modules"))),
        }
    }
}

/// The cache file for `bytes` under `engine`'s configuration.
pub(crate) fn cache_file(dir: &Path, engine: &Engine, bytes: &[u8]) -> PathBuf {
    let digest = Sha256::digest(bytes);
    let mut key = String::with_capacity(80);
    for b in digest.iter() {
        key.push_str(&format!("{b:02x}"));
    }
    let mut h = std::collections::hash_map::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut h);
    dir.join(format!("{key}-{:016x}.cwasm", h.finish()))
}

/// Compiles `bytes` (binary or, with wasmtime's `wat` feature, text), through the cache.
/// Returns the module and whether it came from the cache.
pub(crate) fn compile(engine: &Engine, bytes: &[u8], cache: &Cache) -> Result<(Module, bool), HostError> {
    let file = cache.dir().map(|d| cache_file(&d, engine, bytes));
    if let Some(f) = &file
        && f.is_file()
    {
        // SAFETY: the file is one this host wrote with Module::serialize for this engine
        // configuration (the name carries both the content hash and the engine hash; wasmtime
        // re-checks the engine compatibility itself). The cache directory is trusted (see Cache).
        if let Ok(m) = unsafe { Module::deserialize_file(engine, f) } {
            return Ok((m, true));
        }
    }
    let module = Module::new(engine, bytes).map_err(|e| HostError::InvalidModule(format!("{e:#}")))?;
    if let Some(f) = &file {
        // A cache that cannot be written only costs time: errors are ignored.
        let _ = store(f, &module);
    }
    Ok((module, false))
}

fn store(file: &Path, module: &Module) -> Result<(), Box<dyn std::error::Error>> {
    let dir = file.parent().ok_or("no parent directory")?;
    std::fs::create_dir_all(dir)?;
    let bytes = module.serialize()?;
    let tmp = file.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, file)?;
    Ok(())
}
