//! The wasmtime side: engines, sandboxes, the policy module and decider plugins.

use crate::cache::{self, Cache, CacheHit};
use crate::error::{HostError, Status};
use crate::{ABI_MAJOR, ABI_MINOR_PREPARED_WARNINGS, Action, DECIDER_ABI_MAJOR, action_from_code};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::thread::JoinHandle;
use std::time::Duration;
use wasmtime::{
    Config, Engine, Instance, InstancePre, Linker, Memory, Module, ResourceLimiter, Store,
    StoreLimits, StoreLimitsBuilder, Trap, TypedFunc,
};

/// What one plugin call may use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Cap on the linear memory of one instance, in bytes.
    pub memory_bytes: usize,
    /// Wall-clock budget of one call (enforced with epoch interruption, 1 ms resolution).
    pub timeout: Duration,
    /// Fuel per call (roughly one unit per wasm instruction); `None` turns fuel metering off,
    /// which is faster.
    pub fuel: Option<u64>,
}

impl Default for Limits {
    /// The recommended limits of ABI.md: 64 MiB, 1 s, no fuel.
    fn default() -> Self {
        Limits {
            memory_bytes: 64 << 20,
            timeout: Duration::from_secs(1),
            fuel: None,
        }
    }
}

/// Resolution of the wall-clock deadline.
const TICK: Duration = Duration::from_millis(1);

/// Advances the engine's epoch every [`TICK`] until dropped.
struct Ticker {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Ticker {
    fn start(engine: Engine) -> Ticker {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("restartkit-epoch".to_owned())
            .spawn(move || {
                // One epoch per TICK of wall-clock time, not per wake-up: on a loaded machine a
                // 1 ms sleep can take several, and deadlines would stretch with it.
                let start = std::time::Instant::now();
                let mut ticks: u128 = 0;
                while !flag.load(Ordering::Relaxed) {
                    std::thread::sleep(TICK);
                    let due = start.elapsed().as_micros() / TICK.as_micros().max(1);
                    while ticks < due {
                        engine.increment_epoch();
                        ticks += 1;
                    }
                }
            })
            .ok();
        Ticker { stop, thread }
    }
}

impl Drop for Ticker {
    /// Stops the thread without waiting for it: it ends by itself within one tick (joining would
    /// add up to a tick to every drop of a Host).
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        drop(self.thread.take());
    }
}

/// Per-store data: wasmtime's StoreLimits plus a note that a growth was refused.
pub(crate) struct State {
    limits: StoreLimits,
    denied: bool,
}

impl ResourceLimiter for State {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let ok = self.limits.memory_growing(current, desired, maximum)?;
        if !ok {
            self.denied = true;
        }
        Ok(ok)
    }
    fn table_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        self.limits.table_growing(current, desired, maximum)
    }
    fn instances(&self) -> usize {
        self.limits.instances()
    }
    fn tables(&self) -> usize {
        self.limits.tables()
    }
    fn memories(&self) -> usize {
        self.limits.memories()
    }
}

/// An error inside a call: a wasm error discards the instance, a host-side one does not.
enum Fail {
    Wasm(wasmtime::Error),
    Host(HostError),
}

impl From<wasmtime::Error> for Fail {
    fn from(e: wasmtime::Error) -> Self {
        Fail::Wasm(e)
    }
}

/// One compiled module with its limits: makes fresh, armed stores and instances.
struct Sandbox {
    engine: Engine,
    pre: InstancePre<State>,
    limits: Limits,
    deadline_ticks: u64,
}

impl Sandbox {
    fn new(engine: &Engine, module: &Module, limits: &Limits) -> Result<Sandbox, HostError> {
        let imports: Vec<String> = module
            .imports()
            .map(|i| format!("{}::{}", i.module(), i.name()))
            .collect();
        if !imports.is_empty() {
            return Err(HostError::HasImports(imports));
        }
        let linker: Linker<State> = Linker::new(engine);
        let pre = linker
            .instantiate_pre(module)
            .map_err(|e| HostError::Instantiate(format!("{e:#}")))?;
        let tick = TICK.as_micros().max(1);
        let deadline_ticks = u64::try_from(limits.timeout.as_micros().div_ceil(tick))
            .unwrap_or(u64::MAX)
            .saturating_add(1);
        Ok(Sandbox {
            engine: engine.clone(),
            pre,
            limits: limits.clone(),
            deadline_ticks,
        })
    }

