//! `restartkit._native`: the compiled half of the Python package. It only converts: JSON text
//! in and out of the core's contract, YAML parsing, and the compiled fast path. Everything
//! Pythonic (result objects, exceptions, kubernetes-client objects) lives in `restartkit/*.py`.
//!
//! No panic crosses into Python: every call into the core runs under `catch_unwind`, and a
//! panic becomes a `status: "error"` response (or a `RestartkitError`) with code `internal`.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};
use restartkit::Diagnostic;
use restartkit::prepared::{Action, ContainerRef, PrepareOptions, PreparedPolicy};
use serde_json::Value;
use restartkit::contract::guard::{error_response_text as internal_response, guarded};


/// Raises `restartkit.RestartkitError` built from diagnostics.
fn raise(py: Python<'_>, diags: &[Diagnostic]) -> PyErr {
    let json = serde_json::to_string(diags).unwrap_or_else(|_| "[]".to_owned());
    let built = py
        .import("restartkit._errors")
        .and_then(|m| m.getattr("_from_json"))
        .and_then(|f| f.call1((json,)));
    match built {
        Ok(exc) => PyErr::from_value(exc),
        Err(e) => e,
    }
}

fn diag(code: &str, field: &str, message: impl Into<String>) -> Diagnostic {
    Diagnostic::request(code, field, message)
}

/// The raw JSON contract: a request `{"op": ..., "input": {...}}` as JSON text in, the response
/// as JSON text out. Never raises; runs without the GIL.
#[pyfunction]
fn handle_json(py: Python<'_>, request: &str) -> String {
    py.detach(|| one(request))
}

fn one(request: &str) -> String {
    match guarded(|| Ok(restartkit::handle_json(request))) {
        Ok(s) => s,
        Err(d) => internal_response(&d),
    }
}

/// Deepest Python structure converted directly; deeper ones take the JSON path, whose errors
/// name the field.
const MAX_DIRECT_DEPTH: usize = 128;

/// A Python value as JSON, when it converts exactly as `json.dumps` would write it: dicts with
/// str keys, lists, tuples, str, bool, int within 64 bits, finite float, None. Anything else
/// (other key types, NaN, objects `json.dumps` hands to its `default`) gives None, and the
/// caller takes the JSON-text path, which explains the problem with a field path.
fn to_json(v: &Bound<'_, PyAny>, depth: usize) -> Option<Value> {
    if depth > MAX_DIRECT_DEPTH {
        return None;
    }
    if v.is_none() {
        return Some(Value::Null);
    }
    if let Ok(s) = v.cast::<PyString>() {
        return s.to_cow().ok().map(|c| Value::String(c.into_owned()));
    }
    if let Ok(d) = v.cast::<PyDict>() {
        let mut m = serde_json::Map::with_capacity(d.len());
        for (k, x) in d.iter() {
            let k = k.cast::<PyString>().ok()?.to_cow().ok()?.into_owned();
            m.insert(k, to_json(&x, depth + 1)?);
        }
        return Some(Value::Object(m));
    }
    if let Ok(l) = v.cast::<PyList>() {
        return l
            .iter()
            .map(|x| to_json(&x, depth + 1))
            .collect::<Option<Vec<_>>>()
            .map(Value::Array);
    }
    if let Ok(t) = v.cast::<PyTuple>() {
        return t
            .iter()
            .map(|x| to_json(&x, depth + 1))
            .collect::<Option<Vec<_>>>()
            .map(Value::Array);
    }
    // bool before int: True is an int in Python.
    if let Ok(b) = v.cast::<pyo3::types::PyBool>() {
        return Some(Value::Bool(b.is_true()));
    }
    if v.cast::<pyo3::types::PyInt>().is_ok() {
        if let Ok(i) = v.extract::<i64>() {
            return Some(Value::from(i));
        }
        return v.extract::<u64>().ok().map(Value::from);
    }
    if let Ok(f) = v.cast::<pyo3::types::PyFloat>() {
        return serde_json::Number::from_f64(f.value()).map(Value::Number);
    }
    None
}

/// JSON as Python objects (dict, list, str, int, float, bool, None), as `json.loads` makes them.
fn to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => pyo3::types::PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any(),
            (None, Some(u)) => u.into_pyobject(py)?.into_any(),
            _ => n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(a) => {
            let items = a
                .iter()
                .map(|x| to_py(py, x))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any()
        }
        Value::Object(m) => {
            let d = PyDict::new(py);
            for (k, x) in m {
                d.set_item(k, to_py(py, x)?)?;
            }
            d.into_any()
        }
    })
}

