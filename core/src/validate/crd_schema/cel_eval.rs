//! `x-kubernetes-validations` evaluated on create, as apiextensions-apiserver's CEL validator does
//! it (pkg/apiserver/schema/cel validation.go `Validator.validate`, `validateExpressions`,
//! `validateMap`, `validateArray`; called by the custom resource strategy's Validate with no old
//! object, after the schema and list-type checks, unless one of their errors blocks it).
//!
//! The engine is the `cel` crate (cel-rust): its parser, macros and dynamic evaluation agree with
//! cel-go on the rules this models (see docs/oracle.md, leg `validate(CEL)`); what cel-go adds on
//! top, restartkit adds here: `self` typed from the structural schema as UnstructuredToVal types
//! it (integer and number kept apart, the root's and embedded resources' metadata cut to name and
//! generateName), the Kubernetes CEL libraries' functions (regex with Go's RE2 semantics through
//! core's Go regexp translation, the strings and lists extensions), and cel-go's runtime error
//! texts. cel-go type-checks a rule against the schema when the CRD is created; the crate does
//! not, so a rule the API server would refuse at CRD creation is reported when it is evaluated
//! ("rule compile error"), worded by the crate.

use super::cel::{Rule, field_path_steps};
use super::schema::{Additional, Schema};
use super::openapi::apimachinery_error;
use crate::diag::{Diagnostic, ErrorType as T, FieldPath};
use crate::eval::jobset_re2;
use cel::extractors::{Arguments, This};
use cel::objects::Key;
use cel::common::ast::{Expr, operators};
use cel::parser::Expression;
use cel::{Context, ExecutionError, Program, Value as Cv};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;
use crate::versions::Change;

/// celconfig.MaxEvaluatedMessageExpressionSizeBytes.
const MAX_MESSAGE_EXPRESSION_BYTES: usize = 5 * 1024;
/// Deeper values than this are not walked (the decoder's own depth limit keeps real ones far
/// shallower); it bounds the recursion.
const MAX_DEPTH: usize = 512;

/// The CEL rules' errors for the admitted object `v` of the root `schema`. `blocked`: an earlier
/// error of the create path blocks CEL (strategy.go `hasBlockingErr`): then one error says so.
pub fn errors(schema: &Schema, v: &Value, blocked: bool, minor: u32) -> Vec<Diagnostic> {
    if blocked {
        return vec![apimachinery_error(
            "<nil>",
            T::FieldValueInvalid,
            Some(Value::Null),
            "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
            minor,
        )];
    }
    let mut out = Vec::new();
    walk(schema, v, &FieldPath::root(), true, 0, minor, &mut out);
    out
}

fn walk(
    s: &Schema,
    v: &Value,
    path: &FieldPath,
    resource_root: bool,
    depth: usize,
    minor: u32,
    out: &mut Vec<Diagnostic>,
) {
    if v.is_null() || depth > MAX_DEPTH {
        return;
    }
    if !s.validations.is_empty() {
        node_rules(s, v, path, resource_root, minor, out);
    }
    match v {
        Value::Array(items) => {
            if let Some(item) = &s.items {
                if item.cel_rules == 0 {
                    return;
                }
                for (i, x) in items.iter().enumerate() {
                    walk(item, x, &path.index(i), item.embedded_resource, depth + 1, minor, out);
                }
            }
        }
        Value::Object(m) => {
            if let Some(Additional::Schema(a)) = &s.additional_properties
                && a.cel_rules > 0
            {
                for (k, x) in m {
                    walk(a, x, &path.key(k), a.embedded_resource, depth + 1, minor, out);
                }
            }
            for (k, x) in m {
                if let Some(p) = s.properties.get(k)
                    && p.cel_rules > 0
                {
                    walk(p, x, &path.child(k), p.embedded_resource, depth + 1, minor, out);
                }
            }
        }
        _ => {}
    }
}

/// The schema's type as the validator passes it as the bad value of its own errors (`sts.Type`).
fn schema_type(s: &Schema) -> &str {
    if s.int_or_string {
        return "";
    }
    s.types.first().map_or("", String::as_str)
}

/// The field as field.Error prints it: the validator starts from a nil path, which prints as
/// `<nil>` for the root's own rules.
fn field_of(path: &FieldPath) -> &str {
    if path.as_str().is_empty() { "<nil>" } else { path.as_str() }
}

