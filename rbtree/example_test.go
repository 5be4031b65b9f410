package rbtree_test

import (
	"fmt"

	"github.com/schedmodel/fairclass/rbtree"
)

// task is a runnable entity: it embeds its tree node, whose Item points back
// at the task.
type task struct {
	name     string
	deadline uint64
	vruntime uint64
	node     rbtree.Node[*task, uint64]
}

// byDeadline orders tasks by deadline and keeps, in every subtree, the
// smallest vruntime.
type byDeadline struct{}

func (byDeadline) Less(a, b *task) bool     { return a.deadline < b.deadline }
func (byDeadline) Leaf(t *task) uint64      { return t.vruntime }
func (byDeadline) Merge(a, b uint64) uint64 { return min(a, b) }

// eligible matches the tasks whose vruntime is at most limit.
type eligible struct{ limit uint64 }

func (m *eligible) MatchAgg(minVruntime uint64) bool { return minVruntime <= m.limit }
func (m *eligible) Match(t *task) bool               { return t.vruntime <= m.limit }

func Example() {
	tree := rbtree.New[*task, uint64](byDeadline{})
	for _, t := range []*task{
		{name: "A", deadline: 30, vruntime: 10},
		{name: "B", deadline: 10, vruntime: 50},
		{name: "C", deadline: 20, vruntime: 40},
		{name: "D", deadline: 40, vruntime: 5},
	} {
		t.node.Item = t
		tree.Insert(&t.node)
	}

	fmt.Println("earliest deadline:", tree.First().Item.name)
	fmt.Println("smallest vruntime:", tree.Root().Agg())

	// The earliest-deadline task among those with vruntime <= 40.
	fmt.Println("first eligible:", tree.Find(&eligible{limit: 40}).Item.name)

	// Once C has gone, the next eligible one is A.
	c := tree.First().Next()
	tree.Erase(c)
	fmt.Println("after erasing", c.Item.name+":", tree.Find(&eligible{limit: 40}).Item.name)
	fmt.Println("none eligible:", tree.Find(&eligible{limit: 1}) == nil)

	// Output:
	// earliest deadline: B
	// smallest vruntime: 5
	// first eligible: C
	// after erasing C: A
	// none eligible: true
}