    fn arm(&self, store: &mut Store<State>) -> Result<(), HostError> {
        store.set_epoch_deadline(self.deadline_ticks);
        if let Some(fuel) = self.limits.fuel {
            store
                .set_fuel(fuel)
                .map_err(|e| HostError::Trap(format!("cannot set fuel: {e:#}")))?;
        }
        store.data_mut().denied = false;
        Ok(())
    }

    fn instantiate(&self) -> Result<(Store<State>, Instance), HostError> {
        let limits = StoreLimitsBuilder::new()
            .memory_size(self.limits.memory_bytes)
            .instances(1)
            .build();
        let mut store = Store::new(
            &self.engine,
            State {
                limits,
                denied: false,
            },
        );
        store.limiter(|s| s);
        store.epoch_deadline_trap();
        self.arm(&mut store)?;
        let instance =
            self.pre
                .instantiate(&mut store)
                .map_err(|e| match self.classify(e, &store) {
                    HostError::Trap(m) => HostError::Instantiate(m),
                    other => other,
                })?;
        Ok((store, instance))
    }

    fn classify(&self, e: wasmtime::Error, store: &Store<State>) -> HostError {
        let denied = store.data().denied;
        match e.downcast_ref::<Trap>() {
            Some(Trap::Interrupt) => HostError::Timeout {
                limit: self.limits.timeout,
            },
            Some(Trap::OutOfFuel) => HostError::OutOfFuel {
                fuel: self.limits.fuel.unwrap_or(0),
            },
            _ if denied => HostError::MemoryLimit {
                limit_bytes: self.limits.memory_bytes,
            },
            Some(t) => HostError::Trap(t.to_string()),
            None => HostError::Trap(format!("{e:#}")),
        }
    }

    /// Calls the module's `export` (its ABI major version) and refuses a module of another one.
    fn check_abi_major(
        &self,
        (store, instance): (&mut Store<State>, &Instance),
        export: &str,
        kind: &'static str,
        expected: i32,
    ) -> Result<(), HostError> {
        let major: TypedFunc<(), i32> = func(store, instance, export)?;
        let found = major
            .call(&mut *store, ())
            .map_err(|e| self.classify(e, store))?;
        if found == expected {
            Ok(())
        } else {
            Err(HostError::AbiMismatch {
                kind,
                found,
                expected,
            })
        }
    }
}

fn func<P: wasmtime::WasmParams, R: wasmtime::WasmResults>(
    store: &mut Store<State>,
    instance: &Instance,
    name: &str,
) -> Result<TypedFunc<P, R>, HostError> {
    instance
        .get_typed_func::<P, R>(&mut *store, name)
        .map_err(|e| HostError::NotAPlugin {
            export: name.to_owned(),
            message: format!("{e:#}"),
        })
}

fn unpack(r: u64) -> (u32, u32) {
    ((r >> 32) as u32, r as u32)
}

fn read_bytes(
    memory: &Memory,
    store: &Store<State>,
    ptr: u32,
    len: u32,
) -> Result<Vec<u8>, HostError> {
    let (p, l) = (ptr as usize, len as usize);
    p.checked_add(l)
        .and_then(|end| memory.data(store).get(p..end))
        .map(<[u8]>::to_vec)
        .ok_or_else(|| {
            HostError::Protocol(format!("output ({ptr}, {len}) lies outside linear memory"))
        })
}

fn read_string(
    memory: &Memory,
    store: &Store<State>,
    ptr: u32,
    len: u32,
) -> Result<String, HostError> {
    String::from_utf8(read_bytes(memory, store, ptr, len)?)
        .map_err(|e| HostError::Protocol(format!("output is not UTF-8: {e}")))
}

/// The exports of a policy module.
struct PolicyFns {
    alloc: TypedFunc<u32, u32>,
    free: TypedFunc<(u32, u32), ()>,
    describe: TypedFunc<(), u64>,
    evaluate: TypedFunc<(u32, u32), u64>,
    error_detail: TypedFunc<(), u64>,
    prepare: TypedFunc<(u32, u32), i32>,
    containers: TypedFunc<i32, u64>,
    /// `restartkit_prepared_warnings`, from ABI minor 1 on.
    warnings: Option<TypedFunc<i32, u64>>,
    decide: TypedFunc<(i32, i32, i32), i32>,
    release: TypedFunc<i32, i32>,
}

struct Live {
    store: Store<State>,
    memory: Memory,
    f: PolicyFns,
}

