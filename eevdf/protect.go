package eevdf

// Slice protection: once picked, the running entity keeps the CPU until
// its vruntime reaches vprot, even if another entity's deadline is
// earlier (RUN_TO_PARITY); a shorter queued request cuts the protection.
//
// set_protect_slice and update_protect_slice are written at their only
// callers, a call fewer each: setNextTaskFair (pick.go) arms the
// protection, the wakeup check (wakeupPreempt, wakeup.go) shrinks it.

// protectSlice is protect_slice: se is protected while vruntime < vprot.
func protectSlice(se *SchedEntity) bool { return vBefore(se.vruntime, se.vprot) }

// cancelProtectSlice is cancel_protect_slice: end the protection now.
func cancelProtectSlice(se *SchedEntity) {
	if protectSlice(se) {
		se.vprot = se.vruntime
		se.shareVprot()
	}
}
