//! `restartkit lsp`: a Language Server on stdio (docs/integrations.md).
//!
//! Every answer comes from the core: diagnostics are `validate`'s (with their `range` and
//! `fixes`), hover and completion the core's `hover` and `complete`, the commands `whatIf` and
//! `backoff`. This module only converts positions and messages and schedules the work:
//!
//! - the main thread reads messages (transport.rs), keeps the open documents and answers the
//!   life-cycle requests itself;
//! - one worker thread answers the other requests in the order they came and validates the
//!   documents that changed, each after a short debounce; a request cancelled before the worker
//!   reaches it is answered `RequestCancelled`, a validation of a document that was closed or
//!   changed meanwhile is dropped, not published;
//! - a panic in one request is caught, answered with an `InternalError` that names it, logged,
//!   and the server goes on.

mod position;
mod transport;

use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use position::{Encoding, Lines};
use restartkit::Diagnostic;
use restartkit::diag::Severity;
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::panic::AssertUnwindSafe;
use std::process::ExitCode;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Default wait after an edit before validating (edits within it are validated once).
const DEBOUNCE: Duration = Duration::from_millis(25);
/// Largest document validated as it is edited: a bigger one gets one diagnostic saying so
/// (`restartkit validate FILE` reads any size).
const MAX_VALIDATED_BYTES: usize = 16 << 20;
/// The commands the server executes.
const CMD_WHAT_IF: &str = "restartkit.whatIf";
const CMD_BACKOFF: &str = "restartkit.backoffCurve";
/// A command that panics, for the tests of the crash path (only with RESTARTKIT_LSP_SELF_TEST).
const CMD_SELF_TEST_PANIC: &str = "restartkit.selfTestPanic";

/// Settings from the workspace configuration (`restartkit.*`).
#[derive(Debug, Clone, Default, PartialEq)]
struct Config {
    kubernetes_version: Option<String>,
    feature_gates: Option<BTreeMap<String, bool>>,
    debounce: Option<Duration>,
}

/// One open document.
struct Doc {
    text: Arc<str>,
    version: i32,
    /// The diagnostics last published (with their fixes, for code actions).
    published: Vec<Diagnostic>,
    /// The document holds a kind restartkit reads (once true, broken states are reported too).
    ours: bool,
}

#[derive(Default)]
struct State {
    docs: HashMap<String, Doc>,
    config: Config,
    /// Requests cancelled before the worker reached them.
    cancelled: HashSet<RequestId>,
}

/// What the worker does.
enum Work {
    Request(Request),
    /// Validate this document (after the debounce, from the time it was asked).
    Validate(String, Instant),
    /// Validate every open document (the settings changed).
    ValidateAll,
}

/// Everything the threads share.
#[derive(Clone)]
struct Shared {
    state: Arc<Mutex<State>>,
    out: Sender<Value>,
    encoding: Encoding,
    related_information: bool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while the lock was held leaves the state as it was then; serving goes on.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
    fn send(&self, m: impl Into<Message>) {
        if let Ok(v) = serde_json::to_value(m.into()) {
            let _ = self.out.send(v);
        }
    }
    fn notify(&self, method: &str, params: Value) {
        self.send(Notification::new(method.to_owned(), params));
    }
    fn log(&self, kind: i32, message: impl Into<String>) {
        self.notify(
            "window/logMessage",
            json!({"type": kind, "message": message.into()}),
        );
    }
    fn show(&self, kind: i32, message: impl Into<String>) {
        self.notify(
            "window/showMessage",
            json!({"type": kind, "message": message.into()}),
        );
    }
    fn respond(&self, id: RequestId, result: Result<Value, (ErrorCode, String)>) {
        self.send(match result {
            Ok(v) => Response::new_ok(id, v),
            Err((code, message)) => Response::new_err(id, code as i32, message),
        });
    }
}

/// The member at `path` of a JSON value (Null when any step is missing).
fn at<'a>(v: &'a Value, path: &[&str]) -> &'a Value {
    let mut v = v;
    for k in path {
        v = match k.parse::<usize>() {
            Ok(i) if v.is_array() => v.get(i),
            _ => v.get(*k),
        }
        .unwrap_or(&Value::Null);
    }
    v
}

/// Sets a member of a JSON object (nothing for a value that is not one).
fn put(v: &mut Value, key: &str, value: Value) {
    if let Some(o) = v.as_object_mut() {
        o.insert(key.to_owned(), value);
    }
}

const LOG_ERROR: i32 = 1;
const LOG_WARNING: i32 = 2;
const LOG_INFO: i32 = 3;