impl Live {
    /// Copies `bytes` into a fresh guest buffer; returns (ptr, len).
    fn put(&mut self, bytes: &[u8], limit: usize) -> Result<(u32, u32), Fail> {
        let len = u32::try_from(bytes.len())
            .map_err(|_| Fail::Host(HostError::MemoryLimit { limit_bytes: limit }))?;
        if len == 0 {
            return Ok((0, 0));
        }
        let ptr = self.f.alloc.call(&mut self.store, len)?;
        if ptr == 0 {
            return Err(Fail::Host(if self.store.data().denied {
                HostError::MemoryLimit { limit_bytes: limit }
            } else {
                HostError::Status {
                    status: Status::Internal,
                    detail: Some("restartkit_alloc returned 0".to_owned()),
                }
            }));
        }
        self.memory
            .write(&mut self.store, ptr as usize, bytes)
            .map_err(|e| {
                Fail::Host(HostError::Protocol(format!(
                    "restartkit_alloc gave a bad buffer: {e}"
                )))
            })?;
        Ok((ptr, len))
    }

    /// Reads a host-owned output buffer and frees it.
    fn take(&mut self, ptr: u32, len: u32) -> Result<String, Fail> {
        let s = read_string(&self.memory, &self.store, ptr, len).map_err(Fail::Host)?;
        self.f.free.call(&mut self.store, (ptr, len))?;
        Ok(s)
    }

    /// The guest-owned error detail of the last failed call.
    fn detail(&mut self) -> Result<Option<String>, Fail> {
        let (p, l) = unpack(self.f.error_detail.call(&mut self.store, ())?);
        if p == 0 {
            return Ok(None);
        }
        Ok(Some(
            read_string(&self.memory, &self.store, p, l).map_err(Fail::Host)?,
        ))
    }

    /// A packed u64 answer: the output on success, or the status and detail.
    fn answer(&mut self, r: u64) -> Result<Evaluation, Fail> {
        match unpack(r) {
            (0, code) => {
                let status = Status::from_code(code as i32);
                let body = self.detail()?.unwrap_or_default();
                Ok(Evaluation { status, body })
            }
            (p, l) => Ok(Evaluation {
                status: Status::Ok,
                body: self.take(p, l)?,
            }),
        }
    }
}

/// The answer of `restartkit_evaluate`: with `Status::Ok`, the contract response; otherwise the
/// JSON error response that explains the status (possibly empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evaluation {
    pub status: Status,
    pub body: String,
}

/// A policy prepared in the plugin (a Pod or Job compiled for `decide_exit`).
#[derive(Debug)]
pub struct Prepared {
    host: u64,
    slot: usize,
    /// Unique over the process: what a decider was last configured for.
    serial: u64,
    containers: Vec<String>,
    warnings: Vec<restartkit::Diagnostic>,
}

impl Prepared {
    /// Container names in index order (containers, then init containers).
    pub fn container_names(&self) -> &[String] {
        &self.containers
    }
    /// The prepared object's validation errors as warnings (code `invalid-object`; empty for a
    /// valid object, and from a module of ABI minor 0, which cannot tell).
    pub fn warnings(&self) -> &[restartkit::Diagnostic] {
        &self.warnings
    }
    pub fn container_index(&self, name: &str) -> Option<u32> {
        self.containers
            .iter()
            .position(|c| c == name)
            .and_then(|i| u32::try_from(i).ok())
    }
}

struct Entry {
    request: Vec<u8>,
    handle: i32,
    generation: u64,
}

/// One container exit, as a decider sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExitEvent {
    pub container_index: u32,
    pub exit_code: i32,
    /// How many times this container has been restarted so far.
    pub restart_count: u32,
}

/// Who decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecidedBy {
    /// The custom decider of this name.
    Decider(String),
    /// restartkit's built-in rules (the policy module).
    BuiltIn,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub action: Action,
    pub decided_by: DecidedBy,
}

static HOST_IDS: AtomicU64 = AtomicU64::new(1);

/// The policy module loaded in wasmtime, with its custom deciders.
pub struct Host {
    id: u64,
    sandbox: Sandbox,
    live: Option<Live>,
    generation: u64,
    prepared: Vec<Option<Entry>>,
    deciders: Vec<Decider>,
    abi_minor: i32,
    cache_hit: Option<CacheHit>,
    cache: Cache,
    // Last: dropped after everything that uses the engine.
    _shared: Arc<SharedEngine>,
}

/// A wasmtime engine with its epoch ticker, shared by every live Host of the same engine
/// configuration: making an engine and starting a thread is a good part of a load from the
/// cache, and a second ticker on one engine would advance its epoch twice as fast.
struct SharedEngine {
    engine: Engine,
    _ticker: Ticker,
}

