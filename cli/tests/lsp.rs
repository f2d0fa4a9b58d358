//! `restartkit lsp` at the protocol level: every request the server answers, cancellation, a
//! document closed mid-validation, a crash in one request, and bad input on the wire.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(60);

struct Client {
    child: Child,
    stdin: ChildStdin,
    rx: Receiver<Value>,
    next_id: i64,
    /// Messages read while waiting for something else.
    seen: Vec<Value>,
}

impl Client {
    fn start(env: &[(&str, &str)]) -> Client {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_restartkit"));
        cmd.arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().unwrap();
        let stdin = child.stdin.take().unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            loop {
                let mut len = 0usize;
                loop {
                    let mut line = String::new();
                    if out.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(v) = line.strip_prefix("Content-Length: ") {
                        len = v.parse().unwrap();
                    }
                }
                let mut body = vec![0; len];
                out.read_exact(&mut body).unwrap();
                if tx.send(serde_json::from_slice(&body).unwrap()).is_err() {
                    return;
                }
            }
        });
        Client {
            child,
            stdin,
            rx,
            next_id: 1,
            seen: Vec::new(),
        }
    }

    fn raw(&mut self, body: &[u8]) {
        write!(self.stdin, "Content-Length: {}\r\n\r\n", body.len()).unwrap();
        self.stdin.write_all(body).unwrap();
        self.stdin.flush().unwrap();
    }

    fn send(&mut self, v: Value) {
        self.raw(v.to_string().as_bytes());
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    fn request_async(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// The first message (seen before or read now) that `pred` accepts.
    fn wait_for(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.seen.iter().position(&pred) {
            return self.seen.remove(i);
        }
        loop {
            let v = self
                .rx
                .recv_timeout(WAIT)
                .unwrap_or_else(|_| panic!("no {what}; seen {:?}", self.seen));
            if pred(&v) {
                return v;
            }
            self.seen.push(v);
        }
    }

    fn response(&mut self, id: i64) -> Value {
        self.wait_for(&format!("response {id}"), |v| {
            v["id"] == id && v.get("method").is_none()
        })
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.request_async(method, params);
        self.response(id)
    }

    fn diagnostics(&mut self, uri: &str) -> Vec<Value> {
        let v = self.wait_for(&format!("diagnostics of {uri}"), |v| {
            v["method"] == "textDocument/publishDiagnostics" && v["params"]["uri"] == uri
        });
        v["params"]["diagnostics"].as_array().cloned().unwrap()
    }

    fn init(&mut self) -> Value {
        let r = self.request(
            "initialize",
            json!({"processId": null, "rootUri": null, "capabilities": {"textDocument": {"publishDiagnostics": {"relatedInformation": true}}}}),
        );
        self.notify("initialized", json!({}));
        r
    }

    fn open(&mut self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}}),
        );
    }

    fn stop(mut self) -> i32 {
        let id = self.request_async("shutdown", Value::Null);
        self.response(id);
        self.notify("exit", Value::Null);
        self.child.wait().unwrap().code().unwrap_or(-1)
    }
}

fn example() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/editor/job-fix-me.yaml"
    ))
    .unwrap()
}

fn pos(line: u32, character: u32) -> Value {
    json!({"line": line, "character": character})
}

