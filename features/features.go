// Package features names the fair scheduling class's feature toggles.
//
// Every entry of the kernel's kernel/sched/features.h that the fair class
// tests is a Feature here, with the kernel's default and the spelling that
// debugfs (/sys/kernel/debug/sched/features) uses: "PLACE_LAG" turns a
// feature on, "NO_PLACE_LAG" turns it off. Besides the kernel's own
// features the package declares one toggle per seed patch (delayed-dequeue
// lag floor, wakeup-check flush of delayed entities, join-lag placement and
// the yield variants), so that a model can run the same scenario with and
// without each patch.
//
// A Set is a small value type: copy it, compare it with ==, and pass it by
// value. The zero Set has every feature off; Default returns the kernel's
// defaults.
package features

import (
	"fmt"
	"math/bits"
	"sort"
	"strings"
)

// Feature is one scheduler feature toggle.
type Feature uint8

// The fair-class features of kernel/sched/features.h, in file order, then
// the toggles of the seed patches. The comment on each states what the
// fairclass model does with it and where: package eevdf (one runqueue and
// its PELT signals) or package smp (placement and load balancing across
// CPUs). Features of other classes, or of mechanisms the model does not
// have, are accepted and reported and marked "(no effect here)".
const (
	// PlaceLag restores a waking entity's saved lag, inflated so that it
	// still holds after the entity joined (place_entity).
	PlaceLag Feature = iota
	// PlaceDeadlineInitial gives a new task half a slice for its first request.
	PlaceDeadlineInitial
	// PlaceRelDeadline keeps a relative deadline across a save/restore dequeue.
	PlaceRelDeadline
	// RunToParity protects the running entity up to its deadline, cut by the
	// shortest queued slice.
	RunToParity
	// PreemptShort lets a waking entity with a shorter slice preempt when eligible.
	PreemptShort
	// NextBuddy makes a wakee the next buddy (off by default).
	NextBuddy
	// PickBuddy lets the pick return an eligible next buddy first.
	PickBuddy
	// CacheHotBuddy makes load balancing treat the source CPU's next buddy
	// as cache-hot while the destination has tasks (smp, taskHot).
	CacheHotBuddy
	// DelayDequeue keeps an ineligible sleeper queued until its lag is spent.
	DelayDequeue
	// DelayZero caps the lag of an entity leaving the delayed state at 0.
	DelayZero
	// ParanoidAvg maintains the weighted sums with overflow checks and a
	// shift fallback.
	ParanoidAvg
	// WakeupPreemption enables the wakeup-preemption check.
	WakeupPreemption
	// HRTick arms a high-resolution tick at the virtual deadline (not modelled;
	// off by default here as in kernels without deferred hrtimer rearm).
	HRTick
	// HRTickDL is HRTick for SCHED_DEADLINE (no effect here).
	HRTickDL
	// NonTaskCapacity subtracts IRQ and steal time from capacity (no effect here).
	NonTaskCapacity
	// TTWUQueue queues remote wakeups (no effect here: smp activates a
	// woken task on its CPU at once).
	TTWUQueue
	// SISUtil bounds the idle-CPU scan of a wakeup to the LLC's
	// nr_idle_scan CPUs (smp, selectIdleCPU), which periodic balancing of
	// the LLC domain recomputes from its utilisation (smp,
	// updateIdleCPUScan).
	SISUtil
	// WarnDoubleClock warns on a double clock update (no effect here).
	WarnDoubleClock
	// RTPushIPI pushes RT tasks by IPI (no effect here).
	RTPushIPI
	// RTRuntimeShare lets RT runqueues borrow bandwidth (no effect here).
	RTRuntimeShare
	// LBMin makes load balancing by load (migrate_load) leave tasks of
	// load below 16 where they are until the domain has failed once (smp,
	// detachTasks; off by default).
	LBMin
	// AttachAgeLoad ages a task's or group entity's PELT signals before
	// attaching them to a queue after a change of group (eevdf,
	// attachAgeFlags); without it the attach skips the aging.
	AttachAgeLoad
	// WAIdle lets wake_affine choose between the waking and the previous
	// CPU by which of them is idle, and by a sync wakeup from a waker alone
	// on its CPU (smp, wakeAffine and wakeAffineIdle).
	WAIdle
	// WAWeight lets wake_affine, when the idle test has no opinion, choose
	// the waking CPU if its load with the wakee is below the previous CPU's
	// without it (smp, wakeAffine and wakeAffineWeight).
	WAWeight
	// WABias weights wake_affine_weight's comparison towards the previous
	// CPU by half the domain's imbalance margin (smp, wakeAffineLoads).
	WABias
	// UtilEst keeps the utilisation estimates: each task's util_est is
	// updated at sleep and summed into its runqueue's (eevdf, PELT
	// updates and util_est enqueue/dequeue), and the CPU utilisation
	// placement and balancing read is at least that estimate (smp,
	// cpuUtil).
	UtilEst
	// LatencyWarn warns when need-resched stays set too long (no effect here).
	LatencyWarn
	// NIRandom makes newly idle balancing skip a domain at random, more
	// often the lower the domain's success ratio (smp, newidleWalk).
	NIRandom
	// NIRate adds to a domain's newly idle success ratio one per 2^22 ns
	// since the ratio was last recomputed (smp, updateNewidleStats).
	NIRate

	// DelayLagFloor (seed 000, merged in v7.1): an entity leaving the delayed
	// state keeps at least the lag it had when it went to sleep. Off: the
	// v7.0 behaviour, where only positive lag is zeroed.
	DelayLagFloor
	// DelayLagFloorPosted (seed 000, the patch as first posted): the floor
	// applies only when a delayed entity is woken under DELAY_ZERO.
	DelayLagFloorPosted
	// PreemptFlushDelayed (seed 002, merged in v7.1): the wakeup-preemption
	// check completes the dequeue of delayed entities its pick meets and
	// picks again. Off: the v7.0 check compares with the raw pick.
	PreemptFlushDelayed
	// PlaceJoinLag (seed 003, never merged): placement by a per-queue
	// join-lag average that keeps V+J unchanged by joins and leaves.
	PlaceJoinLag
	// YieldBumpDeadline (seed 004, v6.6–v6.18): a yield pushes the
	// deadline one slice further.
	YieldBumpDeadline
	// YieldClampDeadline (seed 004, posted v1): a yield sets the deadline
	// one slice past the current vruntime.
	YieldClampDeadline
	// YieldForfeitAlways (seed 004, posted v2): a yield forfeits the rest of
	// the request even when the yielder is not eligible.
	YieldForfeitAlways

	numFeatures
)

