package smp

// schedRNG is one CPU's sched_rng: a Tausworthe LFSR113 combined generator,
// the algorithm of the kernel's prandom_u32_state. The kernel seeds it from
// its entropy pool at boot, so its values cannot be reproduced; here it is
// seeded from the System's seed and the CPU id (KERNEL-SPEC-SMP §7.1), and
// drawn only where the kernel draws it, in newly idle balancing.
type schedRNG struct {
	s1, s2, s3, s4 uint32
}

// newSchedRNG seeds a generator for cpu from seed. Each component gets
// bits from a splitmix64 stream, raised to the minimum its recurrence needs
// (2, 8, 16 and 128) so that none is stuck at zero.
func newSchedRNG(seed uint64, cpu int) schedRNG {
	x := seed ^ (uint64(cpu)+1)*0x9e3779b97f4a7c15
	next := func() uint32 {
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		return uint32((z ^ z>>31) >> 32)
	}
	r := schedRNG{next(), next(), next(), next()}
	if r.s1 < 2 {
		r.s1 += 2
	}
	if r.s2 < 8 {
		r.s2 += 8
	}
	if r.s3 < 16 {
		r.s3 += 16
	}
	if r.s4 < 128 {
		r.s4 += 128
	}
	return r
}

// next returns the next 32-bit value: four shift-register steps, xored.
func (r *schedRNG) next() uint32 {
	r.s1 = ((r.s1 & 0xfffffffe) << 18) ^ (((r.s1 << 6) ^ r.s1) >> 13)
	r.s2 = ((r.s2 & 0xfffffff8) << 2) ^ (((r.s2 << 2) ^ r.s2) >> 27)
	r.s3 = ((r.s3 & 0xfffffff0) << 7) ^ (((r.s3 << 13) ^ r.s3) >> 21)
	r.s4 = ((r.s4 & 0xffffff80) << 13) ^ (((r.s4 << 3) ^ r.s4) >> 12)
	return r.s1 ^ r.s2 ^ r.s3 ^ r.s4
}