/// The contract without JSON text: `op` and `input` (a dict as `json.loads` would give) in, the
/// response as a dict out. Returns None, having done nothing, when `input` holds something JSON
/// text would have to explain (see `to_json`); the caller then uses `handle_json`.
#[pyfunction]
fn call<'py>(
    py: Python<'py>,
    op: &str,
    input: &Bound<'py, PyAny>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let Some(input) = to_json(input, 0) else {
        return Ok(None);
    };
    let op = op.to_owned();
    let resp = py.detach(|| {
        guarded(|| Ok(restartkit::handle(restartkit::Request::new(op, input))))
            .and_then(|r| {
                serde_json::to_value(r)
                    .map_err(|e| diag("internal", "", format!("cannot encode the response: {e}")))
            })
            .unwrap_or_else(|d| serde_json::json!({"status": "error", "errors": [d]}))
    });
    to_py(py, &resp).map(Some)
}

/// Many raw requests at once, without the GIL: one response per request, in order.
#[pyfunction]
fn handle_json_many(py: Python<'_>, requests: Vec<String>) -> Vec<String> {
    py.detach(|| requests.iter().map(|r| one(r)).collect())
}

/// Parses YAML or JSON text (one or more documents) into a JSON array of the documents.
/// Raises RestartkitError (with line and column) when the text cannot be read.
#[pyfunction]
fn parse_source(py: Python<'_>, text: &str) -> PyResult<String> {
    let out = py.detach(|| {
        guarded(|| {
            let docs = restartkit::source::parse_documents(text)?;
            let values: Vec<&Value> = docs.iter().map(|d| &d.value).collect();
            serde_json::to_string(&values)
                .map_err(|e| diag("internal", "", format!("cannot encode documents: {e}")))
        })
    });
    out.map_err(|d| raise(py, &[d]))
}

/// UTF-8 text from bytes, or RestartkitError (code `invalid-utf8`) naming the line and column of
/// the first byte that is not UTF-8: the core's check (`source::text_from_bytes`), the one every
/// front end reports.
#[pyfunction]
fn text_from_bytes(py: Python<'_>, bytes: &[u8]) -> PyResult<String> {
    restartkit::source::text_from_bytes(bytes)
        .map(str::to_owned)
        .map_err(|d| raise(py, &[d]))
}

/// Every JSON Schema of the contract, as one JSON object text `{name: schema}`.
#[pyfunction]
fn schemas_json() -> PyResult<String> {
    guarded(|| {
        serde_json::to_string(&restartkit::contract::json_schemas())
            .map_err(|e| diag("internal", "", format!("cannot encode schemas: {e}")))
    })
    .map_err(|d| Python::attach(|py| raise(py, &[d])))
}

/// A Pod or Job compiled once for fast exit-code decisions (see `restartkit.compile`).
#[pyclass(frozen, module = "restartkit._native", name = "Policy")]
struct Policy {
    inner: PreparedPolicy,
    // The per-call cost of `decide` is Python object traffic, not the decision (a few ns), so
    // the names go both ways without conversion. Container names are interned: a name written
    // as a literal in Python code (or taken from `containers`) is then the very same object, found
    // by comparing pointers; other equal strings are found through the dict (str hashes are
    // cached by Python). Action names are strings made once, returned with an incref.
    names: Vec<Py<PyString>>,
    index_of: Py<PyDict>,
    action_names: Vec<Py<PyString>>,
}

impl Policy {
    /// The container index of `container` when it is one of the interned names, an equal str or
    /// an in-range int; None otherwise (the caller then explains the problem).
    fn quick_index(&self, py: Python<'_>, container: &Bound<'_, PyAny>) -> Option<usize> {
        let p = container.as_ptr();
        if let Some(i) = self.names.iter().position(|n| n.as_ptr() == p) {
            return Some(i);
        }
        if container.cast::<pyo3::types::PyInt>().is_ok() {
            return container
                .extract::<usize>()
                .ok()
                .filter(|i| *i < self.names.len());
        }
        if let Ok(Some(i)) = self.index_of.bind(py).get_item(container) {
            return i.extract::<usize>().ok();
        }
        None
    }

