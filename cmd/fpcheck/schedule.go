package main

import (
	"cmp"
	"math"
	"os"
	"slices"
	"strings"
)

// zstdWorkFactor turns the size of a zstd-compressed input into an
// estimate of the bytes read out of it: agentfootprint's NDJSON packs about
// 10 to 20 to one, and an estimate on the low side still puts a compressed
// stream ahead of an uncompressed file of its own size.
const zstdWorkFactor = 10

// startOrder is the order in which the pipeline starts its inputs: the
// largest first. With several inputs read at once, the one that takes
// longest should not be the one left running alone on one core while the
// others sit idle at the end. The result is a permutation of the indices of
// inputs; reports still come out in input order.
//
// Sizes are estimates from the file system, so the order costs one stat per
// input and never reads one. An input whose size is not known (standard
// input, a pipe) starts first, as it may be the largest; one that cannot be
// statted starts last, as it fails at once. Equal estimates keep the order
// of the arguments, so inputs of one size run as they were given.
func startOrder(inputs []string, noRotated bool) []int {
	work := make([]float64, len(inputs))
	for i, path := range inputs {
		work[i] = estimatedWork(path)
		if !noRotated && path != "-" && work[i] < math.Inf(1) {
			// The loader reads a rotated sibling with its stream.
			if w := estimatedWork(path + ".1"); w < math.Inf(1) {
				work[i] += w
			}
		}
	}
	order := argumentOrder(inputs, noRotated)
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(work[b], work[a]) })
	return order
}

// argumentOrder starts the inputs as they were given.
func argumentOrder(inputs []string, _ bool) []int {
	order := make([]int, len(inputs))
	for i := range order {
		order[i] = i
	}
	return order
}

// estimatedWork is the number of bytes reading path is expected to take:
// +Inf when it cannot be told, 0 when path cannot be statted.
func estimatedWork(path string) float64 {
	if path == "-" {
		return math.Inf(1)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	if !fi.Mode().IsRegular() {
		return math.Inf(1)
	}
	size := float64(fi.Size())
	if name := strings.ToLower(path); strings.HasSuffix(name, ".zst") || strings.HasSuffix(name, ".zstd") {
		size *= zstdWorkFactor
	}
	return size
}
