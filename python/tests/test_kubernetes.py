"""Objects of the official `kubernetes` client package go in as they are."""

from __future__ import annotations

from kubernetes import client

import restartkit


def v1_pod(restart_policy: str = "OnFailure") -> client.V1Pod:
    return client.V1Pod(
        api_version="v1",
        kind="Pod",
        metadata=client.V1ObjectMeta(name="p", namespace="default"),
        spec=client.V1PodSpec(
            restart_policy=restart_policy,
            containers=[client.V1Container(name="main", image="busybox", image_pull_policy="IfNotPresent")],
        ),
    )


def v1_job(restart_policy: str) -> client.V1Job:
    return client.V1Job(
        api_version="batch/v1",
        kind="Job",
        metadata=client.V1ObjectMeta(name="train", namespace="default"),
        spec=client.V1JobSpec(
            backoff_limit=2,
            pod_failure_policy=client.V1PodFailurePolicy(
                rules=[
                    client.V1PodFailurePolicyRule(
                        action="FailJob",
                        on_exit_codes=client.V1PodFailurePolicyOnExitCodesRequirement(
                            container_name="trainer", operator="In", values=[42]
                        ),
                    )
                ]
            ),
            template=client.V1PodTemplateSpec(
                spec=client.V1PodSpec(
                    restart_policy=restart_policy,
                    containers=[client.V1Container(name="trainer", image="trainer:1")],
                )
            ),
        ),
    )


def test_v1_pod_is_converted_with_camel_case_keys() -> None:
    r = restartkit.validate(v1_pod())
    assert r.valid, r.errors


def test_v1_job_with_pod_failure_policy_needs_never() -> None:
    bad = restartkit.validate(v1_job("OnFailure"))
    assert not bad.valid
    assert [e.field for e in bad.errors] == ["spec.template.spec.restartPolicy"]
    assert bad.errors[0].type == "FieldValueInvalid"
    assert restartkit.validate(v1_job("Never")).valid


def test_v1_objects_in_evaluation_and_compile() -> None:
    assert restartkit.evaluate_container_exit(v1_pod("OnFailure"), "main", 3)["action"] == "Restart"
    policy = restartkit.compile(v1_job("Never"))
    assert policy.decide("trainer", 42) == "FailJob"


def test_v1_object_nested_in_a_dict_is_converted() -> None:
    # A V1Container inside a plain dict still serializes through the kubernetes client.
    p = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "default"},
        "spec": {"restartPolicy": "Never", "containers": [client.V1Container(name="main", image="busybox")]},
    }
    r = restartkit.validate(p)
    assert all(not e.field.startswith("spec.containers[0].name") for e in r.errors)