/// Runs the server on stdin and stdout until `exit` (0 after `shutdown`, 1 otherwise).
pub fn serve() -> ExitCode {
    let (in_tx, in_rx) = mpsc::channel();
    let (out_tx, out_rx) = mpsc::channel::<Value>();
    std::thread::spawn(move || transport::read_loop(std::io::stdin().lock(), in_tx));
    let writer =
        std::thread::spawn(move || transport::write_loop(std::io::stdout().lock(), out_rx));
    let code = run(in_rx, out_tx);
    // The writer ends once every sender is gone (the worker's with it).
    let _ = writer.join();
    code
}

fn run(input: Receiver<transport::Incoming>, out: Sender<Value>) -> ExitCode {
    use transport::Incoming;
    let mut shared: Option<Shared> = None;
    let mut work: Option<Sender<Work>> = None;
    let mut worker: Option<std::thread::JoinHandle<()>> = None;
    let mut shut_down = false;
    let pre = Shared {
        state: Arc::new(Mutex::new(State::default())),
        out: out.clone(),
        encoding: Encoding::Utf16,
        related_information: false,
    };
    let finish = |work: Option<Sender<Work>>, worker: Option<std::thread::JoinHandle<()>>| {
        drop(work);
        if let Some(w) = worker {
            let _ = w.join();
        }
    };
    for incoming in input {
        let msg = match incoming {
            Incoming::Message(m) => m,
            Incoming::Bad(response) => {
                let _ = out.send(response);
                continue;
            }
            Incoming::End(why) => {
                eprintln!("restartkit lsp: {why}");
                finish(work, worker);
                return ExitCode::from(u8::from(!shut_down));
            }
        };
        let s = shared.as_ref().unwrap_or(&pre);
        match msg {
            Message::Request(req) => {
                if req.method == "initialize" {
                    if shared.is_some() {
                        s.respond(
                            req.id,
                            Err((
                                ErrorCode::InvalidRequest,
                                "initialize was already received".into(),
                            )),
                        );
                        continue;
                    }
                    let (result, new_shared) = initialize(&req.params, out.clone());
                    new_shared.respond(req.id, Ok(result));
                    let (tx, rx) = mpsc::channel();
                    let w = new_shared.clone();
                    worker = Some(std::thread::spawn(move || work_loop(&w, &rx)));
                    work = Some(tx);
                    shared = Some(new_shared);
                    continue;
                }
                if shared.is_none() {
                    s.respond(
                        req.id,
                        Err((
                            ErrorCode::ServerNotInitialized,
                            format!("{}: the server has not been initialized", req.method),
                        )),
                    );
                    continue;
                }
                if shut_down {
                    s.respond(
                        req.id,
                        Err((
                            ErrorCode::InvalidRequest,
                            format!("{}: the server is shutting down", req.method),
                        )),
                    );
                    continue;
                }
                if req.method == "shutdown" {
                    shut_down = true;
                    s.respond(req.id, Ok(Value::Null));
                    continue;
                }
                if let Some(w) = &work {
                    let _ = w.send(Work::Request(req));
                }
            }
            Message::Notification(n) => {
                if n.method == "exit" {
                    finish(work, worker);
                    return ExitCode::from(u8::from(!shut_down));
                }
                if shared.is_none() {
                    s.log(
                        LOG_WARNING,
                        format!("{}: ignored before initialize", n.method),
                    );
                    continue;
                }
                if let Some(w) = &work {
                    notification(s, w, n);
                }
            }
            Message::Response(r) => {
                if let (Some(s), Some(w)) = (&shared, &work) {
                    response(s, w, r);
                }
            }
        }
    }
    finish(work, worker);
    ExitCode::from(u8::from(!shut_down))
}

/// The id of our one kind of request to the client (workspace/configuration).
const CONFIG_REQUEST: &str = "restartkit/configuration";

fn initialize(params: &Value, out: Sender<Value>) -> (Value, Shared) {
    let caps = &at(params, &["capabilities"]);
    let offered: Vec<&str> = at(caps, &["general", "positionEncodings"])
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let encoding = if offered.contains(&"utf-32") {
        Encoding::Utf32
    } else {
        Encoding::Utf16
    };
    let shared = Shared {
        state: Arc::new(Mutex::new(State::default())),
        out,
        encoding,
        related_information: at(
            caps,
            &["textDocument", "publishDiagnostics", "relatedInformation"],
        )
        .as_bool()
        .unwrap_or(false),
    };
    let options = &at(params, &["initializationOptions"]);
    let options = options.get("restartkit").unwrap_or(options);
    if !options.is_null() {
        let (config, problems) = read_config(options);
        for p in problems {
            shared.show(LOG_ERROR, p);
        }
        shared.lock().config = config;
    }
    // Pull the workspace configuration once the client is ready, if it can answer.
    if at(caps, &["workspace", "configuration"]).as_bool() == Some(true) {
        ask_config(&shared);
    }
    let result = json!({
        "capabilities": {
            "positionEncoding": encoding.name(),
            "textDocumentSync": {"openClose": true, "change": 2},
            "hoverProvider": true,
            "completionProvider": {"triggerCharacters": [":", " ", "-"]},
            "codeActionProvider": {"codeActionKinds": ["quickfix"]},
            "codeLensProvider": {"resolveProvider": false},
            "executeCommandProvider": {"commands": [CMD_WHAT_IF, CMD_BACKOFF]},
        },
        "serverInfo": {"name": "restartkit", "version": restartkit::VERSION},
    });
    (result, shared)
}