/// Engines by "fuel metering on"; weak, so the last Host to go stops the ticker.
static ENGINES: Mutex<Vec<(bool, Weak<SharedEngine>)>> = Mutex::new(Vec::new());

/// Compiles a module (or takes it from the cache by its content: then the hit says so).
fn compile_module(
    shared: &SharedEngine,
    bytes: &[u8],
    cache: &Cache,
) -> Result<(Module, Option<CacheHit>), HostError> {
    let (module, from_cache) = cache::compile(&shared.engine, bytes, cache)?;
    Ok((module, from_cache.then_some(CacheHit::Content)))
}

fn engine_for(limits: &Limits) -> Result<Arc<SharedEngine>, HostError> {
    let fuel = limits.fuel.is_some();
    let mut engines = ENGINES.lock().unwrap_or_else(PoisonError::into_inner);
    engines.retain(|(_, e)| e.strong_count() > 0);
    if let Some(shared) = engines
        .iter()
        .find(|(f, _)| *f == fuel)
        .and_then(|(_, e)| e.upgrade())
    {
        return Ok(shared);
    }
    let mut config = Config::new();
    config.epoch_interruption(true);
    config.consume_fuel(fuel);
    let engine = Engine::new(&config)
        .map_err(|e| HostError::Instantiate(format!("cannot set up wasmtime: {e:#}")))?;
    let shared = Arc::new(SharedEngine {
        _ticker: Ticker::start(engine.clone()),
        engine,
    });
    engines.push((fuel, Arc::downgrade(&shared)));
    Ok(shared)
}

fn read_file(path: &Path) -> Result<Vec<u8>, HostError> {
    std::fs::read(path).map_err(|e| HostError::Io {
        path: path.to_owned(),
        message: e.to_string(),
    })
}

impl Host {
    /// Loads a policy module from a file, with the default module cache.
    pub fn load(path: impl AsRef<Path>, limits: Limits) -> Result<Host, HostError> {
        Host::load_with_cache(path, limits, Cache::Default)
    }

    /// A cache hit on the file's identity (see [`Cache`]) neither reads nor hashes the module.
    pub fn load_with_cache(
        path: impl AsRef<Path>,
        limits: Limits,
        cache: Cache,
    ) -> Result<Host, HostError> {
        let path = path.as_ref();
        let shared = engine_for(&limits)?;
        if let Some((module, _)) = cache::load_by_identity(&shared.engine, path, &cache) {
            return Host::from_module(shared, module, Some(CacheHit::FileIdentity), limits, cache);
        }
        let bytes = read_file(path)?;
        let (module, hit) = compile_module(&shared, &bytes, &cache)?;
        cache::link_identity(&shared.engine, path, &bytes, &cache);
        Host::from_module(shared, module, hit, limits, cache)
    }

    /// Loads a policy module from bytes (binary, or WebAssembly text).
    pub fn from_bytes(bytes: &[u8], limits: Limits, cache: Cache) -> Result<Host, HostError> {
        let shared = engine_for(&limits)?;
        let (module, hit) = compile_module(&shared, bytes, &cache)?;
        Host::from_module(shared, module, hit, limits, cache)
    }

    fn from_module(
        shared: Arc<SharedEngine>,
        module: Module,
        cache_hit: Option<CacheHit>,
        limits: Limits,
        cache: Cache,
    ) -> Result<Host, HostError> {
        let sandbox = Sandbox::new(&shared.engine, &module, &limits)?;
        let mut host = Host {
            id: HOST_IDS.fetch_add(1, Ordering::Relaxed),
            sandbox,
            live: None,
            generation: 0,
            prepared: Vec::new(),
            deciders: Vec::new(),
            abi_minor: 0,
            cache_hit,
            cache,
            _shared: shared,
        };
        host.live = Some(host.instantiate()?);
        Ok(host)
    }

