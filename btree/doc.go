// Package btree implements an augmented B-tree: an ordered set of items in
// which every subtree's aggregate is kept up to date, so that a query can
// descend to the first item satisfying a predicate that is monotone along
// the aggregate, such as the earliest-deadline eligible entity of an EEVDF
// run queue. It has the same ordering and query contract as the kernel's
// augmented red-black tree (and package rbtree); the fair scheduler model's
// default timeline is a B+-tree specialised from it for the model's
// entities (see design.md). Its layout is cache-friendly: each node holds up
// to 12 items in fixed-size arrays, and every interior node but the root
// has 7 to 13 children, so a tree of n items is about log_13(n) to
// log_7(n) nodes deep where a red-black tree may be 2·log_2(n) deep.
// design.md gives the measurements behind the node size.
//
// # Contract
//
// An Augmenter supplies a strict order, Less, and the augmentation: Leaf,
// the aggregate of one item, and Merge, an associative combination of the
// aggregates of two adjacent ranges, the first before the second (Merge
// need not be commutative). The items in a tree must be totally ordered by
// Less: no two compare equal. The caller never changes the fields an
// item's order depends on while it is in the tree; after changing the
// fields its aggregate depends on, it calls Update. Aggregates are compared
// with == only to stop propagating changes early; an aggregate type whose
// equal values may compare unequal (a NaN) costs time, not correctness.
//
// Every interior node stores, beside each child, the aggregate of that
// child's subtree, and every node caches Leaf of each of its items. After
// a change, the aggregates on the path to the root are recomputed bottom
// up, and recomputation stops at the first node whose aggregate comes out
// unchanged.
//
// Find walks down from the root: in a node, for each position i in order,
// if child i exists and MatchAgg holds for its aggregate, the walk enters
// child i for good; otherwise, if Match holds for item i, Find returns it;
// after the last item the walk enters the last child. For a predicate
// whose MatchAgg reports whether some item of a range may match, this
// returns the first matching item in order.
//
// FindAgg is the same walk with every item tested by MatchAgg on the
// item's cached aggregate: no item is loaded.
//
// # Optional interfaces
//
// An Augmenter may also implement Folder (refold a whole node in one
// call), Searcher (place an item among a node's items in one call) and
// Lattice (its Merge is commutative, and it can tell when removing an item
// leaves an aggregate unchanged). Init detects them. Each replaces a run
// of dynamic calls, or work, by one call or none: Go calls a type
// parameter's methods through a dictionary, so that Less and Merge are
// never inlined into the tree's loops. With Lattice, an insertion that
// splits nothing merges the new aggregate into those above it, and a
// deletion from a leaf that keeps its minimum occupancy refolds only the
// nodes whose aggregate the removed item attained. Results are the same
// with or without them.
//
// # Costs
//
// With n items and B = 12 the most items in a node:
//
//	Len, First, Last, Agg   O(1); First and Last are cached
//	Find, FindAgg           O(B·log_B n) calls to the Matcher
//	DeleteFirst             O(log_B n); no call to Less
//	Insert, Delete, Update  O(log n) calls to Less (O(log_B n) to Search with
//	                        a Searcher); O(B·log_B n) calls to Merge at worst,
//	                        usually O(B): propagation stops early
//	Ascend                  O(n)
//	Verify                  O(n)
//
// Len, First, Last, Agg, Find and FindAgg never allocate (Find's Matcher argument is
// an interface: a matcher value converted to it at each call may be boxed
// by the caller, a long-lived one or a pointer is not). Nodes removed from
// the tree are kept for reuse, up to max(64, n/64) of each kind, and
// Insert allocates a node only when no spare is left: a run queue's steady
// dequeue/enqueue churn allocates nothing, and random churn on a large
// tree allocates only when its node count reaches a new peak, ever more
// rarely.
//
// A Tree is not safe for concurrent use, and the Augmenter and Matcher
// methods must not modify the tree they are called from.
package btree