/// `field.Invalid(fldPath, sts.Type, detail)`, the validator's own errors.
fn invalid(path: &FieldPath, ty: &str, detail: &str, minor: u32) -> Diagnostic {
    apimachinery_error(field_of(path), T::FieldValueInvalid, Some(Value::from(ty)), detail, minor)
}

fn node_rules(
    s: &Schema,
    v: &Value,
    path: &FieldPath,
    resource_root: bool,
    minor: u32,
    out: &mut Vec<Diagnostic>,
) {
    let ty = schema_type(s);
    let this = to_cel(v, Some(s), resource_root, 0);
    for rule in &s.validations {
        let program = match compile(&rule.rule) {
            Ok(Some(p)) => p,
            Ok(None) => continue,
            Err(e) => {
                out.push(invalid(path, ty, &format!("rule compile error: {e}"), minor));
                continue;
            }
        };
        if program.references().has_variable("oldSelf") {
            // A transition rule: evaluated only on update, where there is an old value (with
            // optionalOldSelf too: restartkit does not model oldSelf's optional type).
            continue;
        }
        let ctx = context(&this, minor);
        let result = match eval(program.expression(), &ctx) {
            Ok(r) => r,
            Err(e) => {
                let msg = runtime_error(&e);
                let detail = if msg.starts_with("no such overload") {
                    format!(
                        "'{msg}': call arguments did not match a supported operator, function or macro signature for rule: {}",
                        rule_error_string(rule)
                    )
                } else {
                    format!("{msg} evaluating rule: {}", rule_error_string(rule))
                };
                out.push(invalid(path, ty, &detail, minor));
                continue;
            }
        };
        match result {
            Cv::Bool(true) => continue,
            Cv::Bool(false) => {}
            _ => {
                out.push(invalid(
                    path,
                    ty,
                    "rule compile error: compilation failed: cel expression must evaluate to a bool",
                    minor,
                ));
                continue;
            }
        }
        let mut at = path.clone();
        if let Some(steps) = rule.field_path.as_deref().and_then(field_path_steps) {
            at = at.child(&joined_steps(s, &steps));
        }
        let detail = message_expression(rule, &ctx).unwrap_or_else(|| rule_message_or_default(rule));
        // From 1.35 the error carries the value (left out for objects and arrays); before, the
        // schema's type, as for the validator's own errors (validation.go at each minor).
        let bad = if !Change::CelErrorCarriesValue.at(minor) {
            Some(Value::from(ty))
        } else {
            (!matches!(ty, "object" | "array")).then(|| v.clone())
        };
        let (t, bad) = match rule.reason.as_deref() {
            Some("FieldValueForbidden") => (T::FieldValueForbidden, None),
            Some("FieldValueRequired") => (T::FieldValueRequired, None),
            Some("FieldValueDuplicate") => (T::FieldValueDuplicate, bad),
            _ => (T::FieldValueInvalid, bad),
        };
        let detail = if t == T::FieldValueDuplicate { String::new() } else { detail };
        let d = apimachinery_error(field_of(&at), t, bad, &detail, minor);
        out.push(d);
    }
}

/// ValidFieldPath's path as field.Path prints it: a name under `properties` is a child, a
/// bracketed name of a map a key.
fn joined_steps(mut s: &Schema, steps: &[(String, bool)]) -> String {
    let mut p = String::new();
    for (name, bracket) in steps {
        let named = !bracket || !s.properties.is_empty();
        if named {
            if !p.is_empty() {
                p.push('.');
            }
            p.push_str(name);
        } else {
            p.push('[');
            p.push_str(name);
            p.push(']');
        }
        match s.child(name) {
            Some(c) => s = c,
            None => break,
        }
    }
    p
}

fn rule_error_string(rule: &Rule) -> &str {
    let m = rule.message.trim();
    if m.is_empty() { rule.rule.trim() } else { m }
}

fn rule_message_or_default(rule: &Rule) -> String {
    let m = rule.message.trim();
    if m.is_empty() {
        format!("failed rule: {}", rule.rule.trim())
    } else {
        m.to_owned()
    }
}

/// evalMessageExpression: a message expression that fails, or gives no usable string, falls back
/// to the rule's message (the API server only logs why).
fn message_expression(rule: &Rule, ctx: &Context) -> Option<String> {
    if rule.message_expression.trim().is_empty() {
        return None;
    }
    let p = compile(&rule.message_expression).ok()??;
    let Ok(Cv::String(s)) = p.execute(ctx) else {
        return None;
    };
    let t = s.trim();
    if t.is_empty() || t.len() > MAX_MESSAGE_EXPRESSION_BYTES || t.contains('\n') {
        return None;
    }
    Some(t.to_owned())
}

