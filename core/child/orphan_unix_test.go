//go:build unix

package child

import (
	"sync/atomic"
	"testing"
	"time"
)

// A child on macOS watches its parent: once another process adopts it (its
// parent died), it dies too, and not before.
func TestOrphanWatchDiesWhenAdopted(t *testing.T) {
	var ppid atomic.Int32
	ppid.Store(4242)
	died := make(chan struct{})
	go orphanWatch(4242, func() int { return int(ppid.Load()) }, time.Millisecond, func() { close(died) })
	select {
	case <-died:
		t.Fatal("the child died while its parent lives")
	case <-time.After(50 * time.Millisecond):
	}
	ppid.Store(1) // the parent died; init adopted the child
	select {
	case <-died:
	case <-time.After(10 * time.Second):
		t.Fatal("the child outlived its parent")
	}
}

// A child whose lab died before it began to watch is adopted already.
func TestOrphanWatchOfAnAdoptedChildDiesAtOnce(t *testing.T) {
	died := make(chan struct{})
	go orphanWatch(1, func() int { return 1 }, time.Millisecond, func() { close(died) })
	select {
	case <-died:
	case <-time.After(10 * time.Second):
		t.Fatal("a child adopted by init before its watch began lives on")
	}
}