fn ask_config(s: &Shared) {
    s.send(Request::new(
        RequestId::from(CONFIG_REQUEST.to_owned()),
        "workspace/configuration".to_owned(),
        json!({"items": [{"section": "restartkit"}]}),
    ));
}

/// The settings in a `restartkit` configuration object; what does not read is named.
fn read_config(v: &Value) -> (Config, Vec<String>) {
    let mut c = Config::default();
    let mut problems = Vec::new();
    let Some(m) = v.as_object() else {
        if !v.is_null() {
            problems.push(format!("restartkit settings: expected an object, got {v}"));
        }
        return (c, problems);
    };
    for (k, val) in m {
        match (k.as_str(), val) {
            ("kubernetesVersion", Value::Null) => {}
            ("kubernetesVersion", Value::String(s)) if s.is_empty() => {}
            ("kubernetesVersion", Value::String(s)) => c.kubernetes_version = Some(s.clone()),
            ("featureGates", Value::Null) => {}
            ("featureGates", Value::Object(g)) => {
                let mut gates = BTreeMap::new();
                for (name, on) in g {
                    match on.as_bool() {
                        Some(b) => {
                            gates.insert(name.clone(), b);
                        }
                        None => problems.push(format!(
                            "restartkit.featureGates.{name}: expected true or false, got {on}"
                        )),
                    }
                }
                c.feature_gates = (!gates.is_empty()).then_some(gates);
            }
            ("debounceMs", Value::Number(n)) if n.as_u64().is_some_and(|ms| ms <= 10_000) => {
                c.debounce = n.as_u64().map(Duration::from_millis);
            }
            // Client-side settings (the VS Code extension's) are not the server's.
            ("server" | "trace", _) => {}
            (k, v) => problems.push(format!(
                "restartkit.{k}: not a setting restartkit reads (value {v})"
            )),
        }
    }
    (c, problems)
}

fn set_config(s: &Shared, w: &Sender<Work>, v: &Value) {
    let (config, problems) = read_config(v);
    for p in problems {
        s.show(LOG_ERROR, p);
    }
    let changed = {
        let mut st = s.lock();
        let changed = st.config != config;
        st.config = config;
        changed
    };
    if changed {
        let _ = w.send(Work::ValidateAll);
    }
}

fn response(s: &Shared, w: &Sender<Work>, r: Response) {
    if r.id != RequestId::from(CONFIG_REQUEST.to_owned()) {
        return;
    }
    match r.response_result {
        Ok(Value::Array(items)) => {
            if let Some(first) = items.first() {
                set_config(s, w, first);
            }
        }
        Err(e) => s.log(
            LOG_WARNING,
            format!("workspace/configuration failed: {}", e.message),
        ),
        Ok(_) => {}
    }
}