    /// Makes a fresh instance and checks its ABI version and exports.
    fn instantiate(&mut self) -> Result<Live, HostError> {
        let (mut store, instance) = self.sandbox.instantiate()?;
        let module = (&mut store, &instance);
        self.sandbox
            .check_abi_major(module, "restartkit_abi_version", "policy module", ABI_MAJOR)?;
        let minor: TypedFunc<(), i32> =
            func(&mut store, &instance, "restartkit_abi_minor_version")?;
        self.abi_minor = minor
            .call(&mut store, ())
            .map_err(|e| self.sandbox.classify(e, &store))?;
        let memory =
            instance
                .get_memory(&mut store, "memory")
                .ok_or_else(|| HostError::NotAPlugin {
                    export: "memory".to_owned(),
                    message: "no exported memory".to_owned(),
                })?;
        let f = PolicyFns {
            alloc: func(&mut store, &instance, "restartkit_alloc")?,
            free: func(&mut store, &instance, "restartkit_free")?,
            describe: func(&mut store, &instance, "restartkit_describe")?,
            evaluate: func(&mut store, &instance, "restartkit_evaluate")?,
            error_detail: func(&mut store, &instance, "restartkit_error_detail")?,
            prepare: func(&mut store, &instance, "restartkit_prepare")?,
            containers: func(&mut store, &instance, "restartkit_prepared_containers")?,
            warnings: if self.abi_minor >= ABI_MINOR_PREPARED_WARNINGS {
                Some(func(&mut store, &instance, "restartkit_prepared_warnings")?)
            } else {
                None
            },
            decide: func(&mut store, &instance, "restartkit_decide_exit")?,
            release: func(&mut store, &instance, "restartkit_release")?,
        };
        Ok(Live { store, memory, f })
    }

    /// Runs `f` on a live, armed instance; a wasm error discards the instance.
    fn call<R>(
        &mut self,
        f: impl FnOnce(&mut Live, usize) -> Result<R, Fail>,
    ) -> Result<R, HostError> {
        if self.live.is_none() {
            let live = self.instantiate()?;
            self.live = Some(live);
        }
        let Some(live) = self.live.as_mut() else {
            return Err(HostError::Protocol("no instance".to_owned()));
        };
        self.sandbox.arm(&mut live.store)?;
        match f(live, self.sandbox.limits.memory_bytes) {
            Ok(r) => Ok(r),
            Err(Fail::Host(e)) => Err(e),
            Err(Fail::Wasm(e)) => {
                let err = self.sandbox.classify(e, &live.store);
                self.live = None;
                self.generation += 1;
                Err(err)
            }
        }
    }

    /// The module's ABI minor version.
    pub fn abi_minor(&self) -> i32 {
        self.abi_minor
    }

    /// Whether the compiled module came from the cache.
    pub fn from_cache(&self) -> bool {
        self.cache_hit.is_some()
    }

    /// Which cache key the compiled module was found by (`None`: compiled at load).
    pub fn cache_hit(&self) -> Option<CacheHit> {
        self.cache_hit
    }

    /// The cache this host was loaded with.
    pub fn cache(&self) -> &Cache {
        &self.cache
    }

    /// How many times an instance was discarded after a trap, timeout or memory failure.
    pub fn rebuilds(&self) -> u64 {
        self.generation
    }

    /// Size of the current instance's linear memory in bytes (None when no instance is live).
    pub fn memory_size(&self) -> Option<usize> {
        self.live.as_ref().map(|l| l.memory.data_size(&l.store))
    }

    /// Drops the current instance and makes a new one (what happens after a trap); for
    /// measuring instantiation.
    pub fn reinstantiate(&mut self) -> Result<(), HostError> {
        self.live = None;
        self.generation += 1;
        let live = self.instantiate()?;
        self.live = Some(live);
        Ok(())
    }

    /// `restartkit_describe`: the module's capabilities (JSON).
    pub fn describe(&mut self) -> Result<String, HostError> {
        let e = self.call(|l, _| {
            let r = l.f.describe.call(&mut l.store, ())?;
            l.answer(r)
        })?;
        match e.status {
            Status::Ok => Ok(e.body),
            status => Err(HostError::Status {
                status,
                detail: Some(e.body),
            }),
        }
    }

    /// `restartkit_evaluate`: the raw one-shot call.
    pub fn evaluate(&mut self, request: &[u8]) -> Result<Evaluation, HostError> {
        self.call(|l, limit| {
            let (ptr, len) = l.put(request, limit)?;
            let r = l.f.evaluate.call(&mut l.store, (ptr, len))?;
            l.f.free.call(&mut l.store, (ptr, len))?;
            l.answer(r)
        })
    }

