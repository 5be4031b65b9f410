package sim

import "math/bits"

// event is one entry of the event queue. Events are ordered by time, then
// class (evClass), then within the class: timers by arming time (ord)
// and task, reschedules by CPU, everything else by the sequence of
// posting. The order is total, which makes a run deterministic. gen lets
// a handler recognise an event made stale by a later decision (a
// preempted task's completion) without searching the queue.
type event struct {
	at   uint64
	key  uint64 // orderKey: the order within the instant, as far as a word holds it
	seq  uint64
	ord  uint64 // a timer's arming time
	task int32
	cpu  int32
	gen  uint32
	kind evKind
	cls  evClass
}

// before is the order of events, written out field by field: the
// definition that the queue's one-word keys (orderKey, lessBit) follow.
func (a *event) before(b *event) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.within(b)
}

// within is the order of two events of one instant.
func (a *event) within(b *event) bool {
	if a.cls != b.cls {
		return a.cls < b.cls
	}
	switch a.cls {
	case clsTimer:
		if a.ord != b.ord {
			return a.ord < b.ord
		}
		if a.task != b.task {
			return a.task < b.task
		}
	case clsResched:
		if a.cpu != b.cpu {
			return a.cpu < b.cpu
		}
	}
	return a.seq < b.seq
}

// The layout of an event's key: the class in the top three bits, then
// what orders the events of one class.
const (
	keyClassShift = 61
	keySpanBits   = 31 // timer spans (arming to expiry) below 2^31 ns, 2.1 s, are in the key
	keyTaskBits   = 30 // task indices are below 2^30 (configure refuses more tasks)
)

// orderKey is a word whose order, among events of the same time, agrees
// with within wherever two keys differ; where they are equal, within
// decides. For a timer, an earlier arming at the same expiry is a longer
// span at − ord, so the key holds (2^31 − 1 − span, task): exact for
// spans below 2^31 ns; a longer span gets 0, which sorts it before every
// shorter one (as its earlier arming does) and leaves two long spans to
// within. A reschedule's key is its CPU, equal for the same CPU (then the
// sequence decides, in within); any other event's key is its sequence
// number, unique (2^61 postings would take centuries of simulation).
func (e *event) orderKey() uint64 {
	k := uint64(e.cls) << keyClassShift
	switch e.cls {
	case clsTimer:
		if d := e.at - e.ord; e.ord <= e.at && d < 1<<keySpanBits {
			k |= (1<<keySpanBits-1-d)<<keyTaskBits | uint64(uint32(e.task))
		}
	case clsResched:
		k |= uint64(uint32(e.cpu))
	default:
		k |= e.seq & (1<<keyClassShift - 1)
	}
	return k
}

// ltKey compares (a.at, a.key) with (b.at, b.key) as one 128-bit number,
// by subtraction with borrow: the borrow is 1 when a's pair is the
// smaller. It also says whether the pairs are equal (rare: see
// orderKey), in which case tieBit decides.
func ltKey(a, b *event) (borrow uint64, tie bool) {
	_, borrow = bits.Sub64(a.key, b.key, 0)
	_, borrow = bits.Sub64(a.at, b.at, borrow)
	return borrow, a.at == b.at && a.key == b.key
}

// tieBit is 1 if a comes before b, for events of equal time and key.
//
//go:noinline
func tieBit(a, b *event) uint64 {
	if a.within(b) {
		return 1
	}
	return 0
}

// eventHeap is a binary min-heap of events: O(log n) add+up and
// removeTop, the
// lesser child of a node chosen without a branch on the data (a 4-ary
// heap, with three such choices per level, executed more instructions
// for no fewer mispredictions); no allocation once it has reached its
// steady-state size. The order being total, the sequence of pops does
// not depend on the heap's shape.
type eventHeap []event

// add appends a slot for an event, which the caller fills in, every
// field, before calling up: built in place, the event is not zeroed and
// copied on its way in (up copies it once, to sift it).
func (h *eventHeap) add() *event {
	if n := len(*h); n < cap(*h) {
		*h = (*h)[:n+1]
	} else {
		*h = append(*h, event{})
	}
	return &(*h)[len(*h)-1]
}

// up moves the event last added to its place.
func (h *eventHeap) up() {
	q := *h
	// Sift up with a hole: parents move down until e's place is found.
	i := len(q) - 1
	if i <= 0 {
		return
	}
	// An event that stays where it was added (often: a wakeup is posted
	// later than most of what is queued) is not copied at all.
	p := (i - 1) / 2
	if !q[i].before(&q[p]) {
		return
	}
	e := q[i]
	q[i] = q[p]
	i = p
	for i > 0 {
		p := (i - 1) / 2
		if !e.before(&q[p]) {
			break
		}
		q[i] = q[p]
		i = p
	}
	q[i] = e
}

