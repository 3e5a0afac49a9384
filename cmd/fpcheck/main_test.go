package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets testscripts run fpcheck as a program: `exec fpcheck …` runs
// Main, and `exec fpcheck-exits N …` runs it and succeeds only when the exit
// code is exactly N (testscript itself only tells zero from non-zero).
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"fpcheck": func() { os.Exit(Main(os.Args[1:], System())) },
		"fpcheck-exits": func() {
			want, err := strconv.Atoi(os.Args[1])
			if err != nil {
				fmt.Fprintln(os.Stderr, "usage: fpcheck-exits CODE ARGS...")
				os.Exit(100)
			}
			if got := Main(os.Args[2:], System()); got != want {
				fmt.Fprintf(os.Stderr, "fpcheck exited %d, want %d\n", got, want)
				os.Exit(101)
			}
			os.Exit(0)
		},
	})
}

// TestScripts runs every testdata/script/*.txtar: the CLI end to end, with
// exit codes and output asserted. REPO points at the repository root and
// CORPUS at the shared reference corpus beside it.
func TestScripts(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       *update,
		Setup: func(env *testscript.Env) error {
			env.Setenv("REPO", repo)
			env.Setenv("CORPUS", filepath.Join(repo, "..", "shared", "reference-corpus"))
			env.Setenv("NO_COLOR", "")
			// Text is not wrapped unless a script asks with --width, so a
			// pattern matches a sentence whatever the paths around it.
			env.Setenv("COLUMNS", "0")
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if cond == "corpus" {
				_, err := os.Stat(filepath.Join(repo, "..", "shared", "reference-corpus"))
				return err == nil, nil
			}
			return false, nil
		},
	})
}

// testEnv is the environment in-process runs see: nothing set but
// COLUMNS=0, which leaves text unwrapped so that a test matches a sentence
// whatever the paths around it.
func testEnv(k string) string {
	if k == "COLUMNS" {
		return "0"
	}
	return ""
}
