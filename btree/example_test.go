package btree_test

import (
	"fmt"

	"github.com/schedmodel/fairclass/btree"
)

// task is a runnable task: the timeline orders tasks by virtual deadline
// and keeps the least vruntime of every subtree.
type task struct {
	name     string
	deadline uint64
	vruntime uint64
}

// timeline orders tasks by deadline, ties by name, and aggregates the least
// vruntime.
type timeline struct{}

func (timeline) Less(a, b *task) bool {
	if a.deadline != b.deadline {
		return a.deadline < b.deadline
	}
	return a.name < b.name
}
func (timeline) Leaf(t *task) uint64      { return t.vruntime }
func (timeline) Merge(a, b uint64) uint64 { return min(a, b) }

// eligibleBy matches the first task, in deadline order, whose vruntime is
// at most the queue's average: the earliest eligible virtual deadline.
type eligibleBy struct{ avg uint64 }

func (m *eligibleBy) MatchAgg(minVruntime uint64) bool { return minVruntime <= m.avg }
func (m *eligibleBy) Match(t *task) bool               { return t.vruntime <= m.avg }

func Example() {
	tl := btree.New[*task, uint64](timeline{})
	tasks := []*task{
		{"editor", 300, 90},
		{"compiler", 100, 140},
		{"shell", 200, 95},
		{"daemon", 400, 80},
	}
	for _, t := range tasks {
		tl.Insert(t)
	}

	first, _ := tl.First()
	least, _ := tl.Agg()
	fmt.Println("earliest deadline:", first.name, "least vruntime:", least)

	// The compiler has the earliest deadline but is not eligible: its
	// vruntime is above the average.
	pick := &eligibleBy{avg: 100}
	next, _ := tl.Find(pick)
	fmt.Println("picked:", next.name)

	// The shell runs: its vruntime grows past the average. Its deadline
	// (the order) is unchanged, so Update refreshes the aggregates.
	next.vruntime = 130
	tl.Update(next)
	next, _ = tl.Find(pick)
	fmt.Println("picked:", next.name)

	// The editor blocks.
	tl.Delete(next)
	tl.Ascend(func(t *task) bool {
		fmt.Println(t.deadline, t.name, t.vruntime)
		return true
	})
	if err := tl.Verify(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// earliest deadline: compiler least vruntime: 80
	// picked: shell
	// picked: editor
	// 100 compiler 140
	// 200 shell 130
	// 400 daemon 80
}

// aggEligible is eligibleBy for FindAgg: a task's own aggregate is its
// vruntime, so the descent never loads a task.
type aggEligible struct{ avg uint64 }

func (m aggEligible) MatchAgg(minVruntime uint64) bool { return minVruntime <= m.avg }

// FindAgg is Find testing each item by its cached aggregate, and
// DeleteFirst takes the earliest deadline off without a comparison.
func ExampleTree_FindAgg() {
	tl := btree.New[*task, uint64](timeline{})
	for _, t := range []*task{
		{"editor", 300, 90},
		{"compiler", 100, 140},
		{"shell", 200, 95},
	} {
		tl.Insert(t)
	}
	next, _ := tl.FindAgg(aggEligible{avg: 100})
	fmt.Println("picked:", next.name)

	first, _ := tl.DeleteFirst()
	fmt.Println("removed:", first.name, "left:", tl.Len())
	// Output:
	// picked: shell
	// removed: compiler left: 2
}