#[test]
fn diagnostics_quick_fix_hover_completion_lenses_and_commands() {
    let mut c = Client::start(&[]);
    let init = c.init();
    let caps = &init["result"]["capabilities"];
    assert_eq!(caps["positionEncoding"], "utf-16");
    assert_eq!(caps["textDocumentSync"]["change"], 2);
    let uri = "file:///w/job.yaml";
    let text = example();
    c.open(uri, &text);
    let d = c.diagnostics(uri);
    assert_eq!(d.len(), 1, "{d:?}");
    // The refused value, line 22 (0-based 21), `OnFailure`.
    assert_eq!(
        d[0]["range"],
        json!({"start": pos(21, 21), "end": pos(21, 30)})
    );
    assert_eq!(d[0]["code"], "FieldValueInvalid");
    assert_eq!(d[0]["severity"], 1);
    assert!(
        d[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("spec.template.spec.restartPolicy: Invalid value: \"OnFailure\"")
    );
    assert_eq!(d[0]["source"], "restartkit (kube-apiserver)");
    // The settings comment chose 1.36: the link names that release.
    assert!(
        d[0]["codeDescription"]["href"]
            .as_str()
            .unwrap()
            .contains("release-1.36/pkg/apis/batch/validation/validation.go")
    );

    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": {"start": pos(21, 24), "end": pos(21, 24)}, "context": {"diagnostics": []}}),
    );
    let action = &actions["result"][0];
    assert_eq!(action["kind"], "quickfix");
    let edit = &action["edit"]["changes"][uri][0];
    assert_eq!(edit["newText"], "Never");
    assert_eq!(
        edit["range"],
        json!({"start": pos(21, 21), "end": pos(21, 30)})
    );
    // Nothing to fix elsewhere.
    let none = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": {"start": pos(5, 0), "end": pos(5, 0)}, "context": {"diagnostics": []}}),
    );
    assert_eq!(none["result"], json!([]));
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"range": edit["range"], "text": "Never"}]}),
    );
    assert_eq!(c.diagnostics(uri), Vec::<Value>::new());

    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": pos(11, 8)}),
    );
    let md = hover["result"]["contents"]["value"].as_str().unwrap();
    assert!(md.contains("container `trainer`: 2–3"), "{md}");
    assert_eq!(
        hover["result"]["range"],
        json!({"start": pos(11, 6), "end": pos(11, 12)})
    );

    // Completion at an empty value.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"range": {"start": pos(14, 18), "end": pos(14, 20)}, "text": ""}]}),
    );
    let items = c.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": uri}, "position": pos(14, 18)}),
    );
    let labels: Vec<&str> = items["result"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["In", "NotIn"]);
    assert_eq!(
        items["result"]["items"][0]["textEdit"]["range"],
        json!({"start": pos(14, 18), "end": pos(14, 18)})
    );

    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 4}, "contentChanges": [{"range": {"start": pos(14, 18), "end": pos(14, 18)}, "text": "In"}]}),
    );
    let lenses = c.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri}}),
    );
    let lenses = lenses["result"].as_array().unwrap();
    assert_eq!(lenses.len(), 2);
    assert_eq!(lenses[0]["range"]["start"], pos(4, 0));
    let what_if = &lenses[0]["command"];
    assert_eq!(what_if["command"], "restartkit.whatIf");
    let mut args = what_if["arguments"][0].clone();
    args["exitCode"] = json!(2);
    let r = c.request(
        "workspace/executeCommand",
        json!({"command": "restartkit.whatIf", "arguments": [args]}),
    );
    let text = r["result"]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{r}"));
    assert!(text.contains("job train: FailJob"), "{text}");
    assert_eq!(r["result"]["result"]["job"]["outcome"], "JobFailed");
    let shown = c.wait_for("showMessage", |v| v["method"] == "window/showMessage");
    assert!(
        shown["params"]["message"]
            .as_str()
            .unwrap()
            .starts_with("What if trainer exits with code 2")
    );
    let curve = c.request("workspace/executeCommand", json!({"command": "restartkit.backoffCurve", "arguments": [lenses[1]["command"]["arguments"][0].clone().as_object().map(|o| { let mut o = o.clone(); o.insert("quiet".into(), json!(true)); Value::Object(o) }).unwrap()]}));
    // Kubernetes 1.36 (the file's comment): 10 s doubling to 300 s, the first restart at once.
    assert_eq!(
        curve["result"]["result"]["delaysSeconds"][1], 10.0,
        "{curve}"
    );
    assert_eq!(curve["result"]["result"]["maxSeconds"], 300.0, "{curve}");
    assert_eq!(c.stop(), 0);
}