fn notification(s: &Shared, w: &Sender<Work>, n: Notification) {
    let p = &n.params;
    let uri = at(p, &["textDocument", "uri"]).as_str().map(str::to_owned);
    match n.method.as_str() {
        "initialized" => {}
        "textDocument/didOpen" => {
            let (Some(uri), Some(text)) = (uri, at(p, &["textDocument", "text"]).as_str()) else {
                s.log(
                    LOG_ERROR,
                    "textDocument/didOpen without a uri or text: ignored",
                );
                return;
            };
            let version = at(p, &["textDocument", "version"])
                .as_i64()
                .and_then(|v| i32::try_from(v).ok())
                .unwrap_or(0);
            let reopened = s
                .lock()
                .docs
                .insert(
                    uri.clone(),
                    Doc {
                        text: text.into(),
                        version,
                        published: Vec::new(),
                        ours: false,
                    },
                )
                .is_some();
            if reopened {
                s.log(
                    LOG_WARNING,
                    format!("{uri}: opened again; the new text replaces the old"),
                );
            }
            let _ = w.send(Work::Validate(uri, Instant::now()));
        }
        "textDocument/didChange" => {
            let Some(uri) = uri else { return };
            let version = at(p, &["textDocument", "version"])
                .as_i64()
                .and_then(|v| i32::try_from(v).ok());
            let changes = at(p, &["contentChanges"])
                .as_array()
                .cloned()
                .unwrap_or_default();
            let mut st = s.lock();
            let Some(doc) = st.docs.get_mut(&uri) else {
                drop(st);
                s.log(
                    LOG_WARNING,
                    format!(
                        "{uri}: textDocument/didChange for a document that is not open: ignored"
                    ),
                );
                return;
            };
            if let Some(v) = version
                && v < doc.version
            {
                let current = doc.version;
                drop(st);
                s.log(
                    LOG_WARNING,
                    format!("{uri}: a change to version {v} after version {current}: ignored"),
                );
                return;
            }
            let mut text = doc.text.to_string();
            let mut clamped = false;
            for c in &changes {
                let Some(new) = at(c, &["text"]).as_str() else {
                    continue;
                };
                match serde_json::from_value::<lsp_types::Range>(at(c, &["range"]).clone()) {
                    Ok(r) => {
                        let lines = Lines::new(&text);
                        let (a, ca) = lines.offset(r.start, s.encoding);
                        let (b, cb) = lines.offset(r.end, s.encoding);
                        clamped |= ca || cb;
                        let (a, b) = (a.min(b), a.max(b));
                        text.replace_range(a..b, new);
                    }
                    Err(_) => text = new.to_owned(),
                }
            }
            doc.text = text.into();
            if let Some(v) = version {
                doc.version = v;
            }
            drop(st);
            if clamped {
                s.log(
                    LOG_WARNING,
                    format!(
                        "{uri}: a change's range lay past the end of the text; applied at the end"
                    ),
                );
            }
            let _ = w.send(Work::Validate(uri, Instant::now()));
        }
        "textDocument/didClose" => {
            let Some(uri) = uri else { return };
            let mut st = s.lock();
            if st.docs.remove(&uri).is_some() {
                // Under the lock: a validation finishing now sees the document gone.
                s.notify(
                    "textDocument/publishDiagnostics",
                    json!({"uri": uri, "diagnostics": []}),
                );
            }
        }
        "textDocument/didSave" => {}
        "workspace/didChangeConfiguration" => {
            let settings = &at(p, &["settings"]);
            match settings.get("restartkit") {
                Some(v) => set_config(s, w, v),
                // Clients that only say "it changed": ask.
                None => ask_config(s),
            }
        }
        "$/cancelRequest" => {
            let id = match &at(p, &["id"]) {
                Value::Number(n) => n
                    .as_i64()
                    .and_then(|i| i32::try_from(i).ok())
                    .map(RequestId::from),
                Value::String(x) => Some(RequestId::from(x.clone())),
                _ => None,
            };
            if let Some(id) = id {
                s.lock().cancelled.insert(id);
            }
        }
        m if m.starts_with("$/") => {}
        other => s.log(
            LOG_INFO,
            format!("{other}: a notification restartkit does not handle"),
        ),
    }
}

/// The worker: requests in order, and validations once their debounce has passed.
fn work_loop(s: &Shared, rx: &Receiver<Work>) {
    let mut due: BTreeMap<String, Instant> = BTreeMap::new();
    loop {
        let debounce = s.lock().config.debounce.unwrap_or(DEBOUNCE);
        let next = due.values().min().copied();
        let item = match next {
            None => match rx.recv() {
                Ok(w) => Some(w),
                Err(_) => return,
            },
            Some(at) => {
                let wait = (at + debounce).saturating_duration_since(Instant::now());
                match rx.recv_timeout(wait) {
                    Ok(w) => Some(w),
                    Err(RecvTimeoutError::Timeout) => None,
                    Err(RecvTimeoutError::Disconnected) => return,
                }
            }
        };
        match item {
            Some(Work::Request(req)) => answer(s, req),
            Some(Work::Validate(uri, at)) => {
                due.insert(uri, at);
            }
            Some(Work::ValidateAll) => {
                let now = Instant::now();
                for uri in s.lock().docs.keys() {
                    due.insert(uri.clone(), now);
                }
            }
            None => {
                let now = Instant::now();
                let ready: Vec<String> = due
                    .iter()
                    .filter(|(_, at)| **at + debounce <= now)
                    .map(|(u, _)| u.clone())
                    .collect();
                for uri in ready {
                    due.remove(&uri);
                    let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| validate(s, &uri)));
                    if let Err(p) = outcome {
                        s.log(
                            LOG_ERROR,
                            format!(
                                "restartkit lsp: validating {uri} failed: {}",
                                panic_text(p.as_ref())
                            ),
                        );
                    }
                }
            }
        }
    }
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_owned())
}

fn answer(s: &Shared, req: Request) {
    if s.lock().cancelled.remove(&req.id) {
        s.respond(
            req.id,
            Err((
                ErrorCode::RequestCanceled,
                format!("{}: cancelled", req.method),
            )),
        );
        return;
    }
    let method = req.method.clone();
    let id = req.id.clone();
    let result = std::panic::catch_unwind(AssertUnwindSafe(|| handle(s, &req)));
    let result = match result {
        Ok(r) => r,
        Err(p) => {
            let text = panic_text(p.as_ref());
            s.log(
                LOG_ERROR,
                format!("restartkit lsp: {method} failed: {text}"),
            );
            Err((
                ErrorCode::InternalError,
                format!("restartkit lsp: {method} failed: {text} (the server goes on)"),
            ))
        }
    };
    // A cancel that came while it ran: the answer still goes (the protocol allows either).
    s.lock().cancelled.remove(&id);
    s.respond(id, result);
}