// removeTop removes the least event, q[0], which the caller has read.
// The hole it leaves goes down along the lesser children to a leaf, one
// key comparison a level, and the last event, which fills it, goes up
// from there as far as it must: not far, as it came from the bottom.
// Sifting that event down from the root instead would compare it with
// the lesser child at every level as well.
func (h *eventHeap) removeTop() {
	old := *h
	n := len(old) - 1
	// The events that stay are q; the last of them, old[n], fills the
	// hole. The loops test their children's indices against len(q) as
	// unsigned numbers, and move events through the pointers they have
	// found (the hole's, the child's), so that no index but the child's
	// needs a bounds check of its own.
	q := old[:n]
	x := &old[n]
	hole := &old[0]
	i := 0
	for {
		l := 2*i + 1
		if uint(l) >= uint(len(q)) {
			break
		}
		m := l
		if r := l + 1; uint(r) < uint(len(q)) {
			// The lesser child, by index arithmetic on the borrow rather
			// than a branch: which way it goes is a coin toss, and a
			// mispredicted branch at every level was most of a pop's cost.
			lt, tie := ltKey(&q[r], &q[l])
			if tie {
				lt = tieBit(&q[r], &q[l])
			}
			m += int(lt)
		}
		c := &q[m]
		*hole = *c
		hole, i = c, m
	}
	if i < n {
		// up's loop, written out: as a function of its own it did not
		// inline, and the call cost 11 instructions a step (sleepers).
		for i > 0 {
			p := (i - 1) / 2
			pe := &q[p]
			if !x.before(pe) {
				break
			}
			*hole = *pe
			hole, i = pe, p
		}
		*hole = *x
	}
	// Resliced in place, not from the copy q: the compiler then stores
	// the length alone, without the pointer and its write barrier test.
	*h = (*h)[:n]
}

// The event queue's two forms: sorted while it holds few events, a
// binary heap once it has grown past sortedMax, sorted again once a pop
// leaves it with sortedMin or fewer (the gap keeps a queue whose size
// hovers near one bound from changing form at every event). They are
// variables only for the tests, which force either form for a whole run
// (sortedMax −1 and sortedMin −1: always the heap; a sortedMax beyond
// any queue's size: always sorted) and compare the runs.
var (
	sortedMax = 16
	sortedMin = 4
)

// eventQueue is the simulator's queue of events: ev[0] is the least in
// either form, and the sequence of pops is the same in both, the order
// being total.
//
// Few events (the sleepers of one CPU keep about four timers queued) are
// kept in ascending order: a pop reslices ev past its first event, and a
// push goes in from the end past the events later than it, where the
// heap's pop walked its levels with a comparison and a 48-byte move at
// each, and cost about a hundred instructions even for four events. The
// popped slots, in front of ev in base, are reclaimed when a push finds
// no room after ev (one memmove of the live events, once every so many
// pushes as the array has slots beyond them: about a hundred on one CPU)
// or when the queue empties. Many events (a large machine's timers) are
// a binary heap, O(log n) each way: a sorted array is a valid heap, so
// the change to it costs nothing, and the change back (at sortedMin
// events) is an insertion sort of those few.
type eventQueue struct {
	ev     eventHeap // the queued events: ascending, or a heap when heaped
	base   eventHeap // the array ev lies in, from its start (length 0)
	heaped bool
}

// add appends a slot for an event, which the caller fills in, every
// field, before calling up.
func (q *eventQueue) add() *event {
	if len(q.ev) == cap(q.ev) {
		q.makeRoom()
	}
	n := len(q.ev)
	q.ev = q.ev[:n+1]
	return &q.ev[n]
}

// makeRoom makes room after ev for one more event: the live events move
// to the front of base if popped slots are free there, else base grows.
func (q *eventQueue) makeRoom() {
	if len(q.ev) < cap(q.base) {
		n := copy(q.base[:cap(q.base)], q.ev)
		q.ev = q.base[:n]
		return
	}
	q.ev = append(q.ev, event{})[:len(q.ev)]
	q.base = q.ev[:0]
}

// up moves the event last added to its place.
func (q *eventQueue) up() {
	ev := q.ev
	i := len(ev) - 1
	if q.heaped || i >= sortedMax {
		// Past sortedMax the sorted events are a heap already, which
		// the new one joins as any other.
		q.heaped = true
		q.ev.up()
		return
	}
	// Insertion from the end: the events after the new one's place
	// move up a slot. Most often there are none or few.
	if i <= 0 || !ev[i].before(&ev[i-1]) {
		return
	}
	e := ev[i]
	ev[i] = ev[i-1]
	i--
	for i > 0 && e.before(&ev[i-1]) {
		ev[i] = ev[i-1]
		i--
	}
	ev[i] = e
}

// removeTop removes the least event, ev[0], which the caller has read.
// The sorted form's pop, one reslice, inlines; the rest is out of line.
func (q *eventQueue) removeTop() {
	if q.heaped || len(q.ev) <= 1 {
		q.removeTopSlow()
		return
	}
	q.ev = q.ev[1:]
}

// removeTopSlow is removeTop in the heap form, or of the last event.
func (q *eventQueue) removeTopSlow() {
	if !q.heaped {
		q.ev = q.base // empty: the next push starts at the array's front
		return
	}
	q.ev.removeTop()
	if len(q.ev) <= sortedMin {
		q.sort()
	}
}

// sort brings a heap of few events to ascending order (an insertion
// sort) and makes the queue sorted.
func (q *eventQueue) sort() {
	ev := q.ev
	for j := 1; j < len(ev); j++ {
		e := ev[j]
		i := j
		for i > 0 && e.before(&ev[i-1]) {
			ev[i] = ev[i-1]
			i--
		}
		ev[i] = e
	}
	q.heaped = false
}
