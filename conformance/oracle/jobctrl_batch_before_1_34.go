//go:build k8s_before_1_34

package main

import (
	"time"
	_ "unsafe" // go:linkname
)

// The batch period is unexported before 1.34 (job_controller.go: syncJobBatchPeriod).
//
//go:linkname syncJobBatchPeriod k8s.io/kubernetes/pkg/controller/job.syncJobBatchPeriod
var syncJobBatchPeriod time.Duration

// setSyncJobBatchPeriod sets how long the controller batches Pod events.
func setSyncJobBatchPeriod(d time.Duration) { syncJobBatchPeriod = d }
