package main

// clientRequest issues a valgrind client request (callgrind_amd64.s).
//
//go:noescape
func clientRequest(args *[6]uintptr) uintptr

// toggleCollect is CALLGRIND_TOGGLE_COLLECT: callgrind starts or stops
// counting (it is started with --collect-atstart=no). Outside valgrind
// it does nothing.
func toggleCollect() {
	const toolBase = uintptr('C')<<24 | uintptr('T')<<16 // VG_USERREQ_TOOL_BASE('C','T')
	args := [6]uintptr{toolBase + 2}
	clientRequest(&args)
}