    fn index(&self, py: Python<'_>, container: &Bound<'_, PyAny>) -> PyResult<usize> {
        if let Some(i) = self.quick_index(py, container) {
            return Ok(i);
        }
        let named = if let Ok(name) = container.cast::<PyString>() {
            let name = name.to_cow()?;
            self.inner.resolve_container(ContainerRef::Name(&name))
        } else {
            match container.extract::<i64>() {
                Ok(i) => self.inner.resolve_container(ContainerRef::Index(i)),
                Err(_) => {
                    return Err(PyTypeError::new_err(
                        "container must be a container name (str) or an index (int)",
                    ));
                }
            }
        };
        named.map_err(|d| raise(py, &[d]))
    }

    fn action_name(&self, py: Python<'_>, action: Action) -> Py<PyString> {
        match self.action_names.get(usize::from(action.code())) {
            Some(name) => name.clone_ref(py),
            None => PyString::new(py, action.name()).unbind(),
        }
    }
}

fn exit_codes_from_bytes(b: &[u8]) -> Result<Vec<i32>, Diagnostic> {
    if !b.len().is_multiple_of(4) {
        return Err(diag(
            "invalid-input",
            "exitCodes",
            format!(
                "a buffer of int32 exit codes must have a multiple of 4 bytes, got {}",
                b.len()
            ),
        ));
    }
    Ok(b.chunks_exact(4)
        .map(|c| i32::from_ne_bytes(<[u8; 4]>::try_from(c).unwrap_or([0; 4])))
        .collect())
}

#[pymethods]
impl Policy {
    /// Compiles `object_json` (a Pod or Job as JSON text) with options as JSON text
    /// (`{"kubernetesVersion": ..., "featureGates": {...}}`).
    #[new]
    fn new(py: Python<'_>, object_json: &str, options_json: &str) -> PyResult<Self> {
        let r = py.detach(|| {
            guarded(|| {
                let obj: Value = serde_json::from_str(object_json).map_err(|e| {
                    diag(
                        "invalid-input",
                        "object",
                        format!("object is not JSON: {e}"),
                    )
                })?;
                let opts: PrepareOptions = restartkit::contract::decode(
                    serde_json::from_str(options_json).map_err(|e| {
                        diag(
                            "invalid-input",
                            "options",
                            format!("options are not JSON: {e}"),
                        )
                    })?,
                )?;
                PreparedPolicy::new(&obj, &opts)
            })
        });
        let inner = r.map_err(|d| raise(py, &[d]))?;
        let names: Vec<Py<PyString>> = inner
            .container_names()
            .iter()
            .map(|n| PyString::intern(py, n).unbind())
            .collect();
        let index_of = PyDict::new(py);
        // The first of equal names wins, as `container_index` finds it.
        for (i, name) in names.iter().enumerate().rev() {
            index_of.set_item(name, i)?;
        }
        let action_names = restartkit::contract::actions()
            .map(|a| PyString::intern(py, a.name()).unbind())
            .collect();
        Ok(Policy {
            inner,
            names,
            index_of: index_of.unbind(),
            action_names,
        })
    }

