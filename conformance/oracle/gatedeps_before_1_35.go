//go:build k8s_before_1_35

package main

// gateDependencies: releases before 1.35 declare none.
func gateDependencies() map[string][]string { return nil }
