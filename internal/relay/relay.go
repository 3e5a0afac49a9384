// Package relay carries a panic out of a helper goroutine to the goroutine
// that waits for it. A panic on a goroutine of its own ends the process
// with a stack dump; carried back, goroutine by goroutine, to the one Main
// runs on, it becomes the single line and exit code 4 that a bug gets
// there.
package relay

import (
	"sync"
	"sync/atomic"
)

// Panic keeps the first panic of a group of goroutines.
type Panic struct {
	mu     sync.Mutex
	value  any
	caught atomic.Bool
}

// Catch keeps the panic of the goroutine that defers it. It must be the
// deferred call itself (defer p.Catch()) for recover to see the panic.
func (p *Panic) Catch() {
	if v := recover(); v != nil {
		p.Keep(v)
	}
}

// Keep keeps v as the group's panic, unless one was kept before: for a
// deferred function that recovers itself because it has more to do.
func (p *Panic) Keep(v any) {
	p.mu.Lock()
	if !p.caught.Load() {
		p.value = v
		p.caught.Store(true)
	}
	p.mu.Unlock()
}

// Caught reports whether a panic was kept.
func (p *Panic) Caught() bool { return p.caught.Load() }

// Rethrow panics with the kept panic, if there is one.
func (p *Panic) Rethrow() {
	if !p.caught.Load() {
		return
	}
	p.mu.Lock()
	v := p.value
	p.mu.Unlock()
	panic(v)
}