var names = [numFeatures]string{
	PlaceLag:             "PLACE_LAG",
	PlaceDeadlineInitial: "PLACE_DEADLINE_INITIAL",
	PlaceRelDeadline:     "PLACE_REL_DEADLINE",
	RunToParity:          "RUN_TO_PARITY",
	PreemptShort:         "PREEMPT_SHORT",
	NextBuddy:            "NEXT_BUDDY",
	PickBuddy:            "PICK_BUDDY",
	CacheHotBuddy:        "CACHE_HOT_BUDDY",
	DelayDequeue:         "DELAY_DEQUEUE",
	DelayZero:            "DELAY_ZERO",
	ParanoidAvg:          "PARANOID_AVG",
	WakeupPreemption:     "WAKEUP_PREEMPTION",
	HRTick:               "HRTICK",
	HRTickDL:             "HRTICK_DL",
	NonTaskCapacity:      "NONTASK_CAPACITY",
	TTWUQueue:            "TTWU_QUEUE",
	SISUtil:              "SIS_UTIL",
	WarnDoubleClock:      "WARN_DOUBLE_CLOCK",
	RTPushIPI:            "RT_PUSH_IPI",
	RTRuntimeShare:       "RT_RUNTIME_SHARE",
	LBMin:                "LB_MIN",
	AttachAgeLoad:        "ATTACH_AGE_LOAD",
	WAIdle:               "WA_IDLE",
	WAWeight:             "WA_WEIGHT",
	WABias:               "WA_BIAS",
	UtilEst:              "UTIL_EST",
	LatencyWarn:          "LATENCY_WARN",
	NIRandom:             "NI_RANDOM",
	NIRate:               "NI_RATE",
	DelayLagFloor:        "DELAY_LAG_FLOOR",
	DelayLagFloorPosted:  "DELAY_LAG_FLOOR_POSTED",
	PreemptFlushDelayed:  "PREEMPT_FLUSH_DELAYED",
	PlaceJoinLag:         "PLACE_JOIN_LAG",
	YieldBumpDeadline:    "YIELD_BUMP_DEADLINE",
	YieldClampDeadline:   "YIELD_CLAMP_DEADLINE",
	YieldForfeitAlways:   "YIELD_FORFEIT_ALWAYS",
}

