// Package rbtree is a generic, intrusive, augmented red-black tree with a
// cached leftmost node, modelled on the Linux kernel's lib/rbtree.c as used
// through rb_add_augmented_cached and rb_erase_augmented_cached.
//
// # What it models
//
// The kernel's fair scheduler keeps its runnable entities in an augmented
// red-black tree ordered by deadline, caches the leftmost node, and keeps in
// every node a summary (the "augmentation") of its whole subtree, such as the
// smallest vruntime found below it. The pick of the next entity is then a
// single root-to-leaf descent guided by those summaries. This package
// reproduces that structure:
//
//   - Insertion walks down from the root, going left when the new item sorts
//     strictly before the node and right otherwise, so an item equal to items
//     already present lands after them (first in, first out among equals).
//     The new node is linked as a red leaf with its own aggregate, the
//     aggregates on the path from its parent upwards are refreshed, and the
//     tree is then rebalanced with the same case analysis as the kernel's
//     insertion (colour flips climbing the tree, then at most two rotations).
//   - Erasure first advances the cached leftmost pointer if needed, then
//     unlinks the node the way the kernel does (splicing in the in-order
//     successor when the node has two children), refreshes the aggregates
//     where the shape changed, and finally repairs the colours with the
//     kernel's erase rebalancing (at most three rotations).
//   - Aggregates are maintained through the same three-callback protocol as
//     the kernel's augmented trees: propagate (recompute from a node towards
//     the root, stopping as soon as a value comes out unchanged), copy (a
//     successor taking an erased node's place inherits its aggregate) and
//     rotate (the node rising in a rotation inherits the old subtree
//     aggregate, the node sinking is recomputed from its new children).
//     Because the whole aggregate travels through every callback, each
//     node's aggregate is exact after every operation.
//
// # Contract
//
// The caller embeds (or owns) a [Node] per item and sets [Node.Item] before
// [Tree.Insert]. While a node is linked, the fields of its item that the
// [Augmenter.Less] order depends on must not change; fields that only feed
// the aggregate may change, followed by a call to [Tree.Update]. The
// [Augmenter.Merge] function must be associative, and the aggregate of a
// node is always Merge(Merge(left, Leaf(item)), right), with absent children
// simply left out. The tree never allocates; nodes are owned by the caller
// and may be reinserted after being erased.
//
// A node belongs to at most one tree at a time. Inserting a node that is
// already linked and erasing a node that is not linked are ignored;
// erasing a node that is linked into a different tree corrupts both trees.
// Trees are not safe for concurrent use.
//
// # Cost
//
//   - [Tree.Insert]: O(log n), at most two rotations.
//   - [Tree.Erase]: O(log n), at most three rotations.
//   - [Tree.Update]: O(log n), stopping early once an aggregate is unchanged.
//   - [Tree.First]: O(1) (cached). [Tree.Last]: O(log n).
//   - [Tree.Find], [FindWith]: O(log n), a single root-to-leaf descent.
//   - [Node.Next], [Node.Prev]: O(log n) worst case, O(1) amortised over a
//     full walk. [Tree.Ascend]: O(n).
//   - [Tree.Verify]: O(n), allocation-free unless it reports an error.
//
// Insert, Erase, Update, Find, FindWith, First and Last perform no heap
// allocation. Passing a matcher to Find converts it to an interface, which
// the compiler may box; FindWith takes it by value and never does.
package rbtree
