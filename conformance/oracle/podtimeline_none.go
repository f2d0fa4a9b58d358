//go:build k8s_before_1_37

package main

// The Pod timeline leg's upstream side is built for 1.37 only so far (podtimeline.go): the
// runtime manager's constructor and methods change signature between minors (docs/oracle.md).

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
)

const podLegSupported = false

func runUpstreamPod(*podScenario, *corev1.Pod, time.Duration, time.Duration) (podOutcome, error) {
	return podOutcome{}, fmt.Errorf("the Pod timeline leg is not built for this minor")
}
