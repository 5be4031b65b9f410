package eevdf

import "github.com/schedmodel/fairclass/features"

// pickEevdf66 is v6.6's pick_eevdf (KERNEL-SPEC-LTS Part I D22) on its
// vruntime-ordered tree augmented with min_deadline: the eligible entity
// (tree or curr) with the earliest deadline, found in two passes. The
// first walks down from the root: an ineligible node sends it left; an
// eligible one becomes the best if its deadline is strictly earlier, its
// left subtree becomes the best left subtree if that holds a strictly
// earlier min_deadline, and the walk stops where the subtree's
// min_deadline is found (in the left child or in the node itself), else
// goes right. If the best left subtree holds a deadline before the best's,
// the second pass descends into it towards its min_deadline, taking a node
// before its left child. Ties therefore depend on the tree's shape. A
// marked, eligible curr (RUN_TO_PARITY) is returned at once. Should
// nothing come out, the leftmost entity is returned, as the kernel does
// after logging an error.
func (rq *CfsRq) pickEevdf66() *SchedEntity {
	rq.stats.Picks++
	t := rq.tl.rb.st
	elig := rq.eligibility()
	var best *SchedEntity
	if c := rq.curr; c != nil && c.onRq && elig.eligible(c.vruntime) {
		best = c
		if rq.feat.Has(features.RunToParity) && c.vlag == int64(c.deadline) {
			return c
		}
	}
	var bestLeft *staleNode
	for n := t.root; n != nil; {
		se := n.se
		if !elig.eligible(se.vruntime) {
			n = n.left
			continue
		}
		if best == nil || int64(best.deadline-se.deadline) > 0 {
			best = se
		}
		if l := n.left; l != nil {
			if bestLeft == nil || int64(bestLeft.minDl-l.minDl) > 0 {
				bestLeft = l
			}
			if l.minDl == n.minDl {
				break
			}
		}
		if se.deadline == n.minDl {
			break
		}
		n = n.right
	}
	if bestLeft != nil && (best == nil || int64(bestLeft.minDl-best.deadline) <= 0) {
		for n := bestLeft; n != nil; {
			if n.se.deadline == n.minDl {
				return n.se
			}
			if l := n.left; l != nil && l.minDl == n.minDl {
				n = l
			} else {
				n = n.right
			}
		}
		best = nil
	}
	if best == nil {
		return t.first()
	}
	return best
}
