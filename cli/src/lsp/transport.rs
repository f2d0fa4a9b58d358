//! The wire: JSON-RPC messages framed by `Content-Length` headers on stdin and stdout.
//!
//! lsp-server's own reader ends the connection on a message it cannot read; here a message whose
//! body is not UTF-8, not JSON or not a JSON-RPC message is answered with a protocol error
//! (`ParseError`, `InvalidRequest`) and the next one is read, so a client that sends a bad
//! message does not take the server down. Only a broken header or the end of input ends it.

use lsp_server::{ErrorCode, Message};
use serde_json::{Value, json};
use std::io::{BufRead, Write};
use std::sync::mpsc::{Receiver, Sender};

/// Most bytes one message may have (a 50 MB manifest in a didOpen fits).
pub const MAX_MESSAGE_BYTES: usize = 256 << 20;

/// What the reader hands to the server.
pub enum Incoming {
    Message(Message),
    /// A message that could not be read: the error response to send (id null, or the id the
    /// message had when only its shape was wrong).
    Bad(Value),
    /// End of input (or a header that cannot be read past).
    End(String),
}

fn error(id: Value, code: ErrorCode, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code as i32, "message": message}})
}

/// Reads one framed message body: Ok(None) at the end of input.
fn read_frame(r: &mut impl BufRead) -> Result<Option<Vec<u8>>, String> {
    let mut length: Option<usize> = None;
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = r
            .read_until(b'\n', &mut line)
            .map_err(|e| format!("reading a header: {e}"))?;
        if n == 0 {
            return if length.is_none() {
                Ok(None)
            } else {
                Err("input ended inside a header".to_owned())
            };
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            if length.is_some() {
                break;
            }
            // Blank lines between messages are passed over.
            continue;
        }
        if let Some((name, value)) = text.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                length = Some(
                    value
                        .trim()
                        .parse()
                        .map_err(|_| format!("bad Content-Length header {text:?}"))?,
                );
            }
        } else {
            return Err(format!("not a header line: {text:?}"));
        }
    }
    let length = length.unwrap_or(0);
    if length > MAX_MESSAGE_BYTES {
        return Err(format!(
            "a message of {length} bytes is over the limit of {MAX_MESSAGE_BYTES}"
        ));
    }
    let mut body = vec![0u8; length];
    r.read_exact(&mut body)
        .map_err(|e| format!("reading a message body of {length} bytes: {e}"))?;
    Ok(Some(body))
}

/// Turns one body into a message, or the protocol error that answers it.
pub fn parse(body: &[u8]) -> Result<Message, Value> {
    let text = std::str::from_utf8(body).map_err(|e| {
        error(
            Value::Null,
            ErrorCode::ParseError,
            format!("the message is not UTF-8 text ({e})"),
        )
    })?;
    let value: Value = serde_json::from_str(text).map_err(|e| {
        error(
            Value::Null,
            ErrorCode::ParseError,
            format!("the message is not JSON: {e}"),
        )
    })?;
    let id = value.get("id").cloned().unwrap_or(Value::Null);
    serde_json::from_value::<Message>(value).map_err(|e| {
        // A request's id is answered only if it is one JSON-RPC allows.
        let id = if id.is_string() || id.is_i64() {
            id
        } else {
            Value::Null
        };
        error(
            id,
            ErrorCode::InvalidRequest,
            format!("not a JSON-RPC request, response or notification: {e}"),
        )
    })
}

/// Reads messages until the end of input, sending each to `to`.
pub fn read_loop(mut input: impl BufRead, to: Sender<Incoming>) {
    loop {
        let incoming = match read_frame(&mut input) {
            Ok(None) => Incoming::End("end of input".to_owned()),
            Ok(Some(body)) => match parse(&body) {
                Ok(m) => Incoming::Message(m),
                Err(e) => Incoming::Bad(e),
            },
            Err(e) => Incoming::End(e),
        };
        let end = matches!(incoming, Incoming::End(_));
        if to.send(incoming).is_err() || end {
            return;
        }
    }
}

/// Writes each message it gets, framed, until the channel closes.
pub fn write_loop(mut out: impl Write, from: Receiver<Value>) {
    for v in from {
        let body = v.to_string();
        let ok = write!(out, "Content-Length: {}\r\n\r\n{body}", body.len()).is_ok()
            && out.flush().is_ok();
        if !ok {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn bad_bodies_are_answered_and_reading_goes_on() {
        let mut input = Vec::new();
        for body in [
            &b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}"[..],
            b"\xff\xfe",
            b"{no",
            b"{\"id\":{},\"x\":1}",
        ] {
            input.extend(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
            input.extend(body);
        }
        let (tx, rx) = std::sync::mpsc::channel();
        read_loop(std::io::Cursor::new(input), tx);
        let got: Vec<Incoming> = rx.into_iter().collect();
        assert!(matches!(&got[0], Incoming::Message(Message::Request(r)) if r.method == "a"));
        let codes: Vec<i64> = got[1..4]
            .iter()
            .map(|i| match i {
                Incoming::Bad(v) => v["error"]["code"].as_i64().unwrap(),
                _ => 0,
            })
            .collect();
        assert_eq!(codes, [-32700, -32700, -32600]);
        assert!(matches!(&got[4], Incoming::End(_)));
    }
}