// defaults are the kernel's defaults (features.h as of the modelled
// kernel) and the seed toggles' defaults: the merged patches on, the rest off.
// HRTICK is on only with CONFIG_HRTIMER_REARM_DEFERRED; the model keeps it off.
const defaults = 1<<PlaceLag | 1<<PlaceDeadlineInitial | 1<<PlaceRelDeadline |
	1<<RunToParity | 1<<PreemptShort | 1<<PickBuddy | 1<<CacheHotBuddy |
	1<<DelayDequeue | 1<<DelayZero | 1<<WakeupPreemption |
	1<<NonTaskCapacity | 1<<TTWUQueue | 1<<SISUtil | 1<<RTPushIPI |
	1<<AttachAgeLoad | 1<<WAIdle | 1<<WAWeight | 1<<WABias | 1<<UtilEst |
	1<<NIRandom | 1<<NIRate |
	1<<DelayLagFloor | 1<<PreemptFlushDelayed

// yieldVariants are the mutually exclusive yield tokens.
const yieldVariants = 1<<YieldBumpDeadline | 1<<YieldClampDeadline | 1<<YieldForfeitAlways

// String returns the feature's debugfs name, e.g. "PLACE_LAG".
func (f Feature) String() string {
	if f < numFeatures {
		return names[f]
	}
	return fmt.Sprintf("Feature(%d)", uint8(f))
}

// Default reports the feature's default setting.
func (f Feature) Default() bool { return f < numFeatures && defaults&(1<<f) != 0 }

// Seed reports whether the feature is one of the seed-patch toggles rather
// than a kernel SCHED_FEAT.
func (f Feature) Seed() bool { return f >= DelayLagFloor && f < numFeatures }

// All returns every feature in declaration order: the kernel's, then the
// seed toggles.
func All() []Feature {
	all := make([]Feature, numFeatures)
	for i := range all {
		all[i] = Feature(i)
	}
	return all
}

// Lookup returns the feature named by its debugfs name (without a NO_ prefix).
func Lookup(name string) (Feature, bool) {
	for i, n := range names {
		if n == name {
			return Feature(i), true
		}
	}
	return 0, false
}

// Set is a set of enabled features. The zero value has every feature off.
type Set struct{ bits uint64 }

// Default returns the kernel's default feature set.
func Default() Set { return Set{defaults} }

// Preset returns the default feature set of a kernel version, as that
// kernel's features.h sets it: "v7.3" (the modelled kernel) and "v7.1" are
// Default; "v7.0" predates the seed patches 000 and 002 and NI_RATE, so it
// has NO_DELAY_LAG_FLOOR, NO_PREEMPT_FLUSH_DELAYED and NO_NI_RATE; "v6.18"
// also predates NI_RANDOM, "v6.12" PICK_BUDDY, and "v6.6" delayed dequeue,
// relative deadlines and PREEMPT_SHORT. A feature the version does not
// have is off (see Exists).
func Preset(kernel string) (Set, error) {
	switch kernel {
	case "v7.3", "v7.1":
		return Default(), nil
	case "v7.0":
		return Default().Without(DelayLagFloor, PreemptFlushDelayed, NIRate), nil
	case "v6.18":
		return Default().Without(DelayLagFloor, PreemptFlushDelayed, NIRate, NIRandom), nil
	case "v6.12":
		return Default().Without(DelayLagFloor, PreemptFlushDelayed, NIRate, NIRandom, PickBuddy), nil
	case "v6.6":
		return Default().Without(DelayLagFloor, PreemptFlushDelayed, NIRate, NIRandom, PickBuddy,
			PlaceRelDeadline, PreemptShort, DelayDequeue, DelayZero), nil
	}
	return Set{}, fmt.Errorf("features: unknown kernel preset %q (want v7.3, v7.1, v7.0, v6.18, v6.12 or v6.6)", kernel)
}

// Exists reports whether the kernel version's features.h has f. The seed
// toggles exist in every version: they are experiments, not SCHED_FEATs.
// v7.0 has no PARANOID_AVG and no NI_RATE; v6.18 also has no NI_RANDOM;
// v6.12 also has no PICK_BUDDY; v6.6 also has no PLACE_REL_DEADLINE,
// PREEMPT_SHORT, DELAY_DEQUEUE or DELAY_ZERO.
// An unknown version has none.
func Exists(kernel string, f Feature) bool {
	if f >= numFeatures {
		return false
	}
	if f.Seed() {
		return true
	}
	switch kernel {
	case "v7.3", "v7.1":
		return true
	case "v7.0":
		return f != ParanoidAvg && f != NIRate
	case "v6.18":
		return f != ParanoidAvg && f != NIRate && f != NIRandom
	case "v6.12":
		return f != ParanoidAvg && f != NIRate && f != NIRandom && f != PickBuddy
	case "v6.6":
		switch f {
		case ParanoidAvg, NIRate, NIRandom, PickBuddy, PlaceRelDeadline, PreemptShort, DelayDequeue, DelayZero:
			return false
		}
		return true
	}
	return false
}

