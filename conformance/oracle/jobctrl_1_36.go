//go:build k8s_before_1_37 && !k8s_before_1_36

package main

// The Job controller's constructor in 1.36: it also takes the scheduling.k8s.io/v1alpha2
// Workload and PodGroup informers (gang scheduling), left empty here.

import (
	"context"
	"time"
	_ "unsafe" // go:linkname

	"k8s.io/client-go/informers"
	batchinformers "k8s.io/client-go/informers/batch/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	schedulinginformers "k8s.io/client-go/informers/scheduling/v1alpha2"
	"k8s.io/client-go/kubernetes"
	jobcontroller "k8s.io/kubernetes/pkg/controller/job"
	"k8s.io/utils/clock"
)

//go:linkname newJobControllerWithClock k8s.io/kubernetes/pkg/controller/job.newControllerWithClock
func newJobControllerWithClock(ctx context.Context, kubeClient kubernetes.Interface, clock clock.WithTicker,
	podInformer coreinformers.PodInformer, jobInformer batchinformers.JobInformer,
	workloadInformer schedulinginformers.WorkloadInformer,
	podGroupInformer schedulinginformers.PodGroupInformer) (*jobcontroller.Controller, error)

func newJobController(ctx context.Context, client kubernetes.Interface, clk clock.WithTicker,
	pods coreinformers.PodInformer, jobs batchinformers.JobInformer, factory informers.SharedInformerFactory) (*jobcontroller.Controller, error) {
	return newJobControllerWithClock(ctx, client, clk, pods, jobs,
		factory.Scheduling().V1alpha2().Workloads(), factory.Scheduling().V1alpha2().PodGroups())
}

// setSyncJobBatchPeriod sets how long the controller batches Pod events (exported from 1.34).
func setSyncJobBatchPeriod(d time.Duration) { jobcontroller.SyncJobBatchPeriod = d }