    /// Container names in index order (containers, then init containers).
    #[getter]
    fn containers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        // The interned names, so that a name taken from here is found by pointer in `decide`.
        PyTuple::new(py, self.names.iter().map(|n| n.bind(py)))
    }

    /// The compiled object's validation errors as warnings (`restartkit.Diagnostic`, code
    /// `invalid-object`), found once when it was compiled; empty for a valid object.
    #[getter]
    fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let from_dict = py
            .import("restartkit._model")?
            .getattr("Diagnostic")?
            .getattr("_from_dict")?;
        let items = self
            .inner
            .warnings()
            .iter()
            .map(|d| {
                let v = serde_json::to_value(d).map_err(|e| {
                    raise(
                        py,
                        &[diag(
                            "internal",
                            "",
                            format!("cannot encode a warning: {e}"),
                        )],
                    )
                })?;
                from_dict.call1((to_py(py, &v)?,))
            })
            .collect::<PyResult<Vec<_>>>()?;
        PyTuple::new(py, items)
    }

    /// The action name (`"Restart"`, `"FailJob"`, ...) for `container` (name or index) exiting
    /// with `exit_code`.
    fn decide(
        &self,
        py: Python<'_>,
        container: &Bound<'_, PyAny>,
        exit_code: i32,
    ) -> PyResult<Py<PyString>> {
        let i = self.index(py, container)?;
        let r = guarded(|| self.inner.decide_checked(i, exit_code));
        let action = r.map_err(|d| raise(py, &[d]))?;
        Ok(self.action_name(py, action))
    }

    /// The action code (0..6, see `restartkit.ACTIONS`) of one decision.
    fn decide_code(
        &self,
        py: Python<'_>,
        container: &Bound<'_, PyAny>,
        exit_code: i32,
    ) -> PyResult<u8> {
        let i = self.index(py, container)?;
        let r = guarded(|| self.inner.decide_checked(i, exit_code));
        r.map(Action::code).map_err(|d| raise(py, &[d]))
    }

    /// Decides every exit code of `exit_codes` (a list/tuple of ints, `bytes`/`bytearray` of native int32, or
    /// any object exporting a buffer of int32: `array.array('i')`, a numpy int32 array, a
    /// memoryview) and returns `bytes`, one action code per exit code. Runs without the GIL.
    fn decide_many<'py>(
        &self,
        py: Python<'py>,
        container: &Bound<'py, PyAny>,
        exit_codes: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let i = self.index(py, container)?;
        let codes: Vec<i32> = if let Ok(b) = exit_codes.cast::<PyBytes>() {
            exit_codes_from_bytes(b.as_bytes()).map_err(|d| raise(py, &[d]))?
        } else if exit_codes.cast::<PyList>().is_ok() || exit_codes.cast::<PyTuple>().is_ok() {
            exit_codes.extract::<Vec<i32>>().map_err(|_| {
                raise(
                    py,
                    &[diag(
                        "invalid-input",
                        "exitCodes",
                        "exit codes must be integers in the int32 range",
                    )],
                )
            })?
        } else {
            // The limited API of CPython 3.10 has no buffer protocol (it joined in 3.11): go through memoryview and copy
            // the bytes once (a memcpy); the decisions then run on the copy without the GIL.
            let mv = py
                .import("builtins")?
                .getattr("memoryview")?
                .call1((exit_codes,))
                .map_err(|_| {
                    PyTypeError::new_err(
                        "exit_codes must be a list or tuple of int, or a buffer of int32",
                    )
                })?;
            let itemsize: usize = mv.getattr("itemsize")?.extract()?;
            let format: String = mv.getattr("format")?.extract()?;
            let signed32 = itemsize == 4
                && matches!(
                    format.trim_start_matches([
                        '@',
                        '=',
                        if cfg!(target_endian = "little") {
                            '<'
                        } else {
                            '>'
                        }
                    ]),
                    "i" | "l"
                );
            // Unsigned bytes (bytearray, a memoryview of bytes) are raw native int32 data, as
            // `bytes` is.
            let raw_bytes = itemsize == 1 && format == "B";
            if !signed32 && !raw_bytes {
                return Err(raise(
                    py,
                    &[diag(
                        "invalid-input",
                        "exitCodes",
                        format!(
                            "a buffer of exit codes must hold int32 items, got format {format:?} of {itemsize} bytes"
                        ),
                    )],
                ));
            }
            let bytes = mv.call_method1("cast", ("B",))?.call_method0("tobytes")?;
            let b = bytes
                .cast::<PyBytes>()
                .map_err(|_| PyTypeError::new_err("memoryview.tobytes() did not return bytes"))?;
            exit_codes_from_bytes(b.as_bytes()).map_err(|d| raise(py, &[d]))?
        };
        let inner = &self.inner;
        let out = py.detach(|| {
            guarded(|| inner.decide_codes(i, &codes))
        });
        let out = out.map_err(|d| raise(py, &[d]))?;
        Ok(PyBytes::new(py, &out))
    }

    fn __repr__(&self) -> String {
        format!(
            "<restartkit.Policy containers={:?}>",
            self.inner.container_names()
        )
    }
}

/// Runs the `restartkit` command with `args` (without the program name) in this process and
/// returns its exit status; the console command and `python -m restartkit` call it, so they print
/// exactly what the CLI prints. Output goes to the process's stdout and stderr, not `sys.stdout`.
#[pyfunction]
fn run_cli(py: Python<'_>, args: Vec<std::ffi::OsString>) -> PyResult<u8> {
    let argv = std::iter::once(std::ffi::OsString::from("restartkit")).chain(args);
    py.detach(|| guarded(|| Ok(restartkit_cli::run(argv))))
        .map_err(|d| raise(py, &[d]))
}

