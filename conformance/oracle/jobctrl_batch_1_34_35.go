//go:build k8s_before_1_36 && !k8s_before_1_34

package main

import (
	"time"

	jobcontroller "k8s.io/kubernetes/pkg/controller/job"
)

// setSyncJobBatchPeriod sets how long the controller batches Pod events (exported from 1.34).
func setSyncJobBatchPeriod(d time.Duration) { jobcontroller.SyncJobBatchPeriod = d }
