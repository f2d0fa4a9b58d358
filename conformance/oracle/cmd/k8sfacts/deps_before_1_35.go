//go:build k8s_before_1_35

package main

// dependencies: releases before 1.35 declare none.
func dependencies() map[string][]string { return nil }
