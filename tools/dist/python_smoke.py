"""Clean-room check of an installed restartkit wheel or sdist (tools/dist/test-dist.sh):
validate, evaluate, compile/decide, and the version the package reports.
    python python_smoke.py EXPECTED_VERSION"""

import importlib.metadata
import sys

import restartkit

expected = sys.argv[1]
assert restartkit.__version__ == expected, (restartkit.__version__, expected)
assert importlib.metadata.version("restartkit") == expected
# The compiled module is the installed one, not a source tree's.
assert "site-packages" in restartkit._native.__file__, restartkit._native.__file__

bad = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: 5\n"
r = restartkit.validate(bad)
assert not r.valid and r.errors[0].field == "spec.containers" and r.errors[0].line == 6, r

job = {
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {"name": "train", "namespace": "default"},
    "spec": {
        "backoffLimit": 3,
        "podFailurePolicy": {"rules": [
            {"action": "FailJob", "onExitCodes": {"containerName": "trainer", "operator": "In", "values": [42]}},
            {"action": "Ignore", "onExitCodes": {"operator": "In", "values": [137]}},
        ]},
        "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "trainer", "image": "t"}]}},
    },
}
assert restartkit.validate(job).valid
policy = restartkit.compile(job)
assert policy.decide("trainer", 42) == "FailJob"
assert policy.decide("trainer", 137) == "Ignore"
assert policy.decide("trainer", 1) == "Count"
assert policy.decide_many("trainer", [42, 137, 1]) == bytes(restartkit.ACTIONS.index(a) for a in ("FailJob", "Ignore", "Count"))

pod = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "p", "namespace": "default"},
    "spec": {"restartPolicy": "OnFailure", "containers": [{"name": "main", "image": "m"}]},
}
out = restartkit.evaluate_container_exit(pod, "main", 1)
assert "restart" in str(out).lower(), out
print(f"python smoke ok: restartkit {restartkit.__version__} from {restartkit._native.__file__}")