// None returns the set with every feature off.
func None() Set { return Set{} }

// Has reports whether f is enabled.
func (s Set) Has(f Feature) bool { return f < numFeatures && s.bits&(1<<f) != 0 }

// With returns s with the given features enabled.
func (s Set) With(fs ...Feature) Set {
	for _, f := range fs {
		if f < numFeatures {
			s.bits |= 1 << f
		}
	}
	return s
}

// Without returns s with the given features disabled.
func (s Set) Without(fs ...Feature) Set {
	for _, f := range fs {
		if f < numFeatures {
			s.bits &^= 1 << f
		}
	}
	return s
}

// Toggle returns s with f set to on.
func (s Set) Toggle(f Feature, on bool) Set {
	if on {
		return s.With(f)
	}
	return s.Without(f)
}

// Len returns the number of enabled features.
func (s Set) Len() int { return bits.OnesCount64(s.bits) }

// Validate reports a combination of toggles that has no meaning: more than
// one yield variant.
func (s Set) Validate() error {
	if bits.OnesCount64(s.bits&yieldVariants) > 1 {
		var on []string
		for _, f := range []Feature{YieldBumpDeadline, YieldClampDeadline, YieldForfeitAlways} {
			if s.Has(f) {
				on = append(on, f.String())
			}
		}
		return fmt.Errorf("features: at most one yield variant may be set, got %s", strings.Join(on, " and "))
	}
	return nil
}

// String lists every feature in debugfs spelling, in declaration order,
// as the features file of debugfs prints them: "PLACE_LAG NO_NEXT_BUDDY ...".
func (s Set) String() string {
	var b strings.Builder
	for f := Feature(0); f < numFeatures; f++ {
		if f > 0 {
			b.WriteByte(' ')
		}
		if !s.Has(f) {
			b.WriteString("NO_")
		}
		b.WriteString(names[f])
	}
	return b.String()
}

// Diff returns the tokens that turn base into s, in declaration order, e.g.
// "NO_RUN_TO_PARITY PLACE_JOIN_LAG"; empty when they are equal. Parse(Diff)
// applied to base gives s back.
func (s Set) Diff(base Set) string {
	var toks []string
	for f := Feature(0); f < numFeatures; f++ {
		if s.Has(f) == base.Has(f) {
			continue
		}
		if s.Has(f) {
			toks = append(toks, names[f])
		} else {
			toks = append(toks, "NO_"+names[f])
		}
	}
	return strings.Join(toks, " ")
}

// Parse applies whitespace-separated debugfs tokens ("NO_RUN_TO_PARITY
// PLACE_LAG") to the kernel defaults. An unknown token is an error that
// lists the valid names; so is a set with two yield variants.
func Parse(tokens string) (Set, error) { return Default().Apply(tokens) }

// Apply applies whitespace-separated debugfs tokens to s, left to right.
func (s Set) Apply(tokens string) (Set, error) {
	for _, tok := range strings.Fields(tokens) {
		name, on := tok, true
		if rest, ok := strings.CutPrefix(tok, "NO_"); ok {
			name, on = rest, false
		}
		f, ok := Lookup(name)
		if !ok {
			return s, &UnknownError{Token: tok}
		}
		s = s.Toggle(f, on)
	}
	if err := s.Validate(); err != nil {
		return s, err
	}
	return s, nil
}

// UnknownError reports a token that names no feature. Parse and Apply
// return it (as *UnknownError) for the first such token.
type UnknownError struct {
	Token string // the token as written, with its NO_ prefix if any
}

// Error names the token and lists every valid feature name, sorted.
func (e *UnknownError) Error() string {
	valid := make([]string, 0, numFeatures)
	for _, n := range names {
		valid = append(valid, n)
	}
	sort.Strings(valid)
	return fmt.Sprintf("features: unknown feature %q; valid names (each may take a NO_ prefix): %s",
		e.Token, strings.Join(valid, " "))
}
