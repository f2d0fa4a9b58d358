//go:build k8s_before_1_36

package main

// The Job controller's constructor before 1.36: informers first, then the client and the clock.

import (
	"context"
	_ "unsafe" // go:linkname

	"k8s.io/client-go/informers"
	batchinformers "k8s.io/client-go/informers/batch/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	jobcontroller "k8s.io/kubernetes/pkg/controller/job"
	"k8s.io/utils/clock"
)

//go:linkname newJobControllerWithClock k8s.io/kubernetes/pkg/controller/job.newControllerWithClock
func newJobControllerWithClock(ctx context.Context, podInformer coreinformers.PodInformer, jobInformer batchinformers.JobInformer,
	kubeClient kubernetes.Interface, clock clock.WithTicker) (*jobcontroller.Controller, error)

func newJobController(ctx context.Context, client kubernetes.Interface, clk clock.WithTicker,
	pods coreinformers.PodInformer, jobs batchinformers.JobInformer, _ informers.SharedInformerFactory) (*jobcontroller.Controller, error) {
	return newJobControllerWithClock(ctx, pods, jobs, client, clk)
}
