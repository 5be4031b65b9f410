package sim

import (
	"fmt"
	"math"
)

// Channel is a message queue between tasks with a capacity in messages,
// blocking like a pipe: a sender blocks while it is full, a receiver while
// it is empty. A Channel only describes the queue; each simulation keeps its
// own contents, so one Channel may appear in many configurations, including
// ones that run in parallel.
//
// Wakeups follow the channel's hand-off rule: a message sent while a
// receiver is blocked goes straight to the first blocked receiver (FIFO); a
// slot freed while a sender is blocked goes to the first blocked sender,
// whose message enters the queue at once. A blocked task is woken only when
// its whole Send or Recv is done, so one wakeup serves one blocked peer
// (exclusive wakeups, unlike the wake-all of a Linux pipe's wait queue).
type Channel struct {
	name     string
	capacity int
	sync     bool
}

// NewChannel returns a channel holding up to capacity messages (≥ 1). With
// sync, wakeups it causes carry WF_SYNC, as pipe and socket wakeups do
// (the waker is about to sleep).
func NewChannel(name string, capacity int, sync bool) *Channel {
	return &Channel{name: name, capacity: capacity, sync: sync}
}

// Name returns the channel's name.
func (c *Channel) Name() string { return c.name }

// Capacity returns the channel's capacity in messages.
func (c *Channel) Capacity() int { return c.capacity }

func (c *Channel) validate() error {
	if c.capacity < 1 || c.capacity > math.MaxInt32 {
		return fmt.Errorf("channel %q: capacity %d outside 1..%d", c.name, c.capacity, math.MaxInt32)
	}
	return nil
}

// msg is one message in flight.
type msg struct {
	stamp   uint64 // time it entered the channel (or was handed over)
	replyTo int32  // channel for the answer, −1 for none
}

// chanState is a channel's contents in one simulation.
type chanState struct {
	def      *Channel
	buf      ring[msg]
	sendQ    ring[int32] // blocked senders, FIFO
	recvQ    ring[int32] // blocked receivers, FIFO
	sent     uint64      // messages that entered the channel or were handed over
	received uint64      // messages taken by receivers
	maxFill  int
}

// ring is a growable FIFO ring buffer; it reaches its steady-state size
// and then never allocates. Its size is a power of two, so that a
// position wraps with a mask rather than a division.
type ring[T any] struct {
	buf  []T
	head int
	n    int
}

func (r *ring[T]) len() int { return r.n }

func (r *ring[T]) push(v T) {
	if r.n == len(r.buf) {
		r.grow()
	}
	r.buf[(r.head+r.n)&(len(r.buf)-1)] = v
	r.n++
}

// grow doubles the ring (from 8), its contents moved to the front.
func (r *ring[T]) grow() {
	nb := make([]T, max(8, 2*len(r.buf)))
	for i := 0; i < r.n; i++ {
		nb[i] = r.buf[(r.head+i)&(len(r.buf)-1)]
	}
	r.buf, r.head = nb, 0
}

func (r *ring[T]) peek() (T, bool) {
	var zero T
	if r.n == 0 {
		return zero, false
	}
	return r.buf[r.head], true
}

func (r *ring[T]) pop() (T, bool) {
	var zero T
	if r.n == 0 {
		return zero, false
	}
	v := r.buf[r.head]
	r.buf[r.head] = zero
	r.head++
	if r.head == len(r.buf) {
		r.head = 0
	}
	r.n--
	return v, true
}
