//! Reading manifests: YAML or JSON text, one or more documents, into JSON values with the line
//! and column of every field, so a diagnostic about `spec.containers[0].restartPolicy` can point
//! at its line.
//!
//! The YAML is read with `saphyr-parser` (a maintained YAML parser) event by event, so this
//! module decides what is safe: duplicate keys, nesting deeper than [`MAX_DEPTH`], alias
//! expansion beyond [`MAX_ALIAS_NODES`] and non-finite numbers are errors with a line, never a hang or
//! a crash. JSON is YAML, so the same reader serves both.
//!
//! What each scalar means is decided as the API server decides it, not by YAML 1.2: kubectl and
//! kube-apiserver convert YAML to JSON with `sigs.k8s.io/yaml`, i.e. go-yaml v2's YAML 1.1 rules
//! (`yes` is true, `010` is 8, `<<` merges a mapping) and Go's JSON encoder (`6.0` arrives as
//! `6`); see [`resolve`]. Duplicate keys, merged ones included, are errors, as in the strict field
//! validation kubectl asks for by default.
//!
//! The parts, a file each: `yaml` (the event reader and its guards), `piece` (one piece of text
//! read into documents: the passes, the patches, the look past the root), `resolve` (what a
//! scalar means), `checks` (what go-yaml and saphyr-parser disagree on, checked or patched),
//! `lookahead` (errors the parser reports late), `json` (strict JSON), `stream` (kubectl's
//! splitting of a stream into documents), `document` (a read document, its positions and
//! quick-fix edits), `span` (line and column arithmetic), `types` (the small types the parts
//! share) and `limits` (the guards' limits).
//!
//! The parts import one another by name, never this file, and form no circle: `limits`,
//! `types`, `checks`, `json` and `resolve` import no part; `lookahead` imports `checks`; `yaml`
//! those; `document` the event reader (to find positions on first use); `piece` the reader and
//! the document; `stream` the piece reader; `span` the document. This file only declares the
//! parts and re-exports what the crate uses.

mod checks;
mod chunked;
mod document;
mod json;
mod limits;
mod lookahead;
mod piece;
mod resolve;
pub mod settings;
mod span;
mod stream;
mod types;
mod yaml;

pub use document::Document;
pub use json::{parse_json_strict, text_from_bytes};
pub use limits::{MAX_ALIAS_NODES, MAX_DEPTH, MAX_NODES};
pub use piece::parse_whole;
pub use types::ReadNote;
pub(crate) use types::move_diagnostic;