/// Evaluates `e`, with cel-go's logical operators at the top of the expression: `||` and `&&`
/// are commutative over errors (an error on one side is absorbed by a deciding value on the
/// other) and, with errors on both sides, the left one is the result (cel-go interpreter
/// evalOr/evalAnd); the crate would give the right one. Below other nodes the crate decides.
fn eval(e: &Expression, ctx: &Context) -> Result<Cv, ExecutionError> {
    if let Expr::Call(call) = &e.expr
        && call.target.is_none()
    {
        match (call.func_name.as_str(), call.args.as_slice()) {
            (operators::LOGICAL_OR | operators::LOGICAL_AND, [a, b]) => {
                let decisive = call.func_name == operators::LOGICAL_OR;
                let l = eval(a, ctx);
                if matches!(l, Ok(Cv::Bool(x)) if x == decisive) {
                    return Ok(Cv::Bool(decisive));
                }
                let r = eval(b, ctx);
                return match (l, r) {
                    (_, Ok(Cv::Bool(x))) if x == decisive => Ok(Cv::Bool(decisive)),
                    (Ok(Cv::Bool(_)), Ok(Cv::Bool(y))) => Ok(Cv::Bool(y)),
                    (Err(e), _) => Err(e),
                    (Ok(Cv::Bool(_)), Err(e)) => Err(e),
                    _ => Err(ExecutionError::function_error(&call.func_name, "no such overload")),
                };
            }
            (operators::CONDITIONAL, [c, t, f]) => {
                return match eval(c, ctx)? {
                    Cv::Bool(true) => eval(t, ctx),
                    Cv::Bool(false) => eval(f, ctx),
                    _ => Err(ExecutionError::function_error("_?_:_", "no such overload")),
                };
            }
            (operators::LOGICAL_NOT, [a]) => {
                return match eval(a, ctx)? {
                    Cv::Bool(b) => Ok(Cv::Bool(!b)),
                    _ => Err(ExecutionError::function_error("!_", "no such overload")),
                };
            }
            _ => {}
        }
    }
    Cv::resolve(e, ctx)
}

/// Compiles a rule; `Ok(None)` for an empty one (the validator skips it).
fn compile(src: &str) -> Result<Option<Program>, String> {
    if src.trim().is_empty() {
        return Ok(None);
    }
    Program::compile(src)
        .map(Some)
        .map_err(|e| format!("compilation failed: {e}"))
}

/// cel-go's text for a runtime error (common/types err.go; the unstructured list's "index out of
/// bounds" and map's "no such key" in apiserver pkg/cel/common valuesunstructured.go).
fn runtime_error(e: &ExecutionError) -> String {
    match e {
        ExecutionError::NoSuchKey(k) => format!("no such key: {k}"),
        ExecutionError::IndexOutOfBounds(i) => format!("index out of bounds: {}", display(i)),
        ExecutionError::DivisionByZero(_) => "division by zero".to_owned(),
        ExecutionError::RemainderByZero(_) => "modulus by zero".to_owned(),
        ExecutionError::Overflow(..) => "integer overflow".to_owned(),
        ExecutionError::FunctionError { message, .. } => message.clone(),
        ExecutionError::NoSuchOverload(_)
        | ExecutionError::UnsupportedBinaryOperator(..)
        | ExecutionError::ValuesNotComparable(..)
        | ExecutionError::UnexpectedType { .. }
        | ExecutionError::UnsupportedTargetType { .. }
        | ExecutionError::NotSupportedAsMethod { .. } => "no such overload".to_owned(),
        other => other.to_string(),
    }
}

fn display(v: &Cv) -> String {
    match v {
        Cv::Int(i) => i.to_string(),
        Cv::UInt(u) => u.to_string(),
        Cv::Float(f) => f.to_string(),
        Cv::String(s) => s.to_string(),
        other => format!("{other:?}"),
    }
}

