//go:build k8s_before_1_32

package main

import "time"

// 1.31's --node-monitor-grace-period default (pkg/controller/nodelifecycle/config/v1alpha1/defaults.go:41).
func init() { defaultNodeMonitorGracePeriod = 40 * time.Second }
