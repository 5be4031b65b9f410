package btree

import (
	"math/rand/v2"
	"testing"
)

// fuzzMaxLen bounds the size of a fuzzed tree, and fuzzMaxSteps the number
// of steps (each followed by Verify) taken for one input, to keep each
// input fast.
const (
	fuzzMaxLen   = 1200
	fuzzMaxSteps = 4000
	fuzzMaxInput = 256 // bytes of input read
)

// opReader reads an operation stream; past its end it yields zeros.
type opReader struct {
	b []byte
}

func (r *opReader) more() bool { return len(r.b) > 0 }

func (r *opReader) u8() byte {
	if len(r.b) == 0 {
		return 0
	}
	x := r.b[0]
	r.b = r.b[1:]
	return x
}

func (r *opReader) u16() uint16 { return uint16(r.u8()) | uint16(r.u8())<<8 }

// i16 is a signed offset from wrapBase: a deadline or vruntime within
// 2^15 of 2^64, on either side.
func (r *opReader) i16() int64 { return int64(int16(r.u16())) }

// FuzzTree decodes its input into a stream of operations — insert, bulk
// insert, delete of present and absent items, update, Find, and checks of
// First, Last, Len, Agg and the ordered walk — applies them to a Tree and to
// an oracle ordered set (github.com/google/btree), compares every answer
// with the oracle's, scanned linearly, and verifies the Tree after every
// step.
//
//	go test -run XXX -fuzz FuzzTree ./btree
func FuzzTree(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 1, 0, 2, 0, 5, 0, 9, 0, 0, 3, 8, 0, 0})
	// Bulk inserts, then deletes, finds and a full check.
	f.Add([]byte{10, 255, 1, 2, 10, 255, 3, 4, 11, 200, 5, 8, 0, 0, 9})
	f.Add([]byte{10, 255, 9, 9, 10, 255, 7, 7, 10, 255, 5, 5, 11, 255, 1, 1, 11, 255, 2, 2, 9})
	// Insert, update, find.
	f.Add([]byte{0, 10, 0, 20, 0, 30, 7, 0, 0, 0, 200, 8, 0, 200, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		// Long inputs add little (bulk operations build large trees from a
		// few bytes) and make the fuzzer's minimisation, whose cost grows
		// with the square of the input's length, stall it for minutes.
		data = data[:min(len(data), fuzzMaxInput)]
		h := newHarness(t)
		r := &opReader{data}
		// steps counts the steps taken, a bulk operation counting one
		// per item.
		steps := 0
		for r.more() && steps < fuzzMaxSteps {
			steps++
			op := r.u8() % 12
			switch op {
			case 0, 1, 2, 3:
				if h.tr.Len() < fuzzMaxLen {
					h.insert(r.i16(), r.i16(), uint64(r.u8()))
				}
			case 4, 5:
				h.deleteNth(int(r.u16()))
			case 6:
				if k := int(r.u8()); k%4 == 3 {
					h.deleteFirst()
				} else {
					h.deleteAbsent(k)
				}
			case 7:
				h.update(int(r.u16()), r.i16(), uint64(r.u8()))
			case 8:
				h.find(r.i16())
			case 9:
				h.checkAll()
			case 10:
				// Bulk insert of up to 255 pseudo-random entities.
				n, seed := int(r.u8()), r.u16()
				g := rand.New(rand.NewPCG(uint64(seed), 0))
				for range n {
					if h.tr.Len() >= fuzzMaxLen {
						break
					}
					steps++
					h.insert(int64(int16(g.Uint32())), int64(int16(g.Uint32())), uint64(g.IntN(256)))
				}
			case 11:
				// Bulk delete of up to 255 items.
				n, seed := int(r.u8()), r.u16()
				g := rand.New(rand.NewPCG(uint64(seed), 1))
				for range n {
					if h.tr.Len() == 0 {
						break
					}
					steps++
					h.deleteNth(g.IntN(h.tr.Len()))
				}
			}
			h.verify("operation %d", op)
		}
		h.checkAll()
	})
}
