"""Manifests the integration tests validate."""

GOOD_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: good
spec:
  backoffLimit: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
"""

# Line 9, column 7: a Job's Pods may not restart Always.
BAD_JOB = GOOD_JOB.replace("good", "bad").replace("restartPolicy: Never", "restartPolicy: Always")
BAD_LINE = 9

# Valid everywhere; on 1.34 (ContainerRestartRules off by default) the container's rules are
# dropped with a warning, which shows that a hook's or action's version argument arrived.
RULES_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: trainer
spec:
  restartPolicy: Never
  containers:
  - name: main
    image: busybox
    restartPolicy: Never
    restartPolicyRules:
    - action: Restart
      exitCodes:
        operator: In
        values: [42]
"""
