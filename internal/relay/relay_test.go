package relay

import (
	"sync"
	"testing"
)

func TestFirstPanicIsRethrown(t *testing.T) {
	var p Panic
	var wg sync.WaitGroup
	wg.Go(func() {
		defer p.Catch()
		panic("first")
	})
	wg.Wait()
	wg.Go(func() {
		defer p.Catch()
		panic("second")
	})
	wg.Go(func() {
		defer p.Catch() // no panic: nothing kept
	})
	wg.Wait()
	if !p.Caught() {
		t.Fatal("Caught() = false after a panic")
	}
	defer func() {
		if v := recover(); v != "first" {
			t.Errorf("Rethrow panicked with %v, want the first panic", v)
		}
	}()
	p.Rethrow()
	t.Error("Rethrow did not panic")
}

func TestQuietGroup(t *testing.T) {
	var p Panic
	func() {
		defer p.Catch()
	}()
	if p.Caught() {
		t.Error("Caught() = true without a panic")
	}
	p.Rethrow() // nothing kept: returns
}

func TestKeep(t *testing.T) {
	var p Panic
	func() {
		defer func() {
			if v := recover(); v != nil {
				p.Keep(v)
			}
		}()
		panic(42)
	}()
	defer func() {
		if v := recover(); v != 42 {
			t.Errorf("Rethrow panicked with %v, want 42", v)
		}
	}()
	p.Rethrow()
}