    /// The core's JSON contract through the plugin: answers what `restartkit::handle_json`
    /// answers (request-level problems are `status: "error"` responses, as there); `Err` only for
    /// what the native function cannot suffer (traps, timeouts, limits, ABI breaches).
    pub fn handle_json(&mut self, request: &str) -> Result<String, HostError> {
        let e = self.evaluate(request.as_bytes())?;
        match e.status {
            Status::Ok => Ok(e.body),
            Status::InvalidJson | Status::UnknownOperation | Status::UnsupportedVersion
                if !e.body.is_empty() =>
            {
                Ok(e.body)
            }
            status => Err(HostError::Status {
                status,
                detail: (!e.body.is_empty()).then_some(e.body),
            }),
        }
    }

    fn guest_prepare(&mut self, request: &[u8]) -> Result<i32, HostError> {
        self.call(|l, limit| {
            let (ptr, len) = l.put(request, limit)?;
            let h = l.f.prepare.call(&mut l.store, (ptr, len))?;
            l.f.free.call(&mut l.store, (ptr, len))?;
            if h > 0 {
                Ok(h)
            } else {
                let detail = l.detail()?;
                Err(Fail::Host(HostError::Status {
                    status: Status::from_code(h.saturating_neg()),
                    detail,
                }))
            }
        })
    }

    /// Compiles a Pod or Job for the fast path: `{"object": {...}, "kubernetesVersion"?: "1.35",
    /// "featureGates"?: {...}}`. A refused object is `Err(Status{Rejected, detail})` with the
    /// core's diagnostics in `detail`.
    pub fn prepare(&mut self, request_json: &str) -> Result<Prepared, HostError> {
        let handle = self.guest_prepare(request_json.as_bytes())?;
        let names = self.call(|l, _| {
            let r = l.f.containers.call(&mut l.store, handle)?;
            l.answer(r)
        })?;
        if names.status != Status::Ok {
            return Err(HostError::Status {
                status: names.status,
                detail: Some(names.body),
            });
        }
        let containers: Vec<String> = serde_json::from_str(&names.body)
            .map_err(|e| HostError::Protocol(format!("restartkit_prepared_containers: {e}")))?;
        let warnings = self.call(|l, _| {
            let r = match &l.f.warnings {
                Some(f) => f.call(&mut l.store, handle)?,
                None => return Ok(None),
            };
            l.answer(r).map(Some)
        })?;
        let warnings: Vec<restartkit::Diagnostic> = match warnings {
            None => Vec::new(),
            Some(w) if w.status == Status::Ok => serde_json::from_str(&w.body)
                .map_err(|e| HostError::Protocol(format!("restartkit_prepared_warnings: {e}")))?,
            Some(w) => {
                return Err(HostError::Status {
                    status: w.status,
                    detail: Some(w.body),
                });
            }
        };
        let entry = Entry {
            request: request_json.as_bytes().to_vec(),
            handle,
            generation: self.generation,
        };
        let slot = match self.prepared.iter().position(Option::is_none) {
            Some(i) => {
                if let Some(s) = self.prepared.get_mut(i) {
                    *s = Some(entry);
                }
                i
            }
            None => {
                self.prepared.push(Some(entry));
                self.prepared.len() - 1
            }
        };
        Ok(Prepared {
            host: self.id,
            slot,
            serial: HOST_IDS.fetch_add(1, Ordering::Relaxed),
            containers,
            warnings,
        })
    }

    /// The guest handle of `p` in the live instance, re-preparing after a rebuild.
    fn handle_of(&mut self, p: &Prepared) -> Result<i32, HostError> {
        if p.host != self.id {
            return Err(HostError::UnknownPrepared);
        }
        let generation = self.generation;
        let (handle, stale, request) = match self.prepared.get(p.slot).and_then(Option::as_ref) {
            None => return Err(HostError::UnknownPrepared),
            Some(e) if e.generation == generation && self.live.is_some() => {
                (e.handle, false, Vec::new())
            }
            Some(e) => (e.handle, true, e.request.clone()),
        };
        if !stale {
            return Ok(handle);
        }
        let h = self.guest_prepare(&request)?;
        let generation = self.generation;
        if let Some(Some(e)) = self.prepared.get_mut(p.slot) {
            e.handle = h;
            e.generation = generation;
        }
        Ok(h)
    }

    /// The built-in decision for container `container_index` of `p` exiting with `exit_code`
    /// (custom deciders are not consulted; see [`Host::decide`]).
    pub fn decide_exit(
        &mut self,
        p: &Prepared,
        container_index: u32,
        exit_code: i32,
    ) -> Result<Action, HostError> {
        let h = self.handle_of(p)?;
        let idx = i32::try_from(container_index).map_err(|_| HostError::Status {
            status: Status::OutOfRange,
            detail: None,
        })?;
        let code = self.call(|l, _| Ok(l.f.decide.call(&mut l.store, (h, idx, exit_code))?))?;
        action_from_code(code).ok_or(HostError::Status {
            status: Status::from_code(code.saturating_neg()),
            detail: None,
        })
    }

