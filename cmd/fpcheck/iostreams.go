package main

import (
	"io"
	"os"

	"github.com/charmbracelet/x/term"
	"github.com/mattn/go-isatty"
)

// IOStreams is where a command reads and writes, decided once so that tests
// can hand in buffers and force a terminal.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// OutTTY and ErrTTY say whether stdout and stderr are terminals: colour
	// and progress appear only there.
	OutTTY bool
	ErrTTY bool
	// Getenv reads the environment (NO_COLOR, CLICOLOR_FORCE).
	Getenv func(string) string
	// Width reports the terminal's width in columns when stdout is one;
	// nil or 0 when unknown.
	Width func() int
}

func (s *IOStreams) width() int {
	if s.Width == nil {
		return 0
	}
	return s.Width()
}

// System returns the process's own streams.
func System() *IOStreams {
	return &IOStreams{
		In:     os.Stdin,
		Out:    os.Stdout,
		ErrOut: os.Stderr,
		OutTTY: isTerminal(os.Stdout),
		ErrTTY: isTerminal(os.Stderr) || os.Getenv(superviseEnv) == superviseStderrTTY,
		Getenv: os.Getenv,
		Width: func() int {
			w, _, err := term.GetSize(os.Stdout.Fd())
			if err != nil {
				return 0
			}
			return w
		},
	}
}

func isTerminal(f *os.File) bool {
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// colorEnabled decides colour for --color: never, always, or auto (a terminal
// and no NO_COLOR; CLICOLOR_FORCE forces it on).
func (s *IOStreams) colorEnabled(mode string) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	if s.Getenv("NO_COLOR") != "" {
		return false
	}
	if v := s.Getenv("CLICOLOR_FORCE"); v != "" && v != "0" {
		return true
	}
	return s.OutTTY
}