type Answer = Result<Value, (ErrorCode, String)>;

fn invalid(method: &str, why: impl std::fmt::Display) -> (ErrorCode, String) {
    (ErrorCode::InvalidParams, format!("{method}: {why}"))
}

/// The text, version and settings of an open document.
fn snapshot(s: &Shared, uri: &str) -> Option<(Arc<str>, i32, Config)> {
    let st = s.lock();
    let d = st.docs.get(uri)?;
    Some((Arc::clone(&d.text), d.version, st.config.clone()))
}

/// The gates in force for a text: the file's settings comment over the workspace's.
fn gates_for(text: &str, config: &Config) -> Result<restartkit::FeatureGates, String> {
    let (file, _) = restartkit::editor::settings::read(text);
    let (v, g) = file.over(
        config.kubernetes_version.as_deref(),
        config.feature_gates.as_ref(),
    );
    restartkit::FeatureGates::resolve(v.as_deref(), g.as_ref())
        .map(|(g, _)| g)
        .map_err(|d| d.message)
}

fn handle(s: &Shared, req: &Request) -> Answer {
    let m = req.method.as_str();
    let p = &req.params;
    let uri = at(p, &["textDocument", "uri"])
        .as_str()
        .unwrap_or("")
        .to_owned();
    let doc =
        || snapshot(s, &uri).ok_or_else(|| invalid(m, format!("{uri:?} is not an open document")));
    let position = |text: &str| -> Result<(u32, u32), (ErrorCode, String)> {
        let pos: lsp_types::Position =
            serde_json::from_value(at(p, &["position"]).clone()).map_err(|e| invalid(m, e))?;
        Ok(Lines::new(text).position_of(pos, s.encoding))
    };
    match m {
        "textDocument/hover" => {
            let (text, _, config) = doc()?;
            let (line, column) = position(&text)?;
            let gates = gates_for(&text, &config).map_err(|e| (ErrorCode::RequestFailed, e))?;
            let h = restartkit::editor::hover::hover(
                &text,
                line,
                column,
                &gates,
                &restartkit::editor::complete::schema_of,
            );
            let Some(contents) = h.contents.filter(|c| !c.is_empty()) else {
                return Ok(Value::Null);
            };
            let lines = Lines::new(&text);
            let mut out = json!({"contents": {"kind": "markdown", "value": contents}});
            if let Some(r) = h.range {
                put(&mut out, "range", lsp_range(&lines, r, s.encoding));
            }
            Ok(out)
        }
        "textDocument/completion" => {
            let (text, _, _) = doc()?;
            let (line, column) = position(&text)?;
            let c = restartkit::editor::complete::complete(&text, line, column);
            let lines = Lines::new(&text);
            let range = c.range.map(|r| lsp_range(&lines, r, s.encoding));
            let items: Vec<Value> = c
                .items
                .iter()
                .map(|i| {
                    let mut item = json!({
                        "label": i.label,
                        "kind": if i.kind == restartkit::editor::complete::ItemKind::Field { 5 } else { 12 },
                    });
                    if let Some(r) = &range {
                        put(&mut item, "textEdit", json!({"range": r, "newText": i.insert_text}));
                    } else {
                        put(&mut item, "insertText", json!(i.insert_text));
                    }
                    if let Some(d) = &i.detail {
                        put(&mut item, "detail", json!(d));
                    }
                    if let Some(d) = &i.documentation {
                        put(&mut item, "documentation", json!({"kind": "markdown", "value": d}));
                    }
                    item
                })
                .collect();
            Ok(json!({"isIncomplete": false, "items": items}))
        }
        "textDocument/codeAction" => {
            let (text, _, _) = doc()?;
            let want: lsp_types::Range =
                serde_json::from_value(at(p, &["range"]).clone()).map_err(|e| invalid(m, e))?;
            let published = s
                .lock()
                .docs
                .get(&uri)
                .map(|d| d.published.clone())
                .unwrap_or_default();
            let lines = Lines::new(&text);
            let mut actions = Vec::new();
            for d in &published {
                let diag = lsp_diagnostic(&lines, d, s.encoding, None);
                let r: lsp_types::Range = serde_json::from_value(at(&diag, &["range"]).clone())
                    .map_err(|e| invalid(m, e))?;
                if r.end < want.start || want.end < r.start {
                    continue;
                }
                for fix in &d.fixes {
                    if fix.text_edits.is_empty() {
                        continue;
                    }
                    let edits: Vec<Value> = fix
                        .text_edits
                        .iter()
                        .map(|e| {
                            json!({
                                "range": {"start": lines.to_lsp(e.line, e.column, s.encoding), "end": lines.to_lsp(e.end_line, e.end_column, s.encoding)},
                                "newText": e.new_text,
                            })
                        })
                        .collect();
                    actions.push(json!({
                        "title": fix.description,
                        "kind": "quickfix",
                        "diagnostics": [diag],
                        "isPreferred": d.fixes.len() == 1,
                        "edit": {"changes": {uri.clone(): edits}},
                    }));
                }
            }
            Ok(Value::Array(actions))
        }
        "textDocument/codeLens" => {
            let (text, _, _) = doc()?;
            Ok(Value::Array(code_lenses(&text, &uri, s.encoding)))
        }
        "workspace/executeCommand" => {
            let command = at(p, &["command"]).as_str().unwrap_or("");
            let args = at(p, &["arguments"]).get(0).cloned().unwrap_or(Value::Null);
            execute(s, command, &args)
        }
        other => Err((
            ErrorCode::MethodNotFound,
            format!("{other}: not a method restartkit answers"),
        )),
    }
}

