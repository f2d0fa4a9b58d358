//! Compile once: compiled modules are kept as wasmtime's serialized form in a cache directory,
//! keyed by the SHA-256 of the module bytes and wasmtime's engine-compatibility hash.
//!
//! Loading from a file adds a second, cheaper key: the file's identity (canonical path, length,
//! modification time and, on Unix, device and inode). A hit on it loads the compiled module
//! (memory-mapped by `deserialize_file`) without reading or hashing the source module -- for the
//! 3-4 MB policy module that read and hash were most of a cached load. A miss falls back to the
//! content key, and links the identity key to that entry for next time -- only once the file's
//! timestamps are a second old (see [`SETTLED`]).
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
                .or_else(|| {
                    std::env::var_os("XDG_CACHE_HOME")
                        .map(|x| PathBuf::from(x).join("restartkit/modules"))
                })
                .or_else(|| {
                    std::env::var_os("HOME")
                        .map(|h| PathBuf::from(h).join(".cache/restartkit/modules"))
                }),
        }
    }
}

/// Which cache key a module was found by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheHit {
    /// The SHA-256 of the module's bytes (a module file, if any, was read and hashed).
    Content,
    /// The module file's identity, without reading or hashing it.
    FileIdentity,
}

/// How old a module file's timestamps must be before its identity may stand in for its content.
/// Linux stamps mtime/ctime from a clock that only advances every few milliseconds, so a file
/// rewritten with the same length within one such tick of being linked would keep its identity
/// and be served the old module (git's "racy clean" problem). Until its timestamps are this old,
/// a file is read and hashed on every load.
const SETTLED: std::time::Duration = std::time::Duration::from_secs(1);

fn settled(meta: &std::fs::Metadata) -> bool {
    let now = std::time::SystemTime::now();
    let old = |t: std::io::Result<std::time::SystemTime>| {
        t.ok()
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age >= SETTLED)
    };
    #[cfg(unix)]
    let ctime = {
        use std::os::unix::fs::MetadataExt;
        u64::try_from(meta.ctime())
            .ok()
            .zip(u32::try_from(meta.ctime_nsec()).ok())
            .map(|(s, n)| std::time::UNIX_EPOCH + std::time::Duration::new(s, n))
            .ok_or_else(|| std::io::Error::other("ctime before 1970"))
    };
    #[cfg(not(unix))]
    let ctime = meta.modified();
    old(meta.modified()) && old(ctime)
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

/// The identity-keyed cache file for the module file `path` under `engine`'s configuration; `None`
/// when the file cannot be inspected (then only the content key is used).
pub(crate) fn identity_file(dir: &Path, engine: &Engine, path: &Path) -> Option<PathBuf> {
    let path = std::fs::canonicalize(path).ok()?;
    let meta = std::fs::metadata(&path).ok()?;
    let mtime = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    path.hash(&mut h);
    meta.len().hash(&mut h);
    mtime.as_nanos().hash(&mut h);
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (meta.dev(), meta.ino(), meta.ctime(), meta.ctime_nsec()).hash(&mut h);
    }
    let mut e = std::collections::hash_map::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut e);
    Some(dir.join(format!(
        "file-{:016x}-{:016x}.cwasm",
        h.finish(),
        e.finish()
    )))
}

/// Loads the module file `path` from its identity-keyed cache entry, if there is one.
pub(crate) fn load_by_identity(
    engine: &Engine,
    path: &Path,
    cache: &Cache,
) -> Option<(Module, PathBuf)> {
    let file = identity_file(&cache.dir()?, engine, path)?;
    // SAFETY: as in `compile`: a file this host wrote (hard link or copy of a Module::serialize
    // output) in the trusted cache directory; wasmtime re-checks the engine compatibility.
    let module = unsafe { Module::deserialize_file(engine, &file) }.ok()?;
    Some((module, file))
}

/// Remembers that the module file `path` compiled to the content-keyed entry of `bytes`.
pub(crate) fn link_identity(engine: &Engine, path: &Path, bytes: &[u8], cache: &Cache) {
    let Some(dir) = cache.dir() else { return };
    let (Some(link), content) = (
        identity_file(&dir, engine, path),
        cache_file(&dir, engine, bytes),
    ) else {
        return;
    };
    if link.is_file() || !content.is_file() {
        return;
    }
    if !std::fs::metadata(path).is_ok_and(|m| settled(&m)) {
        return;
    }
    // A cache that cannot be written only costs time: errors are ignored.
    let tmp = link.with_extension(format!("tmp{}", std::process::id()));
    if std::fs::hard_link(&content, &tmp)
        .or_else(|_| std::fs::copy(&content, &tmp).map(|_| ()))
        .is_ok()
    {
        let _ = std::fs::rename(&tmp, &link);
    }
}

/// Compiles `bytes` (binary or, with wasmtime's `wat` feature, text), through the cache.
/// Returns the module and whether it came from the cache.
pub(crate) fn compile(
    engine: &Engine,
    bytes: &[u8],
    cache: &Cache,
) -> Result<(Module, bool), HostError> {
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
    let module =
        Module::new(engine, bytes).map_err(|e| HostError::InvalidModule(format!("{e:#}")))?;
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
