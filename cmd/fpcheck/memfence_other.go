//go:build !linux

package main

// memoryMayBeRefused is true where the limits cannot be read: the work
// runs supervised.
func memoryMayBeRefused() bool { return true }