fn lsp_range(lines: &Lines, r: restartkit::diag::Range, enc: Encoding) -> Value {
    json!({"start": lines.to_lsp(r.line, r.column, enc), "end": lines.to_lsp(r.end_line, r.end_column, enc)})
}

/// The upstream file whose admission code answers for a kind (the entry point named in
/// docs/contract.md, "What restartkit checks per kind"), for a diagnostic's link and related
/// information.
fn upstream(kind: &str, origin: restartkit::Origin, version: &str) -> Option<(String, String)> {
    use restartkit::Origin;
    let k8s = |path: &str| {
        (
            format!("https://github.com/kubernetes/kubernetes/blob/release-{version}/{path}"),
            format!("kubernetes {path} (release-{version})"),
        )
    };
    match (origin, kind) {
        (Origin::KubeApiserver, "Pod" | "ReplicationController" | "PodTemplate") => {
            Some(k8s("pkg/apis/core/validation/validation.go"))
        }
        (Origin::KubeApiserver, "Job" | "CronJob" | "JobSet") => {
            Some(k8s("pkg/apis/batch/validation/validation.go"))
        }
        (Origin::KubeApiserver, "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet") => {
            Some(k8s("pkg/apis/apps/validation/validation.go"))
        }
        (Origin::Kubelet, _) => Some(k8s("pkg/kubelet/apis/config/validation/validation.go")),
        (Origin::JobsetWebhook, _) => Some((
            "https://github.com/kubernetes-sigs/jobset/blob/main/pkg/webhooks/jobset_webhook.go"
                .to_owned(),
            "sigs.k8s.io/jobset pkg/webhooks/jobset_webhook.go".to_owned(),
        )),
        _ => None,
    }
}

/// A core diagnostic as an LSP one.
/// `upstream` is the link to the code that answers (see [`upstream`]), when the client shows
/// related information.
fn lsp_diagnostic(
    lines: &Lines,
    d: &Diagnostic,
    enc: Encoding,
    upstream: Option<(String, String)>,
) -> Value {
    let range = match (d.range, d.line) {
        (Some(r), _) => lsp_range(lines, r, enc),
        (None, Some(line)) => {
            let p = lines.to_lsp(line, d.column.unwrap_or(1), enc);
            json!({"start": p, "end": p})
        }
        (None, None) => {
            json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}})
        }
    };
    let severity = match d.severity {
        Severity::Error => 1,
        Severity::Warning => 2,
        // Kinds passed over on purpose: a hint, so that a file of Services and ConfigMaps beside
        // a Deployment stays quiet in the problem list.
        Severity::Info => 4,
    };
    let origin = serde_json::to_value(d.origin)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    let code = d.code.clone().or_else(|| {
        d.error_type
            .and_then(|t| serde_json::to_value(t).ok())
            .and_then(|v| v.as_str().map(str::to_owned))
    });
    let mut out = json!({
        "range": range,
        "severity": severity,
        "source": format!("restartkit ({origin})"),
        "message": d.message,
    });
    if let Some(c) = code {
        put(&mut out, "code", json!(c));
    }
    if !d.field.is_empty() {
        put(&mut out, "data", json!({"field": d.field}));
    }
    if let Some((url, path)) = upstream {
        put(&mut out, "codeDescription", json!({"href": url}));
        put(
            &mut out,
            "relatedInformation",
            json!([{
                "location": {"uri": url, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}},
                "message": format!("upstream: {path}"),
            }]),
        );
    }
    out
}