    /// `restartkit_evaluate` on a raw (pointer, length): for testing how the guest treats bad
    /// buffers.
    #[doc(hidden)]
    pub fn raw_evaluate(&mut self, ptr: u32, len: u32) -> Result<Evaluation, HostError> {
        self.call(|l, _| {
            let r = l.f.evaluate.call(&mut l.store, (ptr, len))?;
            l.answer(r)
        })
    }

    /// `restartkit_decide_exit` on a raw guest handle: the code as the guest returns it.
    #[doc(hidden)]
    pub fn raw_decide_exit(
        &mut self,
        handle: i32,
        container: i32,
        exit_code: i32,
    ) -> Result<i32, HostError> {
        self.call(|l, _| {
            Ok(l.f
                .decide
                .call(&mut l.store, (handle, container, exit_code))?)
        })
    }

    /// Drops a prepared policy in the plugin.
    pub fn release(&mut self, p: Prepared) -> Result<(), HostError> {
        if p.host != self.id {
            return Err(HostError::UnknownPrepared);
        }
        let entry = self
            .prepared
            .get_mut(p.slot)
            .and_then(Option::take)
            .ok_or(HostError::UnknownPrepared)?;
        while matches!(self.prepared.last(), Some(None)) {
            self.prepared.pop();
        }
        if entry.generation != self.generation || self.live.is_none() {
            return Ok(()); // that instance is gone, and the policy with it
        }
        let r = self.call(|l, _| Ok(l.f.release.call(&mut l.store, entry.handle)?))?;
        if r == 0 {
            Ok(())
        } else {
            Err(HostError::Status {
                status: Status::from_code(r.saturating_neg()),
                detail: None,
            })
        }
    }

    /// Adds a custom decider (decider ABI v1) behind those already added. `config` is handed to
    /// its `restartkit_decider_configure`, if it has one.
    pub fn add_decider(
        &mut self,
        path: impl AsRef<Path>,
        config: Option<&str>,
    ) -> Result<(), HostError> {
        let path = path.as_ref();
        let bytes = read_file(path)?;
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "decider".to_owned());
        self.add_decider_bytes(&name, &bytes, config)
    }

    /// Like [`Host::add_decider`], from bytes (binary or WebAssembly text).
    pub fn add_decider_bytes(
        &mut self,
        name: &str,
        bytes: &[u8],
        config: Option<&str>,
    ) -> Result<(), HostError> {
        let (module, _) = cache::compile(&self.sandbox.engine, bytes, &self.cache)?;
        let sandbox = Sandbox::new(&self.sandbox.engine, &module, &self.sandbox.limits)?;
        let mut d = Decider {
            name: name.to_owned(),
            sandbox,
            live: None,
            config: config.map(str::to_owned),
        };
        d.live = Some(d.instantiate()?);
        self.deciders.push(d);
        Ok(())
    }

    /// Names of the deciders, in the order they are asked.
    pub fn deciders(&self) -> Vec<&str> {
        self.deciders.iter().map(|d| d.name.as_str()).collect()
    }

    /// The chained decision: each custom decider in turn (Restart / DoNotRestart / Abstain); when
    /// all abstain, the built-in rules ([`Host::decide_exit`]).
    pub fn decide(&mut self, p: &Prepared, ev: &ExitEvent) -> Result<Decision, HostError> {
        if p.host != self.id {
            return Err(HostError::UnknownPrepared);
        }
        // Deciders are promised an index into the container list they were configured with.
        if !usize::try_from(ev.container_index).is_ok_and(|i| i < p.containers.len()) {
            return Err(HostError::Status {
                status: Status::OutOfRange,
                detail: None,
            });
        }
        for d in &mut self.deciders {
            match d.decide(p, ev)? {
                -1 => continue,
                code => {
                    let action = match code {
                        0 => Action::DoNotRestart,
                        1 => Action::Restart,
                        _ => {
                            return Err(HostError::InvalidDecision {
                                decider: d.name.clone(),
                                code,
                            });
                        }
                    };
                    return Ok(Decision {
                        action,
                        decided_by: DecidedBy::Decider(d.name.clone()),
                    });
                }
            }
        }
        let action = self.decide_exit(p, ev.container_index, ev.exit_code)?;
        Ok(Decision {
            action,
            decided_by: DecidedBy::BuiltIn,
        })
    }
}

