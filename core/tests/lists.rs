//! Lists (`kind: List`, `PodList`, what `kubectl get -o yaml` prints): kubectl applies them item
//! by item, so each item is validated as its own object.

use serde_json::{Value, json};

const LIST: &str = "apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata:
    name: p
  spec:
    restartPolicy: Sometimes
    containers:
    - name: c
      image: i
- apiVersion: batch/v1
  kind: Job
  metadata:
    name: j
  spec:
    template:
      spec:
        restartPolicy: Never
        containers:
        - name: c
          image: i
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: cm
";

fn validate(input: Value) -> Value {
    restartkit::handle(restartkit::Request {
        op: "validate".into(),
        input,
    })
    .result()
    .cloned()
    .unwrap_or(Value::Null)
}

fn errors(result: &Value) -> Vec<(String, Option<u64>)> {
    result
        .get("errors")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|e| {
            (
                e.get("field")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
                e.get("line").and_then(Value::as_u64),
            )
        })
        .collect()
}

#[test]
fn each_item_of_a_list_is_validated_where_it_is_written() {
    let from_yaml = validate(json!({"source": LIST}));
    assert_eq!(
        errors(&from_yaml),
        vec![("items[0].spec.restartPolicy".to_owned(), Some(9))]
    );
    assert_eq!(
        from_yaml.pointer("/documents/0/modelled"),
        Some(&json!(true))
    );
    // The same list given as an object: the same error, without a line.
    let docs = restartkit::source::parse_documents(LIST).unwrap_or_default();
    let object = docs.first().map(|d| d.value.clone()).unwrap_or_default();
    let from_object = validate(json!({"object": object}));
    assert_eq!(
        errors(&from_object),
        vec![("items[0].spec.restartPolicy".to_owned(), None)]
    );
    // Without the bad item the list is valid.
    let fixed = LIST.replace("Sometimes", "Always");
    assert_eq!(
        validate(json!({"source": fixed})).get("valid"),
        Some(&json!(true))
    );
}

/// kubectl decodes each document as an unstructured object first, which refuses one without a
/// kind: a warning (such files are often not meant for kubectl); a kind restartkit does not
/// model is only passed over.
#[test]
fn a_document_without_kind_is_a_warning_an_unmodelled_kind_an_info() {
    let no_kind = validate(json!({"source": "metadata:\n  name: x\nspec: {}\n"}));
    assert_eq!(no_kind.get("valid"), Some(&json!(true)));
    assert_eq!(
        no_kind.pointer("/warnings/0/code"),
        Some(&json!("missing-kind"))
    );
    assert_eq!(no_kind.pointer("/warnings/0/line"), Some(&json!(1)));
    let service =
        validate(json!({"source": "apiVersion: v1\nkind: Node\nmetadata:\n  name: s\n"}));
    assert_eq!(service.get("valid"), Some(&json!(true)));
    assert_eq!(
        service.pointer("/infos/0/code"),
        Some(&json!("kind-not-modelled"))
    );
}

/// A file without kind that happens to hold an `items` list (a Helm values.yaml) is not taken
/// for a Kubernetes list: one warning, no errors about its items.
#[test]
fn items_without_kind_are_not_a_list() {
    let values = validate(json!({"source": "items:\n- a\n- b: 1\n"}));
    assert_eq!(values.get("valid"), Some(&json!(true)));
    assert_eq!(errors(&values), vec![]);
    assert_eq!(
        values.pointer("/warnings/0/code"),
        Some(&json!("missing-kind"))
    );
}
