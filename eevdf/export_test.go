package eevdf

// Test hooks for the external tests.

// SetVLag sets an entity's saved lag, as a worked example's "saved lag"
// column does. Only for entities that are not queued.
func SetVLag(se *SchedEntity, vlag int64) {
	if se.onRq {
		panic("SetVLag of a queued entity")
	}
	se.vlag = vlag
}