pub use chunked::{MAX_OBJECT_BYTES, Piece, Splitter};
pub use span::{LineIndex, Part, attach_range, token_range};
pub use stream::{
    BrokenDocument, parse_documents, read_item, read_piece, read_stream, read_stream_at,
    separator_error,
};

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn one(text: &str) -> Document {
        let mut d = parse_documents(text).unwrap_or_default();
        assert_eq!(d.len(), 1, "{text}");
        d.remove(0)
    }

    #[test]
    fn positions_of_fields() {
        let d = one(
            "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: a\n    restartPolicy: Never\n",
        );
        assert_eq!(d.position_of("spec.containers[0].restartPolicy"), (6, 5));
        assert_eq!(
            d.position_of("spec.containers[0].restartPolicyRules[3].action"),
            (5, 5)
        );
        assert_eq!(d.position_of("kind"), (2, 1));
    }

    #[test]
    fn yaml_and_json_agree() {
        let y = one("a: 1\nb: [x, 2, true, null, 1.5]\nc: {d: '3'}\n");
        let j = one(r#"{"a": 1, "b": ["x", 2, true, null, 1.5], "c": {"d": "3"}}"#);
        assert_eq!(y.value, j.value);
    }

    #[test]
    fn multi_document_streams() {
        let d = parse_documents("---\na: 1\n---\n---\nb: 2\n...\n").unwrap_or_default();
        assert_eq!(d.len(), 2);
        assert_eq!(d.get(1).map(|x| x.line), Some(5));
    }

    #[test]
    fn positions_of_later_documents_come_from_the_shared_lazy_pass() {
        let d =
            parse_documents("a: 1\n---\n# note\nb:\n  c: [1, 2]\n---\nd: x\n").unwrap_or_default();
        assert_eq!(d.len(), 3);
        // Asked out of order: the stream is re-read once, and each document keeps its own map.
        assert_eq!(d.get(2).map(|x| x.position_of("d")), Some((7, 1)));
        assert_eq!(d.get(1).map(|x| x.position_of("b.c[1]")), Some((5, 10)));
        assert_eq!(d.first().map(|x| x.position_of("a")), Some((1, 1)));
        assert_eq!(
            d.get(1).map(|x| x.position_of("a")),
            Some((4, 1)),
            "a field the document lacks falls back to its first line"
        );
    }

    #[test]
    fn duplicate_keys_are_errors_with_a_line() {
        let e = parse_documents("a: 1\nb:\n  c: 1\n  c: 2\n").err();
        let e = e.map(|e| (e.line, e.field, e.code)).unwrap_or_default();
        assert_eq!(
            e,
            (Some(4), "b.c".to_owned(), Some("duplicate-key".to_owned()))
        );
        assert!(parse_json_strict(r#"{"a":1,"a":2}"#).is_err());
    }

    #[test]
    fn deep_nesting_and_alias_bombs_are_errors() {
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        assert!(parse_documents(&deep).is_err());
        let mut bomb = String::from("a: &a [x,x,x,x,x,x,x,x,x,x]\n");
        for i in 0..9 {
            let prev = if i == 0 {
                "a".to_owned()
            } else {
                format!("a{}", i - 1)
            };
            bomb.push_str(&format!("a{i}: &a{i} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"));
        }
        assert!(parse_documents(&bomb).is_err());
    }

    #[test]
    fn non_utf8_bytes_name_their_line_and_column() {
        let e = text_from_bytes(b"a: 1\nb: \xc3\xa9\xff\n")
            .err()
            .map(|d| (d.line, d.column, d.code));
        assert_eq!(e, Some((Some(2), Some(5), Some("invalid-utf8".to_owned()))));
        assert_eq!(text_from_bytes(b"ok").ok(), Some("ok"));
    }

    /// Scalars that YAML 1.1 (the API server) and YAML 1.2 read differently are noted with their
    /// field; those both read alike (`true`, `08`, `0x1F`, `6.0`, quoted ones) are not.
    #[test]
    fn yaml_1_1_readings_are_noted_with_their_field() {
        let d = one(
            "a: yes\nb: [010, 08, 0x1F, 6.0, '010', true]\non: 1\nc: {d: 1_000, e: 0b11, f: Off}\n",
        );
        let notes: Vec<(String, String, Value, bool)> = d
            .notes
            .iter()
            .map(|n| (n.field.clone(), n.text.clone(), n.read_as.clone(), n.key))
            .collect();
        assert_eq!(
            notes,
            vec![
                ("a".to_owned(), "yes".to_owned(), Value::Bool(true), false),
                ("b[0]".to_owned(), "010".to_owned(), Value::from(8), false),
                (
                    "true".to_owned(),
                    "on".to_owned(),
                    Value::from("true"),
                    true
                ),
                (
                    "c.d".to_owned(),
                    "1_000".to_owned(),
                    Value::from(1000),
                    false
                ),
                ("c.e".to_owned(), "0b11".to_owned(), Value::from(3), false),
                (
                    "c.f".to_owned(),
                    "Off".to_owned(),
                    Value::Bool(false),
                    false
                ),
            ]
        );
        assert_eq!(d.notes.get(1).map(|n| (n.line, n.column)), Some((2, 5)));
        assert!(
            one("a: true\nb: [08, 0x1F, 6.0, '010', 12]\n")
                .notes
                .is_empty()
        );
    }

    /// Where go-yaml's YAML 1.1 syntax differs from YAML 1.2 (checked against sigs.k8s.io/yaml
    /// v1.6.0): `\'` is an escape and `\/` is not, `%YAML 1.2` is refused, `!!binary` decodes.
    #[test]
    fn syntax_differences_follow_go_yaml() {
        let code = |text: &str| parse_documents(text).err().and_then(|e| e.code);
        assert_eq!(
            one("a: \"it\\'s \\' \"\nb: 'x\\'\nc: \"\\\\'\"\n").value,
            serde_json::json!({"a": "it's ' ", "b": "x\\", "c": "\\'"})
        );
        assert_eq!(code("a: \"\\'\\q\"\n").as_deref(), Some("syntax"));
        assert_eq!(code("a: \"http:\\/\\/x\"\n").as_deref(), Some("syntax"));
        // JSON (kubectl reads a stream starting with `{` as JSON) has `\/`.
        assert_eq!(
            one("{\"a\": \"http:\\/\\/x\"}").value,
            serde_json::json!({"a": "http://x"})
        );
        assert_eq!(
            one("a: 'x\\/'\nb: x\\/\n").value,
            serde_json::json!({"a": "x\\/", "b": "x\\/"})
        );
        assert_eq!(code("%YAML 1.2\n---\na: 1\n").as_deref(), Some("syntax"));
        // kubectl's document splitter: only spaces or a comment after `---`.
        assert_eq!(code("a: 1\n--- {b: 2}\n").as_deref(), Some("syntax"));
        assert_eq!(code("a: 1\n----\nb: 2\n").as_deref(), Some("syntax"));
        assert_eq!(
            parse_documents("--- # first\na: 1\n---   \nb: 2\n")
                .map(|d| d.len())
                .ok(),
            Some(2)
        );
        // kubectl cuts the stream at the `---` line first: the directive is a piece of its own,
        // which go-yaml refuses.
        assert_eq!(code("%YAML 1.1\n---\na: 1\n").as_deref(), Some("syntax"));
        assert_eq!(
            one("a: !!binary aGk=\nb: !!binary |\n  aG\n  k=\n").value,
            serde_json::json!({"a": "hi", "b": "hi"})
        );
        assert_eq!(code("a: !!binary '%%'\n").as_deref(), Some("invalid-value"));
        assert_eq!(
            one("a: [cat, -]\nb: {c: -, d: [-]}\ne: [-x, '-']\n").value,
            serde_json::json!({"a": ["cat", "-"], "b": {"c": "-", "d": ["-"]}, "e": ["-x", "-"]})
        );
        // Bounded: each `\'` scalar costs a parse.
        assert_eq!(
            one("\u{feff}a: \"\\'\"\n").value,
            serde_json::json!({"a": "'"})
        );
        let many = format!("a: [{}]\n", vec!["\"\\'\""; 150].join(", "));
        assert_eq!(code(&many).as_deref(), Some("syntax"));
    }

    /// Documents as `sigs.k8s.io/yaml` v1.6.0 `YAMLToJSONStrict` converts them (each expected
    /// value was read off it), the conversion kube-apiserver and kubectl make.
    #[test]
    fn documents_convert_as_the_api_server_converts_them() {
        let d = one("a: 0x10\nb: '42'\nc: -7\nd: 99999999999999999999\ne: yes\nf: 010\ng: 6.0\n");
        assert_eq!(
            d.value,
            serde_json::json!({"a": 16, "b": "42", "c": -7, "d": 1e20, "e": true, "f": 8, "g": 6})
        );
        let keys = one("1: a\nyes: b\n010: c\n0x1F: d\n1.50: e\n-1: f\n1e3: g\n'y': h\n");
        assert_eq!(
            keys.value,
            serde_json::json!({"1": "a", "true": "b", "8": "c", "31": "d", "1.5": "e", "-1": "f", "1000": "g", "y": "h"})
        );
        let tags = one("a: !!str 010\nb: !!int '010'\nc: !!float 1\nd: !!bool yes\ne: !foo bar\n");
        assert_eq!(
            tags.value,
            serde_json::json!({"a": "010", "b": 8, "c": 1, "d": true, "e": "bar"})
        );
        let merged = one("x: &x {a: 1}\nm:\n  <<: [*x, {d: 1}]\n  b: 2\nz:\n  <<: {c: 3}\n");
        assert_eq!(
            merged.value,
            serde_json::json!({"x": {"a": 1}, "m": {"a": 1, "d": 1, "b": 2}, "z": {"c": 3}})
        );
        // A quoted `<<` is an ordinary key.
        assert_eq!(
            one("'<<': {a: 1}\n").value,
            serde_json::json!({"<<": {"a": 1}})
        );
        let code = |text: &str| parse_documents(text).err().and_then(|e| e.code);
        assert_eq!(code("a: !!int abc\n").as_deref(), Some("invalid-value"));
        assert_eq!(code("~: a\n").as_deref(), Some("invalid-key"));
        assert_eq!(code("<<: 5\n").as_deref(), Some("invalid-merge"));
        assert_eq!(code("<<: [1]\n").as_deref(), Some("invalid-merge"));
        // Strict decoding refuses a key set twice, by a merge too.
        assert_eq!(code("a: 1\n<<: {a: 2}\n").as_deref(), Some("duplicate-key"));
        assert_eq!(code("<<: {a: 2}\na: 1\n").as_deref(), Some("duplicate-key"));
        assert_eq!(
            code("<<: [{a: 1}, {a: 2}]\n").as_deref(),
            Some("duplicate-key")
        );
        assert!(parse_documents("a: .nan\n").is_err());
        let merge_error = parse_documents("spec:\n  a: 1\n  <<: {a: 2}\n").err();
        assert_eq!(
            merge_error.map(|e| (e.field, e.line)),
            Some(("spec.a".to_owned(), Some(3)))
        );
    }

    /// The root position the fast pass keeps is the one the tracking pass finds for the path
    /// `""` (what diagnostics of the whole object are placed at), or none.
    #[test]
    fn the_root_position_is_the_tracked_one() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../conformance/realworld");
        let mut texts: Vec<String> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "yaml"))
            .filter_map(|e| std::fs::read_to_string(e.path()).ok())
            .collect();
        texts.extend(
            [
                "kind: Pod\n---\n# c\n\n  {\"kind\": \"Job\"}\n---\n- a\n- b\n---\njust text\n",
                "\"\": 1\nkind: Pod\n",
                "{\"\": {\"\": 2}, \"kind\": \"Pod\"}",
                "--- !!map\n  kind: Pod\n...\n--- &a\nkind: Job\n",
                "   [1, 2]\n",
            ]
            .map(str::to_owned),
        );
        let mut placed = 0;
        for text in &texts {
            for doc in read_stream(text).into_iter().flatten() {
                let tracked = doc
                    .positions
                    .of(doc.chunk_index)
                    .and_then(|p| p.get(""))
                    .copied();
                if let Some(root) = doc.root {
                    assert_eq!(Some(root), tracked, "{text}");
                    placed += 1;
                } else {
                    assert!(
                        doc.value.as_object().is_some_and(|m| m.contains_key("")),
                        "no root position: {text}"
                    );
                }
            }
        }
        assert!(placed > 60, "{placed}");
    }
}