#[test]
fn settings_from_the_workspace_and_quiet_files() {
    let mut c = Client::start(&[]);
    let r = c.request(
        "initialize",
        json!({"capabilities": {}, "initializationOptions": {"kubernetesVersion": "1.33", "featureGates": {"JobManagedBy": "yes"}}}),
    );
    assert!(r["result"]["capabilities"].is_object());
    let shown = c.wait_for("showMessage", |v| v["method"] == "window/showMessage");
    assert!(
        shown["params"]["message"]
            .as_str()
            .unwrap()
            .contains("restartkit.featureGates.JobManagedBy")
    );
    c.notify("initialized", json!({}));
    // A container restartPolicy is refused before ContainerRestartRules (1.33 has it off).
    let pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: i\n    restartPolicy: Never\n";
    c.open("file:///p.yaml", pod);
    let d = c.diagnostics("file:///p.yaml");
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"restartkit": {"kubernetesVersion": "1.36"}}}),
    );
    let d2 = c.diagnostics("file:///p.yaml");
    assert_ne!(d, d2, "the version changed the answer: {d:?}");
    // A CI workflow, a values file: nothing from restartkit.
    c.open(
        "file:///ci.yaml",
        "on: push\njobs:\n  build:\n    runs-on: x\n",
    );
    assert_eq!(c.diagnostics("file:///ci.yaml"), Vec::<Value>::new());
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"restartkit": {"kubernetesVersion": "1.20"}}}),
    );
    let bad = c.diagnostics("file:///p.yaml");
    assert!(
        bad[0]["message"]
            .as_str()
            .unwrap()
            .contains("Kubernetes 1.20 is not modelled"),
        "{bad:?}"
    );
    assert_eq!(c.stop(), 0);
}

#[test]
fn cancellation_and_a_document_closed_mid_validation() {
    let mut c = Client::start(&[("RESTARTKIT_LSP_SELF_TEST", "1")]);
    c.init();
    // A document that takes a while to read, so that the worker is busy.
    let job = example().replace("restartPolicy: OnFailure", "restartPolicy: Never");
    let big: String = std::iter::repeat_n(format!("---\n{job}"), 3000).collect();
    c.open("file:///small.yaml", &job);
    assert_eq!(c.diagnostics("file:///small.yaml"), Vec::<Value>::new());
    c.open("file:///big.yaml", &big);
    let slow = c.request_async(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": "file:///big.yaml"}}),
    );
    let cancelled = c.request_async(
        "textDocument/hover",
        json!({"textDocument": {"uri": "file:///small.yaml"}, "position": pos(11, 8)}),
    );
    c.notify("$/cancelRequest", json!({"id": cancelled}));
    let lenses = c.response(slow);
    assert_eq!(lenses["result"].as_array().unwrap().len(), 6000);
    let r = c.response(cancelled);
    assert_eq!(r["error"]["code"], -32800, "{r}");
    // Closed while its validation may be running: the close clears it, and nothing follows.
    c.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": "file:///big.yaml"}}),
    );
    let closed = c.wait_for("the close's diagnostics", |v| {
        v["method"] == "textDocument/publishDiagnostics"
            && v["params"]["uri"] == "file:///big.yaml"
            && v["params"]["diagnostics"] == json!([])
    });
    assert!(closed["params"]["version"].is_null());
    // Requests after it are answered after any validation left (one worker, in order).
    let after = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": "file:///small.yaml"}, "position": pos(11, 8)}),
    );
    assert!(
        after["result"]["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("FailJob")
    );
    std::thread::sleep(Duration::from_millis(300));
    while let Ok(v) = c.rx.try_recv() {
        c.seen.push(v);
    }
    assert!(
        !c.seen
            .iter()
            .any(|v| v["params"]["uri"] == "file:///big.yaml"
                && v["params"]["diagnostics"] != json!([])),
        "a closed document's diagnostics were published"
    );

    // A crash in one request is reported; the server goes on.
    let crash = c.request(
        "workspace/executeCommand",
        json!({"command": "restartkit.selfTestPanic", "arguments": []}),
    );
    assert_eq!(crash["error"]["code"], -32603);
    assert!(
        crash["error"]["message"]
            .as_str()
            .unwrap()
            .contains("self-test panic"),
        "{crash}"
    );
    let logged = c.wait_for("log of the crash", |v| {
        v["method"] == "window/logMessage" && v["params"]["type"] == 1
    });
    assert!(
        logged["params"]["message"]
            .as_str()
            .unwrap()
            .contains("workspace/executeCommand failed")
    );
    let again = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": "file:///small.yaml"}, "position": pos(11, 8)}),
    );
    assert!(again["result"]["contents"].is_object());
    assert_eq!(c.stop(), 0);
}