/// UnstructuredToVal: the JSON value as CEL sees it under schema `s` (`None`: a value kept by
/// x-kubernetes-preserve-unknown-fields, typed by its JSON form). `resource_root`: the root and
/// embedded resources, whose metadata CEL sees as name and generateName only
/// (model.WithTypeAndObjectMeta).
fn to_cel(v: &Value, s: Option<&Schema>, resource_root: bool, depth: usize) -> Cv {
    if depth > MAX_DEPTH {
        return Cv::Null;
    }
    match v {
        Value::Null => Cv::Null,
        Value::Bool(b) => Cv::Bool(*b),
        Value::Number(n) => {
            let number = s.is_some_and(|s| s.has_type("number") && !s.int_or_string);
            match n.as_i64() {
                Some(i) if !number => Cv::Int(i),
                _ => Cv::Float(n.as_f64().unwrap_or(0.0)),
            }
        }
        Value::String(x) => Cv::String(Arc::new(x.clone())),
        Value::Array(a) => {
            let item = s.and_then(|s| s.items.as_deref());
            Cv::List(Arc::new(
                a.iter()
                    .map(|x| to_cel(x, item, item.is_some_and(|i| i.embedded_resource), depth + 1))
                    .collect(),
            ))
        }
        Value::Object(m) => {
            let mut out: HashMap<Key, Cv> = HashMap::with_capacity(m.len());
            for (k, x) in m {
                let child = s.and_then(|s| s.child(k));
                let cv = if resource_root && k == "metadata" {
                    let mut md: HashMap<Key, Cv> = HashMap::new();
                    if let Value::Object(mm) = x {
                        for key in ["name", "generateName"] {
                            if let Some(Value::String(val)) = mm.get(key) {
                                md.insert(Key::String(Arc::new(key.to_owned())), Cv::String(Arc::new(val.clone())));
                            }
                        }
                    }
                    Cv::from(md)
                } else {
                    to_cel(x, child, child.is_some_and(|c| c.embedded_resource), depth + 1)
                };
                out.insert(Key::String(Arc::new(k.clone())), cv);
            }
            Cv::from(out)
        }
    }
}

/// The activation (`self`) and the Kubernetes CEL library functions the crate lacks.
fn context<'a>(this: &Cv, minor: u32) -> Context<'a, 'a> {
    let mut ctx = Context::default();
    ctx.add_variable_from_value("self", this.clone());
    // Adding a name the crate already declares fails: the crate's own function stays.
    let _ = ctx.add_function("matches", matches);
    let _ = ctx.add_function("lowerAscii", |This(s): This<Arc<String>>| s.to_ascii_lowercase());
    let _ = ctx.add_function("upperAscii", |This(s): This<Arc<String>>| s.to_ascii_uppercase());
    let _ = ctx.add_function("trim", |This(s): This<Arc<String>>| s.trim().to_owned());
    let _ = ctx.add_function("split", split);
    let _ = ctx.add_function("join", join);
    let _ = ctx.add_function("isSorted", is_sorted);
    let _ = ctx.add_function("sum", sum);
    if !Change::CelIndexOfEmptyString.at(minor) {
        // cel-go v0.20.1 (Kubernetes 1.31) ext/strings.go indexOfOffset checks the offset
        // against the string's length before the search: a non-empty needle in an empty string
        // is "index out of range: 0" (v0.22 and later answer -1).
        let _ = ctx.add_function("indexOf", |This(t): This<Cv>, x: Cv| match (&t, &x) {
            (Cv::String(s), Cv::String(sub)) if s.is_empty() && !sub.is_empty() => Err(
                ExecutionError::function_error("indexOf", "index out of range: 0"),
            ),
            _ => index_of(This(t), x),
        });
    } else {
        let _ = ctx.add_function("indexOf", index_of);
    }
    let _ = ctx.add_function("lastIndexOf", last_index_of);
    ctx
}

/// cel-go's `matches`: Go's regexp (RE2), an unanchored search; a pattern Go refuses is an error
/// with Go's text.
fn matches(This(s): This<Arc<String>>, re: Arc<String>) -> Result<bool, ExecutionError> {
    match jobset_re2::compile(&re) {
        Ok(r) => Ok(r.is_match(&s)),
        Err(e) => Err(ExecutionError::function_error(
            "matches",
            format!("error parsing regexp: {e}"),
        )),
    }
}