/// A sweep (the `sweep` op's input as JSON text) run on `jobs` threads (default: every core)
/// without the GIL; returns the `SweepOutput` as JSON text, raises RestartkitError when the sweep
/// is refused (naming the variant and field) and KeyboardInterrupt on Ctrl-C (the runs in flight
/// finish, no new one starts). The result is the same for any `jobs`: partials merge exactly.
#[pyfunction]
#[pyo3(signature = (input_json, jobs=None))]
fn sweep(py: Python<'_>, input_json: &str, jobs: Option<usize>) -> PyResult<String> {
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    let input: restartkit::sweep::SweepInput = restartkit::contract::decode(
        serde_json::from_str(input_json)
            .map_err(|e| raise(py, &[diag("invalid-json", "", format!("sweep input: {e}"))]))?,
    )
    .map_err(|d| raise(py, &[d]))?;
    if jobs == Some(0) {
        return Err(raise(
            py,
            &[diag("invalid-input", "jobs", "jobs: at least 1")],
        ));
    }
    let prepared = py
        .detach(|| guarded(|| restartkit::sweep::prepare(&input)))
        .map_err(|d| raise(py, &[d]))?;
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(j) = jobs {
        builder = builder.num_threads(j);
    }
    let pool = builder
        .build()
        .map_err(|e| raise(py, &[diag("internal", "", format!("thread pool: {e}"))]))?;
    let stop = AtomicBool::new(false);
    // Run i is variant i / seeds, seed offset i % seeds: no list of runs is kept.
    let seeds = prepared.seeds();
    let total = prepared.variant_names().len() as u64 * seeds;
    let work = || {
        pool.install(|| {
            (0..total)
                .into_par_iter()
                .map(|i| {
                    let (v, s) = ((i / seeds) as usize, i % seeds);
                    if stop.load(Ordering::Relaxed) {
                        return Err(diag("cancelled", "", "interrupted"));
                    }
                    guarded(|| prepared.run(v, s, 1))
                })
                .try_reduce(
                    || prepared.empty(),
                    |mut a, b| {
                        a.merge(b)?;
                        Ok(a)
                    },
                )
        })
        .and_then(|p| p.finish())
    };
    // The runs go on a worker thread; this one waits without the GIL and takes it back every
    // 100 ms only to see whether Python has a signal (Ctrl-C) pending.
    let mut interrupted: Option<PyErr> = None;
    let result = py.detach(|| {
        std::thread::scope(|scope| {
            let (tx, rx) = std::sync::mpsc::channel();
            let work = &work;
            scope.spawn(move || {
                let _ = tx.send(work());
            });
            loop {
                match rx.recv_timeout(std::time::Duration::from_millis(100)) {
                    Ok(r) => return r,
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                        if interrupted.is_none()
                            && let Err(e) = Python::attach(|py| py.check_signals())
                        {
                            interrupted = Some(e);
                            stop.store(true, Ordering::Relaxed);
                        }
                    }
                    Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                        return Err(diag(
                            "internal",
                            "",
                            "the sweep's worker thread ended without an answer",
                        ));
                    }
                }
            }
        })
    });
    if let Some(e) = interrupted {
        return Err(e);
    }
    let out = result.map_err(|d| raise(py, &[d]))?;
    serde_json::to_string(&out).map_err(|e| {
        raise(
            py,
            &[diag(
                "internal",
                "",
                format!("cannot encode the sweep: {e}"),
            )],
        )
    })
}

/// The compiled part of restartkit.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("VERSION", restartkit::VERSION)?;
    m.add("CONTRACT_VERSION", restartkit::contract::CONTRACT_VERSION)?;
    let names: Vec<&str> = restartkit::contract::actions().map(|a| a.name()).collect();
    m.add("ACTIONS", PyTuple::new(m.py(), names)?)?;
    m.add_function(wrap_pyfunction!(handle_json, m)?)?;
    m.add_function(wrap_pyfunction!(text_from_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(handle_json_many, m)?)?;
    m.add_function(wrap_pyfunction!(call, m)?)?;
    m.add_function(wrap_pyfunction!(parse_source, m)?)?;
    m.add_function(wrap_pyfunction!(schemas_json, m)?)?;
    m.add_function(wrap_pyfunction!(sweep, m)?)?;
    m.add_function(wrap_pyfunction!(run_cli, m)?)?;
    // Built for the limited API of 3.10 (abi3-py310), pyo3 declares every method METH_FASTCALL:
    // arguments arrive as a C array, with no tuple to pack and unpack, so `decide` needs no
    // hand-installed entry point of its own.
    m.add_class::<Policy>()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use super::*;

    #[test]
    fn bytes_to_codes() {
        let mut b = Vec::new();
        for c in [0i32, 1, -1, 137] {
            b.extend_from_slice(&c.to_ne_bytes());
        }
        assert_eq!(exit_codes_from_bytes(&b).unwrap(), vec![0, 1, -1, 137]);
        assert!(exit_codes_from_bytes(&b[..5]).is_err());
    }

}
