package main

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
)

// sizeFlag declares a flag that takes a size in bytes, written as the docs
// and messages write limits (128MiB, 8 GiB) or as a plain integer. Its
// value stays 0, the limit's own default, unless it is given.
func sizeFlag(cmd *cobra.Command, p *int64, name, usage string) {
	cmd.Flags().Var(&sizeValue{p: p}, name, usage)
}

// sizeValue is sizeFlag's value.
type sizeValue struct{ p *int64 }

func (v *sizeValue) String() string { return strconv.FormatInt(*v.p, 10) }
func (v *sizeValue) Type() string   { return "size" }

func (v *sizeValue) Set(s string) error {
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	*v.p = n
	return nil
}

// sizeUnits are the units a size may carry: binary ones, as fpcheck
// states its limits, and decimal ones, as disks and object stores state
// sizes. Their case does not matter.
var sizeUnits = []struct {
	name string
	mult int64
}{
	{"B", 1},
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
}

const sizeForms = "a whole number of bytes, or of a unit: B, KiB, MiB, GiB, TiB, or KB, MB, GB, TB (powers of 1000), as in 128MiB"

// parseSize reads a size in bytes. A negative, fractional or overflowing
// size is refused rather than rounded or read as the default: each would
// set another limit than the one written.
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return r < '0' || r > '9' })
	if i < 0 {
		i = len(t)
	}
	digits, unit := t[:i], strings.TrimSpace(t[i:])
	switch {
	case strings.HasPrefix(t, "-"):
		return 0, errors.New("a size cannot be negative; give 0 for the default, or " + sizeForms)
	case digits != "" && strings.HasPrefix(unit, "."):
		return 0, errors.New("a size is a whole number; write it in a smaller unit (1536MiB, not 1.5GiB)")
	case digits == "":
		return 0, errors.New("not a size; give " + sizeForms)
	}
	mult := int64(0)
	if unit == "" {
		mult = 1
	}
	for _, u := range sizeUnits {
		if strings.EqualFold(unit, u.name) {
			mult = u.mult
		}
	}
	if mult == 0 {
		return 0, errors.New("unknown unit " + strconv.Quote(unit) + "; give " + sizeForms)
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n > math.MaxInt64/mult {
		return 0, errors.New("the size is larger than fpcheck can count (8 EiB)")
	}
	return n * mult, nil
}