/// memory, restartkit_decider_alloc, restartkit_decider_configure
type ConfigureFns = (Memory, TypedFunc<u32, u32>, TypedFunc<(u32, u32), i32>);

struct DeciderFns {
    decide: TypedFunc<(i32, i32, i32), i32>,
    configure: Option<ConfigureFns>,
}

struct DeciderLive {
    store: Store<State>,
    f: DeciderFns,
    /// The serial of the prepared policy whose containers were last configured.
    configured_for: Option<u64>,
}

/// A custom decider plugin.
struct Decider {
    name: String,
    sandbox: Sandbox,
    live: Option<DeciderLive>,
    config: Option<String>,
}

impl Decider {
    fn instantiate(&self) -> Result<DeciderLive, HostError> {
        let (mut store, instance) = self.sandbox.instantiate()?;
        let module = (&mut store, &instance);
        self.sandbox.check_abi_major(
            module,
            "restartkit_decider_abi_version",
            "decider",
            DECIDER_ABI_MAJOR,
        )?;
        let decide = func(&mut store, &instance, "restartkit_decide")?;
        let configure = if instance
            .get_export(&mut store, "restartkit_decider_configure")
            .is_some()
        {
            let memory =
                instance
                    .get_memory(&mut store, "memory")
                    .ok_or_else(|| HostError::NotAPlugin {
                        export: "memory".to_owned(),
                        message:
                            "a decider with restartkit_decider_configure must export its memory"
                                .to_owned(),
                    })?;
            Some((
                memory,
                func(&mut store, &instance, "restartkit_decider_alloc")?,
                func(&mut store, &instance, "restartkit_decider_configure")?,
            ))
        } else {
            None
        };
        Ok(DeciderLive {
            store,
            f: DeciderFns { decide, configure },
            configured_for: None,
        })
    }

    fn decide(&mut self, p: &Prepared, ev: &ExitEvent) -> Result<i32, HostError> {
        if self.live.is_none() {
            self.live = Some(self.instantiate()?);
        }
        let Some(live) = self.live.as_mut() else {
            return Err(HostError::Protocol("no decider instance".to_owned()));
        };
        self.sandbox.arm(&mut live.store)?;
        let limit = self.sandbox.limits.memory_bytes;
        let config = self.config.as_deref();
        let name = self.name.as_str();
        let r = (|| -> Result<i32, Fail> {
            if let Some((memory, alloc, configure)) = &live.f.configure
                && live.configured_for != Some(p.serial)
            {
                let cfg: serde_json::Value = match config {
                    Some(c) => serde_json::from_str(c)
                        .unwrap_or_else(|_| serde_json::Value::String(c.to_owned())),
                    None => serde_json::Value::Null,
                };
                let msg =
                    serde_json::json!({"containers": p.containers, "config": cfg}).to_string();
                let len = u32::try_from(msg.len())
                    .map_err(|_| Fail::Host(HostError::MemoryLimit { limit_bytes: limit }))?;
                let ptr = alloc.call(&mut live.store, len)?;
                if ptr == 0 {
                    return Err(Fail::Host(HostError::MemoryLimit { limit_bytes: limit }));
                }
                memory
                    .write(&mut live.store, ptr as usize, msg.as_bytes())
                    .map_err(|e| {
                        Fail::Host(HostError::Protocol(format!(
                            "decider {name}: bad buffer: {e}"
                        )))
                    })?;
                let rc = configure.call(&mut live.store, (ptr, len))?;
                if rc != 0 {
                    return Err(Fail::Host(HostError::Status {
                        status: Status::Rejected,
                        detail: Some(format!(
                            "decider {name} refused its configuration (code {rc})"
                        )),
                    }));
                }
                live.configured_for = Some(p.serial);
            }
            let idx = i32::try_from(ev.container_index).map_err(|_| {
                Fail::Host(HostError::Status {
                    status: Status::OutOfRange,
                    detail: None,
                })
            })?;
            let restarts = i32::try_from(ev.restart_count).unwrap_or(i32::MAX);
            Ok(live
                .f
                .decide
                .call(&mut live.store, (idx, ev.exit_code, restarts))?)
        })();
        match r {
            Ok(code) => Ok(code),
            Err(Fail::Host(e)) => Err(e),
            Err(Fail::Wasm(e)) => {
                let err = self.sandbox.classify(e, &live.store);
                self.live = None;
                Err(err)
            }
        }
    }
}