/// ext.Strings `split(sep)` and `split(sep, n)` (Go strings.Split / SplitN).
fn split(This(s): This<Arc<String>>, Arguments(args): Arguments) -> Result<Cv, ExecutionError> {
    let sep = match args.first() {
        Some(Cv::String(x)) => x.clone(),
        _ => return Err(ExecutionError::function_error("split", "no such overload")),
    };
    let n = match args.get(1) {
        None => -1,
        Some(Cv::Int(n)) => *n,
        _ => return Err(ExecutionError::function_error("split", "no such overload")),
    };
    let parts: Vec<String> = if n == 0 {
        Vec::new()
    } else if sep.is_empty() {
        let chars: Vec<String> = s.chars().map(String::from).collect();
        if n > 0 && (n as usize) < chars.len() {
            let k = n as usize - 1;
            let mut v: Vec<String> = chars.iter().take(k).cloned().collect();
            v.push(chars.iter().skip(k).cloned().collect());
            v
        } else {
            chars
        }
    } else if n > 0 {
        s.splitn(n as usize, sep.as_str()).map(str::to_owned).collect()
    } else {
        s.split(sep.as_str()).map(str::to_owned).collect()
    };
    Ok(Cv::List(Arc::new(parts.into_iter().map(|p| Cv::String(Arc::new(p))).collect())))
}

/// ext.Strings `join()` and `join(sep)` on a list of strings.
fn join(This(l): This<Arc<Vec<Cv>>>, Arguments(args): Arguments) -> Result<Cv, ExecutionError> {
    let sep = match args.first() {
        None => String::new(),
        Some(Cv::String(x)) => x.to_string(),
        _ => return Err(ExecutionError::function_error("join", "no such overload")),
    };
    let mut parts = Vec::with_capacity(l.len());
    for x in l.iter() {
        match x {
            Cv::String(s) => parts.push(s.to_string()),
            _ => return Err(ExecutionError::function_error("join", "no such overload")),
        }
    }
    Ok(Cv::String(Arc::new(parts.join(&sep))))
}

fn compare(a: &Cv, b: &Cv) -> Result<std::cmp::Ordering, ExecutionError> {
    a.partial_cmp(b)
        .ok_or_else(|| ExecutionError::function_error("compare", "no such overload"))
}

/// Kubernetes lists library `isSorted()`.
fn is_sorted(This(l): This<Arc<Vec<Cv>>>) -> Result<bool, ExecutionError> {
    for w in l.windows(2) {
        if let [a, b] = w
            && compare(a, b)? == std::cmp::Ordering::Greater
        {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Kubernetes lists library `sum()`: 0 of the list's type for an empty list (int here).
fn sum(This(l): This<Arc<Vec<Cv>>>) -> Result<Cv, ExecutionError> {
    let mut acc: Option<Cv> = None;
    for x in l.iter() {
        acc = Some(match (acc, x) {
            (None, x) => x.clone(),
            (Some(Cv::Int(a)), Cv::Int(b)) => Cv::Int(
                a.checked_add(*b)
                    .ok_or_else(|| ExecutionError::function_error("sum", "integer overflow"))?,
            ),
            (Some(Cv::UInt(a)), Cv::UInt(b)) => Cv::UInt(
                a.checked_add(*b)
                    .ok_or_else(|| ExecutionError::function_error("sum", "unsigned integer overflow"))?,
            ),
            (Some(Cv::Float(a)), Cv::Float(b)) => Cv::Float(a + b),
            _ => return Err(ExecutionError::function_error("sum", "no such overload")),
        });
    }
    Ok(acc.unwrap_or(Cv::Int(0)))
}

/// Kubernetes lists library `indexOf(x)` on a list, ext.Strings `indexOf(sub)` on a string (code
/// points).
fn index_of(This(t): This<Cv>, x: Cv) -> Result<Cv, ExecutionError> {
    match (&t, &x) {
        (Cv::List(l), _) => Ok(Cv::Int(
            l.iter().position(|e| *e == x).map_or(-1, |i| i as i64),
        )),
        (Cv::String(s), Cv::String(sub)) => Ok(Cv::Int(
            s.find(sub.as_str())
                .map_or(-1, |b| s.get(..b).map_or(0, |p| p.chars().count()) as i64),
        )),
        _ => Err(ExecutionError::function_error("indexOf", "no such overload")),
    }
}

fn last_index_of(This(t): This<Cv>, x: Cv) -> Result<Cv, ExecutionError> {
    match (&t, &x) {
        (Cv::List(l), _) => Ok(Cv::Int(
            l.iter().rposition(|e| *e == x).map_or(-1, |i| i as i64),
        )),
        (Cv::String(s), Cv::String(sub)) => Ok(Cv::Int(
            s.rfind(sub.as_str())
                .map_or(-1, |b| s.get(..b).map_or(0, |p| p.chars().count()) as i64),
        )),
        _ => Err(ExecutionError::function_error("lastIndexOf", "no such overload")),
    }
}