/// Validates an open document and publishes its diagnostics, unless it was closed or changed
/// meanwhile. Documents of no kind restartkit reads get none (the file stays quiet beside
/// yaml-language-server).
fn validate(s: &Shared, uri: &str) {
    let Some((text, version, config)) = snapshot(s, uri) else {
        return;
    };
    if text.len() > MAX_VALIDATED_BYTES {
        let d = json!({
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
            "severity": 3,
            "source": "restartkit",
            "code": "too-large",
            "message": format!(
                "not validated in the editor: the text is {:.1} MB, over the {} MB validated as it is edited; run `restartkit validate` on the file",
                text.len() as f64 / 1e6,
                MAX_VALIDATED_BYTES >> 20
            ),
        });
        let st = s.lock();
        if st.docs.get(uri).is_some_and(|d| d.version == version) {
            s.notify(
                "textDocument/publishDiagnostics",
                json!({"uri": uri, "version": version, "diagnostics": [d]}),
            );
        }
        return;
    }
    let out = restartkit::validate::run(restartkit::validate::ValidateInput {
        source: Some(text.to_string()),
        kubernetes_version: config.kubernetes_version.clone(),
        feature_gates: config.feature_gates.clone(),
        ..Default::default()
    });
    let (diags, modelled, broken, version_used, kinds) = match out {
        Ok(r) => {
            let kinds: HashMap<usize, String> = r
                .documents
                .iter()
                .filter_map(|d| Some((d.index, d.kind.clone()?)))
                .collect();
            let modelled = r.documents.iter().any(|d| d.modelled);
            let broken = r.documents.iter().any(|d| !d.valid && d.kind.is_none());
            let mut all = r.errors;
            all.extend(r.warnings);
            all.extend(r.infos);
            (all, modelled, broken, r.kubernetes_version, kinds)
        }
        // The workspace's settings cannot be met (an unknown version): said at the top.
        Err(mut d) => {
            d.message = format!("restartkit settings: {}", d.message);
            d.line = Some(1);
            d.column = Some(1);
            (vec![d], true, false, String::new(), HashMap::new())
        }
    };
    let lines = Lines::new(&text);
    let mut st = s.lock();
    let Some(doc) = st.docs.get_mut(uri) else {
        return; // closed meanwhile
    };
    if doc.version != version || !Arc::ptr_eq(&doc.text, &text) {
        return; // changed meanwhile: a newer validation is due
    }
    let ours = modelled || (doc.ours && broken);
    doc.ours = ours;
    let published: Vec<Diagnostic> = if ours { diags } else { Vec::new() };
    let lsp: Vec<Value> = published
        .iter()
        .map(|d| {
            let kind = d
                .document
                .and_then(|i| kinds.get(&i))
                .map_or("", String::as_str);
            let link = s
                .related_information
                .then(|| upstream(kind, d.origin, &version_used))
                .flatten();
            lsp_diagnostic(&lines, d, s.encoding, link)
        })
        .collect();
    doc.published = published;
    s.notify(
        "textDocument/publishDiagnostics",
        json!({"uri": uri, "version": version, "diagnostics": lsp}),
    );
}

