package eevdf

import "fmt"

// Kernel selects which kernel's fair.c a runqueue follows where they
// compute differently. The default is the modelled kernel; the earlier
// ones are presets for comparing with what users run.
type Kernel uint8

const (
	// KernelV73 is mainline 673dab7eac16 (the v7.3 cycle, after the
	// single-runqueue conversion): the modelled kernel.
	KernelV73 Kernel = iota
	// KernelV71 is the fair.c of the v7.1/v7.2 cycle. It differs in the
	// wakeup-preemption check (a pending resched always stops it; idle and
	// policy exits before the charge and without touching protection; a
	// short-slice wakee preempts only if it is the pick; only such a
	// preemption cancels protection, clearing the buddy instead of setting
	// one), in the protection bounds (vruntime + the shorter slice, from
	// the vruntime alone after a wakeup), in a woken delayed task being
	// requeued before the running task is charged, in a nice change
	// rescaling the saved lag at once (also for a sleeping task), and in
	// buddies and yield_to accepting delayed entities.
	//
	// v7.1's augmented-tree callbacks copied only the minimum vruntime, so
	// the min/max slice of a node raised by a rotation or taking an erased
	// node's place stays stale until a later propagation passes it, and
	// an inserted node keeps its old max slice. The runqueue reproduces
	// this with a timeline that follows lib/rbtree.c's exact shapes,
	// whichever Backend is asked for (timeline_stale.go).
	KernelV71
	// KernelV70 is v7.0: KernelV71 with __calc_delta's fixed-point path,
	// scaled-down weights (nice 0 = 1024) in the weighted sums, the next
	// buddy returned by every pick (the wakeup check's SHORT pick too), no
	// buddy clearing on a SHORT preemption, and features.Preset("v7.0")
	// (neither seed fix, no NI_RATE) as its default feature set.
	KernelV70
	// KernelV618 is v6.18.0: KernelV70 with the monotone min_vruntime as
	// the reference of the sums (moved forward by update_min_vruntime
	// after every charge and at a dequeue; V computed without moving it),
	// no max_slice (the lag clamp is the entity's own 2·slice, at least a
	// tick), the stale min_slice, the protection end stored in vlag's
	// place and armed by every set_next_entity, the next buddy honoured
	// only by a real pick, the older wakeup check (buddy set first for
	// every non-fork wakee, no fork or delayed exit, a protection update
	// only after a failed SHORT pick), the yield that only pushes the
	// deadline one request further, and features.Preset("v6.18").
	KernelV618
	// KernelV612 is v6.12.0: KernelV618's min_vruntime, lag clamp,
	// stale min_slice, yield and fork preemption, with a 750 µs default
	// base slice (BaseSlice), no slice protection but the RUN_TO_PARITY
	// mark (vlag = deadline, written at every set_next_entity and honoured
	// by every pick while curr is eligible), no PICK_BUDDY (the next buddy,
	// with NEXT_BUDDY, wins a real pick), its wakeup check (a shorter-slice
	// wakee only cancels the mark; preemption goes by the pick), its tick
	// rule (also when the mark is cancelled and curr is ineligible), a
	// relative deadline kept unscaled across a weight change, and
	// features.Preset("v6.12").
	KernelV612
	// KernelV66 is v6.6.0: KernelV612 without delayed dequeue, custom
	// slices, relative deadlines or PREEMPT_SHORT (SetSlice is refused),
	// with the timeline ordered by vruntime and augmented by the minimum
	// deadline, the two-pass pick over it (whose tie-breaks follow the
	// red-black tree's shape), a new task's first request a full slice, a
	// tick that reschedules only at a deadline renewal, and
	// features.Preset("v6.6").
	KernelV66
)

// String returns "v7.3", "v7.1", "v7.0" (ParseKernel's spellings), or
// "Kernel(n)" for another value.
func (k Kernel) String() string {
	switch k {
	case KernelV73:
		return "v7.3"
	case KernelV71:
		return "v7.1"
	case KernelV70:
		return "v7.0"
	case KernelV618:
		return "v6.18"
	case KernelV612:
		return "v6.12"
	case KernelV66:
		return "v6.6"
	}
	return fmt.Sprintf("Kernel(%d)", uint8(k))
}

// ParseKernel parses "v7.3", "v7.1", "v7.0", "v6.18", "v6.12" or "v6.6".
func ParseKernel(s string) (Kernel, error) {
	for k := KernelV73; k <= KernelV66; k++ {
		if k.String() == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("%w: kernel %q (want v7.3, v7.1, v7.0, v6.18, v6.12 or v6.6)", ErrBadOption, s)
}

// BaseSlice returns the kernel's default base slice on one CPU, in ns:
// 750000 for v6.12 and v6.6, DefaultBaseSlice for the others.
func (k Kernel) BaseSlice() uint64 {
	if k >= KernelV612 {
		return 750000
	}
	return DefaultBaseSlice
}

// WithKernel selects the kernel the runqueue follows (default KernelV73).
// KernelV70 and the earlier kernels also select the FixedPoint arithmetic. Without WithFeatures
// an earlier kernel runs with its own features.Preset.
func WithKernel(k Kernel) Option {
	return func(rq *CfsRq) error {
		if k > KernelV66 {
			return fmt.Errorf("%w: %v", ErrBadOption, k)
		}
		rq.kernel = k
		if k.before70() {
			rq.arith = FixedPoint
		}
		rq.scaledW = k.before70() || rq.sumShift != 0
		return nil
	}
}

// Kernel returns the kernel the runqueue follows.
func (rq *CfsRq) Kernel() Kernel {
	if rq == nil {
		return 0
	}
	return rq.kernel
}

// staleAggregates reports whether the kernel's timeline callbacks left
// min/max-slice aggregates stale (KERNEL-SPEC-LTS T1, T2).
func (k Kernel) staleAggregates() bool { return k >= KernelV71 }

// noMaxSlice reports whether the kernel's timeline has no max_slice.
func (k Kernel) noMaxSlice() bool { return k >= KernelV618 }

// minVruntimeRef reports whether the kernel's sums were relative to the
// monotone cfs_rq->min_vruntime (v6.18 and earlier).
func (k Kernel) minVruntimeRef() bool { return k >= KernelV618 }

// before70 reports whether the kernel is v7.0 or earlier.
func (k Kernel) before70() bool { return k >= KernelV70 }

// before71 reports whether the runqueue follows v7.1 or an earlier kernel.
func (rq *CfsRq) before71() bool { return rq.kernel >= KernelV71 }
