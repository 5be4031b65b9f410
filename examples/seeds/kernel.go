package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/schedmodel/fairclass/eevdf"
	"github.com/schedmodel/fairclass/features"
)

// The kernel presets (--kernel): which experiment a kernel can run, and
// why not where it cannot. An experiment that cannot run is printed as
// such, with every reason, and the others run; it is not an error.

// kernelHeader is what the first line of the output adds for kernel k:
// nothing for the modelled kernel, so that the default output stays as it
// was.
func kernelHeader(k eevdf.Kernel) string {
	if k == eevdf.KernelV73 {
		return ""
	}
	return ", kernel " + k.String()
}

// limit is one reason an experiment cannot run under a kernel.
type limit struct{ why string }

// kernelLimits returns why experiment id cannot run under kernel k, or nil
// if it can. The kernel's own reasons come first (KERNEL-SPEC-LTS): seeds
// 000 and 002 act on delayed dequeue and set custom slices, which v6.6
// lacks (Part I D4, D27); v6.12's wakeup check has no flush of delayed
// entities for seed 002's toggle to turn on (Part I D30); the yield of
// v6.18 and earlier kernels is always the deadline bump, which leaves seed
// 004's variants nothing to select (Part I D41, Part II §2.14). A kernel
// has its own reason exactly where the thread's toggle changes nothing in
// the replay of the thread's scenario under it (kernel_test.go).
func kernelLimits(id string, k eevdf.Kernel) []limit {
	var why []limit
	switch id {
	case "000", "002":
		if !features.Exists(k.String(), features.DelayDequeue) {
			why = append(why, limit{why: fmt.Sprintf("%v has no delayed dequeue, which the thread's patch acts on, and no custom slices "+
				"(sched_attr.sched_runtime), which the thread's cyclictest and hackbench set.", k)})
		}
		if id == "002" && k == eevdf.KernelV612 {
			why = append(why, limit{why: "v6.12's wakeup check has no flush of delayed entities (a delayed pick counts as " +
				"another task), so PREEMPT_FLUSH_DELAYED selects nothing there and the thread's sides would be one schedule."})
		}
	case "004":
		switch k {
		case eevdf.KernelV618, eevdf.KernelV612, eevdf.KernelV66:
			why = append(why, limit{why: fmt.Sprintf("the yield of %v always pushes the deadline one request further (YIELD_BUMP_DEADLINE is "+
				"that kernel's own yield), so the thread's four yield forms would be one schedule; v7.0 is the first preset "+
				"whose yield the toggles select.", k)})
		}
	}
	return why
}

// printNotRun prints an experiment's reasons for not running under k,
// each wrapped to the width of the rest of the output, a command on a line
// of its own.
func printNotRun(w io.Writer, k eevdf.Kernel, why []limit) {
	fmt.Fprintf(w, "not run under %v:\n", k)
	for _, l := range why {
		line := "  -"
		for _, word := range strings.Fields(l.why) {
			if len(line)+1+len(word) > 100 && strings.TrimSpace(line) != "-" {
				fmt.Fprintln(w, line)
				line = "   "
			}
			line += " " + word
		}
		fmt.Fprintln(w, line)
	}
}

// seedList names experiments for a sentence: "seed 003", "seeds 000
// and 002", "seeds 000, 002 and 003".
func seedList(ids []string) string {
	switch len(ids) {
	case 0:
		return "no seed"
	case 1:
		return "seed " + ids[0]
	}
	return "seeds " + strings.Join(ids[:len(ids)-1], ", ") + " and " + ids[len(ids)-1]
}