/// "What if…" and "CrashLoopBackOff" lenses on the `kind:` line of each Pod, Job and JobSet.
fn code_lenses(text: &str, uri: &str, enc: Encoding) -> Vec<Value> {
    let lines = Lines::new(text);
    let mut out = Vec::new();
    for doc in restartkit::source::read_stream(text).into_iter().flatten() {
        if !restartkit::eval::whatif::evaluated_directly(&doc.value) {
            continue;
        }
        let pod_spec = restartkit::eval::whatif::evaluated_pod_spec(&doc.value);
        let containers: Vec<String> = pod_spec
            .and_then(|s| s.get("containers"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|c| c.get("name").and_then(Value::as_str).map(str::to_owned))
            .collect();
        let (line, column) = doc.position_of("kind");
        let at = lines.to_lsp(line, column, enc);
        let range = json!({"start": at, "end": at});
        let args = json!({"uri": uri, "document": doc.index, "containers": containers});
        let first = containers.first().map_or("a container", String::as_str);
        out.push(json!({"range": range, "command": {
            "title": format!("What if {first} exits 1?"),
            "command": CMD_WHAT_IF,
            "arguments": [args],
        }}));
        out.push(json!({"range": range, "command": {
            "title": "CrashLoopBackOff curve",
            "command": CMD_BACKOFF,
            "arguments": [{"uri": uri, "document": doc.index}],
        }}));
    }
    out
}

fn execute(s: &Shared, command: &str, args: &Value) -> Answer {
    let m = "workspace/executeCommand";
    if command == CMD_SELF_TEST_PANIC && std::env::var_os("RESTARTKIT_LSP_SELF_TEST").is_some() {
        #[allow(clippy::panic)]
        {
            panic!("self-test panic");
        }
    }
    if command != CMD_WHAT_IF && command != CMD_BACKOFF {
        return Err(invalid(
            m,
            format!(
                "unknown command {command:?}; the commands are {CMD_WHAT_IF} and {CMD_BACKOFF}"
            ),
        ));
    }
    let uri = at(args, &["uri"])
        .as_str()
        .ok_or_else(|| invalid(m, "arguments[0].uri is required"))?;
    let (text, _, config) =
        snapshot(s, uri).ok_or_else(|| invalid(m, format!("{uri:?} is not an open document")))?;
    let (file, _) = restartkit::editor::settings::read(&text);
    let (version, gates) = file.over(
        config.kubernetes_version.as_deref(),
        config.feature_gates.as_ref(),
    );
    let mut input = serde_json::Map::new();
    if let Some(v) = version {
        input.insert("kubernetesVersion".into(), json!(v));
    }
    if let Some(g) = gates {
        input.insert("featureGates".into(), json!(g));
    }
    let quiet = at(args, &["quiet"]).as_bool().unwrap_or(false);
    let (title, text_out, result) = if command == CMD_WHAT_IF {
        let index = at(args, &["document"]).as_u64().unwrap_or(0);
        let object = restartkit::source::read_stream(&text)
            .into_iter()
            .flatten()
            .find(|d| d.index as u64 == index)
            .map(|d| d.value)
            .ok_or_else(|| invalid(m, format!("document {index} of {uri} cannot be read")))?;
        let exit_code = match &at(args, &["exitCode"]) {
            Value::Null => 1,
            v => v
                .as_i64()
                .and_then(|c| i32::try_from(c).ok())
                .ok_or_else(|| {
                    invalid(m, format!("arguments[0].exitCode: {v} is not an exit code"))
                })?,
        };
        input.insert("object".into(), object);
        input.insert("exitCode".into(), json!(exit_code));
        for (arg, field) in [
            ("container", "container"),
            ("replicatedJob", "replicatedJob"),
            ("conditions", "podConditions"),
        ] {
            if !args[arg].is_null() {
                input.insert(field.into(), args[arg].clone());
            }
        }
        // The core's typed what-if (the `whatIf` op's decoding and answer, warnings included).
        let failed = |d: restartkit::Diagnostic| (ErrorCode::RequestFailed, d.message);
        let typed: restartkit::eval::whatif::WhatIfInput = restartkit::decode::input_at(
            &Value::Object(input),
            &restartkit::FieldPath::new("input"),
        )
        .map_err(failed)?;
        let answer = restartkit::eval::whatif::what_if_checked(typed).map_err(failed)?;
        let result =
            serde_json::to_value(&answer).map_err(|e| (ErrorCode::RequestFailed, e.to_string()))?;
        let warnings = at(&result, &["warnings"])
            .as_array()
            .cloned()
            .unwrap_or_default();
        let mut lines: Vec<String> = at(&result, &["story"])
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
        for w in warnings.iter().take(3) {
            lines.push(format!(
                "warning: {}",
                at(w, &["message"]).as_str().unwrap_or("")
            ));
        }
        let title = format!(
            "What if {} exits with code {exit_code}",
            at(&result, &["container"])
                .as_str()
                .unwrap_or("the container")
        );
        (title, lines.join("\n"), result)
    } else {
        let restarts = at(args, &["restarts"]).as_u64().unwrap_or(10).min(100);
        input.insert("component".into(), json!("kubelet"));
        input.insert("restarts".into(), json!(restarts));
        // The core's typed backoff (the `backoff` op's decoding and answer).
        let r = restartkit::backoff::decode_input(Value::Object(input))
            .and_then(restartkit::backoff::run)
            .and_then(|out| {
                serde_json::to_value(out)
                    .map_err(|e| restartkit::Diagnostic::request("internal", "", e.to_string()))
            })
            .map_err(|d| (ErrorCode::RequestFailed, d.message))?;
        let delays = at(&r, &["delaysSeconds"])
            .as_array()
            .cloned()
            .unwrap_or_default();
        let times = at(&r, &["restartTimesSeconds"])
            .as_array()
            .cloned()
            .unwrap_or_default();
        let mut lines = vec![format!(
            "CrashLoopBackOff: initial {}s, max {}s, reset after a run of more than {}s",
            at(&r, &["initialSeconds"]),
            at(&r, &["maxSeconds"]),
            at(&r, &["resetAfterRunSeconds"])
        )];
        for (i, d) in delays.iter().enumerate() {
            lines.push(format!(
                "restart {}: waits {d}s, at {}s",
                i + 1,
                times.get(i).cloned().unwrap_or(Value::Null)
            ));
        }
        ("CrashLoopBackOff curve".to_owned(), lines.join("\n"), r)
    };
    if !quiet {
        s.show(LOG_INFO, format!("{title}\n{text_out}"));
    }
    Ok(json!({"title": title, "text": text_out, "result": result}))
}