#[test]
fn bad_input_gets_protocol_errors_or_diagnostics() {
    let mut c = Client::start(&[]);
    // Before initialize.
    let early = c.request("textDocument/hover", json!({}));
    assert_eq!(early["error"]["code"], -32002);
    c.init();
    // Not UTF-8, not JSON, not a message: answered, and the server reads on.
    c.raw(b"\xff\xfe\xfd");
    let e = c.wait_for("parse error", |v| v["error"]["code"] == -32700);
    assert!(e["id"].is_null());
    c.raw(b"{\"jsonrpc\": \"2.0\", \"id\": 7,");
    c.wait_for("second parse error", |v| v["error"]["code"] == -32700);
    let unknown = c.request("textDocument/rename", json!({}));
    assert_eq!(unknown["error"]["code"], -32601);
    let bad_params = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": "file:///nope.yaml"}, "position": pos(0, 0)}),
    );
    assert_eq!(bad_params["error"]["code"], -32602);
    // Out of order: a change to a document never opened, an older version.
    c.notify("textDocument/didChange", json!({"textDocument": {"uri": "file:///x.yaml", "version": 2}, "contentChanges": [{"text": "a"}]}));
    let log = c.wait_for("log", |v| v["method"] == "window/logMessage");
    assert!(
        log["params"]["message"]
            .as_str()
            .unwrap()
            .contains("not open")
    );
    // Text that is not YAML, binary bytes, a range past the end: diagnostics.
    let job = example();
    let broken = format!("{job}---\nkind: Job\nspec: [unclosed\n---\n\u{0}\u{1}\u{7f}binary\n");
    c.open("file:///b.yaml", &broken);
    let d = c.diagnostics("file:///b.yaml");
    let codes: Vec<&str> = d.iter().filter_map(|x| x["code"].as_str()).collect();
    assert_eq!(codes.iter().filter(|c| **c == "syntax").count(), 2, "{d:?}");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": "file:///b.yaml", "version": 2}, "contentChanges": [{"range": {"start": pos(900, 0), "end": pos(901, 0)}, "text": "# end\n"}]}),
    );
    c.wait_for("clamp log", |v| {
        v["method"] == "window/logMessage"
            && v["params"]["message"]
                .as_str()
                .unwrap_or("")
                .contains("past the end")
    });
    c.notify("textDocument/didChange", json!({"textDocument": {"uri": "file:///b.yaml", "version": 1}, "contentChanges": [{"text": ""}]}));
    c.wait_for("old version log", |v| {
        v["method"] == "window/logMessage"
            && v["params"]["message"]
                .as_str()
                .unwrap_or("")
                .contains("after version 2")
    });
    // 50 MB: one diagnostic saying it is not validated as it is edited.
    let huge: String =
        std::iter::repeat_n(format!("---\n{job}"), 50_000_000 / job.len() + 1).collect();
    assert!(huge.len() > 50_000_000);
    c.open("file:///huge.yaml", &huge);
    let d = c.diagnostics("file:///huge.yaml");
    assert_eq!(d.len(), 1);
    assert_eq!(d[0]["code"], "too-large");
    // After shutdown, requests are refused; exit ends with 0.
    let id = c.request_async("shutdown", Value::Null);
    c.response(id);
    let late = c.request("textDocument/hover", json!({}));
    assert_eq!(late["error"]["code"], -32600);
    c.notify("exit", Value::Null);
    assert_eq!(c.child.wait().unwrap().code(), Some(0));
}

#[test]
fn exit_without_shutdown_is_status_1() {
    let mut c = Client::start(&[]);
    c.init();
    c.notify("exit", Value::Null);
    assert_eq!(c.child.wait().unwrap().code(), Some(1));
}
